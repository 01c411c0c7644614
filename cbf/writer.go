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
// Writer encodes a run of equal frames; a longer run takes several.
// Swift's newest tests say its encoder never writes more, though how it
// splits a longer run could not be checked in its sources.
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
	n       int // frames a Reader reads back from the instructions written so far
}

const (
	encIdle = iota
	encOpen
	encTrunc
)

func (e *encoder) begin(dst []byte, w WordSize) ([]byte, error) {
	if !w.Valid() {
		return dst, invalidWord
	}
	if e.state == encOpen {
		return dst, invalidOpen
	}
	e.open(w)
	return append(dst, infoBytes[w.code()]), nil
}

// open starts a record of w-bit words after its info byte.
func (e *encoder) open(w WordSize) {
	*e = encoder{word: w, mask: w.mask(), state: encOpen}
}

func (e *encoder) frame(dst []byte, f Frame) ([]byte, error) {
	if e.state != encOpen {
		return dst, e.stateErr()
	}
	if f.Kind-PC < 3 {
		// pc, ra, async: the common case first.
		if f.Addr > e.mask {
			return dst, invalidAddr
		}
		f.Count = 0
		if e.hasPrev && f == e.prev {
			return dst, e.repeat()
		}
		if e.run > 0 {
			dst = e.flush(dst)
		}
		if err := e.more(1); err != nil {
			return dst, err
		}
		e.prev, e.hasPrev = f, true
		return e.addr(dst, f.Kind, f.Addr), nil
	}
	f = f.norm()
	switch f.Kind {
	case Omitted:
		if f.Count == 0 {
			return dst, invalidCount
		}
		if f.Count > math.MaxInt64 {
			return dst, invalidOverflow
		}
	case Repeat:
		if !e.hasPrev {
			return dst, invalidNoFrame
		}
		if f.Count == 0 {
			return dst, invalidCount
		}
		if f.Count > math.MaxInt64-e.run {
			return dst, invalidOverflow
		}
		if err := e.fits(e.run + f.Count); err != nil {
			return dst, err
		}
		e.run += f.Count
		return dst, nil
	case Truncated:
		dst = e.flush(dst)
		if err := e.more(1); err != nil {
			return dst, err
		}
		e.state = encTrunc
		return append(dst, opTrunc), nil
	default:
		return dst, invalidKind
	}
	// Swift's encoder compares each frame with the one before and counts
	// the run of equal ones.
	if e.hasPrev && f == e.prev {
		return dst, e.repeat()
	}
	dst = e.flush(dst)
	if err := e.more(1); err != nil {
		return dst, err
	}
	e.prev, e.hasPrev = f, true
	if f.Count <= 31 {
		op, _ := omitLayout.Pack(1, 0, f.Count-1)
		return append(dst, byte(op)), nil
	}
	n := bitfield.UnsignedLen(f.Count)
	op, _ := omitLayout.Pack(1, 1, uint64(n-1))
	return bitfield.AppendBigEndian(append(dst, byte(op)), f.Count, n), nil
}

// stateErr is the error for a frame given to e while no record is open.
func (e *encoder) stateErr() error {
	if e.state == encTrunc {
		return invalidOrder
	}
	return invalidState
}

func (e *encoder) repeat() error {
	if e.run == math.MaxInt64 {
		return invalidOverflow
	}
	if err := e.fits(e.run + 1); err != nil {
		return err
	}
	e.run++
	return nil
}

// reps is the number of rep instructions a run of n copies takes.
func reps(n uint64) uint64 { return (n + MaxRepeatRun - 1) / MaxRepeatRun }

// more counts k more frames of the record, refusing a record the Reader
// would not collect whole with its default limit. The frames of the run
// not yet written count too.
func (e *encoder) more(k int) error {
	if uint64(e.n)+reps(e.run)+uint64(k) > DefaultMaxFrames {
		return invalidFrames
	}
	e.n += k
	return nil
}

// fits reports whether a run of n copies still leaves the record within
// the Reader's default limit.
func (e *encoder) fits(n uint64) error {
	if uint64(e.n)+reps(n) > DefaultMaxFrames {
		return invalidFrames
	}
	return nil
}

// addr appends an address frame of kind k.
func (e *encoder) addr(dst []byte, k Kind, a uint64) []byte {
	f := [1]Frame{{Kind: k, Addr: a}}
	dst, _, e.last, _ = appendFrames(e.word, slices.Grow(dst, 9), f[:], e.last, 0)
	return dst
}

// signedBytes is the fewest bytes whose sign extension gives back v, a W
// word: bitfield.SignedLen of the sign-extended word, without its loop.
func signedBytes[W word](v uint64) int {
	s := 64 - 8*wordBytes[W]()
	x := v << s
	// The top bit of x^(x<<1) is the last one that is not a copy of the
	// sign; 1<<s gives 0 and -1 their one byte.
	return (bits.Len64(x^(x<<1)|1<<s) - s + 7) >> 3
}

// frames encodes fs, address frames that differ from the one before in
// appendFrames' loop, anything else through frame.
func (e *encoder) frames(dst []byte, fs []Frame) ([]byte, error) {
	if e.state != encOpen {
		return dst, e.stateErr()
	}
	// pk is the previous frame's kind (0 before the first); when it is an
	// address kind, the previous frame's address is last.
	last, pk := e.last, e.prev.Kind
	for i := 0; i < len(fs); i++ {
		if e.run == 0 {
			// Room for the longest address frame each.
			dst = slices.Grow(dst, 9*(len(fs)-i))
			var n int
			dst, n, last, pk = appendFrames(e.word, dst, fs[i:], last, pk)
			if err := e.more(n); err != nil {
				return dst, err
			}
			if i += n; i == len(fs) {
				break
			}
		}
		e.sync(last, pk)
		var err error
		if dst, err = e.frame(dst, fs[i]); err != nil {
			return dst, err
		}
		if e.state != encOpen && i+1 < len(fs) {
			return dst, invalidOrder
		}
		last, pk = e.last, e.prev.Kind
	}
	e.sync(last, pk)
	return dst, nil
}

// appendFrames appends the frames of fs to dst, a w-bit record, while they
// are address frames that differ from the one before and dst has room for
// one more without growing; it returns how many it took and the new last
// and pk (see frames).
func appendFrames(w WordSize, dst []byte, fs []Frame, last uint64, pk Kind) ([]byte, int, uint64, Kind) {
	out, j, n := dst[:cap(dst)], len(dst), 0
	switch w {
	case Word64:
		n, j, last, pk = putFrames[uint64](out, j, fs, last, pk)
	case Word32:
		n, j, last, pk = putFrames[uint32](out, j, fs, last, pk)
	default:
		n, j, last, pk = putFrames[uint16](out, j, fs, last, pk)
	}
	return out[:j], n, last, pk
}

// putFrames is appendFrames for one word type, writing to out from j
// on; it returns the new j too. Like the Reader's addrWords it is compiled
// once per word size, which keeps its values in registers.
//
// Swift's rule: an operand has the fewest bytes whose sign extension gives
// the value back, and a frame is relative to the one before unless
// absolute is strictly shorter (so the first frame, relative to 0, is
// always relative). The eight bytes after the instruction byte are stored
// at once, the operand's first.
func putFrames[W word](out []byte, j int, fs []Frame, last uint64, pk Kind) (int, int, uint64, Kind) {
	i := 0
	for ; i < len(fs) && j < len(out)-8; i++ {
		k, a := fs[i].Kind, fs[i].Addr
		if k-PC >= 3 || a > uint64(^W(0)) || a == last && k == pk {
			break
		}
		d := uint64(W(a - last))
		v, n, op := d, signedBytes[W](d), byte(k)<<hotClassShift
		if nAbs := signedBytes[W](a); nAbs < n {
			v, n, op = a, nAbs, op|hotAbs
		}
		b := (*[9]byte)(out[j:])
		b[0] = op | byte(n-1)
		binary.BigEndian.PutUint64(b[1:], v<<((64-8*uint(n))&63))
		j += 1 + n
		last, pk = a, k
	}
	return i, j, last, pk
}

// sync stores the state frames keeps in registers.
func (e *encoder) sync(last uint64, pk Kind) {
	e.last = last
	if pk.HasAddr() {
		e.prev, e.hasPrev = Frame{Kind: pk, Addr: last}, true
	}
}

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
				if !ok || byte(op) != byte(k)<<hotClassShift|byte(abs*hotAbs)|byte(n-1) {
					panic("cbf: putFrames disagrees with the instruction layout")
				}
			}
		}
	}
}

// flush writes the pending run of repeats (fits and more have counted
// their instructions).
func (e *encoder) flush(dst []byte) []byte {
	e.n += int(reps(e.run))
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
	return dst, invalidState
}

// Append appends one record holding frames, encoded as Swift's encoder
// encodes them, to dst. A Truncated frame must be the last; it ends the
// record without an end instruction. A record it refuses (see Writer)
// leaves dst as it was.
func Append(dst []byte, w WordSize, frames []Frame) ([]byte, error) {
	var e encoder
	n := len(dst)
	dst, err := e.begin(dst, w)
	if err == nil {
		dst, err = e.frames(dst, frames)
	}
	if err == nil {
		dst, err = e.end(dst)
	}
	if err != nil {
		return dst[:n], err
	}
	return dst, nil
}

// A Writer writes CBF records with the bytes Swift's encoder writes for the
// same frames: operands have the fewest bytes whose sign extension gives
// the value back; a frame is absolute only when that is strictly shorter
// than the delta; runs of equal frames and Repeat frames become rep
// instructions, at most MaxRepeatRun copies each; omit counts up to 31 go
// in the instruction, larger ones in count bytes; trunc is not followed by
// end.
//
// The Writer derives every rep count and operand itself, so a caller may
// drop, add or change frames freely. What Swift's decoder would not read
// back as given is refused with an error wrapping ErrInvalid: an address
// wider than the word, a word size other than 16, 32 or 64, an omit or
// repeat count of 0 or beyond 63 bits, a Repeat with no frame before it, a
// frame after Truncated, an unknown kind, and a record a Reader would not
// collect whole with its default limit: more than DefaultMaxFrames frames
// once runs are written as rep instructions (a run of more than about
// 2^41 copies takes more). Write writes a whole record; Begin, WriteFrame
// and End write one frame by frame. Output is buffered: call Flush or
// Close at the end.
//
// A refusal drops the record it happened in, whole, whether given to Write
// or frame by frame, and nothing else: Flush and Close still write every
// record finished before it (by End, or by a Truncated frame), then return
// the refusal, which sticks. Check applies the rules to a record without
// writing it; Append leaves its buffer as it was when it refuses. A zero
// Writer is usable after Reset; before that every method returns
// ErrNotOpen.
type Writer struct {
	w       io.Writer
	buf     []byte
	mark    int // where the open record starts in buf
	enc     encoder
	err     error // sticky; ErrClosed after Close
	refused bool  // err is a refusal, which left buf[:mark] whole
}

// NewWriter returns a Writer writing to w. The error is nil unless w is
// nil: then the Writer is not open (see Reset) and the error is
// ErrNotOpen.
func NewWriter(w io.Writer) (*Writer, error) {
	z := new(Writer)
	return z, z.Reset(w)
}

// Reset makes z write to w as if new, keeping its buffer. Unflushed
// output is dropped. Reset(nil) leaves z not open (and drops the buffer)
// and returns ErrNotOpen.
func (z *Writer) Reset(w io.Writer) error {
	if w == nil {
		// Without a buffer, Write never takes its fast path.
		*z = Writer{}
		return ErrNotOpen
	}
	buf := z.buf[:0]
	if buf == nil {
		buf = make([]byte, 0, bufSize)
	}
	*z = Writer{w: w, buf: buf}
	return nil
}

// ready is the error every method returns before writing: the sticky
// one, or ErrNotOpen.
func (z *Writer) ready() error {
	if z.err != nil {
		return z.err
	}
	if z.w == nil {
		return ErrNotOpen
	}
	return nil
}

// check ends a step: a refusal drops the open record; else whole records
// are written out once the buffer is half full.
func (z *Writer) check(err error) error {
	if err != nil {
		z.buf = z.buf[:z.mark]
		z.enc.state = encIdle
		z.err, z.refused = err, true
		return err
	}
	if z.enc.state != encOpen {
		z.mark = len(z.buf) // a record ends with end or trunc
	}
	if z.mark >= bufSize/2 {
		return z.write()
	}
	return nil
}

// write writes the whole records buffered.
func (z *Writer) write() error {
	if z.mark == 0 {
		return nil
	}
	_, err := z.w.Write(z.buf[:z.mark])
	z.buf = z.buf[:copy(z.buf, z.buf[z.mark:])]
	z.mark = 0
	if err != nil {
		z.err, z.refused = err, false
	}
	return err
}

// Begin starts a record of word size w.
func (z *Writer) Begin(w WordSize) error {
	if err := z.ready(); err != nil {
		return err
	}
	var err error
	z.buf, err = z.enc.begin(z.buf, w)
	return z.check(err)
}

// WriteFrame adds f to the current record. Equal frames in a row, and
// Repeat frames, become rep instructions when the run ends. A Truncated
// frame ends the record.
func (z *Writer) WriteFrame(f Frame) error {
	if err := z.ready(); err != nil {
		return err
	}
	var err error
	z.buf, err = z.enc.frame(z.buf, f)
	return z.check(err)
}

// End finishes the current record with end, unless a Truncated frame has
// already finished it.
func (z *Writer) End() error {
	if err := z.ready(); err != nil {
		return err
	}
	var err error
	z.buf, err = z.enc.end(z.buf)
	return z.check(err)
}

// Write writes rec as one record; its Offset is ignored. A Truncated
// frame must be the last.
func (z *Writer) Write(rec *Record) error {
	if err := z.ready(); err != nil {
		return err
	}
	if rec == nil {
		return z.check(&invalidError{errNilRecord})
	}
	w, fs := rec.Word, rec.Frames
	if z.enc.state != encOpen && w.Valid() && len(fs) <= DefaultMaxFrames && cap(z.buf)-len(z.buf) > 9*len(fs)+1 {
		// The common record, address frames that differ from the one
		// before, is written here without the encoder's state. (A
		// Writer that is not open has no buffer, so never comes here.)
		dst, n, last, pk := appendFrames(w, append(z.buf, infoBytes[w.code()]), fs, 0, 0)
		if n == len(fs) {
			z.buf = append(dst, opEnd)
			return z.check(nil)
		}
		z.enc.open(w)
		z.enc.n = n
		z.enc.sync(last, pk)
		var err error
		z.buf, err = z.enc.frames(dst, fs[n:])
		if err = z.check(err); err != nil {
			return err
		}
		return z.End()
	}
	if err := z.Begin(w); err != nil {
		return err
	}
	var err error
	z.buf, err = z.enc.frames(z.buf, fs)
	if err = z.check(err); err != nil {
		return err
	}
	return z.End()
}

// Check returns the error Write(rec) would return now, without writing
// rec or changing the Writer: nil if Write would take it, an error
// wrapping ErrInvalid that says why not otherwise.
func (z *Writer) Check(rec *Record) error {
	if err := z.ready(); err != nil {
		return err
	}
	if rec == nil {
		return &invalidError{errNilRecord}
	}
	if z.enc.state == encOpen {
		return invalidOpen
	}
	n := len(z.buf)
	var err error
	z.buf, err = Append(z.buf, rec.Word, rec.Frames)
	z.buf = z.buf[:n]
	return err
}

// Flush writes the buffered records to the underlying writer; a record
// begun and not yet ended stays buffered. After a refusal it still writes
// the records finished before it, and returns the refusal.
func (z *Writer) Flush() error {
	if z.refused {
		if err := z.write(); err != nil {
			return err
		}
		return z.err
	}
	if err := z.ready(); err != nil {
		return err
	}
	return z.write()
}

// Close finishes a record left open by Begin (as End does), flushes, and
// makes every later call but Close return ErrClosed; closing again returns
// nil, or the error that stopped the Writer. It does not close the
// underlying writer. After a refusal it writes the records finished
// before it and returns the refusal.
func (z *Writer) Close() error {
	if z.err == ErrClosed {
		return nil // closed already
	}
	if z.refused {
		return z.Flush()
	}
	if err := z.ready(); err != nil {
		return err
	}
	if z.enc.state != encIdle {
		if err := z.End(); err != nil {
			return err
		}
	}
	if err := z.write(); err != nil {
		return err
	}
	z.err = ErrClosed
	return nil
}
