// Package apitrace_test measures the apitrace package against its peers:
// our snappy block codec side by side with github.com/golang/snappy (which
// decodes with assembly on amd64 and arm64).
package apitrace_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	golang "github.com/golang/snappy"
	ours "github.com/tracefmt/tracefmt/apitrace/snappy"
)

// blocks returns the snappy blocks of real traces: the chunks apitrace's
// tracer compressed (google/snappy), from the big benchmark trace when it
// is there and from the package's committed test traces.
func blocks(tb testing.TB) map[string][][]byte {
	out := map[string][][]byte{}
	add := func(name, path string) {
		data, err := os.ReadFile(path)
		if err != nil || !bytes.HasPrefix(data, []byte("at")) {
			return
		}
		for rest := data[2:]; len(rest) >= 4; {
			n := binary.LittleEndian.Uint32(rest)
			if n == 0 || int(n) > len(rest)-4 {
				break
			}
			out[name] = append(out[name], rest[4:4+n])
			rest = rest[4+n:]
		}
	}
	add("glxgears-20s", filepath.Join("..", "..", "..", "shared", "fixtures", "apitrace", "glxgears-20s.trace"))
	add("tri_glsl", filepath.Join("..", "..", "apitrace", "testdata", "tri_glsl.trace"))
	add("glxinfo-brief", filepath.Join("..", "..", "apitrace", "testdata", "glxinfo-brief.trace"))
	if len(out) == 0 {
		tb.Skip("no traces found")
	}
	return out
}

func size(blks [][]byte) int64 {
	var n int64
	for _, b := range blks {
		l, _ := golang.DecodedLen(b)
		n += int64(l)
	}
	return n
}

// TestAgree checks that both decoders give the same bytes for the real
// blocks and for each other's encodings.
func TestAgree(t *testing.T) {
	var enc ours.Encoder
	for name, blks := range blocks(t) {
		for i, b := range blks {
			want, err := golang.Decode(nil, b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ours.Decode(nil, b, 0)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s block %d: ours differs (%v)", name, i, err)
			}
			theirs, err := golang.Decode(nil, enc.Encode(nil, want))
			if err != nil || !bytes.Equal(theirs, want) {
				t.Fatalf("%s block %d: golang/snappy cannot read our encoding (%v)", name, i, err)
			}
			back, err := ours.Decode(nil, golang.Encode(nil, want), 0)
			if err != nil || !bytes.Equal(back, want) {
				t.Fatalf("%s block %d: we cannot read golang/snappy's encoding (%v)", name, i, err)
			}
		}
	}
}

// TestEncodedSize checks that our encoder's output is no larger than
// golang/snappy's on the real trace blocks and on the zstd benchmarks'
// corpus (cut in blocks of 1 MiB, the chunk size of apitrace's writer),
// and logs both sizes over the input's.
func TestEncodedSize(t *testing.T) {
	inputs := map[string][][]byte{}
	for name, blks := range blocks(t) {
		for _, b := range blks {
			raw, err := golang.Decode(nil, b)
			if err != nil {
				t.Fatal(err)
			}
			inputs[name] = append(inputs[name], raw)
		}
	}
	for name, raw := range rawStreams(t) {
		if !strings.HasPrefix(name, "corpus-") {
			continue // the traces' own blocks are above
		}
		for len(raw) > 0 {
			n := min(len(raw), 1<<20)
			inputs[name] = append(inputs[name], raw[:n])
			raw = raw[n:]
		}
	}
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	var enc ours.Encoder
	for _, name := range names {
		var n, nOurs, nGolang int
		for _, raw := range inputs[name] {
			n += len(raw)
			nOurs += len(enc.Encode(nil, raw))
			nGolang += len(golang.Encode(nil, raw))
		}
		t.Logf("%-16s golang/snappy %.4f  ours %.4f  (%+.2f%%)", name,
			float64(nGolang)/float64(n), float64(nOurs)/float64(n), 100*(float64(nOurs)/float64(nGolang)-1))
		if nOurs > nGolang {
			t.Errorf("%s: our output (%d bytes) is larger than golang/snappy's (%d)", name, nOurs, nGolang)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for name, blks := range blocks(b) {
		dst := make([]byte, 0, 2<<20)
		b.Run(name+"/ours", func(b *testing.B) {
			b.SetBytes(size(blks))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, blk := range blks {
					if _, err := ours.Decode(dst, blk, 0); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run(name+"/golang", func(b *testing.B) {
			b.SetBytes(size(blks))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, blk := range blks {
					if _, err := golang.Decode(dst[:cap(dst)], blk); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	for name, blks := range blocks(b) {
		var raw [][]byte
		for _, blk := range blks {
			r, _ := golang.Decode(nil, blk)
			raw = append(raw, r)
		}
		dst := make([]byte, 0, 3<<20)
		var enc ours.Encoder
		b.Run(name+"/ours", func(b *testing.B) {
			b.SetBytes(size(blks))
			b.ReportAllocs()
			out := 0
			for i := 0; i < b.N; i++ {
				out = 0
				for _, r := range raw {
					out += len(enc.Encode(dst[:0], r))
				}
			}
			b.ReportMetric(float64(out)/float64(size(blks)), "ratio")
		})
		b.Run(name+"/golang", func(b *testing.B) {
			b.SetBytes(size(blks))
			b.ReportAllocs()
			out := 0
			for i := 0; i < b.N; i++ {
				out = 0
				for _, r := range raw {
					out += len(golang.Encode(dst[:cap(dst)], r))
				}
			}
			b.ReportMetric(float64(out)/float64(size(blks)), "ratio")
		})
	}
}

// threadCPU returns the CPU time the calling OS thread has used: unlike
// wall time it does not count the time other jobs on the shared machine
// hold the core.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// BenchmarkDecodeSideBySide alternates the two decoders block by block on
// one locked thread and times each by the thread's CPU time, so that the
// load of the shared 2-core machine falls on neither, and reports the
// throughput ratio ours/golang.
func BenchmarkDecodeSideBySide(b *testing.B) {
	for name, blks := range blocks(b) {
		b.Run(name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			dst := make([]byte, 0, 2<<20)
			b.SetBytes(size(blks)) // both decoders: ns/op covers the two
			b.ReportAllocs()
			// One untimed round first: the decoder that first writes the
			// fresh dst would otherwise be charged for faulting its pages
			// in (about 90µs for glxinfo-brief's block, against ~50µs per
			// decode).
			for _, blk := range blks {
				ours.Decode(dst, blk, 0)
				golang.Decode(dst[:cap(dst)], blk)
			}
			b.ResetTimer()
			decodeOurs := func(blk []byte) time.Duration {
				t0 := threadCPU()
				if _, err := ours.Decode(dst, blk, 0); err != nil {
					b.Fatal(err)
				}
				return threadCPU() - t0
			}
			decodeGolang := func(blk []byte) time.Duration {
				t0 := threadCPU()
				if _, err := golang.Decode(dst[:cap(dst)], blk); err != nil {
					b.Fatal(err)
				}
				return threadCPU() - t0
			}
			var tOurs, tGolang time.Duration
			for i := 0; i < b.N; i++ {
				for _, blk := range blks {
					// Each goes first every other round, so that neither
					// always finds the caches as the other left them.
					if i%2 == 0 {
						tOurs += decodeOurs(blk)
						tGolang += decodeGolang(blk)
					} else {
						tGolang += decodeGolang(blk)
						tOurs += decodeOurs(blk)
					}
				}
			}
			n := float64(size(blks)) * float64(b.N)
			b.ReportMetric(n/tOurs.Seconds()/1e6, "ours-MB/s")
			b.ReportMetric(n/tGolang.Seconds()/1e6, "golang-MB/s")
			b.ReportMetric(tGolang.Seconds()/tOurs.Seconds(), "ratio")
		})
	}
}

// BenchmarkEncodeSideBySide alternates the two encoders block by block on
// one locked thread, timed by the thread's CPU time like
// BenchmarkDecodeSideBySide, and reports the throughput ratio ours/golang
// and each encoder's compressed size over the input's.
func BenchmarkEncodeSideBySide(b *testing.B) {
	for name, blks := range blocks(b) {
		var raw [][]byte
		for _, blk := range blks {
			r, _ := golang.Decode(nil, blk)
			raw = append(raw, r)
		}
		b.Run(name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			dst := make([]byte, 0, 3<<20)
			var enc ours.Encoder
			b.SetBytes(size(blks)) // both encoders: ns/op covers the two
			b.ReportAllocs()
			// One untimed round first, as in BenchmarkDecodeSideBySide:
			// faulting in the fresh dst is neither encoder's cost.
			for _, r := range raw {
				enc.Encode(dst[:0], r)
				golang.Encode(dst[:cap(dst)], r)
			}
			b.ResetTimer()
			var tOurs, tGolang time.Duration
			var nOurs, nGolang int
			for i := 0; i < b.N; i++ {
				nOurs, nGolang = 0, 0
				for _, r := range raw {
					// Each goes first every other round, as in
					// BenchmarkDecodeSideBySide.
					for k := range 2 {
						t0 := threadCPU()
						if k == i%2 {
							nOurs += len(enc.Encode(dst[:0], r))
							tOurs += threadCPU() - t0
						} else {
							nGolang += len(golang.Encode(dst[:cap(dst)], r))
							tGolang += threadCPU() - t0
						}
					}
				}
			}
			n := float64(size(blks))
			b.ReportMetric(n*float64(b.N)/tOurs.Seconds()/1e6, "ours-MB/s")
			b.ReportMetric(n*float64(b.N)/tGolang.Seconds()/1e6, "golang-MB/s")
			b.ReportMetric(tGolang.Seconds()/tOurs.Seconds(), "ratio")
			b.ReportMetric(float64(nOurs)/n, "ours-size")
			b.ReportMetric(float64(nGolang)/n, "golang-size")
		})
	}
}

// FuzzAgree decodes arbitrary blocks with both decoders: they must accept
// and reject the same blocks and give the same bytes. Seeds are real
// blocks' first bytes and both encoders' output.
func FuzzAgree(f *testing.F) {
	var enc ours.Encoder
	f.Add(enc.Encode(nil, []byte("hello hello hello hello world")))
	f.Add(golang.Encode(nil, bytes.Repeat([]byte("abcdefgh"), 40)))
	for _, blks := range blocks(f) {
		for _, b := range blks[:1] {
			f.Add(b[:min(len(b), 512)])
		}
	}
	f.Fuzz(func(t *testing.T, blk []byte) {
		if n, err := golang.DecodedLen(blk); err != nil || n > 1<<20 {
			return
		}
		want, werr := golang.Decode(nil, blk)
		got, gerr := ours.Decode(nil, blk, 1<<20)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("golang/snappy: %v, ours: %v", werr, gerr)
		}
		if werr == nil && !bytes.Equal(got, want) {
			t.Fatalf("decoders differ")
		}
	})
}
