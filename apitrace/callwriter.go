package apitrace

import "io"

// A CallWriter writes whole calls, as a CallReader returns them, so that
// "read the calls, keep some, write them" gives a stream apitrace reads
// back as exactly the calls written.
//
// Each call is written as its enter event (thread, signature, flags,
// backtrace, every argument) followed at once by its leave event (the
// return value); a call marked Incomplete is written as its enter event
// alone, so apitrace reads it as incomplete again. Calls are numbered
// densely in the order written: the n-th call written is call n, whatever
// its No. Since a CallReader returns calls in the order apitrace prints
// them, `apitrace dump` of the copy prints the calls kept in the same order
// as the original, numbered from 0. Argument slots holding no value
// (KindNone) are not written. Signatures are defined as the Writer
// defines them.
//
// Arguments are all written with the enter event, where apitrace's tracer
// writes output arguments with the leave: apitrace merges the two the same
// way, so the calls read back are the same, but the stream is not the
// original byte for byte (use Writer for that).
//
// A zero CallWriter returns ErrNotOpen until Reset.
type CallWriter struct {
	w    Writer
	ev   Event
	args []Arg
}

// NewCallWriter returns a CallWriter that writes the header h to w, as
// NewWriter does.
func NewCallWriter(w io.Writer, h Header) (*CallWriter, error) {
	c := new(CallWriter)
	if err := c.Reset(w, h); err != nil {
		return nil, err
	}
	return c, nil
}

// Reset starts a new trace on w, as Writer.Reset does.
func (c *CallWriter) Reset(w io.Writer, h Header) error { return c.w.Reset(w, h) }

// Writer returns the event Writer underneath, to set its ChunkSize before
// the first Write. Events written to it directly are numbered along with
// the calls.
func (c *CallWriter) Writer() *Writer { return &c.w }

// Write writes one call. A call it refuses (with an error wrapping
// ErrInvalid, for any rule the Writer applies to the call's enter or leave
// event) is not written at all, neither event, and leaves the CallWriter
// as it was: Close still writes every call accepted before it.
func (c *CallWriter) Write(call *Call) error {
	if err := c.w.usable(); err != nil {
		return err
	}
	if call == nil {
		return wrapf(ErrInvalid, "nil call")
	}
	c.w.begin()
	if err := c.add(call); err != nil {
		c.w.rollback()
		c.w.err, c.w.refused = err, true
		return err
	}
	return c.w.spill()
}

// Check returns the error Write(call) would return now, without writing
// the call or changing the CallWriter (see Writer.Check).
func (c *CallWriter) Check(call *Call) error {
	if err := c.w.usable(); err != nil {
		return err
	}
	if call == nil {
		return wrapf(ErrInvalid, "nil call")
	}
	c.w.begin()
	err := c.add(call)
	c.w.rollback()
	return err
}

// add appends the call's events, as one change of the Writer.
func (c *CallWriter) add(call *Call) error {
	// The caller's number for the call does not matter: the enter is
	// named by the number it gets, which no pending enter of an earlier
	// call can have.
	no := c.w.calls
	c.args = c.args[:0]
	for k := range call.Args {
		if call.Args[k].ref != nil {
			c.args = append(c.args, Arg{Index: k, Value: call.Args[k]})
		}
	}
	c.ev = Event{Kind: Enter, Call: no, Thread: call.Thread, Sig: call.Sig, Flags: call.Flags,
		Backtrace: call.Backtrace, Args: c.args}
	if call.Incomplete {
		c.ev.Ret = call.Ret
	}
	err := c.w.add(&c.ev)
	if err == nil && !call.Incomplete {
		c.ev = Event{Kind: Leave, Call: no, Ret: call.Ret}
		err = c.w.add(&c.ev)
	}
	c.ev = Event{}
	clear(c.args) // keep no reference to the caller's values
	return err
}

// Flush writes what is buffered, as Writer.Flush does.
func (c *CallWriter) Flush() error { return c.w.Flush() }

// Close writes what is buffered and finishes the container, as
// Writer.Close does. It does not close the underlying writer.
func (c *CallWriter) Close() error { return c.w.Close() }

// Calls returns the number of calls written.
func (c *CallWriter) Calls() uint64 { return c.w.Calls() }
