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
// and the large trace named by $GOTRACERAW_LARGE (bench/gotraceraw/largeprog
// records one) when set.
func benchInputs(b *testing.B) map[string][]byte {
	in := map[string][]byte{}
	for _, name := range []string{"gcgens", "stacks", "allocfree"} {
		in[name] = testutil.ReadFile(b, filepath.Join("testdata", name+".trace"))
	}
	if p := os.Getenv("GOTRACERAW_LARGE"); p != "" {
		in["large"] = testutil.ReadFile(b, p)
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

// benchRead measures reading in, the whole of it per op, through reset
// and read.
func benchRead(b *testing.B, in []byte, events int, reset func(io.Reader) error, read func() (*Event, error)) {
	br := bytes.NewReader(in)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		br.Reset(in)
		if err := reset(br); err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := read(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
	report(b, events)
}

func BenchmarkReader(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			var r Reader
			benchRead(b, data, countEvents(b, data), r.Reset, r.Read)
		})
	}
}

func BenchmarkTextReader(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			text, err := toText(data)
			if err != nil {
				b.Fatal(err)
			}
			var r TextReader
			benchRead(b, text, countEvents(b, data), r.Reset, r.Read)
		})
	}
}

// loadEvents reads up to max events of a trace into memory.
func loadEvents(b *testing.B, data []byte, max int) (Version, []*Event) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	var evs []*Event
	for ev, err := range r.All() {
		if err != nil {
			b.Fatal(err)
		}
		if evs = append(evs, ev.Clone()); len(evs) == max {
			break
		}
	}
	return r.Header().Version, evs
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
				w, err := NewTextWriter(io.Discard, Header{Version: v})
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range evs {
					if err := w.Write(e); err != nil {
						b.Fatal(err)
					}
				}
				w.Close()
			}
			report(b, len(evs))
		})
	}
}

// BenchmarkWriter writes the events of each input, and as name-checks
// does it again holding each generation for a Validator that accepts
// them all: the cost of the Writer's own checks and of the holding.
func BenchmarkWriter(b *testing.B) {
	for name, data := range benchInputs(b) {
		for _, checks := range []bool{false, true} {
			sub := name
			if checks {
				sub += "-checks"
			}
			b.Run(sub, func(b *testing.B) {
				v, evs := loadEvents(b, data, 500000)
				b.SetBytes(int64(len(data)) * int64(len(evs)) / int64(countEvents(b, data)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					w, err := NewWriter(io.Discard, Header{Version: v})
					if err != nil {
						b.Fatal(err)
					}
					if checks {
						w.Validate = acceptAll{}
					}
					for _, e := range evs {
						if err := w.Write(e); err != nil {
							b.Fatal(err)
						}
					}
					// A long trace is cut at 500,000 events, where the
					// checks refuse its last generation as incomplete.
					w.Close()
				}
				report(b, len(evs))
			})
		}
	}
}

// acceptAll is a Validator that accepts every generation.
type acceptAll struct{}

func (acceptAll) Generation([]byte) error { return nil }
