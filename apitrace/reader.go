package apitrace

import (
	"encoding/binary"
	"errors"
	"io"
	"iter"
	"slices"

	"github.com/tracefmt/tracefmt/varint"
)

// Default limits; a Reader field left at 0 uses these.
const (
	DefaultMaxDataLen   = 256 << 20 // bytes in one string or blob
	DefaultMaxArrayLen  = 1 << 22   // elements in one array or wide string
	DefaultMaxValues    = 1 << 22   // values in one event, and as many arrays, structs and reprs holding them
	DefaultMaxDepth     = 64        // nesting of arrays, structs and reprs
	DefaultMaxEntries   = 1 << 16   // names in one signature, header properties, argument index
	DefaultMaxFrames    = 1 << 16   // frames in one backtrace
	DefaultMaxChunkSize = 64 << 20  // decompressed bytes in one snappy chunk
)

// maxMaxValues is the largest MaxValues taken: an event's values, their
// holders and the structs' signature nodes stay below 2^32.
const maxMaxValues = 1 << 30

// errShort is internal: the window ended inside an item and more of the
// stream is needed.
var errShort = errors.New("apitrace: short window")

// A Reader reads the events of an apitrace trace from a snappy, gzip,
// Brotli or zstd file.
//
// Signatures (functions, enums, bitmasks, structs, backtrace frames) are
// defined by the stream at their first use and owned by the Reader: the
// pointers in events stay valid, and unchanged, until Reset. The Event
// returned by Read, and every slice in it, is valid until the next Read.
//
// MaxValues counts the values of an event that hold no other value: the
// arguments and return value, the elements of arrays and wide strings and
// the members of structs and reprs, at every depth, except arrays, structs
// and reprs that hold values; an empty array or struct counts as one. The
// arrays, structs and reprs holding values come on top, up to MaxValues
// of them too. So an event with one array of MaxValues integers is read,
// as apitrace reads it, and one with an array of more is refused
// (ErrTooLarge) before any of its values is built.
//
// A zero Reader returns ErrNotOpen until Reset gives it a trace. The limit
// fields are taken by Reset (and NewReader), which parses the header; set
// them on a zero Reader and call Reset to apply them to the header too.
type Reader struct {
	MaxDataLen   int // bytes in one string or blob; 0 means DefaultMaxDataLen
	MaxArrayLen  int // elements in one array or wide string; 0 means DefaultMaxArrayLen
	MaxValues    int // values in one event, and as many arrays, structs and reprs holding them; 0 means DefaultMaxValues, above 2^30 means 2^30
	MaxDepth     int // nesting of arrays, structs and reprs; 0 means DefaultMaxDepth
	MaxEntries   int // names in one signature, header properties, argument index; 0 means DefaultMaxEntries
	MaxFrames    int // frames in one backtrace; 0 means DefaultMaxFrames
	MaxChunkSize int // decompressed bytes in one snappy chunk or seekable zstd frame; 0 means DefaultMaxChunkSize (apitrace writes 1 MiB, 2 MiB)
	// Strict also refuses what no tracer writes, though apitrace reads
	// it: an integer in more bytes than it needs (ErrNonMinimal) and a
	// frame detail given twice (ErrBadDetail). Set it before Reset, which
	// reads the header. Call details in another order than apitrace's
	// are read either way: the order carries nothing.
	Strict bool

	hdr Header
	src source
	err error

	// The window holds the stream from the start of the event being
	// parsed; buf[0] is at stream offset base. Events are parsed from it
	// whole: when one runs past its end, more of the stream is appended
	// and the event is parsed again from its start.
	buf     []byte
	pos     int
	base    int64
	srcErr  error // what ended the source; nil while it has more
	chunks  []chunkSpan
	lastDef int64 // largest stream offset a signature was defined at

	nextCall uint64
	version  uint64

	// effective limits
	maxString, maxArray, maxValues, maxDepth, maxCount, maxFrames int

	funcs    table[FunctionSig]
	enums    table[EnumSig]
	bitmasks table[BitmaskSig]
	structs  table[StructSig]
	frames   table[Frame]

	// scratch for signature names
	pool []byte
	ends []int
	strs []string

	// per-event scratch
	arena []Value // every composite value's node and children
	// block is the arena once the event is parsed: the composite values
	// of the event point to it (the arena may move while it is parsed).
	block []Value
	datas [][]byte // the slices the event's strings and blobs point to
	// need is how many bytes from the current event's start the window
	// must hold before the event is parsed again (0: not known), so that
	// a large string or array is waited for in one growth of the window.
	need int
	// given says that a CallReader's pending call keeps strings in the
	// window: it is not read over, but left to the call.
	given bool
	args  []Arg
	bt    []*Frame
	hasBT bool
	ev    Event
	// cutLeave is set once a leave event's call number is parsed: when the
	// stream ends inside that event, the CallReader drops the call as
	// apitrace does.
	cutLeave bool
	err0     int // window index of the last parse error

	// dst, when set, is the call the CallReader's fast path reads an
	// enter and its leave into: argument values go to dst.Args by index
	// and the return value to dst.Ret, in place, instead of to args and
	// ev.Ret.
	dst *Call
	// values and holders count the event's values and the composite
	// values holding them, as reserve describes.
	values, holders int
}

// chunkSpan records where a chunk's bytes start in the stream and in the file.
type chunkSpan struct {
	stream int64
	file   int64
}

// table maps signature ids to signatures: a slice for the small dense ids
// tracers use, a map beyond.
type table[T any] struct {
	small []*T
	big   map[uint64]*T
}

const smallIDs = 1 << 14

func (t *table[T]) get(id uint64) *T {
	if id < uint64(len(t.small)) {
		return t.small[id]
	}
	if t.big != nil {
		return t.big[id]
	}
	return nil
}

func (t *table[T]) put(id uint64, v *T) {
	if id < smallIDs {
		for uint64(len(t.small)) <= id {
			t.small = append(t.small, nil)
		}
		t.small[id] = v
		return
	}
	if t.big == nil {
		t.big = make(map[uint64]*T)
	}
	t.big[id] = v
}

func (t *table[T]) reset() {
	clear(t.small)
	t.small = t.small[:0]
	t.big = nil
}

// NewReader detects the container of r, reads the stream header and returns
// a Reader positioned at the first event.
func NewReader(r io.Reader) (*Reader, error) {
	rd := new(Reader)
	if err := rd.Reset(r); err != nil {
		return nil, err
	}
	return rd, nil
}

// Reset makes the Reader read a new trace from in, keeping its limits and
// reusing its buffers, and reads the header. Signatures of the previous
// trace are forgotten.
func (r *Reader) Reset(in io.Reader) error {
	if in == nil {
		r.err = ErrNotOpen
		r.src = nil
		return r.err
	}
	r.maxString = orDefault(r.MaxDataLen, DefaultMaxDataLen)
	r.maxArray = orDefault(r.MaxArrayLen, DefaultMaxArrayLen)
	// A composite Value counts its children's place in 32 bits.
	r.maxValues = min(orDefault(r.MaxValues, DefaultMaxValues), maxMaxValues)
	r.maxDepth = orDefault(r.MaxDepth, DefaultMaxDepth)
	r.maxCount = orDefault(r.MaxEntries, DefaultMaxEntries)
	r.maxFrames = orDefault(r.MaxFrames, DefaultMaxFrames)
	maxChunk := orDefault(r.MaxChunkSize, DefaultMaxChunkSize)
	r.hdr = Header{}
	r.err = nil
	r.emptyWindow()
	r.base = 0
	r.srcErr = nil
	r.chunks = r.chunks[:0]
	r.lastDef = -1
	r.nextCall = 0
	r.version = 0
	r.funcs.reset()
	r.enums.reset()
	r.bitmasks.reset()
	r.structs.reset()
	r.frames.reset()
	src, c, err := openContainer(in, r.src, maxChunk)
	r.hdr.Container = c
	if err != nil {
		r.err = &FormatError{Offset: 0, Chunk: 0, Err: err}
		return r.err
	}
	r.src = src
	for {
		i, err := r.header(0)
		if err == nil {
			r.pos = i
			return nil
		}
		if err != errShort {
			r.err = r.formatError(err)
			return r.err
		}
		if !r.refill() {
			r.err = r.endError()
			if r.err == io.EOF {
				r.err = &FormatError{Offset: 0, Chunk: r.chunkOf(0), Err: io.ErrUnexpectedEOF}
			}
			return r.err
		}
	}
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// Header returns the stream header (the zero Header before Reset). Its
// Properties slice belongs to the Reader and stays valid until Reset.
func (r *Reader) Header() Header { return r.hdr }

// Offset returns the position in the decompressed stream of the next event.
func (r *Reader) Offset() int64 { return r.base + int64(r.pos) }

// Decompressed returns how many bytes of the decompressed stream the Reader
// has taken from the container so far, header included. Once Read has
// returned an error it is the whole stream the container held, including
// an event cut short at its end (what apitrace info reports as
// ActualDataSize), where Offset stops at the last whole event.
func (r *Reader) Decompressed() int64 { return r.base + int64(len(r.buf)) }

// NextCall returns the number the next enter event will get.
func (r *Reader) NextCall() uint64 { return r.nextCall }

// Read returns the next event. At the end of a well-formed stream it returns
// io.EOF. A stream cut short gives a *FormatError wrapping
// io.ErrUnexpectedEOF; damaged input gives a *FormatError wrapping one of the
// sentinels. Errors are sticky.
//
// A stream cut short gives every complete event first. A snappy chunk cut
// short is decoded as far as its complete elements go, and a gzip stream
// without its trailer gives all it holds. Unlike apitrace, which takes one
// to three bytes left where a chunk length belongs for a clean end of
// file, the Reader reports them as io.ErrUnexpectedEOF.
//
// The Event belongs to the Reader: it, its slices and its values are valid
// until the next call to Read or Reset. Clone makes a copy to keep.
func (r *Reader) Read() (*Event, error) {
	if err := r.next(); err != nil {
		return nil, err
	}
	return &r.ev, nil
}

// next parses the next event into r.ev.
func (r *Reader) next() error {
	if r.err != nil {
		return r.err
	}
	if r.src == nil {
		return ErrNotOpen
	}
	for {
		if r.pos < len(r.buf) {
			i, err := r.event(r.pos)
			if err == nil {
				r.pos = i
				if r.ev.Kind == Enter {
					r.nextCall++
				}
				r.finish()
				return nil
			}
			if err != errShort {
				r.err = r.formatError(err)
				return r.err
			}
		}
		if !r.refill() {
			r.err = r.endError()
			return r.err
		}
	}
}

// All returns an iterator over the remaining events; it stops after the
// first error, which it yields unless it is io.EOF. Each Event is valid
// until the loop's next iteration.
func (r *Reader) All() iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for {
			ev, err := r.Read()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// refillSlack is room the window keeps past what an event needs: a source
// appends a piece at a time (256 KiB at most for gzip, Brotli and zstd).
// A source whose next piece is larger, a seekable zstd trace's frame,
// says so (nextPiece), and the window keeps room for it: else the piece
// would not fit at the end of a large event and the window would be
// copied whole to make room.
const refillSlack = 256 << 10

// needs records that the window must hold the bytes up to index end before
// the current event can be parsed.
func (r *Reader) needs(end int) {
	r.need = max(r.need, end-r.pos)
}

// emptyWindow drops the window's bytes, and what was known of the event
// it held, for a new place in the stream. A window a pending call still
// reads strings from is left to the call.
func (r *Reader) emptyWindow() {
	r.buf = r.buf[:0]
	if r.given {
		r.buf, r.given = nil, false
	}
	r.pos, r.need = 0, 0
}

// refill appends more of the stream to the window, first dropping what is
// before the current event. It reads until the window has at least doubled
// the partial event, so that an event spanning many chunks is re-parsed only
// a logarithmic number of times. It reports false when the source has
// nothing more.
func (r *Reader) refill() bool {
	if r.srcErr != nil {
		return false
	}
	if r.pos > 0 {
		if r.given {
			// A pending call keeps strings in this window: what is
			// left of it moves to a new one.
			nb := make([]byte, len(r.buf)-r.pos, len(r.buf)-r.pos+refillSlack)
			copy(nb, r.buf[r.pos:])
			r.buf, r.given = nb, false
		} else {
			n := copy(r.buf, r.buf[r.pos:])
			r.buf = r.buf[:n]
		}
		r.base += int64(r.pos)
		r.pos = 0
		// Keep only the chunk spans that cover the window.
		k := 0
		for k+1 < len(r.chunks) && r.chunks[k+1].stream <= r.base {
			k++
		}
		if k > 0 {
			r.chunks = r.chunks[:copy(r.chunks, r.chunks[k:])]
		}
	}
	want := len(r.buf) + 1
	target := max(2*want-1, r.need)
	r.need = 0
	grew := false
	for len(r.buf) < target || !grew {
		slack := refillSlack
		if p, ok := r.src.(interface{ nextPiece() int }); ok {
			slack = max(slack, p.nextPiece())
		}
		if cap(r.buf)-len(r.buf) < slack {
			// The window grows at most fourfold once it is full of
			// bytes that arrived, never past what the event needs and
			// a piece, by steps that end on what the event needs: its
			// size over a power of four. A size the stream announces
			// but does not hold costs at most four times what it does
			// hold; a large string costs a third of itself in outgrown
			// windows, not the several copies that a source's growth
			// by append's small steps leaves, and at the last step the
			// window before it is a quarter of the string (a fourfold
			// step from anywhere could leave one nearly as large as
			// the string, and the copy would hold it twice).
			c := max(target, len(r.buf))
			for c > 4*cap(r.buf) && c/4 > len(r.buf) {
				c /= 4
			}
			c += slack
			nb := make([]byte, len(r.buf), c)
			copy(nb, r.buf)
			r.buf = nb
		}
		start := r.base + int64(len(r.buf))
		before := len(r.buf)
		var err error
		r.buf, err = r.src.fill(r.buf)
		if len(r.buf) > before {
			r.chunks = append(r.chunks, chunkSpan{stream: start, file: r.src.chunk()})
			grew = true
		}
		if err != nil {
			r.srcErr = err
			return grew
		}
	}
	return true
}

// endError is the error once the source has nothing more: io.EOF at an
// event boundary after a clean end, else what ended the source or
// io.ErrUnexpectedEOF.
func (r *Reader) endError() error {
	err := r.srcErr
	if err == io.EOF {
		if r.pos == len(r.buf) {
			return io.EOF
		}
		err = io.ErrUnexpectedEOF
	}
	off := r.base + int64(len(r.buf))
	chunk := r.chunkOf(off)
	if r.srcErr != io.EOF {
		// The source failed in the chunk it read last.
		chunk = r.src.chunk()
	}
	return &FormatError{Offset: off, Chunk: chunk, Err: err}
}

func (r *Reader) formatError(err error) error {
	off := r.base + int64(r.err0)
	return &FormatError{Offset: off, Chunk: r.chunkOf(off), Err: err}
}

// chunkOf returns the file offset of the chunk holding stream offset off.
func (r *Reader) chunkOf(off int64) int64 {
	if len(r.chunks) == 0 {
		return r.src.chunk()
	}
	c := r.chunks[0].file
	for _, s := range r.chunks {
		if s.stream > off {
			break
		}
		c = s.file
	}
	return c
}

// fail records where a parse error was found and returns it.
func (r *Reader) fail(i int, err error) error {
	r.err0 = i
	return err
}

// --- primitives -----------------------------------------------------------

// small is the inlinable shortcut of uint for the usual one-byte number:
// ok is false when the number at i is longer, or not in the window.
func (r *Reader) small(i int) (v uint64, j int, ok bool) {
	if b := r.buf; i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1, true
	}
	return 0, i, false
}

func (r *Reader) uint(i int) (uint64, int, error) {
	b := r.buf
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1, nil
	}
	if i > len(b) {
		return 0, i, errShort
	}
	v, n := varint.Consume(b[i:])
	if n > 0 {
		if r.Strict && n != varint.Len(v) {
			return 0, i, r.fail(i, wrapf(ErrNonMinimal, "%d in %d bytes", v, n))
		}
		return v, i + n, nil
	}
	if n == 0 {
		return 0, i, errShort
	}
	return 0, i, r.fail(i, ErrOverflow)
}

// bytes returns the n-byte string or blob at i, after its length.
func (r *Reader) bytes(i int) ([]byte, int, error) {
	n, j, err := r.uint(i)
	if err != nil {
		return nil, i, err
	}
	if n > uint64(r.maxString) {
		return nil, i, r.fail(i, wrapf(ErrTooLarge, "string or blob of %d bytes", n))
	}
	if n > uint64(len(r.buf)-j) {
		r.needs(j + int(n))
		return nil, i, errShort
	}
	end := j + int(n)
	return r.buf[j:end:end], end, nil
}

// count reads a signature count or backtrace length, at most limit.
func (r *Reader) count(i, limit int) (int, int, error) {
	n, j, err := r.uint(i)
	if err != nil {
		return 0, i, err
	}
	if n > uint64(limit) {
		return 0, i, r.fail(i, wrapf(ErrTooLarge, "count %d above %d", n, limit))
	}
	// Each entry takes at least one byte.
	if n > uint64(len(r.buf)-j) {
		return 0, i, errShort
	}
	return int(n), j, nil
}

func (r *Reader) str(i int) (string, int, error) {
	b, j, err := r.bytes(i)
	return string(b), j, err
}

// sint reads a typed integer: 0x03 magnitude (negative) or 0x04 value.
func (r *Reader) sint(i int) (int64, int, error) {
	if i >= len(r.buf) {
		return 0, i, errShort
	}
	t := r.buf[i]
	if t != 3 && t != 4 {
		return 0, i, r.fail(i, wrapf(ErrBadValue, "type 0x%02x where a typed integer belongs", t))
	}
	u, j, err := r.uint(i + 1)
	if err != nil {
		return 0, i, err
	}
	if t == 3 {
		return -int64(u), j, nil
	}
	return int64(u), j, nil
}

// redefine reports whether a known signature's definition sits at stream
// offset off: the event is being parsed again after a refill, or after a
// seek to before the definition.
func (r *Reader) defHere(def int64, i int) bool { return def == r.base+int64(i) }

func (r *Reader) defined(i int) int64 {
	off := r.base + int64(i)
	if off > r.lastDef {
		r.lastDef = off
	}
	return off
}

// pooledNames returns the names gathered in r.pool (ending at r.ends) as
// strings that share one allocation: an enum signature of thousands of
// names costs a few allocations, not thousands.
func (r *Reader) pooledNames() []string {
	all := string(r.pool)
	r.strs = r.strs[:0]
	start := 0
	for _, end := range r.ends {
		r.strs = append(r.strs, all[start:end])
		start = end
	}
	return r.strs
}

// --- header ---------------------------------------------------------------

func (r *Reader) header(i int) (int, error) {
	v, i, err := r.uint(i)
	if err != nil {
		return i, err
	}
	if v > Version {
		return i, r.fail(0, wrapf(ErrVersion, "version %d (this package reads 0 to %d)", v, Version))
	}
	h := Header{Version: v, SemanticVersion: v, Container: r.hdr.Container}
	if v >= 6 {
		sv, j, err := r.uint(i)
		if err != nil {
			return i, err
		}
		if sv > v {
			return i, r.fail(i, wrapf(ErrVersion, "semantic version %d above version %d", sv, v))
		}
		h.SemanticVersion = sv
		i = j
		for {
			name, j, err := r.bytes(i)
			if err != nil {
				return i, err
			}
			i = j
			// apitrace reads the name as a C string: a name starting
			// with NUL ends the list as an empty one does.
			if len(name) == 0 || name[0] == 0 {
				break
			}
			if len(h.Properties) >= r.maxCount {
				return i, r.fail(i, wrapf(ErrTooLarge, "more than %d properties", r.maxCount))
			}
			val, j, err := r.bytes(i)
			if err != nil {
				return i, err
			}
			i = j
			h.Properties = append(h.Properties, Property{Name: string(name), Value: string(val)})
		}
	}
	r.hdr = h
	r.version = v
	return i, nil
}

// --- events ---------------------------------------------------------------

// startValues empties the per-event value scratch for a new event.
func (r *Reader) startValues() {
	r.arena = r.arena[:0]
	clear(r.datas) // they may hold a window a pending call was given
	r.datas = r.datas[:0]
	r.values, r.holders = 0, 0
}

func (r *Reader) event(i int) (int, error) {
	r.startValues()
	r.args = r.args[:0]
	r.bt = r.bt[:0]
	r.hasBT = false
	r.cutLeave = false
	r.ev = Event{}
	b := r.buf
	var err error
	switch b[i] {
	case 0:
		r.ev.Kind = Enter
		r.ev.Call = r.nextCall
		i++
		if r.version >= 4 {
			if r.ev.Thread, i, err = r.uint(i); err != nil {
				return i, err
			}
		}
		if r.ev.Sig, i, err = r.funcSig(i); err != nil {
			return i, err
		}
	case 1:
		r.ev.Kind = Leave
		if r.ev.Call, i, err = r.uint(i + 1); err != nil {
			return i, err
		}
		r.cutLeave = true
	default:
		return i, r.fail(i, wrapf(ErrBadEvent, "event 0x%02x", b[i]))
	}
	return r.details(i)
}

// details parses call details up to the terminating 0x00, adding to r.ev,
// r.args, r.arena and r.bt.
func (r *Reader) details(i int) (int, error) {
	b := r.buf
	var err error
	for {
		if i >= len(b) {
			return i, errShort
		}
		d := b[i]
		i++
		switch d {
		case 0:
			return i, nil
		case 1:
			idx, j, ok := r.small(i)
			if !ok {
				if idx, j, err = r.uint(i); err != nil {
					return i, err
				}
			}
			if idx >= uint64(r.maxCount) {
				return i, r.fail(i, wrapf(ErrTooLarge, "argument index %d", idx))
			}
			var v *Value
			if c := r.dst; c != nil {
				if idx >= uint64(len(c.Args)) {
					c.Args = append(c.Args, make([]Value, int(idx)+1-len(c.Args))...)
				}
				v = &c.Args[idx]
			} else {
				r.args = append(r.args, Arg{Index: int(idx)})
				v = &r.args[len(r.args)-1].Value
			}
			if j < len(b) && isScalar(b[j]) && r.values < r.maxValues {
				r.values++
				i, err = r.scalar(j+1, b[j], v)
			} else {
				i, err = r.topValue(j, v)
			}
			if err != nil {
				return i, err
			}
		case 2:
			v := &r.ev.Ret
			if r.dst != nil {
				v = &r.dst.Ret
			}
			if i, err = r.topValue(i, v); err != nil {
				return i, err
			}
		case 4:
			r.hasBT = true
			if i, err = r.backtrace(i); err != nil {
				return i, err
			}
		case 5:
			var f uint64
			if f, i, err = r.uint(i); err != nil {
				return i, err
			}
			r.ev.Flags = CallFlags(f)
		default:
			return i, r.fail(i-1, wrapf(ErrBadDetail, "call detail 0x%02x", d))
		}
	}
}

// finish gives the composite values the arena, now that it no longer
// moves, and fills in the event's slices.
func (r *Reader) finish() {
	r.block = r.arena
	r.ev.Args = r.args
	if r.hasBT {
		if r.bt == nil {
			r.bt = make([]*Frame, 0, 8)
		}
		r.ev.Backtrace = r.bt
	}
}

func (r *Reader) funcSig(i int) (*FunctionSig, int, error) {
	id, i, err := r.uint(i)
	if err != nil {
		return nil, i, err
	}
	sig := r.funcs.get(id)
	if sig != nil && !r.defHere(sig.def, i) {
		return sig, i, nil
	}
	at := i
	name, names, i, err := r.nameList(i)
	if err != nil {
		return nil, i, err
	}
	if sig == nil {
		n := string(name)
		sig = &FunctionSig{ID: id, Name: n, ArgNames: slices.Clone(names), def: r.defined(at), flags: LookupNameFlags(n), cached: true}
		r.funcs.put(id, sig)
	}
	return sig, i, nil
}

// nameList reads a name, a count and that many names: the bracket part of
// a function or struct signature. The names share one allocation; the
// slice holding them is scratch, valid until the next signature.
func (r *Reader) nameList(i int) (name []byte, names []string, j int, err error) {
	if name, i, err = r.bytes(i); err != nil {
		return nil, nil, i, err
	}
	n, i, err := r.count(i, r.maxCount)
	if err != nil {
		return nil, nil, i, err
	}
	r.pool, r.ends = r.pool[:0], r.ends[:0]
	for k := 0; k < n; k++ {
		var b []byte
		if b, i, err = r.bytes(i); err != nil {
			return nil, nil, i, err
		}
		r.pool = append(r.pool, b...)
		r.ends = append(r.ends, len(r.pool))
	}
	return name, r.pooledNames(), i, nil
}

func (r *Reader) backtrace(i int) (int, error) {
	n, i, err := r.count(i, r.maxFrames)
	if err != nil {
		return i, err
	}
	for k := 0; k < n; k++ {
		id, j, err := r.uint(i)
		if err != nil {
			return i, err
		}
		i = j
		f := r.frames.get(id)
		if f == nil || r.defHere(f.def, i) {
			at := i
			nf := Frame{ID: id}
			for done := false; !done; {
				if i >= len(r.buf) {
					return i, errShort
				}
				d := r.buf[i]
				i++
				if r.Strict && d >= 1 && d <= 5 && nf.Has&(1<<(d-1)) != 0 {
					return i, r.fail(i-1, wrapf(ErrBadDetail, "frame detail 0x%02x given twice", d))
				}
				switch d {
				case 0:
					done = true
				case 1:
					nf.Has |= HasModule
					nf.Module, i, err = r.str(i)
				case 2:
					nf.Has |= HasFunction
					nf.Function, i, err = r.str(i)
				case 3:
					nf.Has |= HasFile
					nf.File, i, err = r.str(i)
				case 4:
					nf.Has |= HasLine
					nf.Line, i, err = r.uint(i)
				case 5:
					nf.Has |= HasOffset
					nf.Offset, i, err = r.uint(i)
				default:
					return i, r.fail(i-1, wrapf(ErrBadDetail, "frame detail 0x%02x", d))
				}
				if err != nil {
					return i, err
				}
			}
			if f == nil {
				nf.def = r.defined(at)
				f = &nf
				r.frames.put(id, f)
			}
		}
		r.bt = append(r.bt, f)
	}
	return i, nil
}

// reserve adds n value nodes to the arena, for the children of a
// composite value (of an argument or return value when top is set), and
// returns the index of the first; for a struct (sig set) one more node
// goes before them, for its signature. Children are parsed in place
// there, so that a value is built once, where it stays.
//
// Every node holds at least one value that holds no other (an empty array
// is one), so r.values counts each node not yet parsed as one: the limit
// of the Reader's doc is then checked before the nodes are built. The n
// children of a composite node replace the one it counted for.
func (r *Reader) reserve(i, n int, top bool, sig *StructSig) (int, error) {
	first := len(r.arena)
	more := n
	if !top && n > 0 {
		more--
		if r.holders >= r.maxValues {
			return 0, r.fail(i, wrapf(ErrTooLarge, "more than %d arrays, structs and reprs holding values in one event", r.maxValues))
		}
		r.holders++
	}
	if more > r.maxValues-r.values {
		return 0, r.fail(i, wrapf(ErrTooLarge, "more than %d values in one event", r.maxValues))
	}
	r.values += more
	if sig != nil {
		r.arena = append(r.arena, Value{ref: sig})
		first++
	}
	// The nodes are not cleared: parsing writes each whole, and what
	// an event cut short leaves in them is never read.
	r.arena = slices.Grow(r.arena, n)[:first+n]
	return first, nil
}

// isScalar reports whether values of type t have no children: every type
// but arrays, structs, reprs and wide strings.
func isScalar(t byte) bool { return t <= 10 || t == 13 }

// topValue parses the value at i, an argument or a return value, into *v.
// A scalar is parsed in place; a composite value is built in the arena
// and its node then copied into *v.
func (r *Reader) topValue(i int, v *Value) (int, error) {
	if i < len(r.buf) && isScalar(r.buf[i]) {
		if r.values >= r.maxValues {
			return i, r.fail(i, wrapf(ErrTooLarge, "more than %d values in one event", r.maxValues))
		}
		r.values++
		return r.scalar(i+1, r.buf[i], v)
	}
	at, err := r.reserve(i, 1, true, nil)
	if err != nil {
		return i, err
	}
	if i, err = r.value(i, 0, at); err != nil {
		return i, err
	}
	*v = r.arena[at]
	return i, nil
}

// scalar parses the rest, from i, of a value of scalar type t into *v.
func (r *Reader) scalar(i int, t byte, v *Value) (int, error) {
	b := r.buf
	var err error
	var u uint64
	switch t {
	case 0:
		*v = Value{ref: KindNull}
	case 1:
		*v = Value{ref: KindFalse}
	case 2:
		*v = Value{ref: KindTrue}
	case 3:
		if u, i, err = r.uint(i); err != nil {
			return i, err
		}
		*v = Value{num: -u, ref: KindSInt}
	case 4:
		if i < len(b) && b[i] < 0x80 {
			u = uint64(b[i])
			i++
		} else if u, i, err = r.uint(i); err != nil {
			return i, err
		}
		*v = Value{num: u, ref: KindUInt}
	case 5:
		if len(b)-i < 4 {
			return i, errShort
		}
		*v = Value{num: uint64(binary.LittleEndian.Uint32(b[i:])), ref: KindFloat}
		i += 4
	case 6:
		if len(b)-i < 8 {
			return i, errShort
		}
		*v = Value{num: binary.LittleEndian.Uint64(b[i:]), ref: KindDouble}
		i += 8
	case 7, 8:
		var d []byte
		if d, i, err = r.bytes(i); err != nil {
			return i, err
		}
		r.datas = append(r.datas, d)
		// An earlier string's pointer into datas stays right if datas
		// moves: its slice is written once, before.
		p := &r.datas[len(r.datas)-1]
		if t == 7 {
			*v = Value{ref: (*stringBytes)(p)}
		} else {
			*v = Value{ref: (*blobBytes)(p)}
		}
	case 9:
		var sig *EnumSig
		if sig, u, i, err = r.enum(i); err != nil {
			return i, err
		}
		*v = Value{num: u, ref: sig}
	case 10:
		var sig *BitmaskSig
		if sig, i, err = r.bitmaskSig(i); err != nil {
			return i, err
		}
		if u, i, err = r.uint(i); err != nil {
			return i, err
		}
		*v = Value{num: u, ref: sig}
	case 13:
		if u, i, err = r.uint(i); err != nil {
			return i, err
		}
		*v = Value{num: u, ref: KindPointer}
	}
	return i, nil
}

// value parses one value at i into the arena's node dst, and its
// children into nodes reserved after it.
func (r *Reader) value(i, depth, dst int) (int, error) {
	b := r.buf
	if i >= len(b) {
		return i, errShort
	}
	at := i
	t := b[i]
	i++
	if isScalar(t) {
		return r.scalar(i, t, &r.arena[dst])
	}
	var err error
	var first, n int
	switch t {
	case 11, 15:
		kind := KindArray
		if t == 15 {
			kind = KindWString
		}
		m, j, err := r.uint(i)
		if err != nil {
			return i, err
		}
		if m > uint64(r.maxArray) {
			return i, r.fail(i, wrapf(ErrTooLarge, "array of %d elements: more than %d in one array", m, r.maxArray))
		}
		// Every element is a value: refused here, before one is built or
		// the bytes of the array are waited for.
		if before := r.values - 1; m > uint64(r.maxValues-before) {
			if before > 0 {
				return i, r.fail(i, wrapf(ErrTooLarge, "array of %d elements after %d other values: more than %d values in one event", m, before, r.maxValues))
			}
			return i, r.fail(i, wrapf(ErrTooLarge, "array of %d elements: more than %d values in one event", m, r.maxValues))
		}
		if m > uint64(len(b)-j) {
			// Each element takes a byte at least: the window must
			// hold that much before the array is parsed again.
			r.needs(j + int(m))
			return i, errShort
		}
		i, n = j, int(m)
		if depth >= r.maxDepth {
			return i, r.fail(at, wrapf(ErrTooLarge, "values nested deeper than %d", r.maxDepth))
		}
		if first, err = r.reserve(i, n, false, nil); err != nil {
			return i, err
		}
		for k := range n {
			if t == 15 {
				var u uint64
				if u, i, err = r.uint(i); err != nil {
					return i, err
				}
				r.arena[first+k] = Value{num: u, ref: KindUInt}
			} else if i, err = r.value(i, depth+1, first+k); err != nil {
				return i, err
			}
		}
		r.arena[dst] = composite(kind, &r.block, first, n)
	case 12:
		var sig *StructSig
		if sig, i, err = r.structSig(i); err != nil {
			return i, err
		}
		if depth >= r.maxDepth {
			return i, r.fail(at, wrapf(ErrTooLarge, "values nested deeper than %d", r.maxDepth))
		}
		n = len(sig.Members)
		if first, err = r.reserve(i, n, false, sig); err != nil {
			return i, err
		}
		for k := range n {
			if i, err = r.value(i, depth+1, first+k); err != nil {
				return i, err
			}
		}
		r.arena[dst] = composite(KindStruct, &r.block, first, n)
	case 14:
		if depth >= r.maxDepth {
			return i, r.fail(at, wrapf(ErrTooLarge, "values nested deeper than %d", r.maxDepth))
		}
		n = 2
		if first, err = r.reserve(i, n, false, nil); err != nil {
			return i, err
		}
		for k := range n {
			if i, err = r.value(i, depth+1, first+k); err != nil {
				return i, err
			}
		}
		r.arena[dst] = composite(KindRepr, &r.block, first, n)
	default:
		return i, r.fail(at, wrapf(ErrBadValue, "type 0x%02x", t))
	}
	return i, nil
}

func (r *Reader) enum(i int) (*EnumSig, uint64, int, error) {
	id, i, err := r.uint(i)
	if err != nil {
		return nil, 0, i, err
	}
	sig := r.enums.get(id)
	if sig == nil || r.defHere(sig.def, i) {
		at := i
		var vals []EnumValue
		n := 1
		if r.version >= 3 {
			if n, i, err = r.count(i, r.maxCount); err != nil {
				return nil, 0, i, err
			}
		}
		if sig == nil {
			vals = make([]EnumValue, n)
			r.pool, r.ends = r.pool[:0], r.ends[:0]
		}
		for k := 0; k < n; k++ {
			var name []byte
			var v int64
			if name, i, err = r.bytes(i); err != nil {
				return nil, 0, i, err
			}
			if v, i, err = r.sint(i); err != nil {
				return nil, 0, i, err
			}
			if vals != nil {
				vals[k].Value = v
				r.pool = append(r.pool, name...)
				r.ends = append(r.ends, len(r.pool))
			}
		}
		if vals != nil {
			for k, name := range r.pooledNames() {
				vals[k].Name = name
			}
		}
		if sig == nil {
			sig = &EnumSig{ID: id, Values: vals, def: r.defined(at)}
			r.enums.put(id, sig)
		}
	}
	if r.version < 3 {
		if len(sig.Values) == 0 {
			return nil, 0, i, r.fail(i, wrapf(ErrBadValue, "enum signature %d without a value", id))
		}
		return sig, uint64(sig.Values[0].Value), i, nil
	}
	v, i, err := r.sint(i)
	return sig, uint64(v), i, err
}

func (r *Reader) bitmaskSig(i int) (*BitmaskSig, int, error) {
	id, i, err := r.uint(i)
	if err != nil {
		return nil, i, err
	}
	sig := r.bitmasks.get(id)
	if sig != nil && !r.defHere(sig.def, i) {
		return sig, i, nil
	}
	at := i
	n, i, err := r.count(i, r.maxCount)
	if err != nil {
		return nil, i, err
	}
	var flags []BitmaskFlag
	if sig == nil {
		flags = make([]BitmaskFlag, n)
		r.pool, r.ends = r.pool[:0], r.ends[:0]
	}
	for k := 0; k < n; k++ {
		var name []byte
		var v uint64
		if name, i, err = r.bytes(i); err != nil {
			return nil, i, err
		}
		if v, i, err = r.uint(i); err != nil {
			return nil, i, err
		}
		if flags != nil {
			flags[k].Value = v
			r.pool = append(r.pool, name...)
			r.ends = append(r.ends, len(r.pool))
		}
	}
	if flags != nil {
		for k, name := range r.pooledNames() {
			flags[k].Name = name
		}
	}
	if sig == nil {
		sig = &BitmaskSig{ID: id, Flags: flags, def: r.defined(at)}
		r.bitmasks.put(id, sig)
	}
	return sig, i, nil
}

func (r *Reader) structSig(i int) (*StructSig, int, error) {
	id, i, err := r.uint(i)
	if err != nil {
		return nil, i, err
	}
	sig := r.structs.get(id)
	if sig != nil && !r.defHere(sig.def, i) {
		return sig, i, nil
	}
	at := i
	name, members, i, err := r.nameList(i)
	if err != nil {
		return nil, i, err
	}
	if sig == nil {
		sig = &StructSig{ID: id, Name: string(name), Members: slices.Clone(members), def: r.defined(at)}
		r.structs.put(id, sig)
	}
	return sig, i, nil
}
