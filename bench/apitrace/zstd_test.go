package apitrace_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	kzstd "github.com/klauspost/compress/zstd"
	ours "github.com/tracefmt/tracefmt/apitrace/snappy"
	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// zstdInput is one benchmark input: the raw bytes and their compression
// by the zstd command.
type zstdInput struct {
	name string
	raw  []byte
	comp []byte
}

var (
	zstdOnce   sync.Once
	zstdInputs []zstdInput
	zstdErr    error
)

// rawStreams returns the decompressed apitrace streams of the snappy
// traces and a small corpus of real files (Go sources and a binary of the
// Go distribution), each cut to at most 16 MiB.
func rawStreams(tb testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for name, blks := range blocks(tb) {
		var raw []byte
		for _, b := range blks {
			d, err := ours.Decode(nil, b, 0)
			if err != nil {
				tb.Fatal(err)
			}
			raw = append(raw, d...)
		}
		out["apitrace-"+name] = raw
	}
	goroot := runtime.GOROOT()
	var src []byte
	files, _ := filepath.Glob(filepath.Join(goroot, "src", "runtime", "*.go"))
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil {
			src = append(src, b...)
		}
	}
	if len(src) > 0 {
		out["corpus-gosrc"] = src
	}
	if b, err := os.ReadFile(filepath.Join(goroot, "bin", "gofmt")); err == nil {
		out["corpus-gofmt"] = b
	}
	for k, v := range out {
		if len(v) > 16<<20 {
			out[k] = v[:16<<20]
		}
	}
	return out
}

// zstdCompress runs the zstd command on raw. Results are cached in the
// temporary directory, keyed by the input's hash and the arguments, since
// level 19 takes a while.
func zstdCompress(raw []byte, args ...string) ([]byte, error) {
	key := sha256.Sum256(append(append([]byte{}, raw...), strings.Join(args, " ")...))
	cache := filepath.Join(os.TempDir(), "tracefmt-zstd-bench", hex.EncodeToString(key[:12])+".zst")
	if b, err := os.ReadFile(cache); err == nil {
		return b, nil
	}
	b, err := runZstd(raw, args...)
	if err == nil && os.MkdirAll(filepath.Dir(cache), 0o755) == nil {
		os.WriteFile(cache, b, 0o644)
	}
	return b, err
}

func runZstd(raw []byte, args ...string) ([]byte, error) {
	cmd := exec.Command("zstd", append([]string{"-q", "-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(raw)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	return out.Bytes(), err
}

// inputs compresses every raw stream at level 3 (what apitrace writes)
// and 19.
func inputs(tb testing.TB) []zstdInput {
	if _, err := exec.LookPath("zstd"); err != nil {
		tb.Skip("zstd command not installed")
	}
	raws := rawStreams(tb)
	zstdOnce.Do(func() {
		names := make([]string, 0, len(raws))
		for k := range raws {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, name := range names {
			for _, level := range []string{"-3", "-19"} {
				c, err := zstdCompress(raws[name], level)
				if err != nil {
					zstdErr = err
					return
				}
				zstdInputs = append(zstdInputs, zstdInput{name + "/level" + level[1:], raws[name], c})
			}
		}
	})
	if zstdErr != nil {
		tb.Fatal(zstdErr)
	}
	return zstdInputs
}

// TestZstdAgree checks that our decoder and klauspost's give the input
// back for every benchmark input.
func TestZstdAgree(t *testing.T) {
	kd, _ := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1))
	defer kd.Close()
	for _, in := range inputs(t) {
		zr, err := zstd.NewReader(bytes.NewReader(in.comp))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, in.raw) {
			t.Errorf("%s: ours differs (%v)", in.name, err)
		}
		theirs, err := kd.DecodeAll(in.comp, nil)
		if err != nil || !bytes.Equal(theirs, in.raw) {
			t.Errorf("%s: klauspost differs (%v)", in.name, err)
		}
	}
}

// BenchmarkZstdDecode measures each decoder alone, streaming into
// io.Discard (both through WriteTo), klauspost without goroutines.
func BenchmarkZstdDecode(b *testing.B) {
	for _, in := range inputs(b) {
		b.Run(in.name+"/ours", func(b *testing.B) {
			var zr zstd.Reader
			br := bytes.NewReader(nil)
			b.SetBytes(int64(len(in.raw)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				br.Reset(in.comp)
				if err := zr.Reset(br); err != nil {
					b.Fatal(err)
				}
				if _, err := zr.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/klauspost", func(b *testing.B) {
			kd, _ := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1))
			defer kd.Close()
			b.SetBytes(int64(len(in.raw)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := kd.Reset(bytes.NewReader(in.comp)); err != nil {
					b.Fatal(err)
				}
				if _, err := kd.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkZstdSideBySide alternates the decoders stream by stream on one
// locked thread, timing each by the thread's CPU time so that the shared
// machine's load falls on neither: ours streaming (WriteTo), klauspost
// streaming (WriteTo, one goroutine) and klauspost's DecodeAll into a
// reused buffer. ratio-stream and ratio-all are ours' throughput over
// theirs.
func BenchmarkZstdSideBySide(b *testing.B) {
	for _, in := range inputs(b) {
		b.Run(in.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var zr zstd.Reader
			kd, _ := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1))
			defer kd.Close()
			dst := make([]byte, 0, len(in.raw))
			b.SetBytes(int64(len(in.raw)))
			b.ReportAllocs()
			var tOurs, tStream, tAll time.Duration
			for i := 0; i < b.N; i++ {
				t0 := threadCPU()
				if err := zr.Reset(bytes.NewReader(in.comp)); err != nil {
					b.Fatal(err)
				}
				if _, err := zr.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
				t1 := threadCPU()
				if err := kd.Reset(bytes.NewReader(in.comp)); err != nil {
					b.Fatal(err)
				}
				if _, err := kd.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
				t2 := threadCPU()
				if _, err := kd.DecodeAll(in.comp, dst[:0]); err != nil {
					b.Fatal(err)
				}
				t3 := threadCPU()
				tOurs += t1 - t0
				tStream += t2 - t1
				tAll += t3 - t2
			}
			n := float64(len(in.raw)) * float64(b.N)
			b.ReportMetric(n/tOurs.Seconds()/1e6, "ours-MB/s")
			b.ReportMetric(n/tStream.Seconds()/1e6, "kstream-MB/s")
			b.ReportMetric(n/tAll.Seconds()/1e6, "kall-MB/s")
			b.ReportMetric(tStream.Seconds()/tOurs.Seconds(), "ratio-stream")
			b.ReportMetric(tAll.Seconds()/tOurs.Seconds(), "ratio-all")
		})
	}
}

// FuzzZstdAgree decodes arbitrary input with both decoders: when both
// succeed they must give the same bytes, and what klauspost's accepts
// ours must accept too. Seeds are frames of the zstd command.
func FuzzZstdAgree(f *testing.F) {
	if _, err := exec.LookPath("zstd"); err != nil {
		f.Skip("zstd command not installed")
	}
	text := bytes.Repeat([]byte("glXSwapBuffers(dpy = 0x5581, drawable = 77594626)\n"), 40)
	for _, level := range []string{"-1", "-9", "-19"} {
		for _, check := range []string{"--check", "--no-check"} {
			c, err := runZstd(text, level, check)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(c)
		}
	}
	kd, _ := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1), kzstd.WithDecoderMaxMemory(16<<20), kzstd.WithDecoderMaxWindow(1<<20))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, kerr := kd.DecodeAll(data, nil)
		zr := &zstd.Reader{MaxWindow: 1 << 20}
		var got []byte
		err := zr.Reset(bytes.NewReader(data))
		if err == io.EOF {
			err = nil
		} else if err == nil {
			var buf bytes.Buffer
			_, err = io.Copy(&buf, io.LimitReader(zr, 16<<20))
			got = buf.Bytes()
		}
		if kerr == nil && err != nil && len(want) < 16<<20 {
			t.Fatalf("klauspost decodes %d bytes, ours fails: %v", len(want), err)
		}
		if kerr == nil && err == nil && !bytes.Equal(got, want) {
			t.Fatalf("decoders differ: %d bytes vs %d", len(got), len(want))
		}
	})
}

// seekableFrames cuts raw in 2 MiB pieces, as apitrace master's seekable
// writer does, and compresses each with the zstd command at level 3
// without checksums, its content size in the header.
func seekableFrames(tb testing.TB, raw []byte) (file []byte, frames [][]byte) {
	const piece = 2 << 20
	var table []byte
	for off := 0; off < len(raw); off += piece {
		p := raw[off:min(off+piece, len(raw))]
		f, err := zstdCompress(p, "-3", "--no-check", fmt.Sprintf("--stream-size=%d", len(p)))
		if err != nil {
			tb.Fatal(err)
		}
		frames = append(frames, f)
		file = append(file, f...)
		table = binary.LittleEndian.AppendUint32(table, uint32(len(f)))
		table = binary.LittleEndian.AppendUint32(table, uint32(len(p)))
	}
	table = binary.LittleEndian.AppendUint32(table, uint32(len(frames)))
	table = append(table, 0)
	table = binary.LittleEndian.AppendUint32(table, 0x8F92EAB1)
	file = binary.LittleEndian.AppendUint32(file, 0x184D2A5E)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(table)))
	return append(file, table...), frames
}

// BenchmarkZstdSeekableSideBySide decodes the apitrace streams as seekable
// files, frame by frame, on one locked thread timed by its CPU time: ours
// through Seekable.ReadFrame, klauspost's DecodeAll on each frame, both
// into a reused buffer.
func BenchmarkZstdSeekableSideBySide(b *testing.B) {
	if _, err := exec.LookPath("zstd"); err != nil {
		b.Skip("zstd command not installed")
	}
	raws := rawStreams(b)
	for _, name := range []string{"apitrace-glxgears-20s", "apitrace-tri_glsl", "apitrace-glxinfo-brief"} {
		raw, ok := raws[name]
		if !ok {
			continue
		}
		file, frames := seekableFrames(b, raw)
		b.Run(name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			s, err := zstd.OpenSeekable(bytes.NewReader(file), int64(len(file)))
			if err != nil {
				b.Fatal(err)
			}
			kd, _ := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1))
			defer kd.Close()
			dst := make([]byte, 0, 2<<20)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			var tOurs, tAll time.Duration
			for i := 0; i < b.N; i++ {
				for j, f := range frames {
					t0 := threadCPU()
					if _, err := s.ReadFrame(dst[:0], j); err != nil {
						b.Fatal(err)
					}
					t1 := threadCPU()
					if _, err := kd.DecodeAll(f, dst[:0]); err != nil {
						b.Fatal(err)
					}
					t2 := threadCPU()
					tOurs += t1 - t0
					tAll += t2 - t1
				}
			}
			n := float64(len(raw)) * float64(b.N)
			b.ReportMetric(n/tOurs.Seconds()/1e6, "ours-MB/s")
			b.ReportMetric(n/tAll.Seconds()/1e6, "kall-MB/s")
			b.ReportMetric(tAll.Seconds()/tOurs.Seconds(), "ratio")
		})
	}
}
