package cbf

import (
	"encoding/binary"
	"io"
	"math"
	"math/bits"
	"slices"

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
	shift   uint  // 64 - word size
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
	*e = encoder{word: w, mask: w.mask(), shift: 64 - uint(w), state: encOpen}
	return append(dst, infoBytes[w.code()]), nil
}

func (e *encoder) frame(dst []byte, f Frame) ([]byte, error) {
	if e.state != encOpen {
		return dst, ErrState
	}
	if f.Kind-PC < 3 {
		// pc, ra, async: the common case first.
		if f.Addr > e.mask {
			return dst, ErrAddr
		}
		f.Count = 0
		if e.hasPrev && f == e.prev {
			return dst, e.repeat()
		}
		if e.run > 0 {
			dst = e.flush(dst)
		}
		e.prev, e.hasPrev = f, true
		return e.addr(dst, f.Kind, f.Addr), nil
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
		return dst, e.repeat()
	}
	dst = e.flush(dst)
	e.prev, e.hasPrev = f, true
	if f.Count <= 31 {
		op, _ := omitLayout.Pack(1, 0, f.Count-1)
		return append(dst, byte(op)), nil
	}
	n := bitfield.UnsignedLen(f.Count)
	op, _ := omitLayout.Pack(1, 1, uint64(n-1))
	return bitfield.AppendBigEndian(append(dst, byte(op)), f.Count, n), nil
}

func (e *encoder) repeat() error {
	if e.run == math.MaxInt64 {
		return ErrOverflow
	}
	e.run++
	return nil
}

// addr appends an address frame of kind k. Absolute only when strictly
// shorter than the delta: the first frame, relative to 0, is therefore
// always relative.
func (e *encoder) addr(dst []byte, k Kind, a uint64) []byte {
	delta := (a - e.last) & e.mask
	nAbs, nRel := e.signedLen(a), e.signedLen(delta)
	e.last = a
	v, n, abs := delta, nRel, 0
	if nAbs < nRel {
		v, n, abs = a, nAbs, 1
	}
	return putAddr(slices.Grow(dst, 9), addrOps[k&3][abs][n&15], v, n)
}

// putAddr appends the instruction byte op and the low n bytes of v, big
// endian; dst must have room for 9 more bytes. It stores eight bytes with
// the operand's n first and keeps n: one store instead of
// bitfield.AppendBigEndian's byte loop.
func putAddr(dst []byte, op byte, v uint64, n int) []byte {
	i := len(dst)
	b := dst[i : i+9]
	b[0] = op
	binary.BigEndian.PutUint64(b[1:9], v<<(64-8*uint(n)))
	return dst[:i+1+n]
}

// frames encodes fs: address frames that differ from the one before in a
// loop that keeps the encoder's state in registers, anything else through
// frame.
func (e *encoder) frames(dst []byte, fs []Frame) ([]byte, error) {
	if e.state != encOpen {
		return dst, ErrState
	}
	last, mask, shift := e.last, e.mask, e.shift
	// pk is the previous frame's kind (0 before the first); when it is an
	// address kind, the previous frame's address is last. run is 0
	// throughout the fast path.
	pk, run := e.prev.Kind, e.run
	// Room for the longest address frame each, so putAddr need not check.
	dst = slices.Grow(dst, 9*len(fs))
	for i := 0; i < len(fs); i++ {
		if run == 0 && shift == 0 {
			var n int
			dst, n, last, pk = addrs64(dst, fs[i:], last, pk)
			if i += n; i == len(fs) {
				break
			}
		}
		f := &fs[i]
		if k := f.Kind; k-PC < 3 && f.Addr <= mask && run == 0 && (k != pk || f.Addr != last) {
			a := f.Addr
			delta := (a - last) & mask
			nAbs, nRel := opLen(a, shift), opLen(delta, shift)
			last, pk = a, k
			if nAbs < nRel {
				dst = putAddr(dst, addrOps[k&3][1][nAbs&15], a, nAbs)
			} else {
				dst = putAddr(dst, addrOps[k&3][0][nRel&15], delta, nRel)
			}
			continue
		}
		e.sync(last, pk)
		var err error
		if dst, err = e.frame(dst, *f); err != nil {
			return dst, err
		}
		if e.state != encOpen && i+1 < len(fs) {
			return dst, ErrState // a frame after Truncated
		}
		last, pk, run = e.last, e.prev.Kind, e.run
		// frame appends as much as it needs (a long run of repeats can take
		// more than 9 bytes): keep the room the loops count on.
		dst = slices.Grow(dst, 9*(len(fs)-i-1))
	}
	e.sync(last, pk)
	return dst, nil
}

// addrs64 is frames' loop for 64-bit words, where neither a mask nor a
// sign extension is needed: it encodes the frames of fs up to the first
// that is not an address frame differing from the one before, and returns
// how many it took with the new state. dst must have room for 9 bytes a
// frame. It keeps few values live so that they stay in registers.
func addrs64(dst []byte, fs []Frame, last uint64, pk Kind) ([]byte, int, uint64, Kind) {
	j := len(dst)
	out := dst[:cap(dst)]
	i := 0
	for ; i < len(fs) && j+9 <= len(out); i++ {
		k, a := fs[i].Kind, fs[i].Addr
		if k-PC >= 3 {
			break
		}
		if a == last && (i == 0 && k == pk || i > 0 && k == fs[i-1].Kind) {
			break // a repeat
		}
		// Relative unless absolute is strictly shorter, chosen without a
		// branch: which one wins is data, and a mispredicted branch costs
		// more than the arithmetic. x|1 has the byte length of x and
		// spares Len64 its test for zero.
		d := a - last
		nAbs := (bits.Len64(a^uint64(int64(a)>>63)|1) + 8) >> 3
		nRel := (bits.Len64(d^uint64(int64(d)>>63)|1) + 8) >> 3
		abs := (nAbs - nRel) >> 63 // -1 when absolute is shorter, else 0
		v := d ^ (d^a)&uint64(abs)
		n := nRel + (nAbs-nRel)&abs
		out[j] = opBase[k&3] | byte(abs&8) | byte(n-1)
		binary.BigEndian.PutUint64(out[j+1:j+9], v<<((64-8*uint(n))&63))
		j += 1 + n
		last = a
	}
	if i > 0 {
		pk = fs[i-1].Kind
	}
	return dst[:j], i, last, pk
}

// sync stores the state frames keeps in registers.
func (e *encoder) sync(last uint64, pk Kind) {
	e.last = last
	if pk.HasAddr() {
		e.prev, e.hasPrev = Frame{Kind: pk, Addr: last}, true
	}
}

// signedLen is the fewest bytes whose sign extension gives back the
// word-sized v: Swift's rule for address operands.
func (e *encoder) signedLen(v uint64) int { return opLen(v, e.shift) }

// opLen is signedLen for a word of 64-shift bits: bitfield.SignedLen of the
// sign-extended word, without its loop.
func opLen(v uint64, shift uint) int {
	s := int64(v<<shift) >> shift
	return (bits.Len64(uint64(s^(s>>63))) + 8) >> 3
}

// addrOps[kind][a][n] is the instruction byte of an address frame of that
// kind with an n-byte operand, absolute when a is 1.
var addrOps [4][2][16]byte

// opBase[kind] is the instruction byte of a relative address frame of
// that kind with a 1-byte operand: the flag and count bits are 0.
var opBase [4]byte

// infoBytes[size] is the version 0 info byte of size code size.
var infoBytes [3]byte

func init() {
	for size := range infoBytes {
		info, _ := infoLayout.Pack(0, uint64(size))
		infoBytes[size] = byte(info)
	}
	for k := PC; k <= Async; k++ {
		for abs := range 2 {
			for n := 1; n <= 8; n++ {
				op, ok := opLayout.Pack(uint64(k), uint64(abs), uint64(n-1))
				if !ok {
					panic("cbf: instruction layout")
				}
				addrOps[k][abs][n] = byte(op)
				opBase[k] = addrOps[k][0][1]
				if byte(op) != opBase[k]|byte(abs<<3)|byte(n-1) {
					panic("cbf: addrs64 assumes the flag and count bits below the class")
				}
			}
		}
	}
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
	if err == nil {
		dst, err = e.frames(dst, frames)
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
	var err error
	z.buf, err = z.enc.frames(z.buf, rec.Frames)
	if err = z.check(err); err != nil {
		return err
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
