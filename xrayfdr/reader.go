package xrayfdr

import (
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"math"

	"github.com/tracefmt/tracefmt/bitfield"
)

// Default limits (see Reader).
const (
	DefaultMaxDataLen = 256 << 20
	DefaultMaxSkip    = 16 << 20
)

const minBuf = 64 << 10

// Bit layouts of the record discriminator byte (discriminator, kind) and of
// the first word of a function record (discriminator, action, id). C lays
// bit-fields out from the least significant bit on little-endian machines
// and from the most significant one on big-endian machines.
var (
	metaLE = bitfield.Must(8, bitfield.LSBFirst, 1, 7)
	metaBE = bitfield.Must(8, bitfield.MSBFirst, 1, 7)
	funcLE = bitfield.Must(32, bitfield.LSBFirst, 1, 3, 28)
	funcBE = bitfield.Must(32, bitfield.MSBFirst, 1, 3, 28)
)

// codec holds what depends on the byte order.
type codec struct {
	order    binary.ByteOrder
	le       bool
	disc     byte // mask of the metadata discriminator bit in byte 0
	mKind    bitfield.Field
	mDisc    bitfield.Field
	fDisc    bitfield.Field
	fAct     bitfield.Field
	fID      bitfield.Field
	extIntro byte // first byte of a BufferExtents record
}

func newCodec(bigEndian bool) codec {
	c := codec{order: binary.LittleEndian, le: true}
	m, f := metaLE, funcLE
	if bigEndian {
		c.order, c.le = binary.BigEndian, false
		m, f = metaBE, funcBE
	}
	c.mDisc, c.mKind = m.Field(0), m.Field(1)
	c.fDisc, c.fAct, c.fID = f.Field(0), f.Field(1), f.Field(2)
	c.disc = byte(1) << c.mDisc.Shift()
	w, _ := c.mDisc.Set(0, 1)
	w, _ = c.mKind.Set(w, uint64(KindBufferExtents))
	c.extIntro = byte(w)
	return c
}

// Reader reads the records of an FDR or basic-mode log from an io.Reader.
//
// Set the exported fields before the first call to Read. A zero Reader
// is ready after Reset or ResetBytes; before that every method that
// returns an error returns ErrNotOpen.
//
// The Reader follows llvm-xray: from version 3 on, records are read only
// inside the byte count each BufferExtents announces, a record that
// crosses it is an error, and the bytes up to the next BufferExtents are
// skipped (kept in that record's Skipped field). Versions 1 and 2 are read
// back to back, so the garbage a version 1 runtime leaves after
// EndOfBuffer is read as records, as llvm-xray reads it.
//
// Where the Reader differs from llvm-xray 14:
//
//   - A file of 16 to 31 bytes is an empty log to llvm-xray; the Reader
//     reports io.ErrUnexpectedEOF (Dump and DumpVerify print nothing).
//   - The limits (MaxDataLen, MaxSkip); llvm-xray has none.
//   - For YAML, the printable test of non-ASCII code points is Go's
//     unicode.IsGraphic, not LLVM's table (payload bytes only).
//   - Where libstdc++'s unguarded loops would run off the array with
//     llvm-xray's non-strict comparator (undefined behaviour), we stop at
//     the ends.
//   - Strict (off by default) also refuses what no runtime writes though
//     llvm-xray reads it: a metadata kind the log's version lacks, and a
//     buffer extents count of 4 GiB or more (ErrOverflow).
type Reader struct {
	// MaxDataLen bounds the payload of a custom or typed event;
	// 0 means DefaultMaxDataLen.
	MaxDataLen int
	// MaxSkip bounds the bytes skipped between the buffers of a version
	// 3+ log; 0 means DefaultMaxSkip.
	MaxSkip int
	// ForceFDR reads every log as FDR whatever its header says, as
	// llvm-xray fdr-dump does: without it, a header no XRay runtime
	// writes is refused (ErrHeader, ErrVersion), Strict or not.
	ForceFDR bool
	// Strict also refuses what no XRay runtime writes, though llvm-xray
	// reads it: a record kind the log's version does not have
	// (ErrMetadataKind) and a buffer extents count of 4 GiB or more
	// (ErrOverflow).
	Strict bool

	rec Record // what Read returns
	r   io.Reader
	buf []byte
	pos int
	// While lim > 0, Read's fast path takes the function records of a
	// little-endian log from pos up to lim (see arm); the bytes it took
	// since mark are not yet charged to budget.
	lim, mark int
	end       int
	off       int64 // file offset of buf[0]
	eof       bool
	rerr      error
	err       error
	h         Header
	c         codec
	budget    uint64
	// basic-mode state: the last function record, for argument records
	lastOK  bool
	lastFID int32
	lastTID int32
	lastPID int32
}

// NewReader reads the file header from r and returns a Reader positioned
// at the first record.
func NewReader(r io.Reader) (*Reader, error) {
	rd := new(Reader)
	if err := rd.Reset(r); err != nil {
		return nil, err
	}
	return rd, nil
}

// Reset makes rd read a new log from r, reusing its buffer; the limits are
// kept. It reads the file header.
func (rd *Reader) Reset(r io.Reader) error {
	buf := rd.buf
	if buf == nil || rd.r == nil {
		buf = make([]byte, minBuf) // not the bytes of a ResetBytes
	}
	*rd = Reader{MaxDataLen: rd.MaxDataLen, MaxSkip: rd.MaxSkip, ForceFDR: rd.ForceFDR, Strict: rd.Strict, r: r, buf: buf}
	if r == nil {
		rd.buf = nil
		rd.err = ErrNotOpen
		return rd.err
	}
	if !rd.fill(HeaderSize) {
		n := rd.end
		if rd.rerr != nil {
			rd.err = rd.rerr
			return rd.err
		}
		rd.err = &FormatError{Offset: int64(n), Err: io.ErrUnexpectedEOF, LLVM: headerLLVM(n)}
		return rd.err
	}
	rd.fill(HeaderSize + 1) // one more byte helps tell the byte order
	rd.h = parseHeader(rd.buf[:rd.end])
	if err := rd.checkHeader(); err != nil {
		rd.h = Header{}
		rd.err = err
		return err
	}
	rd.c = newCodec(rd.h.BigEndian)
	rd.pos = HeaderSize
	return nil
}

// NewBytesReader returns a Reader over a log held in memory. It reads in
// place, without copying: the slices of the records it returns point into
// data and stay valid as long as data does.
func NewBytesReader(data []byte) (*Reader, error) {
	rd := new(Reader)
	if err := rd.ResetBytes(data); err != nil {
		return nil, err
	}
	return rd, nil
}

// ResetBytes is Reset for a log held in memory (see NewBytesReader).
func (rd *Reader) ResetBytes(data []byte) error {
	*rd = Reader{MaxDataLen: rd.MaxDataLen, MaxSkip: rd.MaxSkip, ForceFDR: rd.ForceFDR, Strict: rd.Strict,
		buf: data, end: len(data), eof: true}
	if len(data) < HeaderSize {
		rd.err = &FormatError{Offset: int64(len(data)), Err: io.ErrUnexpectedEOF, LLVM: headerLLVM(len(data))}
		return rd.err
	}
	rd.h = parseHeader(data)
	if err := rd.checkHeader(); err != nil {
		rd.h = Header{}
		rd.err = err
		return err
	}
	rd.c = newCodec(rd.h.BigEndian)
	rd.pos = HeaderSize
	return nil
}

// maxCycleFrequency is far above the TSC rate of any CPU (a few GHz) and
// far below what most other bytes make of the field.
const maxCycleFrequency = 1 << 40

// checkHeader refuses, unless ForceFDR, a header no XRay runtime writes: a type other than
// basic (0) and FDR (1), version 0, a cycle frequency above a THz
// (ErrHeader: not an XRay log), or a version above 5 (ErrVersion). Any 32
// bytes make some Header; these values are what tell an XRay log from
// other bytes. The flag bits are no help: the basic-mode runtime leaves
// all but two of them uninitialised.
func (rd *Reader) checkHeader() error {
	if rd.ForceFDR {
		return nil // fdr-dump reads whatever follows any 32 bytes
	}
	h := rd.h
	var err error
	switch {
	case h.Type > TypeFDR:
		err = fmt.Errorf("%w: type %d is neither basic (0) nor FDR (1)", ErrHeader, h.Type)
	case h.Version == 0:
		err = fmt.Errorf("%w: version 0", ErrHeader)
	case h.CycleFrequency > maxCycleFrequency:
		err = fmt.Errorf("%w: cycle frequency %d Hz", ErrHeader, h.CycleFrequency)
	case h.Version > 5:
		err = fmt.Errorf("%w: version %d", ErrVersion, h.Version)
	default:
		return nil
	}
	return &FormatError{Offset: 0, Err: err}
}

// headerLLVM is what llvm-xray says about a header cut after n bytes.
func headerLLVM(n int) string {
	switch {
	case n < 2:
		return "Failed reading version from file header at offset 0."
	case n < 4:
		return "Failed reading file type from file header at offset 2."
	case n < 8:
		return "Failed reading flag bits from file header at offset 4."
	case n < 16:
		return "Failed reading cycle frequency from file header at offset 8."
	}
	return "" // llvm-xray 14 reads a 16..31-byte file as an empty log
}

func plausible(v, t uint16) bool {
	return t <= TypeFDR && v >= 1 && v <= 5
}

// parseHeader decodes the header in b (at least 32 bytes; a 33rd byte, the
// first of the records, is used when present to tell the byte order).
func parseHeader(b []byte) Header {
	le, be := binary.LittleEndian, binary.BigEndian
	bigEndian := false
	if !plausible(le.Uint16(b), le.Uint16(b[2:])) && plausible(be.Uint16(b), be.Uint16(b[2:])) {
		// A big-endian runtime's first FDR record is a metadata record
		// whose discriminator is the top bit of its first byte; a
		// byte-swapped header in front of little-endian records is read
		// little-endian, as llvm-xray does.
		bigEndian = be.Uint16(b[2:]) == TypeBasic || len(b) == HeaderSize || b[HeaderSize]&0x80 != 0
	}
	var o binary.ByteOrder = le
	if bigEndian {
		o = be
	}
	h := Header{
		Version:        o.Uint16(b),
		Type:           o.Uint16(b[2:]),
		Flags:          o.Uint32(b[4:]),
		CycleFrequency: o.Uint64(b[8:]),
		BigEndian:      bigEndian,
	}
	copy(h.FreeForm[:], b[16:32])
	return h
}

// Header returns the file header.
func (rd *Reader) Header() Header { return rd.h }

// Basic reports whether records are read as basic-mode records.
func (rd *Reader) Basic() bool { return rd.h.Type == TypeBasic && !rd.ForceFDR }

// Offset is the file offset of the next record.
func (rd *Reader) Offset() int64 { return rd.off + int64(rd.pos) }

// fill makes at least n bytes available from rd.pos, reading more and
// growing the buffer as bytes arrive; false means the input ended first.
func (rd *Reader) fill(n int) bool {
	for rd.end-rd.pos < n {
		if rd.eof {
			return false
		}
		if rd.end == len(rd.buf) {
			if rd.pos > 0 {
				rd.disarm() // never armed here: Read's fast path stays in the buffer
				copy(rd.buf, rd.buf[rd.pos:rd.end])
				rd.off += int64(rd.pos)
				rd.end -= rd.pos
				rd.pos = 0
			} else {
				nb := make([]byte, max(2*len(rd.buf), minBuf))
				copy(nb, rd.buf[:rd.end])
				rd.buf = nb
			}
		}
		m, err := rd.r.Read(rd.buf[rd.end:])
		rd.end += m
		if err != nil {
			rd.eof = true
			if err != io.EOF {
				rd.rerr = err
			}
		}
	}
	return true
}

func (rd *Reader) fail(off int64, err error, llvm string) (*Record, error) {
	if err == io.ErrUnexpectedEOF && rd.rerr != nil {
		rd.err = rd.rerr
	} else {
		rd.err = &FormatError{Offset: off, Err: err, LLVM: llvm}
	}
	return nil, rd.err
}

func (rd *Reader) atEnd() (*Record, error) {
	rd.err = io.EOF
	if rd.rerr != nil {
		rd.err = rd.rerr
	} else if rd.r == nil && !rd.eof {
		rd.err = ErrNotOpen // a zero Reader
	}
	return nil, rd.err
}

// The fields of the first word of a little-endian function record
// (funcLE's) as constants for the fast paths, where bitfield.FieldAt of
// constants compiles to shifts and masks by constants (a test checks them
// against funcLE). badFunctionLE has the bits of the first 8 bytes of a
// little-endian FDR record, read as one word, that a well-formed function
// record has clear: the metadata bit, and the action's top bit (actions
// are below 4).
const (
	actShiftLE, actWidthLE = 1, 3
	idShiftLE, idWidthLE   = 4, 28
	badFunctionLE          = 1 | 1<<(actShiftLE+actWidthLE-1)
)

// Read returns the next record. The record belongs to the Reader: it and
// the slices in it are valid until the next call to Read or Reset (use
// Clone to keep one). At the end of a log that ends between records Read
// returns io.EOF; a cut inside a record returns a *FormatError wrapping
// io.ErrUnexpectedEOF. Errors are sticky.
func (rd *Reader) Read() (*Record, error) {
	// Fast path: a well-formed function record of a little-endian log,
	// wholly in the buffer and inside the buffer extents (lim).
	if p := rd.pos; p+FunctionSize <= rd.lim {
		b := rd.buf[p : p+FunctionSize : p+FunctionSize]
		if x := binary.LittleEndian.Uint64(b); x&badFunctionLE == 0 {
			// As in All (the compiler inlines neither this nor a
			// function holding it, and a call costs).
			act, id := bitfield.FieldAt(actShiftLE, actWidthLE), bitfield.FieldAt(idShiftLE, idWidthLE)
			r := &rd.rec
			// One store for the four fields of the first word: the
			// compiler merges stores of the parts of one value.
			v := uint64(KindFunction) | act.Get(x)<<8 | id.Get(x)<<32
			r.Kind, r.Action, r.CPU, r.FuncID = Kind(v), Action(v>>8), uint16(v>>16), int32(v>>32)
			r.Delta = int64(x >> 32)
			r.clearUnused()
			r.Raw = b
			r.Offset = rd.off + int64(p)
			rd.pos = p + FunctionSize
			return r, nil
		}
	}
	return rd.read()
}

// function sets rd.rec to the function record b at p, whose first word
// is w and delta d, charges it to the extents and steps over it.
func (rd *Reader) function(p int, b []byte, w uint64, d uint32) *Record {
	// Field by field: assigning a whole Record to the Reader's (a heap
	// object with pointers) costs a runtime call.
	r := &rd.rec
	r.Kind, r.Action, r.FuncID, r.Delta = KindFunction, Action(rd.c.fAct.Get(w)), int32(rd.c.fID.Get(w)), int64(d)
	r.CPU = 0
	r.clearUnused()
	r.Raw = b
	r.Offset = rd.off + int64(p)
	rd.pos = p + FunctionSize
	rd.budget -= FunctionSize
	return r
}

// arm lets Read's fast path take the function records of a little-endian
// FDR log from rd.pos on, up to the end of the buffer and of the buffer
// extents. It does not charge them: disarm does, when the fast path stops.
func (rd *Reader) arm() {
	if !rd.c.le || rd.err != nil || rd.Basic() {
		return
	}
	n := rd.end - rd.pos
	if rd.h.Version >= 3 && uint64(n) > rd.budget {
		n = int(rd.budget)
	}
	rd.mark, rd.lim = rd.pos, rd.pos+n
}

// disarm charges what the fast path took to the extents and stops it.
func (rd *Reader) disarm() {
	if rd.lim > 0 {
		rd.budget -= uint64(rd.pos - rd.mark)
		rd.lim = 0
	}
}

// left is the budget of the buffer extents at rd.pos.
func (rd *Reader) left() uint64 {
	if rd.lim > 0 {
		return rd.budget - uint64(rd.pos-rd.mark)
	}
	return rd.budget
}

// seek moves the reader to pos with budget left in the buffer extents,
// clearing any error (re-reading a block of a log in memory).
func (rd *Reader) seek(pos int, budget uint64) {
	rd.pos, rd.budget, rd.lim, rd.err = pos, budget, 0, nil
}

// read is Read past the fast path.
func (rd *Reader) read() (*Record, error) {
	rd.disarm()
	if rd.err != nil {
		return nil, rd.err
	}
	if rd.end-rd.pos < MetadataSize && (rd.r == nil && !rd.eof || !rd.fill(MetadataSize) && rd.end == rd.pos) {
		return rd.atEnd()
	}
	if rd.h.Type == TypeBasic && !rd.ForceFDR {
		return rd.readBasic()
	}
	if rd.h.Version >= 3 && rd.budget == 0 {
		return rd.readExtents()
	}
	// A whole function record in the buffer: decoded here, and Read's
	// fast path takes the ones that follow.
	p := rd.pos
	b := rd.buf[p:rd.end]
	if len(b) >= FunctionSize && b[0]&rd.c.disc == 0 && (rd.h.Version < 3 || rd.budget >= FunctionSize) {
		b = b[:FunctionSize:FunctionSize]
		var w, d uint32
		if rd.c.le {
			w, d = binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
		} else {
			w, d = binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])
		}
		if rd.c.fAct.Get(uint64(w)) <= uint64(EnterArg) {
			r := rd.function(p, b, uint64(w), d)
			rd.arm()
			return r, nil
		}
	}
	return rd.readSlow()
}

// skipFunction steps over the next record when it is a well-formed
// function record wholly in the buffer and inside the extents, without
// building it: what indexing a log needs.
func (rd *Reader) skipFunction() bool {
	if p := rd.pos; p+FunctionSize <= rd.lim && binary.LittleEndian.Uint64(rd.buf[p:])&badFunctionLE == 0 {
		rd.pos = p + FunctionSize
		return true
	}
	rd.disarm()
	b := rd.buf[rd.pos:rd.end]
	if rd.err != nil || len(b) < FunctionSize || b[0]&rd.c.disc != 0 ||
		(rd.h.Version >= 3 && rd.budget < FunctionSize) || (rd.h.Type == TypeBasic && !rd.ForceFDR) {
		return false
	}
	w := binary.LittleEndian.Uint32(b)
	if !rd.c.le {
		w = binary.BigEndian.Uint32(b)
	}
	if rd.c.fAct.Get(uint64(w)) > uint64(EnterArg) {
		return false
	}
	rd.pos += FunctionSize
	rd.budget -= FunctionSize
	rd.arm()
	return true
}

// over-read names of llvm-xray, by kind (custom events pre-v5 differ).
var llvmKindNames = [...]string{
	KindNewBuffer:     "Metadata:NewBuffer",
	KindEndOfBuffer:   "Metadata:EndOfBuffer",
	KindNewCPU:        "Metadata:NewCPUId",
	KindTSCWrap:       "Metadata:TSCWrap",
	KindWallTime:      "Metadata:WallClockTime",
	KindCustomEvent:   "Metadata:CustomEventV5",
	KindCallArg:       "Metadata:CallArg",
	KindBufferExtents: "Metadata:BufferExtents",
	KindTypedEvent:    "Metadata:TypedEvent",
	KindPid:           "Metadata:PIDEntry",
}

// what llvm-xray calls each metadata record when it is cut short.
var llvmShortNames = [...]string{
	KindNewBuffer:     "a new buffer record",
	KindEndOfBuffer:   "an end-of-buffer record",
	KindNewCPU:        "a new cpu id record",
	KindTSCWrap:       "a new TSC wrap record",
	KindWallTime:      "a wallclock record",
	KindCustomEvent:   "a custom event record",
	KindCallArg:       "a call argument record",
	KindBufferExtents: "a buffer extent",
	KindTypedEvent:    "a typed event record",
	KindPid:           "a process ID record",
}

func (rd *Reader) readSlow() (*Record, error) {
	start := rd.off + int64(rd.pos)
	o := rd.c.order
	if rd.buf[rd.pos]&rd.c.disc == 0 {
		if !rd.fill(FunctionSize) {
			return rd.fail(start, io.ErrUnexpectedEOF, fmt.Sprintf("Invalid offset for a function record (%d).", start))
		}
		b := rd.buf[rd.pos : rd.pos+FunctionSize]
		w := uint64(o.Uint32(b))
		act := rd.c.fAct.Get(w)
		if act > uint64(EnterArg) {
			return rd.fail(start, ErrAction, fmt.Sprintf("Unknown function record type '%d' at offset %d.", act, start))
		}
		rd.rec = Record{Kind: KindFunction, Action: Action(act), FuncID: int32(rd.c.fID.Get(w)),
			Delta: int64(o.Uint32(b[4:])), Raw: b[:FunctionSize:FunctionSize], Offset: start}
		return rd.account(FunctionSize, "Function")
	}
	kind := Kind(rd.c.mKind.Get(uint64(rd.buf[rd.pos])))
	if kind > KindPid {
		return rd.fail(start, ErrMetadataKind, fmt.Sprintf("Invalid metadata record type: %d\nEncountered an unsupported metadata record (%d) at offset %d.", kind, kind, start))
	}
	if rd.Strict && !kindInVersion(kind, rd.h.Version) {
		return rd.fail(start, ErrMetadataKind, "")
	}
	if kind == KindEndOfBuffer && rd.h.Version >= 2 {
		return rd.fail(start, ErrEndOfBuffer, fmt.Sprintf("End of buffer records are no longer supported starting version 2 of the log.\nEncountered an unsupported metadata record (1) at offset %d.", start))
	}
	if !rd.fill(MetadataSize) {
		if kind == KindBufferExtents && rd.end-rd.pos >= 9 {
			return rd.cutExtents(rd.pos, start)
		}
		return rd.fail(start, io.ErrUnexpectedEOF, fmt.Sprintf("Invalid offset for %s (%d).", llvmShortNames[kind], start+1))
	}
	b := rd.buf[rd.pos : rd.pos+MetadataSize : rd.pos+MetadataSize]
	rd.rec = Record{Kind: kind, Raw: b, Offset: start}
	rec := &rd.rec
	n := MetadataSize
	switch kind {
	case KindNewBuffer:
		rec.TID = int32(o.Uint32(b[1:]))
	case KindNewCPU:
		rec.CPU = o.Uint16(b[1:])
		rec.TSC = o.Uint64(b[3:])
	case KindTSCWrap:
		rec.TSC = o.Uint64(b[1:])
	case KindWallTime:
		rec.Seconds = o.Uint64(b[1:])
		rec.Micros = o.Uint32(b[9:])
	case KindCallArg:
		rec.Arg = o.Uint64(b[1:])
	case KindBufferExtents:
		rec.Extents = o.Uint64(b[1:])
	case KindPid:
		rec.PID = int32(o.Uint32(b[1:]))
	case KindCustomEvent, KindTypedEvent:
		size := int32(o.Uint32(b[1:]))
		what := "custom"
		if kind == KindTypedEvent {
			what = "typed"
		}
		if size <= 0 {
			return rd.fail(start, ErrEventSize, fmt.Sprintf("Invalid size for %s event (size = %d) at offset %d.", what, size, start+5))
		}
		if kind == KindTypedEvent || rd.h.Version >= 5 {
			rec.Delta = int64(int32(o.Uint32(b[5:])))
			if kind == KindTypedEvent {
				rec.EventType = o.Uint16(b[9:])
			}
		} else {
			rec.TSC = o.Uint64(b[5:])
			rec.CPU = o.Uint16(b[13:])
		}
		limit := rd.MaxDataLen
		if limit <= 0 {
			limit = DefaultMaxDataLen
		}
		// The record's whole length must fit an int: on 32-bit
		// platforms a limit near 2 GiB would let it wrap.
		limit = min(limit, math.MaxInt-2*MetadataSize)
		short := func() string { // only on failure: formatting allocates
			return fmt.Sprintf("Cannot read %d bytes of custom event data from offset %d.", size, start+MetadataSize)
		}
		if int64(size) > int64(limit) {
			// Over the limit: a log that ends first is only cut short
			// (as llvm-xray says); reading up to the limit tells.
			if !rd.fill(MetadataSize + limit + 1) {
				return rd.fail(start, io.ErrUnexpectedEOF, short())
			}
			return rd.fail(start, ErrTooLarge, "")
		}
		n += int(size)
		if !rd.fill(n) {
			return rd.fail(start, io.ErrUnexpectedEOF, short())
		}
		rec.Raw = rd.buf[rd.pos : rd.pos+MetadataSize : rd.pos+MetadataSize]
		rec.Data = rd.buf[rd.pos+MetadataSize : rd.pos+n : rd.pos+n]
	}
	if kind == KindBufferExtents {
		return rd.setBudget(n)
	}
	name := llvmKindNames[kind]
	if kind == KindCustomEvent && rd.h.Version < 5 {
		name = "Metadata:CustomEvent"
	}
	return rd.account(n, name)
}

// kindInVersion reports whether a log of the version may hold metadata
// records of kind k, as the XRay runtimes write them.
func kindInVersion(k Kind, version uint16) bool {
	switch k {
	case KindEndOfBuffer:
		return version < 2
	case KindBufferExtents:
		return version >= 2
	case KindPid:
		return version >= 3
	case KindTypedEvent:
		return version >= 5
	}
	return true
}

// setBudget starts the buffer of the BufferExtents record in rd.rec, which
// takes n bytes from rd.pos on.
func (rd *Reader) setBudget(n int) (*Record, error) {
	if rd.Strict && rd.rec.Extents > 1<<32-1 {
		return rd.fail(rd.rec.Offset, ErrOverflow, "")
	}
	rd.budget = uint64(uint32(rd.rec.Extents)) // llvm-xray 14 keeps the count in 32 bits
	rd.pos += n
	return &rd.rec, nil
}

// account charges rd.rec, of n bytes, to the buffer extents (version 3+).
func (rd *Reader) account(n int, name string) (*Record, error) {
	if rd.h.Version >= 3 {
		if uint64(n) > rd.budget {
			end := rd.rec.Offset + int64(n)
			return rd.fail(rd.rec.Offset, ErrOverRead, fmt.Sprintf("Buffer over-read at offset %d (over-read by %d bytes); Record Type = %s.", end, uint64(n)-rd.budget, name))
		}
		rd.budget -= uint64(n)
	}
	rd.pos += n
	return &rd.rec, nil
}

// readExtents skips to the next BufferExtents record, as llvm-xray does
// when a version 3+ buffer is used up.
func (rd *Reader) readExtents() (*Record, error) {
	limit := rd.MaxSkip
	if limit <= 0 {
		limit = DefaultMaxSkip
	}
	skipped := 0
	for {
		i := -1
		for j, c := range rd.buf[rd.pos+skipped : rd.end] {
			if c == rd.c.extIntro {
				i = j
				break
			}
		}
		if i >= 0 {
			skipped += i
			break
		}
		skipped = rd.end - rd.pos
		if skipped > limit {
			return rd.fail(rd.off+int64(rd.pos), ErrTooLarge, "")
		}
		if !rd.fill(skipped + 1) {
			if rd.rerr != nil {
				return rd.fail(0, io.ErrUnexpectedEOF, "")
			}
			end := rd.off + int64(rd.end)
			return rd.fail(end, ErrNoExtents, fmt.Sprintf("Failed reading one byte from offset %d.\nFailed to find the next BufferExtents record.", end))
		}
	}
	start := rd.off + int64(rd.pos+skipped)
	if !rd.fill(skipped + MetadataSize) {
		if rd.end-rd.pos-skipped >= 9 {
			return rd.cutExtents(rd.pos+skipped, start)
		}
		return rd.fail(start, io.ErrUnexpectedEOF, fmt.Sprintf("Invalid offset for a buffer extent (%d).\nFailed to find the next BufferExtents record.", start+1))
	}
	p := rd.pos + skipped
	rd.rec = Record{
		Kind:    KindBufferExtents,
		Extents: rd.c.order.Uint64(rd.buf[p+1:]),
		Raw:     rd.buf[p : p+MetadataSize : p+MetadataSize],
		Offset:  start,
	}
	if skipped > 0 {
		rd.rec.Skipped = rd.buf[rd.pos:p:p]
	}
	rd.pos = p
	return rd.setBudget(MetadataSize)
}

// cutExtents returns a BufferExtents record at p that the end of the
// input cuts after its 8-byte count. llvm-xray 14 reads it (and then stops
// at the end of the data), so it is read here too, with a short Raw that
// the Writer reproduces.
func (rd *Reader) cutExtents(p int, start int64) (*Record, error) {
	rd.rec = Record{
		Kind:    KindBufferExtents,
		Extents: rd.c.order.Uint64(rd.buf[p+1 : p+9]),
		Raw:     rd.buf[p:rd.end:rd.end],
		Offset:  start,
	}
	if p > rd.pos {
		rd.rec.Skipped = rd.buf[rd.pos:p:p]
	}
	rd.pos = p
	return rd.setBudget(rd.end - p)
}

func (rd *Reader) readBasic() (*Record, error) {
	start := rd.off + int64(rd.pos)
	if !rd.fill(BasicSize) {
		return rd.fail(start, io.ErrUnexpectedEOF, "")
	}
	o := rd.c.order
	b := rd.buf[rd.pos : rd.pos+BasicSize : rd.pos+BasicSize]
	switch rt := o.Uint16(b); rt {
	case 0:
		if b[3] > byte(EnterArg) {
			return rd.fail(start, ErrAction, fmt.Sprintf("Unknown record type '%d' at offset %d.", b[3], start+4))
		}
		rd.rec = Record{Kind: KindFunction, Action: Action(b[3]), CPU: uint16(b[2]),
			FuncID: int32(o.Uint32(b[4:])), TSC: o.Uint64(b[8:]),
			TID: int32(o.Uint32(b[16:])), PID: int32(o.Uint32(b[20:])), Raw: b, Offset: start}
		rec := &rd.rec
		rd.lastOK, rd.lastFID, rd.lastTID, rd.lastPID = true, rec.FuncID, rec.TID, rec.PID
		rd.pos += BasicSize
		return rec, nil
	case 1:
		rd.rec = Record{Kind: KindCallArg, FuncID: int32(o.Uint32(b[4:])), TID: int32(o.Uint32(b[8:])),
			PID: int32(o.Uint32(b[12:])), Arg: o.Uint64(b[16:]), Raw: b, Offset: start}
		rec := &rd.rec
		if !rd.lastOK || rec.FuncID != rd.lastFID || rec.TID != rd.lastTID || (rd.h.Version >= 3 && rec.PID != rd.lastPID) {
			return rd.fail(start, ErrArgMismatch, fmt.Sprintf("Corrupted log, found arg payload following non-matching function+thread record. Record for function %d != %d at offset %d.", rd.lastFID, rec.FuncID, start+16))
		}
		rd.pos += BasicSize
		return rec, nil
	default:
		return rd.fail(start, ErrBasicRecord, fmt.Sprintf("Unknown record type '%d' at offset %d.", rt, start+2))
	}
}

// All returns an iterator over the remaining records, a loop over Read
// (each record is valid until the next iteration); it stops after the
// first error, which it yields (io.EOF is not yielded).
//
// A range loop over All is the fastest way through a log: the compiler
// inlines All and the loop's body into one loop, so a function record,
// most of a log, costs no call (about a third faster than a call to Read
// per record).
func (rd *Reader) All() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for {
			// Read's fast path, in the loop: the compiler inlines this
			// function into a range loop, and the loop's body into it,
			// so a run of function records costs no call per record.
			for p := rd.pos; p+FunctionSize <= rd.lim; p = rd.pos {
				b := rd.buf[p : p+FunctionSize : p+FunctionSize]
				x := binary.LittleEndian.Uint64(b)
				if x&badFunctionLE != 0 {
					break
				}
				r := &rd.rec
				act, id := bitfield.FieldAt(actShiftLE, actWidthLE), bitfield.FieldAt(idShiftLE, idWidthLE)
				v := uint64(KindFunction) | act.Get(x)<<8 | id.Get(x)<<32
				r.Kind, r.Action, r.CPU, r.FuncID = Kind(v), Action(v>>8), uint16(v>>16), int32(v>>32)
				r.Delta = int64(x >> 32)
				r.clearUnused()
				r.Raw = b
				r.Offset = rd.off + int64(p)
				rd.pos = p + FunctionSize
				if !yield(r, nil) {
					return
				}
			}
			rec, err := rd.Read()
			if err == io.EOF {
				return
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}
