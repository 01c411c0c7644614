package profile

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
)

// benchTrace is the trace the benchmarks convert: $PROFILE_BENCH_TRACE (a
// large one, such as bench/compare.sh records) or the largest in testdata.
func benchTrace(b *testing.B) []byte {
	path := os.Getenv("PROFILE_BENCH_TRACE")
	if path == "" {
		path = "../testdata/go125-allocfree.trace"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	return data
}

// BenchmarkRead is the parsed reader alone, for scale.
func BenchmarkRead(b *testing.B) {
	data := benchTrace(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for range b.N {
		r, err := parsed.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range r.All() {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkProfile(b *testing.B) {
	data := benchTrace(b)
	for _, typ := range []Type{Sched, Sync, CPU} {
		b.Run(typ.String(), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for range b.N {
				r, err := parsed.NewReader(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				p := Profile{Type: typ}
				for ev, err := range r.All() {
					if err != nil {
						b.Fatal(err)
					}
					p.Add(ev)
				}
				if err := p.WriteProfile(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
