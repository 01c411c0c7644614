package apitrace_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	andy "github.com/andybalholm/brotli"
	"github.com/tracefmt/tracefmt/apitrace/brotli"
)

// brotliInput is one benchmark input: raw bytes and their compression by
// the brotli command.
type brotliInput struct {
	name string
	raw  []byte
	comp []byte
}

var (
	brotliOnce   sync.Once
	brotliInputs []brotliInput
	brotliErr    error
)

// brotliRaw returns the inputs of the zstd benchmarks (rawStreams) and two
// more real files: Debian's license texts and libstdc++, each cut to 16 MiB.
func brotliRaw(tb testing.TB) map[string][]byte {
	out := rawStreams(tb)
	var licenses []byte
	files, _ := filepath.Glob("/usr/share/common-licenses/*")
	sort.Strings(files)
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			licenses = append(licenses, b...)
		}
	}
	if len(licenses) > 0 {
		out["corpus-licenses"] = licenses[:min(len(licenses), 16<<20)]
	}
	if b, err := os.ReadFile("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"); err == nil {
		out["corpus-libstdc++"] = b[:min(len(b), 16<<20)]
	}
	return out
}

// brotliCompress runs the brotli command on raw, caching the result in
// the temporary directory: quality 11 of a large input takes a minute.
func brotliCompress(raw []byte, args ...string) ([]byte, error) {
	sum := sha256.Sum256(raw)
	key := hex.EncodeToString(sum[:8])
	for _, a := range args {
		key += a
	}
	dir := filepath.Join(os.TempDir(), "tracefmt-brotli-bench")
	cache := filepath.Join(dir, key+".br")
	if b, err := os.ReadFile(cache); err == nil {
		return b, nil
	}
	cmd := exec.Command("brotli", append([]string{"-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(raw)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	if os.MkdirAll(dir, 0o755) == nil {
		os.WriteFile(cache+".tmp", out.Bytes(), 0o644)
		os.Rename(cache+".tmp", cache)
	}
	return out.Bytes(), nil
}

// inputsBrotli compresses every raw input the way apitrace does (quality
// 11, window 24) and at quality 5, and adds the real Brotli trace
// `apitrace repack --brotli` wrote.
func inputsBrotli(tb testing.TB) []brotliInput {
	if _, err := exec.LookPath("brotli"); err != nil {
		tb.Skip("brotli command not installed")
	}
	raws := brotliRaw(tb)
	brotliOnce.Do(func() {
		names := make([]string, 0, len(raws))
		for k := range raws {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, name := range names {
			for _, q := range []string{"11", "5"} {
				c, err := brotliCompress(raws[name], "-q", q, "-w", "24")
				if err != nil {
					brotliErr = err
					return
				}
				brotliInputs = append(brotliInputs, brotliInput{name + "/q" + q, raws[name], c})
			}
		}
		p := filepath.Join("..", "..", "..", "shared", "fixtures", "apitrace", "glxinfo-brief.brotli.trace")
		if c, err := os.ReadFile(p); err == nil {
			raw, err := io.ReadAll(andy.NewReader(bytes.NewReader(c)))
			if err != nil {
				brotliErr = err
				return
			}
			brotliInputs = append(brotliInputs, brotliInput{"apitrace-repack-brotli", raw, c})
		}
	})
	if brotliErr != nil {
		tb.Fatal(brotliErr)
	}
	return brotliInputs
}

// TestBrotliAgree checks that both decoders give the input back.
func TestBrotliAgree(t *testing.T) {
	for _, in := range inputsBrotli(t) {
		got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(in.comp)))
		if err != nil || !bytes.Equal(got, in.raw) {
			t.Errorf("%s: ours: %v (%d bytes of %d)", in.name, err, len(got), len(in.raw))
		}
		got, err = io.ReadAll(andy.NewReader(bytes.NewReader(in.comp)))
		if err != nil || !bytes.Equal(got, in.raw) {
			t.Errorf("%s: andybalholm: %v (%d bytes of %d)", in.name, err, len(got), len(in.raw))
		}
	}
}

// drain reads r to its end through buf.
func drain(r io.Reader, buf []byte) error {
	for {
		_, err := r.Read(buf)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// BenchmarkBrotliDecode decodes each input with our Reader and with
// github.com/andybalholm/brotli's, side by side, both reused with Reset
// and read through a 64 KiB buffer.
func BenchmarkBrotliDecode(b *testing.B) {
	buf := make([]byte, 64<<10)
	for _, in := range inputsBrotli(b) {
		b.Run(fmt.Sprintf("%s/ours", in.name), func(b *testing.B) {
			src := bytes.NewReader(in.comp)
			zr := brotli.NewReader(src)
			b.SetBytes(int64(len(in.raw)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				src.Reset(in.comp)
				zr.Reset(src)
				if err := drain(zr, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%s/andybalholm", in.name), func(b *testing.B) {
			src := bytes.NewReader(in.comp)
			zr := andy.NewReader(src)
			b.SetBytes(int64(len(in.raw)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				src.Reset(in.comp)
				zr.Reset(src)
				if err := drain(zr, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBrotliSideBySide alternates the two decoders stream by stream
// on one locked thread and times each by the thread's CPU time, so that
// the load of the shared machine falls on neither, and reports the
// throughput ratio ours/andybalholm.
func BenchmarkBrotliSideBySide(b *testing.B) {
	buf := make([]byte, 64<<10)
	for _, in := range inputsBrotli(b) {
		b.Run(in.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			zo := brotli.NewReader(bytes.NewReader(in.comp))
			za := andy.NewReader(bytes.NewReader(in.comp))
			b.SetBytes(int64(len(in.raw))) // both decoders: ns/op covers the two
			b.ReportAllocs()
			b.ResetTimer()
			var tOurs, tAndy time.Duration
			for i := 0; i < b.N; i++ {
				t0 := threadCPU()
				zo.Reset(bytes.NewReader(in.comp))
				if err := drain(zo, buf); err != nil {
					b.Fatal(err)
				}
				t1 := threadCPU()
				za.Reset(bytes.NewReader(in.comp))
				if err := drain(za, buf); err != nil {
					b.Fatal(err)
				}
				t2 := threadCPU()
				tOurs += t1 - t0
				tAndy += t2 - t1
			}
			n := float64(len(in.raw)) * float64(b.N)
			b.ReportMetric(n/tOurs.Seconds()/1e6, "ours-MB/s")
			b.ReportMetric(n/tAndy.Seconds()/1e6, "andy-MB/s")
			b.ReportMetric(tAndy.Seconds()/tOurs.Seconds(), "ratio")
		})
	}
}

// FuzzBrotliAgree decodes arbitrary input with both decoders: they must
// accept and reject the same streams (except data after a stream's end,
// which ours ignores), give the same bytes for the ones they accept, and
// agree on the output before an error. Seeds are streams of the brotli
// command.
func FuzzBrotliAgree(f *testing.F) {
	f.Add([]byte{0x06})
	if _, err := exec.LookPath("brotli"); err == nil {
		text := bytes.Repeat([]byte("glXSwapBuffers(dpy = 0x55d5c8e0e2a0, drawable = 71303170)\n"), 20)
		text = append(text, "The quick brown fox jumps over the lazy dog. THE END, the end; of the..."...)
		for _, q := range []string{"0", "1", "4", "9", "11"} {
			c, err := brotliCompress(text, "-q", q, "-w", "16")
			if err == nil {
				f.Add(c)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 4 << 20
		got, gerr := readLimited(brotli.NewReader(bytes.NewReader(data)), limit)
		want, werr := readLimited(andy.NewReader(bytes.NewReader(data)), limit)
		if gerr == nil && werr != nil && werr.Error() == "brotli: excessive input" {
			// Data after the end of the stream: andybalholm refuses it
			// (as the brotli command does), ours stops at the stream's
			// end.
			werr = nil
		}
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("andybalholm: %d bytes, %v; ours: %d bytes, %v", len(want), werr, len(got), gerr)
		}
		if gerr == nil && !bytes.Equal(got, want) {
			t.Fatalf("outputs differ at %d", commonPrefix(got, want))
		}
		if n := min(len(got), len(want)); !bytes.Equal(got[:n], want[:n]) {
			t.Fatalf("outputs before the error differ at %d", commonPrefix(got, want))
		}
	})
}

// readLimited reads r to its end or until it has returned limit bytes.
func readLimited(r io.Reader, limit int) ([]byte, error) {
	var out []byte
	buf := make([]byte, 32<<10)
	for len(out) < limit {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
	return out[:limit], nil
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
