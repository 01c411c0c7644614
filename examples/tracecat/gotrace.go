package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

// isGoTrace asks gotraceraw whether head starts a Go execution trace, or
// its text form: a header it reads, or one of a version it does not know.
func isGoTrace(head []byte) bool { return goTraceKind(head) != notGoTrace }

const (
	notGoTrace = iota
	goTraceWire
	goTraceText
)

func goTraceKind(head []byte) int {
	_, err := gotraceraw.NewReader(bytes.NewReader(head))
	if claims(err, gotraceraw.ErrVersion) {
		return goTraceWire
	}
	_, err = gotraceraw.NewTextReader(bytes.NewReader(completeLines(head)))
	if claims(err, gotraceraw.ErrVersion) {
		return goTraceText
	}
	return notGoTrace
}

// summarizeGoTrace reads a Go execution trace with gotraceraw and reports
// its version, its events by type, its generations and batches, and the
// time it spans, in seconds of the trace clock (ticks / Frequency).
func summarizeGoTrace(w io.Writer, in io.Reader) error {
	br, head, err := peek(in)
	if err != nil {
		return err
	}
	counted := &byteCounter{r: br}
	var r interface {
		Read() (*gotraceraw.Event, error)
		Header() gotraceraw.Header
	}
	if goTraceKind(head) == goTraceText {
		r, err = gotraceraw.NewTextReader(counted)
	} else {
		r, err = gotraceraw.NewReader(counted)
	}
	if err != nil {
		return err
	}
	var (
		counts      = map[gotraceraw.EventType]int{}
		events      int
		gens        = map[uint64]bool{}
		freq        uint64
		now         uint64 // trace clock inside the current batch
		first, last uint64
		timed       bool
	)
	see := func(t uint64) {
		if !timed || t < first {
			first = t
		}
		if !timed || t > last {
			last = t
		}
		timed = true
	}
	for {
		ev, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		events++
		counts[ev.Type]++
		switch ev.Type {
		case gotraceraw.EvEventBatch:
			gens[ev.Args[0]] = true
			now = ev.Args[2]
			see(now)
		case gotraceraw.EvExperimentalBatch:
			gens[ev.Args[1]] = true
		case gotraceraw.EvFrequency:
			freq = ev.Args[0]
		case gotraceraw.EvCPUSample:
			see(ev.Args[0])
		default:
			if s, ok := ev.Spec(); ok && s.Timed {
				now += ev.Args[0]
				see(now)
			}
		}
	}
	fmt.Fprintf(w, "  version %v, %d bytes, %d events\n", r.Header().Version, counted.n, events)
	fmt.Fprintf(w, "  generations %d, batches %d", len(gens), counts[gotraceraw.EvEventBatch])
	if n := counts[gotraceraw.EvExperimentalBatch]; n > 0 {
		fmt.Fprintf(w, " (+%d experimental)", n)
	}
	fmt.Fprintln(w)
	switch {
	case freq == 0:
		fmt.Fprintln(w, "  span unknown: no Frequency event")
	case timed:
		fmt.Fprintf(w, "  span %.6f s (%d ticks at %d ticks/s)\n", float64(last-first)/float64(freq), last-first, freq)
	}
	types := make([]gotraceraw.EventType, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool {
		if counts[types[i]] != counts[types[j]] {
			return counts[types[i]] > counts[types[j]]
		}
		return types[i] < types[j]
	})
	var b strings.Builder
	for i, t := range types {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%v %d", t, counts[t])
	}
	fmt.Fprintf(w, "  events by type: %s\n", b.String())
	return nil
}

// byteCounter counts the bytes read through it.
type byteCounter struct {
	r io.Reader
	n int64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
