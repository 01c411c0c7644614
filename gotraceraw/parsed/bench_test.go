package parsed

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// benchInputs returns the traces to measure: committed fixtures, and the
// large trace named by $GOTRACERAW_LARGE (bench/gotraceraw/largeprog
// records one) when set.
func benchInputs(b *testing.B) map[string][]byte {
	in := map[string][]byte{}
	for _, name := range []string{"gcgens", "stacks", "allocfree"} {
		in[name] = testutil.ReadFile(b, filepath.Join("..", "testdata", name+".trace"))
	}
	if p := os.Getenv("GOTRACERAW_LARGE"); p != "" {
		in["large"] = testutil.ReadFile(b, p)
	}
	return in
}

// rawEvents counts the events of a trace at the raw level.
func rawEvents(b *testing.B, data []byte) int {
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
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

// BenchmarkReader reads every event of each input, printing nothing.
// ns/raw-event divides by the trace's raw events, for comparison with
// BenchmarkRawText.
func BenchmarkReader(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			raw := rawEvents(b, data)
			var r Reader
			br := bytes.NewReader(data)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			c0 := testutil.CPUTime()
			events := 0
			for i := 0; i < b.N; i++ {
				br.Reset(data)
				if err := r.Reset(br); err != nil {
					b.Fatal(err)
				}
				events = 0
				for {
					if _, err := r.Read(); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
					events++
				}
			}
			b.ReportMetric(float64(events), "events/op")
			perEvent(b, raw, c0)
		})
	}
}

// BenchmarkRawText is the raw level's text output (Reader and
// TextWriter), the yardstick of BenchmarkReader.
func BenchmarkRawText(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			raw := rawEvents(b, data)
			br := bytes.NewReader(data)
			var r gotraceraw.Reader
			var w gotraceraw.TextWriter
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			c0 := testutil.CPUTime()
			for i := 0; i < b.N; i++ {
				br.Reset(data)
				if err := r.Reset(br); err != nil {
					b.Fatal(err)
				}
				if err := w.Reset(io.Discard, r.Header()); err != nil {
					b.Fatal(err)
				}
				for {
					ev, err := r.Read()
					if err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
					if err := w.Write(ev); err != nil {
						b.Fatal(err)
					}
				}
				w.Close()
			}
			perEvent(b, raw, c0)
		})
	}
}

// BenchmarkText reads and prints every event as -d=parsed does.
func BenchmarkText(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			raw := rawEvents(b, data)
			var r Reader
			br := bytes.NewReader(data)
			var buf []byte
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			c0 := testutil.CPUTime()
			for i := 0; i < b.N; i++ {
				br.Reset(data)
				if err := r.Reset(br); err != nil {
					b.Fatal(err)
				}
				for {
					ev, err := r.Read()
					if err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
					buf = append(ev.AppendText(buf[:0]), '\n')
				}
			}
			perEvent(b, raw, c0)
		})
	}
}

// perEvent reports wall and CPU (user + system, all threads: GC included)
// nanoseconds per raw event; on a shared machine the CPU figure measures
// the code, the wall figure the load too.
func perEvent(b *testing.B, raw int, c0 time.Duration) {
	per := float64(b.N) * float64(raw)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/raw-event")
	b.ReportMetric(float64(testutil.CPUTime()-c0)/per, "cpu-ns/raw-event")
}
