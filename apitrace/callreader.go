package apitrace

import (
	"io"
	"iter"
)

// DefaultMaxPending is the default number of calls that may be entered and
// not yet left at one time.
const DefaultMaxPending = 4096

// A CallReader pairs the enter and leave events of a trace into calls, the
// way apitrace's parser does: a call is returned when its leave event is
// read (so calls come in leave order), with the arguments of both events
// merged by index (a leave's output argument replaces an enter's argument of
// the same index). A leave for a call number that is not pending is read and
// dropped. When the stream ends, cleanly or not, the calls still pending are
// returned in enter order with Incomplete set, and then the error that ended
// the stream (io.EOF for a clean end).
//
// Each pending call keeps its own copy of its values, so memory is bounded by
// the calls in flight, not by the trace. A zero CallReader returns
// ErrNotOpen until Reset gives it a trace.
type CallReader struct {
	// MaxPending bounds the calls in flight; 0 means DefaultMaxPending.
	MaxPending int

	r       Reader
	pending []*slot // in enter order
	free    []*slot
	last    *slot // returned by the previous Read, freed at the next
	err     error // what ended the event stream
	drained int   // pending calls returned after err

	// The fast path's call, read in place, and its argument storage.
	call Call
	args []Value
	// noFast makes every call go the general way (tests compare both).
	noFast bool
}

// slot is one pending call and the storage its values live in.
type slot struct {
	shares bool // some string or blob of the call is in a Reader's window
	call   Call
	store  cloner // holds copies of the call's values
	bt     []*Frame
	hasBT  bool // the call had a backtrace detail, maybe of 0 frames
	args   []Value
}

// NewCallReader detects the container of r, reads the header and returns a
// CallReader positioned at the first call.
func NewCallReader(r io.Reader) (*CallReader, error) {
	c := new(CallReader)
	if err := c.Reset(r); err != nil {
		return nil, err
	}
	return c, nil
}

// Reader returns the event Reader underneath, to set its limits before
// Reset or to read its Offset. Reading events from it directly bypasses the
// pairing.
func (c *CallReader) Reader() *Reader { return &c.r }

// Reset makes c read a new trace from r, keeping its limits and buffers.
func (c *CallReader) Reset(r io.Reader) error {
	c.free = append(c.free, c.pending...)
	if c.last != nil {
		c.free = append(c.free, c.last)
	}
	c.pending = c.pending[:0]
	c.last = nil
	c.err = nil
	c.drained = 0
	return c.r.Reset(r)
}

// Header returns the stream header.
func (c *CallReader) Header() Header { return c.r.Header() }

// Read returns the next call. After the last call it returns io.EOF for a
// stream that ended cleanly, or the *FormatError that ended it (wrapping
// io.ErrUnexpectedEOF for a file cut short). In a trace cut short, a call
// whose leave was cut is dropped, as apitrace drops it.
//
// The Call belongs to the CallReader: it, its slices and its values are
// valid until the next call to Read or Reset. Clone makes a copy to keep.
func (c *CallReader) Read() (*Call, error) {
	return c.read()
}

func (c *CallReader) read() (*Call, error) {
	if c.r.src == nil && c.r.err == nil {
		return nil, ErrNotOpen
	}
	if c.last != nil {
		c.free = append(c.free, c.last)
		c.last = nil
	}
	maxPending := orDefault(c.MaxPending, DefaultMaxPending)
	for c.err == nil {
		if len(c.pending) == 0 && c.r.err == nil && !c.noFast {
			ok, short := c.fast()
			if ok {
				return &c.call, nil
			}
			if short && c.r.refill() {
				continue
			}
		}
		err := c.r.next()
		if err != nil {
			c.err = err
			if err != io.EOF && c.r.cutLeave {
				// apitrace takes the call off its pending list when it
				// starts reading the leave, and deletes it when the leave
				// is cut: the call is not returned at all.
				c.drop(c.r.ev.Call)
			}
			break
		}
		ev := &c.r.ev
		if ev.Kind == Enter {
			if len(c.pending) >= maxPending {
				c.err = &FormatError{Offset: c.r.Offset(), Chunk: c.r.chunkOf(c.r.Offset()),
					Err: wrapf(ErrTooLarge, "more than %d calls pending", maxPending)}
				break
			}
			s := c.slot()
			s.enter(ev)
			c.pending = append(c.pending, s)
			if s.shares {
				// The call keeps large strings where they are, in the
				// window: the Reader must not read over them.
				c.r.given = true
			}
			continue
		}
		k := len(c.pending) - 1
		for k >= 0 && c.pending[k].call.No != ev.Call {
			k--
		}
		if k < 0 {
			continue // apitrace drops a leave it cannot match
		}
		s := c.pending[k]
		copy(c.pending[k:], c.pending[k+1:])
		c.pending = c.pending[:len(c.pending)-1]
		s.leave(ev)
		c.last = s
		return &s.call, nil
	}
	if c.drained < len(c.pending) {
		s := c.pending[c.drained]
		c.drained++
		s.call.Incomplete = true
		return &s.call, nil
	}
	return nil, c.err
}

// All returns an iterator over the remaining calls; it stops after the
// first error, which it yields unless it is io.EOF. Each Call is valid
// until the loop's next iteration.
func (c *CallReader) All() iter.Seq2[*Call, error] {
	return func(yield func(*Call, error) bool) {
		for {
			call, err := c.Read()
			if err == io.EOF {
				return
			}
			if !yield(call, err) || err != nil {
				return
			}
		}
	}
}

// fast is the fast path for the usual case, a call whose leave follows its
// enter directly, with nothing pending: it parses both events straight
// into c.call and reports whether the next event was such an enter and
// its leave, whole in the window. If not, it leaves the Reader where it
// was (short says the window ended first), and the general path reads the
// events again; it is the general path that reports errors.
func (c *CallReader) fast() (ok, short bool) {
	r := &c.r
	i := r.pos
	if i >= len(r.buf) {
		return false, true
	}
	if r.buf[i] != 0 {
		return false, false
	}
	r.startValues()
	r.bt = r.bt[:0]
	r.hasBT = false
	r.ev.Flags = 0
	call := &c.call
	*call = Call{No: r.nextCall}
	var err error
	i++
	if r.version >= 4 {
		var ok bool
		if call.Thread, i, ok = r.small(i); !ok {
			if call.Thread, i, err = r.uint(i); err != nil {
				return false, err == errShort
			}
		}
	}
	if call.Sig, i, err = r.funcSig(i); err != nil {
		return false, err == errShort
	}
	// Zeroed one by one: for the few arguments of a call this beats
	// a call to the runtime's memory clearing.
	args := c.args[:0]
	for range call.Sig.ArgNames {
		args = append(args, Value{})
	}
	call.Args, c.args = args, args
	r.dst = call
	i, err = r.details(i)
	r.dst = nil
	if err != nil {
		return false, err == errShort
	}
	enterBT := r.hasBT
	call.Flags = r.ev.Flags

	if i >= len(r.buf) {
		return false, true
	}
	if r.buf[i] != 1 {
		return false, false
	}
	no, i, err := r.uint(i + 1)
	if err != nil || no != call.No {
		return false, err == errShort
	}
	r.hasBT = false
	r.ev.Flags = 0
	r.dst = call
	i, err = r.details(i)
	r.dst = nil
	if err != nil || r.hasBT {
		// A leave with a backtrace of its own goes the general way.
		return false, err == errShort
	}
	if r.ev.Flags != 0 {
		call.Flags = r.ev.Flags
	}
	c.args = call.Args
	r.block = r.arena // the arena no longer moves
	if enterBT {
		if r.bt == nil {
			r.bt = make([]*Frame, 0, 8)
		}
		call.Backtrace = r.bt
	}
	r.pos = i
	r.nextCall++
	return true, false
}

// drop forgets the pending call numbered no.
func (c *CallReader) drop(no uint64) {
	for k := len(c.pending) - 1; k >= 0; k-- {
		if c.pending[k].call.No == no {
			c.free = append(c.free, c.pending[k])
			c.pending = append(c.pending[:k], c.pending[k+1:]...)
			return
		}
	}
}

// Offset returns how many bytes of the decompressed stream, header
// included, the calls read so far span.
func (c *CallReader) Offset() int64 { return c.r.Offset() }

// Decompressed returns Reader.Decompressed: once Read has returned an
// error, the size of the whole decompressed stream.
func (c *CallReader) Decompressed() int64 { return c.r.Decompressed() }

func (c *CallReader) slot() *slot {
	if n := len(c.free); n > 0 {
		s := c.free[n-1]
		c.free = c.free[:n-1]
		return s
	}
	return new(slot)
}

func (s *slot) enter(ev *Event) {
	s.store.reuse()
	s.store.share = true
	s.bt = s.bt[:0]
	s.hasBT = ev.Backtrace != nil
	s.bt = append(s.bt, ev.Backtrace...)
	n := 0
	if ev.Sig != nil {
		n = len(ev.Sig.ArgNames)
	}
	s.args = s.args[:0]
	for k := 0; k < n; k++ {
		s.args = append(s.args, Value{})
	}
	s.call = Call{No: ev.Call, Thread: ev.Thread, Sig: ev.Sig, Flags: ev.Flags}
	s.add(ev)
}

func (s *slot) leave(ev *Event) {
	if ev.Flags != 0 {
		s.call.Flags = ev.Flags
	}
	if ev.Backtrace != nil {
		s.hasBT = true
		s.bt = append(s.bt[:0], ev.Backtrace...)
	}
	s.add(ev)
}

// add copies the event's argument and return values into the slot's own
// storage.
func (s *slot) add(ev *Event) {
	need := cloner{share: true}
	for k := range ev.Args {
		need.count(ev.Args[k].Value)
	}
	need.count(ev.Ret)
	st := &s.store
	if !st.fits(&need) {
		s.grow(&need)
	}
	for k := range ev.Args {
		a := &ev.Args[k]
		for a.Index >= len(s.args) {
			s.args = append(s.args, Value{})
		}
		s.args[a.Index] = st.value(a.Value)
	}
	if ev.Ret.ref != nil {
		s.call.Ret = st.value(ev.Ret)
	}
	s.call.Args = s.args
	s.shares = s.store.kept
	if s.hasBT {
		if s.bt == nil {
			s.bt = make([]*Frame, 0, 8)
		}
		s.call.Backtrace = s.bt
	} else {
		s.call.Backtrace = nil
	}
}

// grow moves the slot's values into buffers with room for what need
// counted. The old buffers are left to the values copied from them.
func (s *slot) grow(need *cloner) {
	old := cloner{share: true}
	for k := range s.args {
		old.count(s.args[k])
	}
	old.count(s.call.Ret)
	kept := s.store.kept
	s.store = cloner{
		nn:    2*(old.nn+need.nn) + 16,
		ns:    2*(old.ns+need.ns) + 4,
		nb:    2*(old.nb+need.nb) + 64,
		share: true,
	}
	s.store.alloc()
	s.store.kept = kept
	for k := range s.args {
		s.args[k] = s.store.value(s.args[k])
	}
	s.call.Ret = s.store.value(s.call.Ret)
}
