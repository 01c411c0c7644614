package timeline

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
)

// BenchmarkWrite is a whole trace's timeline, from the trace's bytes:
// $TIMELINE_BENCH_TRACE (a large one) or the largest in testdata.
func BenchmarkWrite(b *testing.B) {
	path := os.Getenv("TIMELINE_BENCH_TRACE")
	if path == "" {
		path = "../testdata/go125-allocfree.trace"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for range b.N {
		r, err := parsed.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		w, err := NewWriter(io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		for ev, err := range r.All() {
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Write(ev); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
