package apitrace

import "io"

// Trace dumps a whole trace read from r: its properties, then its calls,
// stopping early when the call set has no more calls. It returns nil at the
// end of a clean trace; an error that wraps io.ErrUnexpectedEOF means the
// trace was cut short after everything it held had been printed (apitrace
// warns and goes on in that case). Trace flushes the output.
func (d *Dumper) Trace(r io.Reader) error {
	cr, err := NewCallReader(r)
	if err != nil {
		return err
	}
	return d.dumpCalls(cr)
}
