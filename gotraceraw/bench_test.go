package gotraceraw

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// benchInputs returns the binary traces to measure: committed fixtures,
// and the large trace named by $GOTRACERAW_LARGE (bench/gotraceraw/record.sh
// records one) when set.
func benchInputs(b *testing.B) map[string][]byte {
	in := map[string][]byte{}
	for _, name := range []string{"gcgens", "stacks", "allocfree"} {
		in[name] = testutil.ReadFile(b, filepath.Join("testdata", name+".trace"))
	}
	if p := os.Getenv("GOTRACERAW_LARGE"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		in["large"] = data
	}
	return in
}

func countEvents(b *testing.B, data []byte) int {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, err := range r.All() {
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
	return n
}

func report(b *testing.B, events int) {
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(events), "ns/event")
}

func BenchmarkReader(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			events := countEvents(b, data)
			br := bytes.NewReader(data)
			var r Reader
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				br.Reset(data)
				if err := r.Reset(br); err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := r.Read(); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
				}
			}
			report(b, events)
		})
	}
}

func BenchmarkTextReader(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			events := countEvents(b, data)
			text, err := toText(data)
			if err != nil {
				b.Fatal(err)
			}
			br := bytes.NewReader(text)
			var r TextReader
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				br.Reset(text)
				if err := r.Reset(br); err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := r.Read(); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
				}
			}
			report(b, events)
		})
	}
}

// loadEvents reads up to max events of a trace into memory.
func loadEvents(b *testing.B, data []byte, max int) (Version, []Event) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	var evs []Event
	for ev, err := range r.All() {
		if err != nil {
			b.Fatal(err)
		}
		if evs = append(evs, ev.Clone()); len(evs) == max {
			break
		}
	}
	return r.Version(), evs
}

func BenchmarkTextWriter(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			v, evs := loadEvents(b, data, 500000)
			text, _ := toText(data)
			b.SetBytes(int64(len(text)) * int64(len(evs)) / int64(countEvents(b, data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w, err := NewTextWriter(io.Discard, v)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range evs {
					if err := w.Write(e); err != nil {
						b.Fatal(err)
					}
				}
				w.Flush()
			}
			report(b, len(evs))
		})
	}
}

func BenchmarkWriter(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			v, evs := loadEvents(b, data, 500000)
			b.SetBytes(int64(len(data)) * int64(len(evs)) / int64(countEvents(b, data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w, err := NewWriter(io.Discard, v)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range evs {
					if err := w.Write(e); err != nil {
						b.Fatal(err)
					}
				}
				w.Flush()
			}
			report(b, len(evs))
		})
	}
}
