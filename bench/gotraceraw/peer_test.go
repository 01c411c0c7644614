//go:build ignore

// This file is not built in place: compare.sh copies it into a temporary
// module beside a copy of Go's internal/trace/{raw,tracev2,version} taken
// from $(go env GOROOT) at run time, and runs it there. It measures Go's
// raw readers and writers and gotraceraw's side by side on one trace.

package peerbench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"peerbench/raw"
)

var (
	sink int    // what the reader benchmarks take from each event
	data []byte // the binary trace
	text []byte // its text form, as Go's TextWriter prints it
	nev  int    // its events
)

// writeEvents is how many events the writer benchmarks write per op,
// read into memory beforehand.
const writeEvents = 500000

func TestMain(m *testing.M) {
	var err error
	if data, err = os.ReadFile(os.Getenv("GOTRACERAW_LARGE")); err != nil {
		fmt.Fprintln(os.Stderr, "GOTRACERAW_LARGE:", err)
		os.Exit(2)
	}
	// Go's text, and a check that ours is the same bytes.
	r, err := raw.NewReader(bytes.NewReader(data))
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	tw, _ := raw.NewTextWriter(&buf, r.Version())
	for {
		e, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		tw.WriteEvent(e)
		nev++
	}
	text = buf.Bytes()
	var ours bytes.Buffer
	gr, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		panic(err)
	}
	gw, _ := gotraceraw.NewTextWriter(&ours, gr.Header())
	for e, err := range gr.All() {
		if err != nil {
			panic(err)
		}
		gw.Write(e)
	}
	gw.Close()
	if !bytes.Equal(text, ours.Bytes()) {
		fmt.Fprintln(os.Stderr, "gotraceraw's text differs from Go's")
		os.Exit(1)
	}
	fmt.Printf("trace: %d bytes, %d events, text %d bytes\n", len(data), nev, len(text))
	os.Exit(m.Run())
}

// cpuTime is the CPU time the process has used, all threads (the GC's
// too), user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs op b.N times and reports wall-clock and CPU nanoseconds
// per event. On a machine shared with other jobs the CPU time is the
// steadier measure: waiting for a core does not count.
func measure(b *testing.B, n int, op func()) {
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		op()
	}
	cpu := cpuTime() - start
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/event")
}

// The reader benchmarks take the type and argument count of every event
// on both sides, as any use of an event does: a reader that returns a large
// struct by value pays for the copy only when the caller uses it.
func BenchmarkWireReader(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		measure(b, nev, func() {
			r, err := raw.NewReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				e, err := r.ReadEvent()
				if err != nil {
					break
				}
				n += len(e.Args) + int(e.Ev)
			}
			sink = n
		})
	})
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		measure(b, nev, func() {
			r, err := gotraceraw.NewReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				e, err := r.Read()
				if err != nil {
					break
				}
				n += len(e.Args) + int(e.Type)
			}
			sink = n
		})
	})
}

func BenchmarkTextReader(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		measure(b, nev, func() {
			r, err := raw.NewTextReader(bytes.NewReader(text))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				e, err := r.ReadEvent()
				if err != nil {
					break
				}
				n += len(e.Args) + int(e.Ev)
			}
			sink = n
		})
	})
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		measure(b, nev, func() {
			r, err := gotraceraw.NewTextReader(bytes.NewReader(text))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				e, err := r.Read()
				if err != nil {
					break
				}
				n += len(e.Args) + int(e.Type)
			}
			sink = n
		})
	})
}

func goEvents(b *testing.B) []raw.Event {
	r, err := raw.NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	var evs []raw.Event
	for len(evs) < writeEvents {
		e, err := r.ReadEvent()
		if err != nil {
			break
		}
		evs = append(evs, e)
	}
	return evs
}

func ourEvents(b *testing.B) (gotraceraw.Header, []*gotraceraw.Event) {
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	var evs []*gotraceraw.Event
	for len(evs) < writeEvents {
		e, err := r.Read()
		if err != nil {
			break
		}
		evs = append(evs, e.Clone())
	}
	return r.Header(), evs
}

func BenchmarkTextWriter(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		evs := goEvents(b)
		b.SetBytes(int64(len(text))) // what it writes
		b.ReportAllocs()
		measure(b, len(evs), func() {
			bw := bufio.NewWriterSize(io.Discard, 64<<10)
			w, _ := raw.NewTextWriter(bw, evs[0].Version)
			for _, e := range evs {
				if err := w.WriteEvent(e); err != nil {
					b.Fatal(err)
				}
			}
			bw.Flush()
		})
	})
	b.Run("ours", func(b *testing.B) {
		h, evs := ourEvents(b)
		b.SetBytes(int64(len(text))) // what it writes
		b.ReportAllocs()
		measure(b, len(evs), func() {
			w, _ := gotraceraw.NewTextWriter(io.Discard, h)
			for _, e := range evs {
				if err := w.Write(e); err != nil {
					b.Fatal(err)
				}
			}
			w.Close()
		})
	})
}

func BenchmarkWireWriter(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		evs := goEvents(b)
		b.SetBytes(int64(len(data))) // what it writes, but for the runtime's batch padding
		b.ReportAllocs()
		measure(b, len(evs), func() {
			bw := bufio.NewWriterSize(io.Discard, 64<<10)
			w, _ := raw.NewWriter(bw, evs[0].Version)
			for _, e := range evs {
				if err := w.WriteEvent(e); err != nil {
					b.Fatal(err)
				}
			}
			bw.Flush()
		})
	})
	b.Run("ours", func(b *testing.B) {
		h, evs := ourEvents(b)
		b.SetBytes(int64(len(data))) // what it writes, but for the runtime's batch padding
		b.ReportAllocs()
		measure(b, len(evs), func() {
			w, _ := gotraceraw.NewWriter(io.Discard, h)
			for _, e := range evs {
				if err := w.Write(e); err != nil {
					b.Fatal(err)
				}
			}
			w.Close()
		})
	})
}
