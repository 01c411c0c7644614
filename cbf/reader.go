package cbf

import (
	"encoding/binary"
	"errors"
	"io"
	"iter"
	"math"
	"slices"

	"github.com/tracefmt/tracefmt/bitfield"
)

const (
	bufSize = 64 << 10
	// maxInstr is the longest instruction: omit with x=1 and 32 count bytes.
	maxInstr = 33
)

// Limits of a Reader when its fields are 0.
const (
	// DefaultMaxFrames is the most frames of one backtrace Read collects
	// into a Record when Reader.MaxFrames is 0.
	DefaultMaxFrames = 1 << 21
	// DefaultMaxRepeat is the largest rep count a Reader accepts when
	// Reader.MaxRepeat is 0: that of Swift's decoder, which turns a larger
	// one into a truncated frame (it repeats a frame at most 1,048,576
	// times after the first copy).
	DefaultMaxRepeat = 1<<20 + 1
)

// A Reader reads a stream of CBF records: each an info byte, then
// instructions up to end or trunc. Swift's profiling buffers write them
// back to back; a single Backtrace is one record.
//
// Read returns the next record whole; Next starts a record and Frame
// yields its frames one at a time, without allocating. Set the exported
// fields before the first call. A zero Reader is usable after Reset;
// before that every method returns ErrNotOpen.
type Reader struct {
	// Strict reports every error inside a record as an error. By default
	// the Reader yields what Swift's decoder yields instead: the frames
	// decoded so far, then a Truncated frame; address operands longer
	// than the word lose their high bytes, counts wrap as Swift's Int
	// does, a rep count of 0 or less repeats once. Because a damaged
	// record leaves no way to find the next one, the next call to Read or
	// Next then reports the error that ended it (one wrapping
	// io.ErrUnexpectedEOF when the data ran out).
	Strict bool
	// Expand yields every copy of a repeated frame instead of one Repeat
	// frame with a count.
	Expand bool
	// MaxFrames bounds the frames of one backtrace that Read collects
	// into a Record; 0 means DefaultMaxFrames. Frame, which keeps
	// nothing, has no such bound.
	MaxFrames int
	// MaxRepeat bounds the count of one rep instruction; 0 means
	// DefaultMaxRepeat. A larger one is ErrTooLarge (by default a
	// Truncated frame, then that error, as in Swift).
	MaxRepeat uint64

	rd   io.Reader
	buf  []byte
	pos  int
	end  int
	base int64 // stream offset of buf[0]
	rerr error // what rd returned last (io.EOF at its end)

	inRec  bool
	word   WordSize
	mask   uint64
	nbytes int
	last   uint64
	// The frame a rep repeats: an address frame of kind prevKind at
	// last, or Omitted with prevCount; prevKind is 0 before the first.
	prevKind  Kind
	prevCount uint64
	pending   uint64
	recOff    int64

	err      error // sticky
	deferred error // not Strict: ended a record, reported by the next Next
	frames   []Frame
	rec      Record // what Read returns
}

// NewReader returns a Reader reading CBF records from r, having read the
// first byte. CBF has no file header: a first byte that is no info byte
// Swift writes is refused with ErrHeader (in a *FormatError), which Read
// then returns too; a nil r leaves the Reader not open (see Reset), with
// ErrNotOpen. The Reader is returned in every case.
func NewReader(r io.Reader) (*Reader, error) {
	z := new(Reader)
	return z, z.Reset(r)
}

// Reset makes z read from r as if new, keeping its buffers and its
// exported fields, and checks the first byte as NewReader does. Records
// read before are no longer valid. Reset(nil) leaves z not open and
// returns ErrNotOpen.
func (z *Reader) Reset(r io.Reader) error {
	buf, frames := z.buf, z.frames[:0]
	*z = Reader{Strict: z.Strict, Expand: z.Expand, MaxFrames: z.MaxFrames, MaxRepeat: z.MaxRepeat,
		rd: r, buf: buf, frames: frames}
	if r == nil {
		return ErrNotOpen
	}
	// CBF has no file header: the first record's info byte is what tells
	// CBF data from other bytes. No data at all is a stream of no records.
	z.fill(1)
	if z.pos < z.end {
		if info := z.buf[z.pos]; infoWords[info] == 0 {
			why := ErrWordSize
			if infoVersion.Get(uint64(info)) != 0 {
				why = ErrVersion
			}
			z.err = &FormatError{0, &headerError{info, why}}
			return z.err
		}
	}
	return nil
}

// Offset is the stream offset of the next byte the Reader will decode.
func (z *Reader) Offset() int64 { return z.base + int64(z.pos) }

// fill reads until at least need bytes are buffered or the source ends.
func (z *Reader) fill(need int) {
	if z.buf == nil {
		z.buf = make([]byte, bufSize)
	}
	if z.pos > 0 {
		n := copy(z.buf, z.buf[z.pos:z.end])
		z.base += int64(z.pos)
		z.pos, z.end = 0, n
	}
	for empty := 0; z.end-z.pos < need && z.rerr == nil; {
		n, err := z.rd.Read(z.buf[z.end:])
		z.end += n
		if err != nil {
			z.rerr = err
		} else if n == 0 {
			if empty++; empty >= 100 {
				z.rerr = io.ErrNoProgress
			}
		}
	}
}

// Next starts the next record, skipping what is left of the current one,
// and returns its word size. It returns io.EOF when the stream ends
// between records.
func (z *Reader) Next() (WordSize, error) {
	for z.err == nil && z.inRec {
		if _, err := z.Frame(); err != nil && err != io.EOF {
			return 0, err
		}
	}
	if z.err != nil {
		return 0, z.err
	}
	if z.deferred != nil {
		z.err = z.deferred
		return 0, z.err
	}
	if z.pos == z.end {
		if z.rd == nil {
			return 0, ErrNotOpen
		}
		z.fill(1)
		if z.pos == z.end {
			if z.rerr == nil || z.rerr == io.EOF {
				return 0, io.EOF
			}
			z.err = z.rerr
			return 0, z.err
		}
	}
	return z.begin()
}

// infoWords maps an info byte to its word size, or to 0 for a bad one.
var infoWords [256]WordSize

func init() {
	for i := range infoWords {
		if infoVersion.Get(uint64(i)) == 0 {
			infoWords[i] = [4]WordSize{Word16, Word32, Word64, 0}[infoSize.Get(uint64(i))]
		}
	}
}

// begin starts the record whose info byte is at z.pos.
func (z *Reader) begin() (WordSize, error) {
	info := z.buf[z.pos]
	w := infoWords[info]
	if w == 0 {
		return z.badInfo(uint64(info))
	}
	z.recOff = z.Offset()
	z.pos++
	z.start(w)
	return w, nil
}

// start sets the state of a record of w-bit words that begins at z.pos.
func (z *Reader) start(w WordSize) {
	z.inRec = true
	z.word, z.mask, z.nbytes = w, w.mask(), w.Bytes()
	z.last, z.prevKind, z.pending = 0, 0, 0
}

func (z *Reader) badInfo(info uint64) (WordSize, error) {
	err := ErrWordSize
	if infoVersion.Get(info) != 0 {
		err = ErrVersion
	}
	z.err = &FormatError{z.Offset(), err}
	return 0, z.err
}

// Frame returns the next frame of the current record, or io.EOF after its
// last frame (and before the first Next). A Truncated frame is always the
// last. Frame does not allocate.
func (z *Reader) Frame() (Frame, error) {
	if z.pending == 0 && z.end-z.pos >= 9 && z.inRec {
		// addrWords' decoding, for one frame: calling it here (or
		// decode) would make Frame half as fast.
		b := z.buf[z.pos:z.end]
		op := b[0]
		if n := int(op&hotCountMask) + 1; op-hotFirst < hotSpan && n <= z.nbytes {
			v := uint64(int64(binary.BigEndian.Uint64(b[1:9])) >> (64 - 8*uint(n)))
			if op&hotAbs == 0 {
				v += z.last
			}
			v &= z.mask
			z.last = v
			z.pos += 1 + n
			z.prevKind = Kind(op >> hotClassShift)
			return Frame{Kind: z.prevKind, Addr: v}, nil
		}
		if op == opEnd {
			z.pos++
			z.inRec = false
			return Frame{}, io.EOF
		}
	}
	if z.pending > 0 {
		z.pending--
		return z.prev(), nil
	}
	if !z.inRec {
		if z.err != nil {
			return Frame{}, z.err
		}
		if z.rd == nil {
			return Frame{}, ErrNotOpen
		}
		return Frame{}, io.EOF
	}
	return z.decode()
}

// Read reads the next record whole and returns it. The Record and its
// Frames belong to the Reader and are valid until the next call to Read,
// Next or Reset; Clone makes a copy to keep. Read returns io.EOF when the
// stream ends between records.
func (z *Reader) Read() (*Record, error) {
	limit := z.MaxFrames
	if limit <= 0 {
		limit = DefaultMaxFrames
	}
	if z.inRec || z.err != nil || z.deferred != nil || z.pos == z.end {
		w, err := z.Next()
		if err != nil {
			return nil, err
		}
		return z.readRest(w, z.frames[:0], limit)
	}
	// The common record, address frames up to end inside the buffer, is
	// read here without the state Next and Frame keep.
	w := infoWords[z.buf[z.pos]]
	if w == 0 {
		_, err := z.begin()
		return nil, err
	}
	off := z.Offset()
	frames := z.frames[:min(cap(z.frames), limit)]
	n, pos, last := addrFrames(w, frames, z.buf[:z.end], z.pos+1, 0)
	if pos < z.end && z.buf[pos] == opEnd {
		z.pos = pos + 1
		z.rec = Record{Word: w, Frames: frames[:n], Offset: off}
		return &z.rec, nil
	}
	z.recOff, z.pos = off, pos
	z.start(w)
	if n > 0 {
		z.last, z.prevKind = last, frames[n-1].Kind
	}
	return z.readRest(w, frames[:n], limit)
}

// readRest reads the rest of the current record after frames.
func (z *Reader) readRest(w WordSize, frames []Frame, limit int) (*Record, error) {
	var err error
loop:
	for {
		if z.inRec && z.pending == 0 {
			if len(frames) == cap(frames) {
				frames = slices.Grow(frames, 64)
			}
			n0 := len(frames)
			n, pos, last := addrFrames(w, frames[n0:min(cap(frames), limit)], z.buf[:z.end], z.pos, z.last)
			frames = frames[:n0+n]
			z.pos, z.last = pos, last
			if n > 0 {
				z.prevKind = frames[len(frames)-1].Kind
			}
			if pos < z.end && z.buf[pos] == opEnd {
				z.pos, z.inRec = pos+1, false
				break loop
			}
			if len(frames) == cap(frames) && len(frames) < limit {
				continue // dst was full
			}
		}
		var f Frame
		switch {
		case z.pending > 0:
			z.pending--
			f = z.prev()
		case !z.inRec:
			break loop
		default:
			if f, err = z.decode(); err == io.EOF {
				break loop
			} else if err != nil {
				z.frames = frames
				return nil, err
			}
		}
		if len(frames) >= limit {
			z.frames = frames
			z.inRec, z.pending = false, 0
			z.err = &FormatError{z.Offset(), ErrTooLarge}
			return nil, z.err
		}
		frames = append(frames, f)
	}
	z.frames = frames
	z.rec = Record{Word: w, Frames: frames, Offset: z.recOff}
	return &z.rec, nil
}

// All iterates over the records of the stream with Read, stopping after
// the first error (io.EOF ends it silently). Each Record is valid until
// the next iteration.
func (z *Reader) All() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for {
			rec, err := z.Read()
			if err == io.EOF {
				return
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// prev is the frame a rep repeats.
func (z *Reader) prev() Frame {
	if z.prevKind == Omitted {
		return Frame{Kind: Omitted, Count: z.prevCount}
	}
	return Frame{Kind: z.prevKind, Addr: z.last}
}

// fail ends the record with err found at off: an error when Strict, else
// a Truncated frame and the error deferred to the next Next.
func (z *Reader) fail(off int64, err error) (Frame, error) {
	z.inRec = false
	if z.rerr != nil && z.rerr != io.EOF && errors.Is(err, io.ErrUnexpectedEOF) {
		z.err = z.rerr
		return Frame{}, z.err
	}
	e := &FormatError{off, err}
	if z.Strict {
		z.err = e
		return Frame{}, e
	}
	z.deferred = e
	return Frame{Kind: Truncated}, nil
}

// short reports data that ended inside an instruction.
func (z *Reader) short() (Frame, error) {
	z.pos = z.end
	return z.fail(z.Offset(), io.ErrUnexpectedEOF)
}

// decode decodes one instruction of the current record.
func (z *Reader) decode() (Frame, error) {
	if z.end-z.pos < maxInstr && z.rerr == nil {
		z.fill(maxInstr)
	}
	b := z.buf[z.pos:z.end]
	if len(b) == 0 {
		// Swift's decoder reads a missing end as a truncated backtrace.
		return z.short()
	}
	op := uint64(b[0])
	switch class := opClass.Get(op); class {
	case classPC, classRA, classAsyn:
		n := int(opCount.Get(op)) + 1
		if len(b) <= n {
			return z.short()
		}
		if n > z.nbytes && z.Strict {
			return z.fail(z.Offset(), ErrOperand)
		}
		v := uint64(bitfield.BigEndianSigned(b[1 : 1+n]))
		if opFlag.Get(op) == 0 {
			v += z.last
		}
		v &= z.mask
		z.last = v
		z.pos += 1 + n
		z.prevKind = Kind(class) // classes 1-3 are PC, RA, Async
		return Frame{Kind: Kind(class), Addr: v}, nil
	case classOmit, classOmit + 1, classOmit + 2, classOmit + 3:
		c := omitCount.Get(op) + 1
		if omitFlag.Get(op) != 0 {
			n := int(c)
			if len(b) <= n {
				return z.short()
			}
			var ok bool
			if c, ok = z.count(b[1 : 1+n]); !ok {
				return z.fail(z.Offset(), ErrOverflow)
			}
			z.pos += n
		}
		z.pos++
		z.prevKind, z.prevCount = Omitted, c
		return Frame{Kind: Omitted, Count: c}, nil
	case classRep:
		if z.prevKind == 0 {
			return z.fail(z.Offset(), ErrNoFrame)
		}
		c := opCount.Get(op) + 1
		n := 0
		if opFlag.Get(op) != 0 {
			n = int(c)
			if len(b) <= n {
				return z.short()
			}
			var ok bool
			if c, ok = z.count(b[1 : 1+n]); !ok {
				return z.fail(z.Offset(), ErrOverflow)
			}
			if c == 0 || c > math.MaxInt64 {
				if z.Strict {
					return z.fail(z.Offset(), ErrCount)
				}
				c = 1 // Swift: the previous frame once, then a negative repeat count
			}
		}
		limit := z.MaxRepeat
		if limit == 0 {
			limit = DefaultMaxRepeat
		}
		if c > limit {
			return z.fail(z.Offset(), ErrTooLarge)
		}
		z.pos += 1 + n
		if z.Expand {
			z.pending = c - 1
			return z.prev(), nil
		}
		return Frame{Kind: Repeat, Count: c}, nil
	case classEnd:
		switch op {
		case opEnd:
			z.pos++
			z.inRec = false
			return Frame{}, io.EOF
		case opTrunc:
			z.pos++
			z.inRec = false
			return Frame{Kind: Truncated}, nil
		}
	}
	return z.fail(z.Offset(), ErrOpcode)
}

// count reads an x=1 omit or rep count. When Strict it must fit in 63
// bits, Swift's Int; else it keeps the low 64 bits as Swift's shifts do.
func (z *Reader) count(b []byte) (uint64, bool) {
	if len(b) > 8 {
		for _, c := range b[:len(b)-8] {
			if c != 0 && z.Strict {
				return 0, false
			}
		}
		b = b[len(b)-8:]
	}
	v := bitfield.BigEndian(b)
	if v > math.MaxInt64 && z.Strict {
		return 0, false
	}
	return v, true
}

// addrFrames decodes the pc, ra and async instructions of a w-bit record
// from src at pos into dst while src holds an instruction byte and a full
// 8-byte load after it, stopping at any other instruction, an operand
// wider than the word or a full dst. It returns the frames decoded, the
// next position and the last address.
func addrFrames(w WordSize, dst []Frame, src []byte, pos int, last uint64) (int, int, uint64) {
	switch w {
	case Word64:
		return addrWords[uint64](dst, src, pos, last)
	case Word32:
		return addrWords[uint32](dst, src, pos, last)
	}
	return addrWords[uint16](dst, src, pos, last)
}

// addrWords is addrFrames for one word type. Being generic, it is compiled
// once per word size, with the word's mask and operand limit as constants
// (the check vanishes for 64 bits), which keeps every value of the loop in
// a register.
//
// The other constants are the instruction layout's fields (checked in
// init). The switch on the operand length is there for speed: the next
// position then comes from a predicted branch instead of waiting on the
// load of the instruction byte, which chained every frame to the one
// before.
func addrWords[W word](dst []Frame, src []byte, pos int, last uint64) (int, int, uint64) {
	nbytes := wordBytes[W]()
	i := 0
	for ; i < len(dst) && pos < len(src)-8; i++ {
		b := (*[9]byte)(src[pos:])
		op := b[0]
		if op-hotFirst >= hotSpan || int(op&hotCountMask) >= nbytes {
			break
		}
		// One arithmetic shift of an 8-byte load sign-extends the operand.
		w := int64(binary.BigEndian.Uint64(b[1:]))
		var v uint64
		switch op & hotCountMask {
		case 0:
			v, pos = uint64(w>>56), pos+2
		case 1:
			v, pos = uint64(w>>48), pos+3
		case 2:
			v, pos = uint64(w>>40), pos+4
		case 3:
			v, pos = uint64(w>>32), pos+5
		case 4:
			v, pos = uint64(w>>24), pos+6
		case 5:
			v, pos = uint64(w>>16), pos+7
		case 6:
			v, pos = uint64(w>>8), pos+8
		default:
			v, pos = uint64(w), pos+9
		}
		if op&hotAbs == 0 {
			v += last
		}
		last = uint64(W(v))
		dst[i] = Frame{Kind: Kind(op >> hotClassShift), Addr: last}
	}
	return i, pos, last
}

// word is the Go type of a word size.
type word interface{ uint16 | uint32 | uint64 }

// wordBytes is the size of W in bytes, a constant in each instantiation.
func wordBytes[W word]() int {
	switch uint64(^W(0)) {
	case math.MaxUint16:
		return 2
	case math.MaxUint32:
		return 4
	}
	return 8
}

// The instruction layout (opLayout) as constants for the hot loop of
// Read: pc, ra and async are 0x10-0x3f, class in the top four bits, a in
// bit 3, operand length-1 in bits 0-2.
const (
	hotFirst      = classPC << hotClassShift
	hotSpan       = 3 << hotClassShift
	hotClassShift = 4
	hotAbs        = 1 << 3
	hotCountMask  = 7
)

func init() {
	if opClass.Shift() != hotClassShift || opFlag.Shift() != 3 || opCount.Shift() != 0 ||
		opCount.Max() != hotCountMask || opClass.Width() != 4 {
		panic("cbf: hot loop constants disagree with the instruction layout")
	}
}
