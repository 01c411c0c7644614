package zstd_test

import (
	"fmt"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// BenchmarkEncoder compresses each corpus file as one frame at the
// levels of each strategy; compressed-ratio is the input's size over the
// output's. bench/apitrace has the side-by-side comparison with
// github.com/klauspost/compress/zstd.
func BenchmarkEncoder(b *testing.B) {
	for _, f := range corpus(b) {
		if len(f.data) < 1000 {
			continue
		}
		for _, level := range []int{1, 3, 7} {
			b.Run(fmt.Sprintf("%s/level%d", f.name, level), func(b *testing.B) {
				e, _ := zstd.NewEncoder(level)
				dst := e.AppendFrame(nil, f.data)
				b.SetBytes(int64(len(f.data)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					dst = e.AppendFrame(dst[:0], f.data)
				}
				b.ReportMetric(float64(len(f.data))/float64(len(dst)), "compressed-ratio")
			})
		}
	}
}

// TestEncoderAllocs checks that compressing again with a warmed-up
// Encoder into a buffer with room allocates nothing.
func TestEncoderAllocs(t *testing.T) {
	for _, level := range []int{1, 3, 7, 12} {
		data := corpus(t)[0].data
		if level == 12 {
			data = data[:200<<10]
		}
		e, _ := zstd.NewEncoder(level)
		dst := e.AppendFrame(nil, data)
		if n := testing.AllocsPerRun(5, func() { dst = e.AppendFrame(dst[:0], data) }); n != 0 {
			t.Errorf("level %d: %v allocations a frame", level, n)
		}
	}
}
