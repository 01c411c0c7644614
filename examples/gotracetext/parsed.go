package main

import (
	"bytes"
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

// countingReader counts the bytes read through it, and keeps those from
// about the start of the event being read on, so that an event cut short
// can be looked at again.
type countingReader struct {
	r    io.Reader
	n    int64
	base int64 // the offset of kept[0]
	kept []byte
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.kept = append(c.kept, p[:n]...)
	return n, err
}

// keepFrom lets the bytes before off go, once there are enough of them to
// be worth the copy: off is where the next event starts.
func (c *countingReader) keepFrom(off int64) {
	if len(c.kept) < 1<<20 || off <= c.base || off-c.base > int64(len(c.kept)) {
		return
	}
	c.kept = c.kept[:copy(c.kept, c.kept[off-c.base:])]
	c.base = off
}

// tail returns the bytes kept from off to the end of the input.
func (c *countingReader) tail(off int64) []byte {
	if off < c.base || off-c.base > int64(len(c.kept)) {
		return nil
	}
	return c.kept[off-c.base:]
}

// goCut returns what Go's raw reader meets in an event cut short, p from
// its type byte to the end of the input: io.ErrUnexpectedEOF where the
// cut is inside a varint, else io.EOF, as a cut between two varints or
// inside the data reads there as the end of the trace.
func goCut(v gotraceraw.Version, p []byte) error {
	br := bytes.NewReader(p)
	typ, err := br.ReadByte()
	if err != nil {
		return err
	}
	spec, _ := v.Spec(gotraceraw.EventType(typ))
	var frames uint64
	for i := range spec.Args {
		x, err := varint.Read(br)
		if err != nil {
			return err
		}
		if spec.IsStack && i == 1 {
			frames = x // nframes
		}
	}
	for f := uint64(0); f < frames; f++ {
		for range gotraceraw.FrameFields {
			if _, err := varint.Read(br); err != nil {
				return err
			}
		}
	}
	if spec.HasData {
		if _, err := varint.Read(br); err != nil {
			return err
		}
	}
	// Go reads the data byte by byte: a cut there is io.EOF.
	return io.EOF
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
		if err == io.EOF {
			break
		}
		var fe *gotraceraw.FormatError
		if errors.Is(err, io.ErrUnexpectedEOF) && errors.As(err, &fe) &&
			goCut(rd.Header().Version, cr.tail(fe.Offset)) == io.EOF {
			break // Go's tool counts the events before such a cut
		}
		if err != nil {
			return err
		}
		cr.keepFrom(rd.Offset())
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
