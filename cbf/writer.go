package cbf

import (
	"io"
	"math"

	"github.com/tracefmt/tracefmt/bitfield"
)

// MaxRepeatRun is the most copies one rep instruction carries when a
// Writer encodes a run of equal frames; a longer run takes several. Swift's
// newest tests say its encoder never writes more (maxRepeatCount); the
// code that does so is not in the Swift sources read for this package.
const MaxRepeatRun = 1 << 20

// encoder holds the state of one record being encoded with Swift's rules.
type encoder struct {
	word    WordSize
	mask    uint64
	state   uint8 // encIdle, encOpen, encTrunc
	last    uint64
	prev    Frame
	hasPrev bool
	run     uint64
}

const (
	encIdle = iota
	encOpen
	encTrunc
)

func (e *encoder) begin(dst []byte, w WordSize) ([]byte, error) {
	if !w.Valid() {
		return dst, ErrWordSize
	}
	if e.state == encOpen {
		return dst, ErrState
	}
	*e = encoder{word: w, mask: w.mask(), state: encOpen}
	info, _ := infoLayout.Pack(0, w.code())
	return append(dst, byte(info)), nil
}

func (e *encoder) frame(dst []byte, f Frame) ([]byte, error) {
	if e.state != encOpen {
		return dst, ErrState
	}
	f = f.norm()
	switch f.Kind {
	case PC, RA, Async:
		if f.Addr > e.mask {
			return dst, ErrAddr
		}
	case Omitted:
		if f.Count == 0 {
			return dst, ErrCount
		}
		if f.Count > math.MaxInt64 {
			return dst, ErrOverflow
		}
	case Repeat:
		if !e.hasPrev {
			return dst, ErrNoFrame
		}
		if f.Count == 0 {
			return dst, ErrCount
		}
		if f.Count > math.MaxInt64-e.run {
			return dst, ErrOverflow
		}
		e.run += f.Count
		return dst, nil
	case Truncated:
		dst = e.flush(dst)
		e.state = encTrunc
		return append(dst, opTrunc), nil
	default:
		return dst, ErrKind
	}
	// Swift's encoder compares each frame with the one before and counts
	// the run of equal ones.
	if e.hasPrev && f == e.prev {
		if e.run == math.MaxInt64 {
			return dst, ErrOverflow
		}
		e.run++
		return dst, nil
	}
	dst = e.flush(dst)
	e.prev, e.hasPrev = f, true
	if f.Kind == Omitted {
		if f.Count <= 31 {
			op, _ := omitLayout.Pack(1, 0, f.Count-1)
			return append(dst, byte(op)), nil
		}
		n := bitfield.UnsignedLen(f.Count)
		op, _ := omitLayout.Pack(1, 1, uint64(n-1))
		return bitfield.AppendBigEndian(append(dst, byte(op)), f.Count, n), nil
	}
	// Absolute only when strictly shorter than the delta: the first frame,
	// relative to 0, is therefore always relative.
	delta := (f.Addr - e.last) & e.mask
	nAbs, nRel := signedLen(f.Addr, e.word), signedLen(delta, e.word)
	e.last = f.Addr
	v, n, abs := delta, nRel, uint64(0)
	if nAbs < nRel {
		v, n, abs = f.Addr, nAbs, 1
	}
	op, _ := opLayout.Pack(uint64(f.Kind), abs, uint64(n-1))
	return bitfield.AppendBigEndian(append(dst, byte(op)), v, n), nil
}

// flush writes the pending run of repeats.
func (e *encoder) flush(dst []byte) []byte {
	for e.run > 0 {
		c := min(e.run, MaxRepeatRun)
		e.run -= c
		if c <= 8 {
			op, _ := opLayout.Pack(classRep, 0, c-1)
			dst = append(dst, byte(op))
			continue
		}
		n := bitfield.UnsignedLen(c)
		op, _ := opLayout.Pack(classRep, 1, uint64(n-1))
		dst = bitfield.AppendBigEndian(append(dst, byte(op)), c, n)
	}
	return dst
}

func (e *encoder) end(dst []byte) ([]byte, error) {
	switch e.state {
	case encOpen:
		dst = e.flush(dst)
		e.state = encIdle
		return append(dst, opEnd), nil
	case encTrunc:
		e.state = encIdle
		return dst, nil
	}
	return dst, ErrState
}

// Append appends one record holding frames, encoded as Swift's encoder
// encodes them, to dst. A Truncated frame must be the last; it ends the
// record without an end instruction.
func Append(dst []byte, w WordSize, frames []Frame) ([]byte, error) {
	var e encoder
	dst, err := e.begin(dst, w)
	for i := 0; err == nil && i < len(frames); i++ {
		dst, err = e.frame(dst, frames[i])
	}
	if err == nil {
		dst, err = e.end(dst)
	}
	return dst, err
}

// A Writer writes CBF records with the bytes Swift's encoder writes for the
// same frames: the fewest operand bytes, relative on a tie, omit counts up
// to 31 in the instruction and larger ones in operand bytes, runs of equal
// frames as rep, trunc without end.
//
// Begin starts a record, WriteFrame adds frames, End finishes it; Write
// does all three. Output is buffered: call Flush at the end. Errors are
// sticky.
type Writer struct {
	w   io.Writer
	buf []byte
	enc encoder
	err error
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, buf: make([]byte, 0, bufSize)}
}

// Reset makes z write to w as if new, keeping its buffer. Unflushed
// output is dropped.
func (z *Writer) Reset(w io.Writer) {
	*z = Writer{w: w, buf: z.buf[:0]}
}

func (z *Writer) check(err error) error {
	if err != nil {
		z.err = err
		return err
	}
	if len(z.buf) >= bufSize/2 {
		return z.Flush()
	}
	return nil
}

// Begin starts a record of word size w.
func (z *Writer) Begin(w WordSize) error {
	if z.err != nil {
		return z.err
	}
	var err error
	z.buf, err = z.enc.begin(z.buf, w)
	return z.check(err)
}

// WriteFrame adds f to the current record. Equal frames in a row, and
// Repeat frames, become rep instructions when the run ends. A Truncated
// frame ends the record.
func (z *Writer) WriteFrame(f Frame) error {
	if z.err != nil {
		return z.err
	}
	var err error
	z.buf, err = z.enc.frame(z.buf, f)
	return z.check(err)
}

// End finishes the current record with end, unless a Truncated frame has
// already finished it.
func (z *Writer) End() error {
	if z.err != nil {
		return z.err
	}
	var err error
	z.buf, err = z.enc.end(z.buf)
	return z.check(err)
}

// Write writes rec as one record.
func (z *Writer) Write(rec Record) error {
	if err := z.Begin(rec.Word); err != nil {
		return err
	}
	for _, f := range rec.Frames {
		if err := z.WriteFrame(f); err != nil {
			return err
		}
	}
	return z.End()
}

// Flush writes the buffered bytes to the underlying writer.
func (z *Writer) Flush() error {
	if z.err != nil {
		return z.err
	}
	if len(z.buf) > 0 {
		_, err := z.w.Write(z.buf)
		z.buf = z.buf[:0]
		if err != nil {
			z.err = err
			return err
		}
	}
	return nil
}
