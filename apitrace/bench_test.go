package apitrace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

func benchInputs(b *testing.B) map[string][]byte {
	in := map[string][]byte{}
	for _, name := range []string{"tri_glsl.trace", "glxinfo-brief.trace"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		in[name] = data
	}
	if p := testutil.SharedFixture(b, "apitrace/glxgears-20s.trace"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		in["glxgears-20s.trace"] = data
	}
	return in
}

// BenchmarkCallReader parses every call of real traces, compressed input in
// memory; bytes/s are of the decompressed stream.
func BenchmarkCallReader(b *testing.B) {
	for name, data := range benchInputs(b) {
		raw, _ := stream(b, data)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			var cr CallReader
			calls := 0
			for i := 0; i < b.N; i++ {
				if err := cr.Reset(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
				calls = 0
				for {
					_, err := cr.Read()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					calls++
				}
			}
			b.ReportMetric(float64(calls), "calls/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls), "ns/call")
		})
	}
}

// BenchmarkReader reads every event.
func BenchmarkReader(b *testing.B) {
	for name, data := range benchInputs(b) {
		raw, _ := stream(b, data)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			var r Reader
			for i := 0; i < b.N; i++ {
				if err := r.Reset(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
				for {
					_, err := r.Read()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkWriter rewrites every event of a trace to snappy.
func BenchmarkWriter(b *testing.B) {
	for name, data := range benchInputs(b) {
		raw, _ := stream(b, data)
		var evs []*Event
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for ev, err := range r.All() {
			if err != nil {
				b.Fatal(err)
			}
			evs = append(evs, ev.Clone())
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w, err := NewWriter(io.Discard, r.Header())
				if err != nil {
					b.Fatal(err)
				}
				for _, ev := range evs {
					if err := w.Write(ev); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
