package apitrace

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/internal/testutil/zstdtest"
)

// containerTraces lists every trace of the shared fixtures and of
// testdata, one per file name (the shared copy first).
func containerTraces(t *testing.T) []string {
	t.Helper()
	var all []string
	for _, dir := range []string{testutil.SharedFixture(t, "apitrace"), "testdata", filepath.Join("testdata", "dump")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.trace"))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, files...)
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range all {
		if !seen[filepath.Base(f)] {
			seen[filepath.Base(f)] = true
			out = append(out, f)
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d traces", len(out))
	}
	return out
}

// realDumpOf returns what the real `apitrace dump` prints for trace.
func realDumpOf(t *testing.T, trace string) []byte {
	t.Helper()
	cmd := exec.Command(testutil.Tool(t, "apitrace"), "dump", "--color=never", trace)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		// A damaged trace: apitrace prints what it read and fails.
		t.Logf("apitrace dump %s: %v: %s", filepath.Base(trace), err, stderr.Bytes())
	}
	return out.Bytes()
}

// ourDump dumps the trace file name and checks its container.
func ourDump(t *testing.T, name string, want Container) []byte {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	cr, err := NewCallReader(f)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil // cut inside the header: apitrace prints nothing either
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got := cr.Header().Container; got != want {
		t.Errorf("%s: container %v, want %v", name, got, want)
	}
	d := NewDumper(&out, DumpOptions{})
	if err := d.dumpCalls(cr); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Logf("%s: %v", filepath.Base(name), err)
	}
	return out.Bytes()
}

// cached returns the file that make writes, kept under the system's
// temporary directory by key: Brotli at quality 11 takes minutes on the
// largest fixture.
func cached(t *testing.T, key string, make func(path string)) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), "tracefmt-apitrace-containers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, key)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := filepath.Join(t.TempDir(), "out")
	make(tmp)
	data, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileKey(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// TestBrotliAgainstApitrace repacks every trace with the real `apitrace
// repack --brotli` at qualities 1, 5 and 11 and checks that our dump of it
// is the real dump of the original.
func TestBrotliAgainstApitrace(t *testing.T) {
	tool := testutil.Tool(t, "apitrace")
	for _, trace := range containerTraces(t) {
		t.Run(filepath.Base(trace), func(t *testing.T) {
			want := realDumpOf(t, trace)
			key := fileKey(t, trace)
			for _, q := range []int{1, 5, 11} {
				if st, _ := os.Stat(trace); q == 11 && st.Size() > 1<<20 && testing.Short() {
					t.Logf("quality 11 skipped in -short mode")
					continue
				}
				br := cached(t, fmt.Sprintf("%s.brotli%d.trace", key, q), func(out string) {
					cmd := exec.Command(tool, "repack", fmt.Sprintf("--brotli=%d", q), trace, out)
					if msg, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("apitrace repack: %v: %s", err, msg)
					}
				})
				got := ourDump(t, br, Brotli)
				testutil.DiffText(t, fmt.Sprintf("%s at quality %d", filepath.Base(trace), q), want, got)
			}
		})
	}
}

// traceStreamOf returns the decompressed stream of a trace file, as far as
// it goes.
func traceStreamOf(t *testing.T, trace string) []byte {
	t.Helper()
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := stream(t, data)
	return s
}

// TestZstdAgainstApitrace checks that every trace, its stream made into a
// seekable zstd file as apitrace master makes it (2 MiB frames, each
// compressed by the zstd command, then the seek table) and into a plain
// zstd stream, dumps as the real apitrace dumps the original.
func TestZstdAgainstApitrace(t *testing.T) {
	for _, trace := range containerTraces(t) {
		t.Run(filepath.Base(trace), func(t *testing.T) {
			want := realDumpOf(t, trace)
			s := traceStreamOf(t, trace)
			dir := t.TempDir()
			for _, tc := range []struct {
				name string
				data []byte
				c    Container
			}{
				{"seekable", zstdtest.Seekable(t, s, zstdtest.FrameSize, false, "-3"), ZstdSeekable},
				{"seekable-64k-sums", zstdtest.Seekable(t, s, 64<<10, true, "-19"), ZstdSeekable},
				{"stream", zstdtest.Pipe(t, s, "-3"), Zstd},
			} {
				name := filepath.Join(dir, tc.name+".trace")
				if err := os.WriteFile(name, tc.data, 0o644); err != nil {
					t.Fatal(err)
				}
				testutil.DiffText(t, tc.name, want, ourDump(t, name, tc.c))
			}
		})
	}
}

// atLog is a seekable input that records the offsets read through ReadAt.
type atLog struct {
	*bytes.Reader
	reads []int64
}

func (a *atLog) ReadAt(p []byte, off int64) (int, error) {
	a.reads = append(a.reads, off)
	return a.Reader.ReadAt(p, off)
}

// seekCallTexts reads up to n calls (all when n < 0) and returns their text.
func seekCallTexts(t *testing.T, cr *CallReader, n int) []string {
	t.Helper()
	d := NewDumper(io.Discard, DumpOptions{})
	var out []string
	for n < 0 || len(out) < n {
		c, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(d.AppendCall(nil, c)))
	}
	return out
}

// TestSeekableSeekFrame seeks to frames of a seekable zstd trace through
// the frame index and compares what follows with a sequential read; the
// seek decodes from the zstd frame holding the position, not from the
// start.
func TestSeekableSeekFrame(t *testing.T) {
	trace := testutil.SharedFixture(t, "apitrace/glxgears-20s.trace")
	if testing.Short() {
		trace = filepath.Join("testdata", "tri_glsl.trace")
	}
	s := traceStreamOf(t, trace)
	frameSize := zstdtest.FrameSize
	if len(s) < 4*frameSize {
		frameSize = len(s)/5 + 1
	}
	file := zstdtest.Seekable(t, s, frameSize, false, "-3")

	// The sequential read, from the snappy original: every call's text,
	// and how many calls come before each frame.
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	snappyIdx, err := seq.Index()
	if err != nil {
		t.Fatal(err)
	}
	seq, _ = NewCallReader(bytes.NewReader(data))
	all := seekCallTexts(t, seq, -1)

	in := &atLog{Reader: bytes.NewReader(file)}
	cr, err := NewCallReader(in)
	if err != nil {
		t.Fatal(err)
	}
	if c := cr.Header().Container; c != ZstdSeekable {
		t.Fatalf("container %v", c)
	}
	idx, err := cr.Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Frames) != len(snappyIdx.Frames) || idx.Calls != snappyIdx.Calls {
		t.Fatalf("index: %d frames, %d calls; snappy's: %d, %d", len(idx.Frames), idx.Calls, len(snappyIdx.Frames), snappyIdx.Calls)
	}
	zframes := cr.r.src.(*seekableSource).frames
	if len(zframes) < 3 {
		t.Fatalf("only %d zstd frames", len(zframes))
	}
	// Calls read before each frame, counted as Index counts them.
	before := make([]int, len(idx.Frames))
	for i, p := range idx.Frames {
		if p.Offset != snappyIdx.Frames[i].Offset || p.Call != snappyIdx.Frames[i].Call {
			t.Fatalf("frame %d at %+v, snappy's at %+v", i, p, snappyIdx.Frames[i])
		}
		before[i] = int(p.Call) // one thread: calls leave in enter order
	}
	// The end of the trace, where Index leaves the reader, is a position
	// too.
	end, ok := cr.r.Position()
	if !ok {
		t.Fatal("no position at the end")
	}
	if err := cr.Seek(end); err != nil {
		t.Fatalf("seek to the end %+v: %v", end, err)
	}
	if c, err := cr.Read(); err != io.EOF {
		t.Fatalf("after a seek to the end: %v, %v", c, err)
	}
	last := len(idx.Frames) - 1
	for _, n := range []int{last, 0, 1, last / 3, last / 2, last - 1} {
		p := idx.Frames[n]
		in.reads = in.reads[:0]
		if err := cr.SeekFrame(idx, n); err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
		got := seekCallTexts(t, cr, 500)
		want := all[before[n]:min(len(all), before[n]+500)]
		if len(got) != len(want) {
			t.Fatalf("frame %d: %d calls after the seek, want %d", n, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("frame %d, call %d after the seek:\n got %q\nwant %q", n, i, got[i], want[i])
			}
		}
		for _, off := range in.reads {
			if off < p.Chunk {
				t.Fatalf("frame %d (zstd frame at %d): read at %d, before the frame", n, p.Chunk, off)
			}
		}
	}
}

// seekableTrace returns a small seekable zstd trace of several frames and
// its seek table.
func seekableTrace(t *testing.T) ([]byte, []zstd.Frame) {
	t.Helper()
	s := traceStreamOf(t, filepath.Join("testdata", "glxinfo-brief.trace"))
	file := zstdtest.Seekable(t, s, 32<<10, false, "-3")
	sk, err := zstd.OpenSeekable(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	return file, sk.Frames()
}

// readAllEvents reads a trace whole and returns the error that ended it.
func readAllEvents(in io.Reader, limit func(*Reader)) error {
	var r Reader
	if limit != nil {
		limit(&r)
	}
	if err := r.Reset(in); err != nil {
		return err
	}
	for {
		if _, err := r.Read(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

func TestSeekableBadInput(t *testing.T) {
	file, frames := seekableTrace(t)
	// The seek table's entries start after the skippable frame header.
	n := len(frames)
	tableAt := len(file) - 9 - 8*n
	entry := func(i int) int { return tableAt + 8*i }
	patch := func(at int, v uint32) []byte {
		b := bytes.Clone(file)
		binary.LittleEndian.PutUint32(b[at:], v)
		return b
	}
	// A seek table that does not describe the file is of no use: the file
	// reads as through an input that cannot seek.
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"frame past the file", patch(entry(0), uint32(len(file)))},
		{"frame count past the file", patch(len(file)-9, 1<<30)},
		{"cut frame", append(bytes.Clone(file[:frames[1].Offset+10]), file[len(file)-9-8*n-8:]...)},
		{"frame over the window limit", patch(entry(1)+4, 1<<32-1)},
	} {
		err := readAllEvents(bytes.NewReader(tc.data), nil)
		plain := readAllEvents(io.MultiReader(bytes.NewReader(tc.data)), nil)
		if fmt.Sprint(err) != fmt.Sprint(plain) {
			t.Errorf("%s: %v, read as a plain stream %v", tc.name, err, plain)
		}
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		want  error
		chunk int64 // the frame at fault, -1 for none
		limit func(*Reader)
	}{
		{"content size lie", patch(entry(2)+4, uint32(frames[2].DataSize+1)), zstd.ErrCorrupt, frames[2].Offset, nil},
		{"frame over the limit", file, ErrTooLarge, frames[0].Offset, func(r *Reader) { r.MaxChunkSize = 1 << 10 }},
	} {
		err := readAllEvents(bytes.NewReader(tc.data), tc.limit)
		var fe *FormatError
		if !errors.As(err, &fe) || !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want a *FormatError wrapping %v", tc.name, err, tc.want)
			continue
		}
		if tc.chunk >= 0 && fe.Chunk != tc.chunk {
			t.Errorf("%s: chunk %d, want the frame at %d (%v)", tc.name, fe.Chunk, tc.chunk, err)
		}
		var ze *zstd.FormatError
		if tc.want != ErrTooLarge && !errors.As(err, &ze) {
			t.Errorf("%s: %v carries no zstd offset", tc.name, err)
		}
		t.Logf("%s: %v", tc.name, err)
	}
}

// TestContainerTruncations cuts Brotli and zstd traces at every byte: every
// cut ends cleanly or with a *FormatError, never a panic.
func TestContainerTruncations(t *testing.T) {
	s := traceStreamOf(t, filepath.Join("testdata", "incomplete-call.trace"))
	tool := testutil.Tool(t, "brotli")
	cmd := exec.Command(tool, "-c", "-q", "11")
	cmd.Stdin = bytes.NewReader(s)
	br, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"brotli":   br,
		"zstd":     zstdtest.Pipe(t, s, "-19"),
		"seekable": zstdtest.Seekable(t, s, 256, true, "-3"),
	} {
		t.Run(name, func(t *testing.T) {
			if err := readAllEvents(bytes.NewReader(data), nil); err != nil {
				t.Fatal(err)
			}
			for cut := 0; cut < len(data); cut++ {
				// A cut may end cleanly: a seekable file cut just
				// before its seek table is a plain zstd stream.
				err := readAllEvents(bytes.NewReader(data[:cut]), nil)
				var fe *FormatError
				if err != nil && !errors.As(err, &fe) {
					t.Fatalf("cut at %d: %v (%T), want a *FormatError", cut, err, err)
				}
			}
		})
	}
}

// TestInfoContainers checks the container names info gives, Brotli's
// against the real apitrace info.
func TestInfoContainers(t *testing.T) {
	trace := filepath.Join("testdata", "glxinfo-brief.trace")
	br := cached(t, fileKey(t, trace)+".brotli5.trace", func(out string) {
		cmd := exec.Command(testutil.Tool(t, "apitrace"), "repack", "--brotli=5", trace, out)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("apitrace repack: %v: %s", err, msg)
		}
	})
	checkRealInfo(t, br)
	s := traceStreamOf(t, trace)
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"Zstandard (seekable)": zstdtest.Seekable(t, s, zstdtest.FrameSize, false, "-3"),
		"Zstandard":            zstdtest.Pipe(t, s, "-3"),
	} {
		path := filepath.Join(dir, strings.Fields(name)[0]+fmt.Sprint(len(data)))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		info, err := ReadInfoFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		if info.ContainerType != name || info.ContainerSize != int64(len(data)) || info.ActualDataSize != int64(len(s)) {
			t.Errorf("%s: %q, sizes %d %d, want %d %d", name, info.ContainerType, info.ContainerSize, info.ActualDataSize, len(data), len(s))
		}
	}
}

// TestFuzzReaderContainerSeeds checks that the Brotli and zstd seeds of
// FuzzReader (made by apitrace repack --brotli and the zstd command) read
// whole, so that the fuzzer starts from valid files.
func TestFuzzReaderContainerSeeds(t *testing.T) {
	for name, want := range map[string]Container{
		"brotli-incomplete-call":        Brotli,
		"zstd-incomplete-call":          Zstd,
		"zstd-seekable-incomplete-call": ZstdSeekable,
	} {
		text, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzReader", name))
		if err != nil {
			t.Fatal(err)
		}
		_, quoted, _ := strings.Cut(strings.TrimSpace(string(text)), "[]byte(")
		data, err := strconv.Unquote(strings.TrimSuffix(quoted, ")"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := NewReader(strings.NewReader(data))
		if err != nil || r.Header().Container != want {
			t.Fatalf("%s: %v, container %v", name, err, r.Header().Container)
		}
		if err := readAllEvents(strings.NewReader(data), nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestContainerAllocs checks that reading events from Brotli and zstd
// traces allocates nothing once the buffers have grown, as from snappy.
func TestContainerAllocs(t *testing.T) {
	trace := testutil.SharedFixture(t, "apitrace/glxgears-20s.trace")
	s := traceStreamOf(t, trace)
	cmd := exec.Command(testutil.Tool(t, "brotli"), "-c", "-q", "1")
	cmd.Stdin = bytes.NewReader(s)
	br, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"brotli", br},
		{"zstd", zstdtest.Pipe(t, s, "-3")},
		{"seekable", zstdtest.Seekable(t, s, zstdtest.FrameSize, false, "-3")},
	} {
		r, err := NewReader(bytes.NewReader(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		// Warm up over more than one piece of the container.
		for i := 0; i < 200000; i++ {
			if _, err := r.Read(); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(200000, func() {
			if _, err := r.Read(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per event", tc.name, allocs)
		}
	}
}

// TestBrotliCutAgainstApitrace cuts a real Brotli trace at a few places:
// our dump prints what the real apitrace dump prints for the cut file.
func TestBrotliCutAgainstApitrace(t *testing.T) {
	data := testutil.ReadFile(t, testutil.SharedFixture(t, "apitrace/glxinfo-brief.brotli.trace"))
	dir := t.TempDir()
	for _, n := range []int{3, 1000, len(data) / 3, len(data) / 2, len(data) - 100, len(data) - 1} {
		name := filepath.Join(dir, fmt.Sprintf("cut%d.trace", n))
		if err := os.WriteFile(name, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		testutil.DiffText(t, filepath.Base(name), realDumpOf(t, name), ourDump(t, name, Brotli))
	}
}
