package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/varint"
)

// printParsed prints each event of the trace in r as Go's parser orders
// and prints it, one per line; on an error, the events before it.
func printParsed(w io.Writer, r io.Reader) error {
	rd, err := parsed.NewReader(r)
	if err != nil {
		return err
	}
	var buf []byte
	for {
		ev, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		buf = append(ev.AppendText(buf[:0]), '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// printFootprint prints the bytes and count of each event type, largest
// first, as `go tool trace -d=footprint` does: sizes are each event's
// shortest encoding, percentages of the bytes read and of the events.
func printFootprint(w io.Writer, r io.Reader) error {
	cr := &countingReader{r: r}
	rd, err := gotraceraw.NewReader(cr)
	if err != nil {
		return err
	}
	type stat struct {
		typ          gotraceraw.EventType
		count, bytes int
	}
	var stats [256]stat
	for i := range stats {
		stats[i].typ = gotraceraw.EventType(i)
	}
	events := 0
	for {
		ev, err := rd.Read()
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			break // Go's tool counts a cut trace up to the cut
		}
		if err != nil {
			return err
		}
		n := 1
		for _, a := range ev.Args {
			n += varint.Len(a)
		}
		if s, _ := ev.Spec(); s.HasData {
			n += varint.Len(uint64(len(ev.Data))) + len(ev.Data)
		}
		stats[ev.Type].count++
		stats[ev.Type].bytes += n
		events++
	}
	// Go's sort, so that types of equal sizes come in the same order.
	slices.SortFunc(stats[:], func(a, b stat) int { return cmp.Compare(b.bytes, a.bytes) })
	names := footprintNames(rd.Header().Version)
	tw := tabwriter.NewWriter(w, 3, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "Event\tBytes\t%%\tCount\t%%\n")
	fmt.Fprintf(tw, "-\t-\t-\t-\t-\n")
	for _, s := range stats {
		name := fmt.Sprintf("<unknown (%d)>", s.typ)
		if int(s.typ) < len(names) {
			name = names[s.typ]
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f%%\t%d\t%.2f%%\n", name, s.bytes, float64(s.bytes)/float64(cr.n)*100,
			s.count, float64(s.count)/float64(events)*100)
	}
	return tw.Flush()
}

// footprintNames is Go's table of event names for version v, whose length
// is what Go's tool calls known: it stops at the version's last type, and
// for Go1.26 takes in the experimental types (the types between are
// nameless).
func footprintNames(v gotraceraw.Version) []string {
	n := 0
	for _, t := range v.Types() {
		if t < 128 || v == gotraceraw.Go126 {
			n = max(n, int(t)+1)
		}
	}
	names := make([]string, n)
	for i := range names {
		if s, ok := gotraceraw.Go126.Spec(gotraceraw.EventType(i)); ok {
			names[i] = s.Name
		}
	}
	return names
}
