package gotraceraw

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tracefmt/tracefmt/varint"
)

// MaxBatchSize is the most bytes of events one batch may hold, as Go's
// trace parser allows; the writers refuse an event that would make a
// batch (or an ExperimentalBatch's data) larger.
const MaxBatchSize = 64 << 10

// Writer writes events in the binary format.
//
// It computes the size argument of each EventBatch from the events it
// actually writes after it, so a caller may drop, add or change events;
// and it refuses, with ErrInvalid, an event the parser would misread. It
// holds each batch until the batch ends, at the next EventBatch,
// ExperimentalBatch or EndOfGeneration, or at Close: call Close at the
// end. With Validate set it also holds each generation until the
// Validator accepts it (below).
//
// A writer whose Validate field is set before the first Write writes only
// what Go's parser accepts, as far as the Validator judges as Go does. It
// holds each generation whole, until a batch of another generation
// number, an EndOfGeneration (which ends its generation and is its last
// byte) or Close, passes the generation's wire bytes to the Validator, and
// writes them only if it accepts; the TextWriter passes the wire bytes of
// what it prints. It also refuses at once, before the generation ends:
// an event where Go's parser takes no such event (a batch of strings holds
// a Strings event and then String events only; stacks, CPU samples and
// the sync batch of Frequency and ClockSnapshot likewise; other batches
// hold timed events only), a string or stack id defined twice in a
// generation (or id 0, which stands for none), a string over 1 KiB or a
// stack over 128 frames, a second Frequency or ClockSnapshot in a
// generation, a generation numbered 0 and, before Go1.26, a generation
// that does not follow the one before it. At the end of a generation it
// refuses one that uses a string or stack id it does not define (ids are
// per generation). The refusal wraps ErrInvalid and the Validator's error.
// Memory grows with the largest generation, not with the trace. These
// checks are in one place stricter than Go's parser: every frame of
// every Stack must name strings its generation defines, where Go checks
// only the first frame it sees for each pc.
//
// Round trips:
//
//   - Binary to binary reproduces the input byte for byte whenever its batch
//     sizes are right, which they are in every trace the runtime writes:
//     Event.Widths records each varint written longer than needed (the
//     runtime pads every batch size to ten bytes), and the Writer uses it.
//   - Text to binary, with Writer.PadBatchLengths, reproduces the runtime's
//     bytes (every fixture). Without it varints come out minimal.
//   - Text to text reproduces text in the form the writers print. Comments,
//     blank lines, other white space, CRLF, leading zeros and other
//     quotings come out in the printed form.
type Writer struct {
	// PadBatchLengths writes the size of each EventBatch and the data
	// length of each ExperimentalBatch as a ten-byte varint, as the Go
	// runtime does, for events without Widths. With it, events read from
	// the text form of a runtime-written trace are written back to the
	// runtime's exact bytes. Events with Widths are written with those
	// widths either way.
	PadBatchLengths bool

	// Validate, when set before the first Write, judges each generation
	// before it is written, and the Writer also makes the checks that
	// are cheap as events come (see Writer). A generation it refuses is
	// not written, and neither is anything after it.
	Validate Validator

	sink
	g genState
}

// sink is the buffered output of both writers, and the batch they have
// open.
type sink struct {
	w      io.Writer
	buf    []byte
	err    error // sticky: the underlying writer failed, or an event was refused
	open   bool  // Reset succeeded
	closed bool
	h      Header
	tab    *table

	// The open batch: buf[start:] is its EventBatch and its events so
	// far, the size goes in buf[at:at+width] (a varint, or the digits
	// of the text form), and must take pad bytes at least.
	inBatch          bool
	start, at, width int
	pad              int
	body             int // the batch's events' length on the wire (TextWriter)

	// When validating, buf[hold:] is the generation held until its
	// Validator accepts it.
	started bool // the first event came: Validate is read then
	held    bool
	hold    int
}

// flushAt is how many buffered bytes make a writer write them out.
const flushAt = 64 << 10

// refuse makes a refusal sticky, as every other error is, and writes
// what came before it that is complete: the generations accepted when
// validating, else every batch, the open one ended where it stands.
// endBatch ends the open batch.
func (s *sink) refuse(err error, endBatch func()) error {
	if err == nil || !s.open || !errors.Is(err, ErrInvalid) {
		return err
	}
	if s.held {
		s.buf, s.held, s.inBatch = s.buf[:s.hold], false, false
	} else if s.inBatch {
		endBatch()
	}
	if s.write(len(s.buf)) == nil {
		s.err = err
	}
	s.open = false
	return err
}

// ready returns how many bytes at the start of buf are complete and, when
// validating, accepted: what may be written.
func (s *sink) ready() int {
	switch {
	case s.held:
		return s.hold
	case s.inBatch:
		return s.start
	}
	return len(s.buf)
}

// spill writes what is ready once there is enough of it.
func (s *sink) spill() error {
	if n := s.ready(); n >= flushAt {
		return s.write(n)
	}
	return nil
}

// usable returns the error a writer's method returns before doing
// anything, or nil.
func (s *sink) usable() error {
	if s.open {
		return nil
	}
	switch {
	case s.err != nil:
		return s.err
	case s.closed:
		return ErrClosed
	}
	return ErrNotOpen
}

// reset points s at w for traces of h.Version, keeping its buffer.
func (s *sink) reset(w io.Writer, h Header) error {
	buf := s.buf
	if buf == nil {
		// It grows to hold the output held back and the open batch
		// (flushAt and MaxBatchSize bytes, a batch's text for a
		// TextWriter): a small trace needs less.
		buf = make([]byte, 0, 8<<10)
	}
	*s = sink{buf: buf[:0]}
	if !h.Version.Valid() {
		return fmt.Errorf("%w: Go 1.%d", ErrVersion, uint8(h.Version))
	}
	if w == nil {
		return fmt.Errorf("%w: nil io.Writer", ErrNotOpen)
	}
	s.w, s.h, s.tab, s.open = w, h, h.Version.table(), true
	return nil
}

// place checks where e, of table flags k, goes in the batches Go's parser
// reads the file as (an EventBatch and the events of its size, an
// ExperimentalBatch, or, in Go1.26, an EndOfGeneration) and reports
// whether e ends the open batch.
func (s *sink) place(e *Event, k uint8) (endsBatch bool, err error) {
	if k&kFrame == 0 {
		if !s.inBatch {
			return false, fmt.Errorf("%w: %v outside a batch", ErrInvalid, e.Type)
		}
		return false, nil
	}
	if e.Type == EvExperimentalBatch {
		if e.Args[0] >= 0x80 || (e.Widths != nil && e.Widths[0] != 1) {
			return false, fmt.Errorf("%w: ExperimentalBatch exp=%d: Go's parser reads it as one byte", ErrInvalid, e.Args[0])
		}
		if len(e.Data) > MaxBatchSize {
			return false, fmt.Errorf("%w: ExperimentalBatch of %d bytes, over %d", ErrInvalid, len(e.Data), MaxBatchSize)
		}
	}
	return s.inBatch, nil
}

// write writes buf[:n] to the underlying writer and keeps the rest.
func (s *sink) write(n int) error {
	if n == 0 {
		return nil
	}
	if _, err := s.w.Write(s.buf[:n]); err != nil {
		s.err, s.open = err, false
		return err
	}
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
	s.start -= n
	s.at -= n
	s.hold -= n
	return nil
}

// flush writes the buffered output but for the open batch and the held
// generation.
func (s *sink) flush() error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.write(s.ready())
}

// resize makes the size field of the open batch n bytes wide, moving the
// batch's events.
func (s *sink) resize(n int) {
	d := n - s.width
	end := len(s.buf)
	if d > 0 {
		var room [20]byte // the most a size takes: 20 digits
		s.buf = append(s.buf, room[:d]...)
	}
	copy(s.buf[s.at+n:], s.buf[s.at+s.width:end])
	s.buf = s.buf[:end+d]
	s.width = n
}

// NewWriter returns a Writer of traces of h.Version to w. The header is
// written with the first Flush or Close.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	ww := new(Writer)
	if err := ww.Reset(w, h); err != nil {
		return nil, err
	}
	return ww, nil
}

// Reset makes the Writer write a new trace of h.Version to w, keeping its
// buffer and PadBatchLengths and dropping any unwritten output and error.
// The zero Writer is ready for Reset; before it, every method returns
// ErrNotOpen.
func (w *Writer) Reset(out io.Writer, h Header) error {
	w.g.clear()
	w.g = genState{strings: w.g.strings, stacks: w.g.stacks, refStrings: w.g.refStrings, refStacks: w.g.refStacks}
	if err := w.reset(out, h); err != nil {
		return err
	}
	w.buf = append(w.buf, "go 1."...)
	w.buf = strconv.AppendUint(w.buf, uint64(h.Version), 10)
	w.buf = append(w.buf, " trace\x00\x00\x00"...)
	return nil
}

// Write encodes one event. It refuses, with an error wrapping ErrInvalid,
// an event that does not fit its type or that would make a file Go's
// parser misreads (an event outside a batch, a batch over MaxBatchSize),
// and with Validate set an event the checks refuse or an event that ends
// a generation the Validator refuses. Nothing of the refused event, nor
// of its generation when validating, is written; what came before it is
// (see the package doc). Errors are sticky, refusals included: every
// later call returns the error and writes nothing more.
func (w *Writer) Write(e *Event) error {
	if w.open && w.inBatch && w.g.val == nil && plainInBatch(e, w.h.Version, w.tab) {
		// The common case, in line: an event of plain arguments in
		// the open batch.
		mark := len(w.buf)
		b := append(w.buf, byte(e.Type))
		for _, a := range e.Args {
			b = varint.Append(b, a)
		}
		w.buf = b
		if len(b)-(w.at+w.width) > MaxBatchSize {
			w.buf = b[:mark]
			return w.refuse(fmt.Errorf("%w: %v would make its batch longer than %d bytes", ErrInvalid, e.Type, MaxBatchSize), w.endBatch)
		}
		return nil
	}
	return w.refuse(w.writeEvent(e), w.endBatch)
}

// plainInBatch reports whether e is an event of version v of plain
// arguments that goes inside a batch, with minimal varints: what check
// accepts, and the writers write without ado, for nearly every event.
func plainInBatch(e *Event, v Version, tab *table) bool {
	return e != nil && e.Widths == nil && e.Data == nil && (e.Version == v || e.Version == 0) &&
		int(tab.inner[e.Type]) == len(e.Args)+1
}

func (w *Writer) writeEvent(e *Event) error {
	if err := w.usable(); err != nil {
		return err
	}
	if !w.started {
		w.started, w.g.val = true, w.Validate
	}
	k, err := check(e, w.h.Version, w.tab)
	if err != nil {
		return err
	}
	// An event inside the open batch, the common case, needs no call.
	ends := false
	if k&kFrame != 0 || !w.inBatch {
		if ends, err = w.place(e, k); err != nil {
			return err
		}
	}
	if ends {
		w.endBatch()
	}
	if w.g.val != nil {
		if err := w.judge(e, k); err != nil {
			return err
		}
	}
	mark := len(w.buf)
	b := append(w.buf, byte(e.Type))
	if e.Widths == nil {
		for _, a := range e.Args {
			b = varint.Append(b, a)
		}
		if k&kData != 0 {
			if w.PadBatchLengths && e.Type == EvExperimentalBatch {
				b, _ = varint.AppendPadded(b, uint64(len(e.Data)), varint.MaxLen)
			} else {
				b = varint.Append(b, uint64(len(e.Data)))
			}
		}
	} else {
		for i, a := range e.Args {
			b, _ = varint.AppendPadded(b, a, int(e.Widths[i]))
		}
		if k&kData != 0 {
			b, _ = varint.AppendPadded(b, uint64(len(e.Data)), int(e.Widths[len(e.Args)]))
		}
	}
	w.buf = append(b, e.Data...)
	if w.inBatch && len(w.buf)-(w.at+w.width) > MaxBatchSize {
		w.buf = w.buf[:mark]
		return fmt.Errorf("%w: %v would make its batch longer than %d bytes", ErrInvalid, e.Type, MaxBatchSize)
	}
	if w.g.val != nil {
		if !w.held {
			w.held, w.hold = true, mark
		}
		w.g.note(e, k, w.h.Version)
		if e.Type == EvEndOfGeneration {
			if err := w.endGen(); err != nil {
				return err
			}
		}
	}
	if e.Type == EvEventBatch {
		w.beginBatch(e, mark)
	}
	return w.spill()
}

// judge makes a validating Writer's checks of e before it is written:
// where it stands in its batch and generation. A batch of another
// generation ends the one held, which the Validator judges then.
func (w *Writer) judge(e *Event, k uint8) error {
	g := &w.g
	if k&kFrame != 0 {
		if w.held && e.Type != EvEndOfGeneration && genNum(e) != g.num {
			if err := w.endGen(); err != nil {
				return err
			}
		}
		if !w.held {
			return g.open(e, w.h.Version)
		}
		return nil
	}
	return g.local(e, k, w.h.Version)
}

// endGen ends the generation held: it checks the references in it, and
// passes it to the Validator. Once accepted, it may be written.
func (w *Writer) endGen() error {
	g := &w.g
	if w.inBatch {
		w.endBatch()
	}
	err := g.finish()
	if err == nil {
		if verr := g.val.Generation(w.buf[w.hold:]); verr != nil {
			err = fmt.Errorf("%w: generation %d refused: %w", ErrInvalid, g.num, verr)
		}
	}
	if err != nil {
		return err
	}
	g.accepted++
	g.last = g.num
	g.clear()
	w.held = false
	return nil
}

// beginBatch opens the batch of the EventBatch e just written at mark. Its
// size was written as given, which is right when the batch comes back
// unchanged: endBatch puts the true one.
func (w *Writer) beginBatch(e *Event, mark int) {
	size := e.Args[3]
	width := varint.Len(size)
	pad := 0
	if e.Widths != nil {
		pad = int(e.Widths[3])
	} else if w.PadBatchLengths {
		pad = varint.MaxLen
		w.buf, _ = varint.AppendPadded(w.buf[:len(w.buf)-width], size, pad)
	}
	width = max(width, pad)
	w.inBatch, w.start, w.at, w.width, w.pad = true, mark, len(w.buf)-width, width, pad
}

// endBatch writes the open batch's size, the length of its events.
func (w *Writer) endBatch() {
	size := len(w.buf) - (w.at + w.width)
	if n := max(varint.Len(uint64(size)), w.pad); n != w.width {
		w.resize(n)
	}
	varint.AppendPadded(w.buf[:w.at:w.at+w.width], uint64(size), w.width)
	w.inBatch = false
}

// Flush writes the buffered output to the underlying writer, but for the
// open batch, whose size is known only at its end, and when validating
// the generation not yet accepted.
func (w *Writer) Flush() error { return w.flush() }

// Close ends the open batch and, when validating, the generation, and
// writes all the output. It does not close the underlying writer. Write
// after Close returns ErrClosed; closing again returns nil, or the error
// that stopped the writer. When the Validator refuses the last
// generation, Close writes the generations before it and returns the
// refusal.
func (w *Writer) Close() error {
	if w.closed && w.err == nil {
		return nil // closed already
	}
	if err := w.usable(); err != nil {
		return err
	}
	if w.inBatch {
		w.endBatch()
	}
	if w.held {
		if err := w.endGen(); err != nil {
			return w.refuse(err, w.endBatch)
		}
	}
	err := w.write(len(w.buf))
	w.closed, w.open = true, false
	return err
}

// check reports whether e can be written as a version v event: its
// version is v (or 0), its type is one of v's, it has the type's number of
// arguments (for a Stack, 2 + 4*nframes), data only on a type with data,
// and Widths, when set, has one width per varint, each wide enough for its
// value and at most ten bytes. It returns the type's table flags.
func check(e *Event, v Version, tab *table) (uint8, error) {
	if e == nil {
		return 0, fmt.Errorf("%w: nil *Event", ErrInvalid)
	}
	if e.Version != v && e.Version != 0 {
		return 0, fmt.Errorf("%w: %v event in a %v trace", ErrInvalid, e.Version, v)
	}
	k := tab.kind[e.Type]
	if k == 0 {
		return 0, &refusal{fmt.Sprintf("gotraceraw: invalid event: unknown event type %d in a %v trace", uint8(e.Type), v), []error{ErrInvalid, ErrEventType}}
	}
	na := int(tab.nargs[e.Type])
	if k&kStack != 0 {
		if len(e.Args) < na || e.Args[1] != uint64(len(e.Args)-na)/4 || (len(e.Args)-na)%4 != 0 {
			return 0, fmt.Errorf("%w: %v needs 2 arguments and 4 per frame, has %d", ErrInvalid, e.Type, len(e.Args))
		}
	} else if len(e.Args) != na {
		return 0, fmt.Errorf("%w: %v needs %d arguments, has %d", ErrInvalid, e.Type, na, len(e.Args))
	}
	hasData := 0
	if k&kData != 0 {
		hasData = 1
	} else if e.Data != nil {
		return 0, fmt.Errorf("%w: %v has no data", ErrInvalid, e.Type)
	}
	if e.Widths != nil {
		if len(e.Widths) != len(e.Args)+hasData {
			return 0, fmt.Errorf("%w: %v has %d widths for %d varints", ErrInvalid, e.Type, len(e.Widths), len(e.Args)+hasData)
		}
		for i, wd := range e.Widths {
			var x uint64
			if i < len(e.Args) {
				x = e.Args[i]
			} else {
				x = uint64(len(e.Data))
			}
			if int(wd) < varint.Len(x) || wd > varint.MaxLen {
				return 0, fmt.Errorf("%w: %v varint %d is %d, which needs %d bytes, given %d", ErrInvalid, e.Type, i, x, varint.Len(x), wd)
			}
		}
	}
	return k, nil
}

// refusal is an error that wraps several sentinels and names the package
// once.
type refusal struct {
	msg  string
	errs []error
}

func (e *refusal) Error() string   { return e.msg }
func (e *refusal) Unwrap() []error { return e.errs }
