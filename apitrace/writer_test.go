package apitrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// stream returns the decompressed stream of a trace file, and the error that
// ended it (nil at a clean end).
func stream(t testing.TB, data []byte) ([]byte, error) {
	src, _, err := openContainer(bytes.NewReader(data), nil, DefaultMaxChunkSize)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for {
		out, err = src.fill(out)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// rewrite reads every event of data and writes it back with container c.
// It returns the new file and the stream offset where reading stopped.
func rewrite(t testing.TB, data []byte, c Container) ([]byte, int64) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	h.Container = c
	var out bytes.Buffer
	w, err := NewWriter(&out, h)
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatal(err)
			}
			break
		}
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), r.Offset()
}

func TestRoundTrip(t *testing.T) {
	for _, f := range fixtures {
		for _, c := range []Container{Snappy, Gzip} {
			t.Run(f.name+"/"+c.String(), func(t *testing.T) {
				if f.shared && (testing.Short() || c == Gzip) {
					t.Skip("large: the snappy run covers it")
				}
				data := readFixture(t, f)
				want, _ := stream(t, data)
				out, end := rewrite(t, data, c)
				if got, _ := Detect(out); got != c {
					t.Fatalf("wrote container %v", got)
				}
				got, err := stream(t, out)
				if err != nil {
					t.Fatal(err)
				}
				if f.truncated {
					// The stream up to the last whole event.
					want = want[:end]
				}
				if !bytes.Equal(got, want) {
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					t.Fatalf("stream differs at offset %d of %d (wrote %d)", i, len(want), len(got))
				}
				if c == Snappy {
					checkChunks(t, out)
					// Our writer is deterministic: the same events give
					// the same file.
					if again, _ := rewrite(t, data, c); !bytes.Equal(again, out) {
						t.Fatal("two rewrites differ")
					}
				}
			})
		}
	}
}

// checkChunks asserts that every chunk but the last holds exactly 1 MiB.
func checkChunks(t *testing.T, data []byte) {
	sizes := []int{}
	for off := 2; off < len(data); {
		n := int(uint32(data[off]) | uint32(data[off+1])<<8 | uint32(data[off+2])<<16 | uint32(data[off+3])<<24)
		got, err := stream(t, append([]byte("at"), data[off:off+4+n]...))
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(got))
		off += 4 + n
	}
	for i, s := range sizes {
		if s > DefaultChunkSize || i < len(sizes)-1 && s != DefaultChunkSize {
			t.Fatalf("chunk sizes %v", sizes)
		}
	}
}

// TestRealDump writes each fixture back through our Writer (snappy and
// gzip) and checks that the real `apitrace dump` prints the same for the
// copy as for the original.
func TestRealDump(t *testing.T) {
	tool := testutil.Tool(t, "apitrace")
	dir := t.TempDir()
	for _, f := range fixtures {
		if f.shared && testing.Short() {
			continue
		}
		for _, c := range []Container{Snappy, Gzip} {
			if f.shared && c == Gzip {
				continue // large: the snappy run covers it
			}
			t.Run(f.name+"/"+c.String(), func(t *testing.T) {
				data := readFixture(t, f)
				orig := fixturePath(t, f)
				out, _ := rewrite(t, data, c)
				copyPath := filepath.Join(dir, c.String()+"-"+f.name)
				if err := os.WriteFile(copyPath, out, 0o644); err != nil {
					t.Fatal(err)
				}
				want := realDump(t, tool, orig)
				got := realDump(t, tool, copyPath)
				testutil.DiffText(t, "apitrace dump", want, got)
			})
		}
	}
}

func realDump(t *testing.T, tool, path string) []byte {
	cmd := exec.Command(tool, "dump", "--color=never", "-v", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// apitrace exits non-zero on a truncated file after printing what it
	// read; the printed text is what we compare.
	_ = cmd.Run()
	if stdout.Len() == 0 {
		t.Fatalf("apitrace dump %s printed nothing: %s", path, stderr.Bytes())
	}
	return stdout.Bytes()
}

func TestWriterRefuses(t *testing.T) {
	for _, h := range []Header{
		{Version: 7},
		{Version: 6, SemanticVersion: 7},
		{Version: 5, Properties: []Property{{"a", "b"}}},
		{Version: 6, Properties: []Property{{"", "b"}}},
		{Version: 6, Container: Brotli},
	} {
		if _, err := NewWriter(io.Discard, h); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v", h, err)
		}
	}
	sig := &FunctionSig{ID: 7, Name: "f", ArgNames: []string{"x"}}
	st := &StructSig{ID: 1, Name: "S", Members: []string{"a", "b"}}
	for name, ev := range map[string]Event{
		"no signature":  {Kind: Enter},
		"no value":      {Kind: Enter, Sig: sig, Args: []Arg{{Index: 0}}},
		"struct arity":  {Kind: Enter, Sig: sig, Args: []Arg{{Value: Struct(st, Uint(1))}}},
		"enum no sig":   {Kind: Enter, Sig: sig, Args: []Arg{{Value: Enum(nil, 0)}}},
		"bad kind":      {Kind: Enter, Sig: sig, Ret: Scalar(99, 0)},
		"negative arg":  {Kind: Enter, Sig: sig, Args: []Arg{{Index: -1, Value: Null()}}},
		"bad event":     {Kind: 7},
		"v3 thread bug": {Kind: Enter, Sig: sig},
	} {
		h := Header{Version: 6, SemanticVersion: 6}
		if name == "v3 thread bug" {
			h = Header{Version: 3, SemanticVersion: 3}
			ev.Thread = 2
		}
		w, err := NewWriter(io.Discard, h)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&ev); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
		if err := w.Write(&Event{Kind: Leave}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error not sticky: %v", name, err)
		}
	}
	for _, size := range []int{DefaultChunkSize + 1, -5} {
		w, _ := NewWriter(io.Discard, Header{Version: 6})
		w.ChunkSize = size
		if err := w.Write(&Event{Kind: Enter, Sig: &FunctionSig{Name: "f"}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("chunk size %d, not 0", size)) {
			t.Errorf("chunk size %d: %v", size, err)
		}
	}
}

// TestWriteValues writes every value kind by hand, version 6 and 2, and
// reads them back.
func TestWriteValues(t *testing.T) {
	en := &EnumSig{ID: 3, Values: []EnumValue{{"GL_FALSE", 0}, {"NEG", -5}}}
	bm := &BitmaskSig{ID: 4, Flags: []BitmaskFlag{{"ZERO", 0}, {"A", 1}, {"B", 2}}}
	st := &StructSig{ID: 5, Name: "S", Members: []string{"x", ""}}
	inner := &StructSig{ID: 6, Name: "T", Members: []string{"y", "z"}}
	fr := &Frame{ID: 0, Has: HasModule | HasLine | HasOffset, Module: "/lib/x.so", Offset: 0x1234}
	sig := &FunctionSig{ID: 9, Name: "f", ArgNames: []string{"a", "b", "c"}}
	vals := []Value{
		Null(), Bool(false), Bool(true), Int(-7), Int(7), Uint(1 << 63), Float32(1.5), Float64(-2.25),
		String([]byte("hé\x00llo")), Blob([]byte{0, 1, 2}), Blob(nil), Pointer(0xdeadbeef),
		Enum(en, -5),
		Bitmask(bm, 3),
		Array(Uint(1), Array()),
		Struct(st, Int(-1), Struct(inner, Null(), Null())),
		Repr(String([]byte("h")), Blob([]byte("m"))),
		WString(Uint('h'), Uint(0x10ffff)),
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6, Properties: []Property{{"process.name", "/bin/x"}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if err := w.Write(&Event{Kind: Enter, Call: uint64(i), Thread: 1, Sig: sig, Flags: FlagFake, Backtrace: []*Frame{fr}, Args: []Arg{{Index: 1, Value: v}}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Event{Kind: Leave, Call: uint64(i), Args: []Arg{{Index: 2, Value: v}}, Ret: v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cr, err := NewCallReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := cr.Header().Properties; len(got) != 1 || got[0].Value != "/bin/x" {
		t.Fatalf("properties %v", got)
	}
	for i, v := range vals {
		c, err := cr.Read()
		if err != nil {
			t.Fatal(err)
		}
		if c.No != uint64(i) || c.Thread != 1 || c.Flags != FlagFake || len(c.Backtrace) != 1 || !equalFrame(c.Backtrace[0], fr) || len(c.Args) != 3 {
			t.Fatalf("call %d: %+v", i, c)
		}
		want := v.Clone()
		for _, got := range []Value{c.Args[1], c.Args[2], c.Ret} {
			testutil.Diff(t, "value "+v.Kind().String(), render(want), render(got.Clone()))
		}
		if c.Args[0].Kind() != KindNone {
			t.Fatalf("arg 0 filled: %v", c.Args[0])
		}
	}
	if _, err := cr.Read(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

// render spells a value tree out, signatures by id and content, for
// comparisons.
func render(v Value) string {
	var sb strings.Builder
	valueText(&sb, &v, byID|byContent)
	return sb.String()
}

func equalFrame(a, b *Frame) bool {
	x, y := *a, *b
	x.def, y.def = 0, 0
	return x == y
}

// TestRealDumpDropped drops the enter events of some calls with the event
// Writer, leaving their leave events in, and checks with the real
// `apitrace dump` that no call of the copy is incomplete that was complete
// in the original and that it holds as many calls as were kept.
func TestRealDumpDropped(t *testing.T) {
	tool := testutil.Tool(t, "apitrace")
	dir := t.TempDir()
	for _, name := range []string{"glxsimple.trace", "threads.trace", "incomplete-call.trace", "tri.trace"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			data := testutil.ReadFile(t, path)
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			w, err := NewWriter(&buf, r.Header())
			if err != nil {
				t.Fatal(err)
			}
			for ev, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				if ev.Kind == Enter && ev.Call%2 == 1 {
					continue // its leave is written and must be dropped
				}
				if err := w.Write(ev); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			copyPath := filepath.Join(dir, name)
			if err := os.WriteFile(copyPath, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			countCalls := func(dump []byte) (calls, incomplete int) {
				for _, line := range strings.Split(string(dump), "\n") {
					if line != "" && line[0] >= '0' && line[0] <= '9' {
						calls++
						if strings.HasSuffix(line, "// incomplete") {
							incomplete++
						}
					}
				}
				return calls, incomplete
			}
			_, wantIncomplete := countCalls(realDumpFlat(t, tool, path))
			gotCalls, gotIncomplete := countCalls(realDumpFlat(t, tool, copyPath))
			if gotIncomplete > wantIncomplete || uint64(gotCalls) != w.Calls() {
				t.Errorf("apitrace dump: %d calls (%d incomplete), want %d (at most %d incomplete)", gotCalls, gotIncomplete, w.Calls(), wantIncomplete)
			}
		})
	}
}

func realDumpFlat(t *testing.T, tool, path string) []byte {
	cmd := exec.Command(tool, "dump", "--color=never", "--multiline=no", "-v", path)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	_ = cmd.Run()
	return stdout.Bytes()
}

// TestRealDumpMerged writes the calls of two traces made by different
// apitrace versions (stream versions 6 and 4), whose signature ids clash,
// into one trace with the
// CallWriter, and checks with the real `apitrace dump` that it prints the
// calls of the first, then those of the second.
func TestRealDumpMerged(t *testing.T) {
	tool := testutil.Tool(t, "apitrace")
	first, second := filepath.Join("testdata", "glxinfo-brief-backtrace.trace"), filepath.Join("testdata", "glxsimple.trace")
	var buf bytes.Buffer
	var w *CallWriter
	for _, path := range []string{first, second} {
		cr, err := NewCallReader(bytes.NewReader(testutil.ReadFile(t, path)))
		if err != nil {
			t.Fatal(err)
		}
		if w == nil {
			if w, err = NewCallWriter(&buf, cr.Header()); err != nil {
				t.Fatal(err)
			}
		}
		for c, err := range cr.All() {
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(w.w.funcs.alias) == 0 {
		t.Fatal("no function signature clashed: the test does not test renumbering")
	}
	merged := filepath.Join(t.TempDir(), "merged.trace")
	if err := os.WriteFile(merged, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := func(path string) string {
		cmd := exec.Command(tool, "dump", "--color=never", "--multiline=no", "--call-nos=no", "-v", path)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("apitrace dump %s: %v", path, err)
		}
		var lines []string
		for _, line := range strings.SplitAfter(string(out), "\n") {
			if !strings.HasPrefix(line, "// ") {
				lines = append(lines, line)
			}
		}
		return strings.Join(lines, "")
	}
	testutil.DiffText(t, "apitrace dump of the merged trace", []byte(calls(first)+calls(second)), []byte(calls(merged)))
}
