package apitrace

import (
	"errors"
	"io"
)

// Trace dumps a whole trace read from r: its properties, then its calls,
// stopping early when the call set has no more calls (see
// DumpOptions.Calls). It returns nil at the
// end of a clean trace; an error that wraps io.ErrUnexpectedEOF means the
// trace was cut short after everything it held had been printed (apitrace
// warns and goes on in that case). Trace flushes the output.
func (d *Dumper) Trace(r io.Reader) error {
	if d.w == nil {
		return ErrNotOpen
	}
	cr, err := NewCallReader(r)
	if err != nil {
		return err
	}
	return d.dumpCalls(cr)
}

// dumpCalls dumps a header and then calls from src, stopping early when the
// call set has no more calls. It returns nil at the end of a clean trace
// and flushes the output.
//
// The calls still pending at the end come last, flagged incomplete.
// apitrace prints them when the trace ends or is cut short, but not when it
// dies on a damaged byte (it exits at once), so their text is held back
// until the reader says which.
func (d *Dumper) dumpCalls(src *CallReader) error {
	// Signatures belong to their reader: forget the last trace's.
	clear(d.sigs)
	d.sigs = d.sigs[:0]
	clear(d.bigSigs)
	clear(d.enumIndex)
	h := src.Header()
	d.Header(&h)
	// apitrace 13.0 reads on up to 100 calls past the set's last call, in
	// 64 bits, so that a set without end never stops early.
	stop := uint64(d.opts.Calls.Last())
	if d.opts.Compat != Dump11 {
		stop += dumpLookAhead
	}
	d.tail = d.tail[:0]
	for {
		c, err := src.Read()
		if err != nil {
			if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
				d.buf = append(d.buf, d.tail...)
			}
			if err == io.EOF {
				err = nil
			}
			if ferr := d.Flush(); err == nil {
				err = ferr
			}
			return err
		}
		if uint64(uint32(c.No)) > stop {
			d.buf = append(d.buf, d.tail...)
			return d.Flush()
		}
		if c.Incomplete {
			d.tail = d.render(d.tail, c)
			continue
		}
		d.Call(c)
		if d.err != nil {
			return d.err
		}
	}
}

// dumpLookAhead is how far past the call set's last call apitrace 13.0
// reads before it stops (apitrace commit a1820573).
const dumpLookAhead = 100
