package varint

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"testing"
)

// buffer of values whose encodings take the given widths, concatenated.
func encoded(widths func(i int) int, count int) []byte {
	var b []byte
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < count; i++ {
		w := widths(i)
		lo := uint64(0)
		if w > 1 {
			lo = 1 << (7 * uint(w-1))
		}
		hi := uint64(1<<(7*uint(w))) - 1
		if w >= 10 {
			hi = ^uint64(0)
		}
		b = Append(b, lo+rng.Uint64()%(hi-lo+1))
	}
	return b
}

// goTraceMix is the width distribution of real Go traces: 66% one byte,
// 32.5% two, 1% three and 0.5% longer.
func goTraceMix(i int) int {
	switch x := i % 1000; {
	case x < 660:
		return 1
	case x < 985:
		return 2
	case x < 995:
		return 3
	default:
		return 4 + x%7
	}
}

func BenchmarkConsume(b *testing.B) {
	const count = 4096
	inputs := []struct {
		name string
		data []byte
	}{{"mix", encoded(goTraceMix, count)}}
	for w := 1; w <= MaxLen; w++ {
		w := w
		inputs = append(inputs, struct {
			name string
			data []byte
		}{fmt.Sprintf("len%d", w), encoded(func(int) int { return w }, count)})
	}
	for _, in := range inputs {
		data := in.data
		b.Run(in.name+"/varint", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var sum uint64
			for i := 0; i < b.N; i++ {
				for p := data; len(p) > 0; {
					v, n := Consume(p)
					sum += v
					p = p[n:]
				}
			}
			sink = sum
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/value")
		})
		b.Run(in.name+"/binary", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var sum uint64
			for i := 0; i < b.N; i++ {
				for p := data; len(p) > 0; {
					v, n := binary.Uvarint(p)
					sum += v
					p = p[n:]
				}
			}
			sink = sum
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/value")
		})
	}
}

func BenchmarkAppend(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 10*1024)
	b.SetBytes(int64(len(encoded(goTraceMix, 1024))))
	for i := 0; i < b.N; i++ {
		buf = buf[:0]
		for j := 0; j < 1024; j++ {
			buf = Append(buf, uint64(j*j*7))
		}
	}
}

var sink uint64
