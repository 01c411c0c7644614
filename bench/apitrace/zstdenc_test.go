package apitrace_test

import (
	"bytes"
	"runtime"
	"sort"
	"testing"
	"time"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// encodeFrame is the frame size of the encoding benchmarks: apitrace
// master's seekable frames.
const encodeFrame = 2 << 20

func sortedStreams(tb testing.TB) ([]string, map[string][]byte) {
	raws := rawStreams(tb)
	names := make([]string, 0, len(raws))
	for k := range raws {
		names = append(names, k)
	}
	sort.Strings(names)
	return names, raws
}

// TestZstdEncodeAgree checks that klauspost's decoder gives back what our
// encoder compressed, at the fast, default and lazy levels.
func TestZstdEncodeAgree(t *testing.T) {
	names, raws := sortedStreams(t)
	kd, _ := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1))
	defer kd.Close()
	for _, name := range names {
		raw := raws[name]
		if len(raw) > 4<<20 {
			raw = raw[:4<<20]
		}
		for _, level := range []int{1, 3, 7} {
			enc, err := zstd.NewEncoder(level)
			if err != nil {
				t.Fatal(err)
			}
			var comp []byte
			for off := 0; off < len(raw); off += encodeFrame {
				comp = enc.AppendFrame(comp, raw[off:min(off+encodeFrame, len(raw))])
			}
			got, err := kd.DecodeAll(comp, nil)
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("%s level %d: klauspost decodes %d of %d bytes, %v", name, level, len(got), len(raw), err)
			}
		}
	}
}

// BenchmarkZstdEncodeSideBySide compresses each stream in 2 MiB frames
// with our Encoder at level 3 and klauspost's at its default level
// (SpeedDefault, one goroutine, no checksum), alternated frame by frame on
// one locked thread and timed by its CPU time. ratio is our throughput
// over theirs; size-ratio our output over theirs.
func BenchmarkZstdEncodeSideBySide(b *testing.B) {
	names, raws := sortedStreams(b)
	for _, name := range names {
		raw := raws[name]
		b.Run(name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			enc, _ := zstd.NewEncoder(zstd.DefaultLevel)
			ke, _ := kzstd.NewWriter(nil, kzstd.WithEncoderConcurrency(1), kzstd.WithEncoderCRC(false),
				kzstd.WithEncoderLevel(kzstd.SpeedDefault), kzstd.WithWindowSize(encodeFrame))
			defer ke.Close()
			dst := make([]byte, 0, encodeFrame+encodeFrame/8)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			var tOurs, tTheirs time.Duration
			var nOurs, nTheirs int
			for i := 0; i < b.N; i++ {
				nOurs, nTheirs = 0, 0
				for off := 0; off < len(raw); off += encodeFrame {
					p := raw[off:min(off+encodeFrame, len(raw))]
					t0 := threadCPU()
					dst = enc.AppendFrame(dst[:0], p)
					t1 := threadCPU()
					nOurs += len(dst)
					dst = ke.EncodeAll(p, dst[:0])
					t2 := threadCPU()
					nTheirs += len(dst)
					tOurs += t1 - t0
					tTheirs += t2 - t1
				}
			}
			n := float64(len(raw)) * float64(b.N)
			b.ReportMetric(n/tOurs.Seconds()/1e6, "ours-MB/s")
			b.ReportMetric(n/tTheirs.Seconds()/1e6, "klauspost-MB/s")
			b.ReportMetric(tTheirs.Seconds()/tOurs.Seconds(), "ratio")
			b.ReportMetric(float64(nOurs)/float64(nTheirs), "size-ratio")
		})
	}
}
