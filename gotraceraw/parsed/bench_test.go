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

// measure runs pass over the whole of each input per op and reports
// throughput, allocations and time per raw event.
func measure(b *testing.B, pass func(b *testing.B, in io.Reader)) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			raw := rawEvents(b, data)
			br := bytes.NewReader(data)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			c0 := testutil.CPUTime()
			for i := 0; i < b.N; i++ {
				br.Reset(data)
				pass(b, br)
			}
			perEvent(b, raw, c0)
		})
	}
}

// BenchmarkReader reads every event of each input, printing nothing.
// The time is per raw event, for comparison with BenchmarkRawText.
func BenchmarkReader(b *testing.B) {
	var r Reader
	measure(b, func(b *testing.B, in io.Reader) {
		if err := r.Reset(in); err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Read(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				return
			}
		}
	})
}

// BenchmarkRawText is the raw level's text output (Reader and
// TextWriter), the yardstick of BenchmarkReader.
func BenchmarkRawText(b *testing.B) {
	var r gotraceraw.Reader
	var w gotraceraw.TextWriter
	measure(b, func(b *testing.B, in io.Reader) {
		if err := r.Reset(in); err != nil {
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
	})
}

// BenchmarkText reads and prints every event as -d=parsed does.
func BenchmarkText(b *testing.B) {
	var r Reader
	var buf []byte
	measure(b, func(b *testing.B, in io.Reader) {
		if err := r.Reset(in); err != nil {
			b.Fatal(err)
		}
		for {
			ev, err := r.Read()
			if err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				return
			}
			buf = append(ev.AppendText(buf[:0]), '\n')
		}
	})
}

// perEvent reports wall and CPU (user + system, all threads: GC included)
// nanoseconds per raw event; on a shared machine the CPU figure measures
// the code, the wall figure the load too.
func perEvent(b *testing.B, raw int, c0 time.Duration) {
	per := float64(b.N) * float64(raw)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/raw-event")
	b.ReportMetric(float64(testutil.CPUTime()-c0)/per, "cpu-ns/raw-event")
}
