package apitrace

import (
	"compress/gzip"
	"encoding/binary"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/tracefmt/tracefmt/apitrace/snappy"
	"github.com/tracefmt/tracefmt/apitrace/zstd"
	"github.com/tracefmt/tracefmt/varint"
)

// DefaultChunkSize is the decompressed size of the snappy chunks the Writer
// makes: 1 MiB, what apitrace writes and the most its reader accepts (its
// buffer for a compressed chunk is sized for 1 MiB of input).
const DefaultChunkSize = 1 << 20

// A Writer writes a trace: the header, then events, in the snappy container
// (the default), gzip, or seekable zstd as apitrace master writes it (for
// Zstd and ZstdSeekable alike: frames of 2 MiB of stream, then the seek
// table; master misreads a large plain zstd stream).
//
// The Writer keeps what the stream derives consistent, whatever events the
// caller drops, adds or reorders:
//   - Calls are numbered densely in the order their enter events are
//     written, as apitrace numbers them. An enter event's Call is the
//     caller's name for the call, used only to pair its leave event: a leave
//     is written with the number its enter got. A leave whose enter was not
//     written (dropped by the caller, or already left) is dropped, as
//     apitrace's reader would drop it: Write returns nil and writes nothing.
//     An enter whose Call names a call entered and not yet left is refused
//     with ErrInvalid.
//   - Signatures and backtrace frames are defined in the stream at their
//     first use in this stream, as apitrace requires, from the pointed-to
//     signature, under the caller's ids (each kind has its own id space).
//     The same signature again (the same pointer, or equal contents) is
//     written as a reference to that definition. A different signature
//     under an id already written (from another trace, or built by hand) is
//     given the next free id of its kind in this stream, and so is one
//     whose id is above MaxWriteID. A signature must not change once
//     written.
//
// Write refuses, with an error wrapping ErrInvalid that names the rule, an
// event apitrace dump would crash on, misprint or read back otherwise, and
// one our Reader would refuse with its default limits. A refused event leaves the Writer as it
// was before the call: nothing of it is buffered, and Close still writes
// every event accepted before it (the refusal is sticky: Write, Flush and
// Close then return it). Check applies the same rules without writing.
//
// The rules, which a CallWriter applies too:
//   - an argument index beyond the signature's argument names (apitrace
//     dump crashes), or given twice in one event (apitrace keeps the last
//     value alone);
//   - a wide string code unit that is not a uint from 1 to 2^32-1
//     (apitrace keeps 32 bits and ends the string at 0);
//   - nesting deeper than DefaultMaxDepth, more than DefaultMaxValues
//     values in an event (counted as the Reader's doc says), or more
//     than the other Default limits allow;
//   - what apitrace asserts on: a glGetError() whose return value is not
//     an integer, bool, float or null (or is an unsigned one above
//     2^63-1), a struct named GUID with four members that are not three
//     unsigned integers and an array of eight;
//   - a name holding a NUL (of a function, argument, struct, member, enum
//     value, bitmask flag, or a frame's module, function or file): apitrace
//     keeps names as C strings, so it would read the name up to the NUL (and
//     take "glXSwapBuffers\x00x" for glXSwapBuffers, which ends a frame);
//   - an anonymous struct member (empty name) holding anything but a
//     struct, which apitrace dump does not print; a bitmask signature
//     whose zero flag is not first, which apitrace warns about;
//   - a thread number above 2^32-1, a frame line above 2^31-1, a frame
//     offset above 2^63-1 (apitrace's C types), unknown frame details;
//   - a header property whose name is empty or given twice, or whose name
//     or value holds a NUL (apitrace reads them as C strings: a name
//     starting with NUL ends its list);
//   - what the format cannot hold: a value without its signature, a struct
//     with the wrong number of values, a value Scalar made of a kind that
//     holds more than bits (or of no kind), float bits above 32, an enum
//     value its version 0-2 signature does not hold, a thread in a stream
//     before version 4, a call entered twice before its leave.
//
// Writing the events a Reader returned, in order, reproduces the reader's
// decompressed stream byte for byte for every trace apitrace writes, and
// keeps the header. The container bytes differ: our snappy compressor is
// not google's, and gzip is written at Go's default level, not zlib's
// level 9. Streams no apitrace writes may not come back byte for byte,
// though their events do: integers in non-minimal form, call details in
// another order than apitrace's, repeated frame details.
//
// A zero Writer returns ErrNotOpen until Reset. Errors are sticky. Close
// must be called to write the last chunk; it does not close the underlying
// io.Writer.
type Writer struct {
	// ChunkSize is the decompressed size of each snappy chunk but the last;
	// 0 means DefaultChunkSize. Values above DefaultChunkSize are refused,
	// since apitrace could not read the file, and so are negative ones.
	// Set it before the first Write.
	ChunkSize int
	// ZstdLevel is the compression level of the zstd containers, 1 to 22;
	// 0 means 3, apitrace's default. Set it before Reset: NewWriter
	// writes at the default level.
	ZstdLevel int

	w   io.Writer
	hdr Header
	buf []byte // stream bytes not yet compressed
	// big lists the long strings of the event being written, which buf
	// leaves out (it holds their lengths): they go from the caller's
	// value into the chunk stream once the event is accepted, so that a
	// string is never held twice.
	big []bigString
	// stage collects a chunk while big strings are written out.
	stage  []byte
	out    []byte // one compressed chunk with its length
	enc    snappy.Encoder
	gz     *gzip.Writer
	zs     *zstd.SeekableWriter // the zstd writer when the container is zstd
	zsKeep *zstd.SeekableWriter // kept for the next Reset
	err    error
	open   bool
	closed bool
	calls  uint64

	// refused is set when err is a refusal, which left the Writer
	// whole: Flush and Close still write what was accepted.
	refused bool

	// The call just entered and not yet left (the usual case: a leave
	// follows its enter), then the other pending calls, by the caller's
	// call number.
	last    pendingCall
	hasLast bool
	pending map[uint64]pendingCall

	tx    txn // what the event being written changed, to undo on refusal
	nodes int // values in the event being written that hold no other
	// holders counts the arrays, structs and reprs of the event that
	// hold values.
	holders int
	long    int // the length of a string in it over the Reader's limit
	// nul is the first name (of a signature or frame) of the event
	// holding a NUL, with what it names.
	nul, nulWhat string
	// argSeen has a bit set for each argument index the event being
	// written has given
	argSeen []uint64

	// The signatures written so far, by id.
	funcs    sigIDs[FunctionSig]
	enums    sigIDs[EnumSig]
	bitmasks sigIDs[BitmaskSig]
	structs  sigIDs[StructSig]
	frames   sigIDs[Frame]
}

// pendingCall is a call entered and not yet left: the caller's number,
// the number written, and what its leave's details are checked against
// (the argument count of the signature apitrace will use, and whether
// apitrace takes its return value as glGetError's).
type pendingCall struct {
	from, to uint64
	argc     int
	getError bool
}

// MaxWriteID is the largest signature or frame id the Writer writes: a
// signature or frame whose own id is larger is given a free id of its kind.
// apitrace keeps a table entry for every id up to the largest it has seen,
// so an id near 2^64 crashes it and one of 2^40 exhausts memory.
const MaxWriteID = 1<<22 - 1

// txn records what the event being written changed in the Writer, so
// that a refusal can undo it.
type txn struct {
	mark    int // length of buf before the event
	calls   uint64
	last    pendingCall
	hasLast bool
	added   []uint64      // keys put in pending
	removed []pendingCall // entries taken out of pending
}

// NewWriter returns a Writer that writes h's container magic and stream
// header to w. h.Container must be Snappy, Gzip, Zstd or ZstdSeekable;
// the versions must be at most 6, the semantic version at most the
// version, and properties are only allowed from version 6.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	wr := new(Writer)
	if err := wr.Reset(w, h); err != nil {
		return nil, err
	}
	return wr, nil
}

// Reset discards the Writer's state and starts a new trace on w with header
// h, as NewWriter does, keeping ChunkSize and reusing buffers. What was not
// flushed to the previous writer is lost.
func (w *Writer) Reset(out io.Writer, h Header) error {
	w.open, w.closed, w.err, w.refused = false, false, nil, false
	w.buf = w.buf[:0]
	w.calls = 0
	w.hasLast = false
	clear(w.pending)
	w.funcs.reset()
	w.enums.reset()
	w.bitmasks.reset()
	w.structs.reset()
	w.frames.reset()
	if out == nil {
		return ErrNotOpen
	}
	if err := checkHeader(h); err != nil {
		return err
	}
	w.w, w.hdr = out, h
	w.zs = nil
	switch h.Container {
	case Snappy:
		w.gz = nil
		if _, err := out.Write(magicSnappy); err != nil {
			return err
		}
	case Zstd, ZstdSeekable:
		level := w.ZstdLevel
		if level == 0 {
			level = zstd.DefaultLevel
		}
		w.gz = nil
		if w.zsKeep == nil || w.zsKeep.Level() != level {
			zs, err := zstd.NewSeekableWriter(out, level)
			if err != nil {
				return wrapf(ErrInvalid, "%v", err)
			}
			w.zsKeep = zs
		}
		w.zs = w.zsKeep
		w.zs.Reset(out)
	case Gzip:
		if w.gz == nil {
			w.gz, _ = gzip.NewWriterLevel(out, gzip.DefaultCompression)
		} else {
			w.gz.Reset(out)
		}
	}
	w.buf = varint.Append(w.buf, h.Version)
	if h.Version >= 6 {
		w.buf = varint.Append(w.buf, h.SemanticVersion)
		for _, p := range h.Properties {
			w.buf = appendString(w.buf, p.Name)
			w.buf = appendString(w.buf, p.Value)
		}
		w.buf = append(w.buf, 0)
	}
	w.open = true
	return nil
}

// checkHeader refuses a header the Writer cannot write.
func checkHeader(h Header) error {
	if h.Container == Brotli || h.Container > ZstdSeekable {
		return wrapf(ErrInvalid, "container %v (the Writer writes snappy, gzip and zstd)", h.Container)
	}
	if h.Version > Version {
		return wrapf(ErrInvalid, "version %d", h.Version)
	}
	if h.Version < 6 {
		if len(h.Properties) > 0 || h.SemanticVersion != h.Version && h.SemanticVersion != 0 {
			return wrapf(ErrInvalid, "version %d has no semantic version or properties", h.Version)
		}
		return nil
	}
	if h.SemanticVersion > h.Version {
		return wrapf(ErrInvalid, "semantic version %d above version %d", h.SemanticVersion, h.Version)
	}
	if len(h.Properties) > DefaultMaxEntries {
		return wrapf(ErrInvalid, "%d properties, above the Reader's limit of %d", len(h.Properties), DefaultMaxEntries)
	}
	for i, p := range h.Properties {
		// apitrace reads names as C strings: the list ends at a name
		// starting with NUL, and names equal up to a NUL are one entry
		// of its map.
		name := cstr(p.Name)
		switch {
		case name == "":
			return wrapf(ErrInvalid, "property %d has an empty name, or one starting with NUL, which ends apitrace's list", i)
		case len(p.Name) > DefaultMaxDataLen || len(p.Value) > DefaultMaxDataLen:
			return wrapf(ErrInvalid, "property %q longer than %d bytes", name, DefaultMaxDataLen)
		case name != p.Name || strings.IndexByte(p.Value, 0) >= 0:
			return wrapf(ErrInvalid, "property %q = %q holds a NUL: apitrace reads properties as C strings, so it would read %q = %q", p.Name, p.Value, name, cstr(p.Value))
		}
		for _, q := range h.Properties[:i] {
			if cstr(q.Name) == name {
				return wrapf(ErrInvalid, "property %q twice (apitrace keeps one value per name)", name)
			}
		}
	}
	return nil
}

func appendString[S string | []byte](dst []byte, s S) []byte {
	dst = varint.Append(dst, uint64(len(s)))
	return append(dst, s...)
}

// bigStringLen is the length from which a string is left out of the
// event's buffer (see Writer.big): a chunk, so that copying it there would
// cost more than one chunk of memory.
const bigStringLen = DefaultChunkSize

// bigString is a string of the event being written, to be inserted at
// buf[at] (one of b and s is set).
type bigString struct {
	at int
	b  []byte
	s  string
}

// putName appends a name of a signature or frame, noting one that holds a
// NUL: apitrace keeps names as C strings, which end there.
func putName(w *Writer, what, s string) {
	if w.nulWhat == "" && strings.IndexByte(s, 0) >= 0 {
		w.nul, w.nulWhat = s, what
	}
	putString(w, s)
}

// putString appends s to the event being written, noting a string our
// Reader would refuse. A long one is only noted, after its length.
func putString[S string | []byte](w *Writer, s S) {
	if len(s) > DefaultMaxDataLen && w.long == 0 {
		w.long = len(s)
	}
	if len(s) < bigStringLen {
		w.buf = appendString(w.buf, s)
		return
	}
	w.buf = varint.Append(w.buf, uint64(len(s)))
	d := bigString{at: len(w.buf)}
	switch s := any(s).(type) {
	case []byte:
		d.b = s
	case string:
		d.s = s
	}
	w.big = append(w.big, d)
}

// Write appends one event. An enter event gets the next call number; a
// leave event gets the number of the enter whose Call it names, or is
// dropped when there is none (see Writer). An event Write refuses leaves
// the Writer as it was (see Writer).
func (w *Writer) Write(ev *Event) error {
	if err := w.usable(); err != nil {
		return err
	}
	if ev == nil {
		return wrapf(ErrInvalid, "nil event")
	}
	w.begin()
	if err := w.add(ev); err != nil {
		w.rollback()
		w.err, w.refused = err, true
		return err
	}
	return w.spill()
}

// Check returns the error Write(ev) would return now, without writing ev
// or changing the Writer: nil if Write would accept it, an error wrapping
// ErrInvalid that names the rule it breaks otherwise. A caller that wants
// to skip the events a Writer refuses, rather than stop at the first,
// checks each before writing it.
func (w *Writer) Check(ev *Event) error {
	if err := w.usable(); err != nil {
		return err
	}
	if ev == nil {
		return wrapf(ErrInvalid, "nil event")
	}
	w.begin()
	err := w.add(ev)
	w.rollback()
	return err
}

// usable returns the error that stops writing, if any.
func (w *Writer) usable() error {
	switch {
	case w.err != nil:
		return w.err
	case w.closed:
		return ErrClosed
	case !w.open:
		return ErrNotOpen
	}
	return nil
}

// fail records an error of the output, after which nothing more can be
// written.
func (w *Writer) fail(err error) error {
	w.err, w.refused = err, false
	return err
}

// begin starts an event (or a CallWriter's call): what it changes is
// recorded until the next begin, for rollback.
func (w *Writer) begin() {
	t := &w.tx
	t.mark = len(w.buf)
	clear(w.big)
	w.big = w.big[:0]
	t.calls, t.last, t.hasLast = w.calls, w.last, w.hasLast
	t.added, t.removed = t.added[:0], t.removed[:0]
	w.funcs.begin()
	w.enums.begin()
	w.bitmasks.begin()
	w.structs.begin()
	w.frames.begin()
}

// rollback undoes what was written and changed since begin.
func (w *Writer) rollback() {
	t := &w.tx
	w.buf = w.buf[:t.mark]
	clear(w.big) // keep no reference to the caller's strings
	w.big = w.big[:0]
	w.calls, w.last, w.hasLast = t.calls, t.last, t.hasLast
	// Entries taken out go back first: one put in by this event and
	// taken out again is then removed with the others it put in.
	for _, p := range t.removed {
		w.pending[p.from] = p
	}
	for _, k := range t.added {
		delete(w.pending, k)
	}
	w.funcs.rollback()
	w.enums.rollback()
	w.bitmasks.rollback()
	w.structs.rollback()
	w.frames.rollback()
}

// add appends ev to the buffer and updates the Writer's state, or returns
// the rule ev breaks, leaving what it changed for rollback to undo.
func (w *Writer) add(ev *Event) error {
	w.nodes, w.holders, w.long = 0, 0, 0
	w.nul, w.nulWhat = "", ""
	var err error
	switch ev.Kind {
	case Enter:
		if w.isPending(ev.Call) {
			// Its leave could not tell the two calls apart.
			return wrapf(ErrInvalid, "call %d entered again before its leave", ev.Call)
		}
		var p pendingCall
		if p, err = w.enterEvent(ev); err == nil {
			p.from = ev.Call
			w.enter(p)
		}
	case Leave:
		p, ok := w.pendingFor(ev.Call)
		if !ok {
			return nil // dropped, as apitrace would drop it
		}
		w.buf = append(w.buf, 1)
		w.buf = varint.Append(w.buf, p.to)
		if err = w.details(ev, &p); err == nil {
			w.left(p)
		}
	default:
		return wrapf(ErrInvalid, "event kind %d", ev.Kind)
	}
	if err == nil && w.long > 0 {
		err = wrapf(ErrInvalid, "a string of %d bytes, above the Reader's limit of %d", w.long, DefaultMaxDataLen)
	}
	if err == nil && w.nulWhat != "" {
		err = wrapf(ErrInvalid, "%s %q holds a NUL: apitrace reads names as C strings, so it would read %q", w.nulWhat, w.nul, cstr(w.nul))
	}
	return err
}

// pendingFor returns the pending call the caller numbers from.
func (w *Writer) pendingFor(from uint64) (pendingCall, bool) {
	if w.hasLast && w.last.from == from {
		return w.last, true
	}
	p, ok := w.pending[from]
	return p, ok
}

// isPending reports whether the caller's call number from was entered and
// not left.
func (w *Writer) isPending(from uint64) bool {
	if w.hasLast && w.last.from == from {
		return true
	}
	if len(w.pending) == 0 {
		return false
	}
	_, ok := w.pending[from]
	return ok
}

// enter records the call p, written as the next number.
func (w *Writer) enter(p pendingCall) {
	if w.hasLast {
		if w.pending == nil {
			w.pending = make(map[uint64]pendingCall)
		}
		w.pending[w.last.from] = w.last
		w.tx.added = append(w.tx.added, w.last.from)
	}
	w.last, w.hasLast = p, true
	w.calls++
}

// left records that the pending call p was left.
func (w *Writer) left(p pendingCall) {
	if w.hasLast && w.last.from == p.from {
		w.hasLast = false
		return
	}
	delete(w.pending, p.from)
	w.tx.removed = append(w.tx.removed, p)
}

// spill compresses and writes the whole chunks buffered.
func (w *Writer) spill() error {
	size := w.chunkSize()
	if size < 0 {
		return w.fail(wrapf(ErrInvalid, "chunk size %d, not 0 (the default) or 1 to %d", w.ChunkSize, DefaultChunkSize))
	}
	if len(w.big) > 0 {
		return w.spillBig(size)
	}
	if len(w.buf) >= size {
		n := len(w.buf) / size * size
		if err := w.emit(w.buf[:n], size); err != nil {
			return err
		}
		w.buf = w.buf[:copy(w.buf, w.buf[n:])]
	}
	return nil
}

// spillBig writes the whole chunks of the stream buffered, with the long
// strings of the event just accepted inserted where they belong, and
// keeps the rest in buf. The strings go out from the caller's values: in
// whole chunks when one starts at a chunk boundary, else copied a chunk
// at a time.
func (w *Writer) spillBig(size int) error {
	src := w.buf
	w.stage = w.stage[:0]
	at := 0
	var err error
	for k := range w.big {
		d := &w.big[k]
		if err = feed(w, src[at:d.at], size); err != nil {
			break
		}
		if d.b != nil {
			err = feed(w, d.b, size)
		} else {
			err = feed(w, d.s, size)
		}
		if err != nil {
			break
		}
		at = d.at
	}
	if err == nil {
		err = feed(w, src[at:], size)
	}
	clear(w.big)
	w.big = w.big[:0]
	w.buf, w.stage = w.stage, src[:0]
	return err
}

// feed adds p to the chunk stream in w.stage, writing each chunk it fills.
func feed[S string | []byte](w *Writer, p S, size int) error {
	for len(p) > 0 {
		if b, ok := any(p).([]byte); ok && len(w.stage) == 0 && len(b) >= size {
			n := len(b) / size * size
			if err := w.emit(b[:n], size); err != nil {
				return err
			}
			p = p[n:]
			continue
		}
		k := min(size-len(w.stage), len(p))
		w.stage = append(w.stage, p[:k]...)
		p = p[k:]
		if len(w.stage) == size {
			if err := w.emit(w.stage, size); err != nil {
				return err
			}
			w.stage = w.stage[:0]
		}
	}
	return nil
}

func (w *Writer) chunkSize() int {
	switch {
	case w.ChunkSize == 0:
		return DefaultChunkSize
	case w.ChunkSize > DefaultChunkSize || w.ChunkSize < 0:
		return -1
	}
	return w.ChunkSize
}

// emit writes p as chunks of size bytes (the last may be shorter).
func (w *Writer) emit(p []byte, size int) error {
	if w.zs != nil {
		// The seekable writer cuts frames at 2 MiB of stream, wherever
		// the chunks end, as master's repack does.
		if _, err := w.zs.Write(p); err != nil {
			return w.fail(err)
		}
		return nil
	}
	if w.gz != nil {
		if _, err := w.gz.Write(p); err != nil {
			return w.fail(err)
		}
		return nil
	}
	for len(p) > 0 {
		n := min(size, len(p))
		w.out = append(w.out[:0], 0, 0, 0, 0)
		w.out = w.enc.Encode(w.out, p[:n])
		binary.LittleEndian.PutUint32(w.out, uint32(len(w.out)-4))
		if _, err := w.w.Write(w.out); err != nil {
			return w.fail(err)
		}
		p = p[n:]
	}
	return nil
}

// Flush writes the buffered stream as a (possibly short) chunk or zstd
// frame, and flushes gzip. apitrace's tracer does the same on signals;
// readers do not mind. After a refusal it still writes what was accepted,
// and returns the refusal.
func (w *Writer) Flush() error {
	if w.refused && !w.closed {
		if err := w.flush(); err != nil {
			return err
		}
		return w.err
	}
	if err := w.usable(); err != nil {
		return err
	}
	return w.flush()
}

func (w *Writer) flush() error {
	size := w.chunkSize()
	if size < 0 {
		return w.fail(wrapf(ErrInvalid, "chunk size %d, not 0 (the default) or 1 to %d", w.ChunkSize, DefaultChunkSize))
	}
	if err := w.emit(w.buf, size); err != nil {
		return err
	}
	w.buf = w.buf[:0]
	if w.zs != nil {
		if err := w.zs.Flush(); err != nil {
			return w.fail(err)
		}
	}
	if w.gz != nil {
		if err := w.gz.Flush(); err != nil {
			return w.fail(err)
		}
	}
	return nil
}

// Close writes what is buffered and finishes the container. It does not
// close the underlying writer. After a refusal it still finishes the trace
// with every event accepted before it, and returns the refusal. Closing
// again returns nil, or the error that stopped the Writer.
func (w *Writer) Close() error {
	if w.closed || w.err != nil && !w.refused {
		return w.err
	}
	if !w.open {
		return ErrNotOpen
	}
	refusal := w.err
	err := w.flush()
	w.closed = true
	if err != nil {
		return err
	}
	if w.gz != nil {
		if err := w.gz.Close(); err != nil {
			return w.fail(err)
		}
	}
	if w.zs != nil {
		if err := w.zs.Close(); err != nil {
			return w.fail(err)
		}
	}
	return refusal
}

// Calls returns the number of enter events written.
func (w *Writer) Calls() uint64 { return w.calls }

// enterEvent appends the enter event ev and returns the call it starts
// (but its caller's number).
func (w *Writer) enterEvent(ev *Event) (pendingCall, error) {
	if ev.Sig == nil {
		return pendingCall{}, wrapf(ErrInvalid, "enter event without a signature")
	}
	w.buf = append(w.buf, 0)
	if w.hdr.Version >= 4 {
		if ev.Thread > math.MaxUint32 {
			// apitrace keeps thread numbers in 32 bits.
			return pendingCall{}, wrapf(ErrInvalid, "thread %d above 2^32-1", ev.Thread)
		}
		w.buf = varint.Append(w.buf, ev.Thread)
	} else if ev.Thread != 0 {
		return pendingCall{}, wrapf(ErrInvalid, "thread %d in a version %d stream", ev.Thread, w.hdr.Version)
	}
	sig, err := w.funcSig(ev.Sig)
	if err != nil {
		return pendingCall{}, err
	}
	p := pendingCall{to: w.calls, argc: len(sig.ArgNames),
		getError: len(sig.ArgNames) == 0 && cstr(sig.Name) == "glGetError"}
	return p, w.details(ev, &p)
}

// details appends the details of ev, a detail of the call p, and the end
// of the event.
func (w *Writer) details(ev *Event, p *pendingCall) error {
	if ev.Flags != 0 {
		w.buf = append(w.buf, 5)
		w.buf = varint.Append(w.buf, uint64(ev.Flags))
	}
	if ev.Backtrace != nil {
		if len(ev.Backtrace) > DefaultMaxFrames {
			return wrapf(ErrInvalid, "backtrace of %d frames, above the Reader's limit of %d", len(ev.Backtrace), DefaultMaxFrames)
		}
		w.buf = append(w.buf, 4)
		w.buf = varint.Append(w.buf, uint64(len(ev.Backtrace)))
		for _, f := range ev.Backtrace {
			if f == nil {
				return wrapf(ErrInvalid, "nil backtrace frame")
			}
			if err := w.frame(f); err != nil {
				return err
			}
		}
	}
	if len(ev.Args) > 1 {
		w.argSeen = slices.Grow(w.argSeen[:0], p.argc/64+1)[:p.argc/64+1]
		clear(w.argSeen)
	}
	for k := range ev.Args {
		a := &ev.Args[k]
		if a.Index < 0 || a.Index >= p.argc {
			// apitrace dump reads the argument's name past the end of
			// the signature's list, and crashes.
			return wrapf(ErrInvalid, "argument index %d of call %d, whose signature has %d argument names", a.Index, ev.Call, p.argc)
		}
		if len(ev.Args) > 1 {
			word, bit := a.Index/64, uint64(1)<<(a.Index%64)
			if w.argSeen[word]&bit != 0 {
				// apitrace keeps one value an index: dump would print
				// the last alone.
				return wrapf(ErrInvalid, "argument index %d given twice in one event of call %d", a.Index, ev.Call)
			}
			w.argSeen[word] |= bit
		}
		w.buf = append(w.buf, 1)
		w.buf = varint.Append(w.buf, uint64(a.Index))
		if err := w.value(&a.Value, 0); err != nil {
			return err
		}
	}
	if ev.Ret.ref != nil {
		if p.getError && !apitraceInt(&ev.Ret, true) {
			// apitrace converts glGetError's return value to an
			// integer, and aborts on any other.
			return wrapf(ErrInvalid, "glGetError returning a %v", ev.Ret.Kind())
		}
		w.buf = append(w.buf, 2)
		if err := w.value(&ev.Ret, 0); err != nil {
			return err
		}
	}
	w.buf = append(w.buf, 0)
	return nil
}

// apitraceInt reports whether apitrace converts v to a signed (toSInt) or
// unsigned (toUInt) integer without failing an assertion: a number, bool
// or null, of the right sign, or a repr whose machine value is one.
func apitraceInt(v *Value, signed bool) bool {
	if v.fromScalar() {
		return false
	}
	switch v.Kind() {
	case KindNull, KindFalse, KindTrue, KindFloat, KindDouble:
		return true
	case KindSInt, KindEnum:
		return signed || v.Int() >= 0
	case KindUInt, KindBitmask, KindPointer:
		return !signed || v.Int() >= 0
	case KindRepr:
		e := v.Elems()
		return len(e) == 2 && apitraceInt(&e[1], signed)
	}
	return false
}

// sigIDs gives each signature written its id in the new stream: its own id
// while no different signature holds it and it is at most MaxWriteID, else
// the next free one.
type sigIDs[T any] struct {
	byID  table[T]
	alias map[*T]uint64 // signatures written under another id than their own
	next  uint64        // no id at or above next is taken

	// What the event being written took, for rollback.
	taken   []uint64
	aliased []*T
	next0   uint64
}

// id returns the id to write for s, whose own id is own, and whether s is
// new to the stream and must be defined.
func (t *sigIDs[T]) id(s *T, own uint64, same func(a, b *T) bool) (id uint64, define bool, err error) {
	if own <= MaxWriteID {
		prev := t.byID.get(own)
		switch {
		case prev == s:
			return own, false, nil
		case prev == nil:
			t.take(own, s)
			return own, true, nil
		case same(prev, s):
			return own, false, nil
		}
	}
	if id, ok := t.alias[s]; ok {
		return id, false, nil
	}
	id = t.next
	for id <= MaxWriteID && t.byID.get(id) != nil {
		id++
	}
	if id > MaxWriteID {
		return 0, false, wrapf(ErrInvalid, "no free id at most %d", MaxWriteID)
	}
	t.take(id, s)
	if t.alias == nil {
		t.alias = make(map[*T]uint64)
	}
	t.alias[s] = id
	t.aliased = append(t.aliased, s)
	return id, true, nil
}

func (t *sigIDs[T]) take(id uint64, s *T) {
	t.byID.put(id, s)
	t.taken = append(t.taken, id)
	if id >= t.next {
		t.next = id + 1
	}
}

func (t *sigIDs[T]) begin() {
	t.taken, t.aliased, t.next0 = t.taken[:0], t.aliased[:0], t.next
}

func (t *sigIDs[T]) rollback() {
	for _, id := range t.taken {
		t.byID.put(id, nil)
	}
	for _, s := range t.aliased {
		delete(t.alias, s)
	}
	t.next = t.next0
}

func (t *sigIDs[T]) reset() {
	t.byID.reset()
	clear(t.alias)
	t.next = 0
}

func sameFunc(a, b *FunctionSig) bool {
	return a.Name == b.Name && slices.Equal(a.ArgNames, b.ArgNames)
}

func sameFrame(a, b *Frame) bool {
	return a.Has == b.Has && a.Module == b.Module && a.Function == b.Function &&
		a.File == b.File && a.Line == b.Line && a.Offset == b.Offset
}

func sameEnum(a, b *EnumSig) bool { return slices.Equal(a.Values, b.Values) }

func sameBitmask(a, b *BitmaskSig) bool { return slices.Equal(a.Flags, b.Flags) }

func sameStruct(a, b *StructSig) bool {
	return a.Name == b.Name && slices.Equal(a.Members, b.Members)
}

// funcSig appends the signature s of an enter event, and returns the
// signature apitrace will read for it: s, or the equal one written before
// under the same id.
func (w *Writer) funcSig(s *FunctionSig) (*FunctionSig, error) {
	id, def, err := w.funcs.id(s, s.ID, sameFunc)
	if err != nil {
		return nil, err
	}
	w.buf = varint.Append(w.buf, id)
	if !def {
		return w.funcs.byID.get(id), nil
	}
	if len(s.ArgNames) > DefaultMaxEntries {
		return nil, wrapf(ErrInvalid, "function %s with %d argument names, above the Reader's limit of %d", s.Name, len(s.ArgNames), DefaultMaxEntries)
	}
	putName(w, "function name", s.Name)
	w.buf = varint.Append(w.buf, uint64(len(s.ArgNames)))
	for _, n := range s.ArgNames {
		putName(w, "argument name", n)
	}
	return s, nil
}

func (w *Writer) frame(f *Frame) error {
	if f.Has&^(HasModule|HasFunction|HasFile|HasLine|HasOffset) != 0 {
		return wrapf(ErrInvalid, "frame details 0x%x", uint8(f.Has))
	}
	// apitrace keeps a line as a C int and an offset as a long long, and
	// prints neither when it is negative.
	if f.Has&HasLine != 0 && f.Line > math.MaxInt32 {
		return wrapf(ErrInvalid, "frame line %d above 2^31-1", f.Line)
	}
	if f.Has&HasOffset != 0 && f.Offset > math.MaxInt64 {
		return wrapf(ErrInvalid, "frame offset 0x%x above 2^63-1", f.Offset)
	}
	id, def, err := w.frames.id(f, f.ID, sameFrame)
	if err != nil {
		return err
	}
	w.buf = varint.Append(w.buf, id)
	if !def {
		return nil
	}
	if f.Has&HasModule != 0 {
		w.buf = append(w.buf, 1)
		putName(w, "frame module", f.Module)
	}
	if f.Has&HasFunction != 0 {
		w.buf = append(w.buf, 2)
		putName(w, "frame function", f.Function)
	}
	if f.Has&HasFile != 0 {
		w.buf = append(w.buf, 3)
		putName(w, "frame file", f.File)
	}
	if f.Has&HasLine != 0 {
		w.buf = varint.Append(append(w.buf, 4), f.Line)
	}
	if f.Has&HasOffset != 0 {
		w.buf = varint.Append(append(w.buf, 5), f.Offset)
	}
	w.buf = append(w.buf, 0)
	return nil
}

// appendSint writes a typed integer the way apitrace does: 0x03 and the
// magnitude for a negative value, else 0x04 and the value.
func appendSint(dst []byte, v int64) []byte {
	if v < 0 {
		return varint.Append(append(dst, 3), -uint64(v))
	}
	return varint.Append(append(dst, 4), uint64(v))
}

// value appends v, nested depth composite values deep.
func (w *Writer) value(v *Value, depth int) error {
	// The scalars, most values, are told by one type assertion.
	kind, scalar := v.ref.(ValueKind)
	var elems []Value
	if scalar {
		if !isScalarKind(kind) {
			return wrapf(ErrInvalid, "%v value made by Scalar, which holds nothing", kind)
		}
	} else {
		kind, elems = v.split()
	}
	// Counted as the Reader counts: values holding no other, and apart
	// the arrays, structs and reprs that hold some.
	switch {
	case len(elems) == 0 || (kind != KindArray && kind != KindStruct && kind != KindRepr && kind != KindWString):
		w.nodes++
		if w.nodes > DefaultMaxValues {
			return wrapf(ErrInvalid, "more than %d values in one event, the Reader's limit", DefaultMaxValues)
		}
	default:
		w.holders++
		if w.holders > DefaultMaxValues {
			return wrapf(ErrInvalid, "more than %d arrays, structs and reprs holding values in one event, the Reader's limit", DefaultMaxValues)
		}
	}
	switch kind {
	case KindArray, KindStruct, KindRepr, KindWString:
		if depth >= DefaultMaxDepth {
			return wrapf(ErrInvalid, "values nested deeper than %d, the Reader's limit", DefaultMaxDepth)
		}
	}
	bits := v.num // what Bits returns, for the kinds that use it below
	switch kind {
	case KindNull:
		w.buf = append(w.buf, 0)
	case KindFalse:
		w.buf = append(w.buf, 1)
	case KindTrue:
		w.buf = append(w.buf, 2)
	case KindSInt:
		w.buf = varint.Append(append(w.buf, 3), -bits)
	case KindUInt:
		w.buf = varint.Append(append(w.buf, 4), bits)
	case KindFloat:
		if bits > math.MaxUint32 {
			return wrapf(ErrInvalid, "float bits 0x%x", bits)
		}
		w.buf = binary.LittleEndian.AppendUint32(append(w.buf, 5), uint32(bits))
	case KindDouble:
		w.buf = binary.LittleEndian.AppendUint64(append(w.buf, 6), bits)
	case KindString:
		w.buf = append(w.buf, 7)
		putString(w, v.Bytes())
	case KindBlob:
		w.buf = append(w.buf, 8)
		putString(w, v.Bytes())
	case KindEnum:
		return w.enum(v)
	case KindBitmask:
		return w.bitmask(v)
	case KindArray:
		if len(elems) > DefaultMaxArrayLen {
			return wrapf(ErrInvalid, "array of %d elements, above the Reader's limit of %d", len(elems), DefaultMaxArrayLen)
		}
		w.buf = varint.Append(append(w.buf, 11), uint64(len(elems)))
		for k := range elems {
			if err := w.value(&elems[k], depth+1); err != nil {
				return err
			}
		}
	case KindStruct:
		return w.structValue(v, depth)
	case KindPointer:
		w.buf = varint.Append(append(w.buf, 13), bits)
	case KindRepr:
		if len(elems) != 2 {
			return wrapf(ErrInvalid, "repr with %d values", len(elems))
		}
		w.buf = append(w.buf, 14)
		for k := range elems {
			if err := w.value(&elems[k], depth+1); err != nil {
				return err
			}
		}
	case KindWString:
		return w.wstring(elems)
	default:
		return wrapf(ErrInvalid, "value of kind %v", kind)
	}
	return nil
}

// wstring appends a wide string of the code units units.
func (w *Writer) wstring(units []Value) error {
	if len(units) > DefaultMaxArrayLen {
		return wrapf(ErrInvalid, "wide string of %d code units, above the Reader's limit of %d", len(units), DefaultMaxArrayLen)
	}
	w.nodes += len(units)
	if w.nodes > DefaultMaxValues {
		return wrapf(ErrInvalid, "more than %d values in one event, the Reader's limit", DefaultMaxValues)
	}
	w.buf = varint.Append(append(w.buf, 15), uint64(len(units)))
	for k := range units {
		e := &units[k]
		// apitrace reads a code unit into a 32-bit wchar_t and ends the
		// string at the first zero.
		if u := e.Bits(); e.ref != KindUInt || u == 0 || u > math.MaxUint32 {
			return wrapf(ErrInvalid, "wide string code unit %d is a %v of 0x%x (a code unit is a uint from 1 to 2^32-1)", k, e.Kind(), u)
		}
		w.buf = varint.Append(w.buf, e.num)
	}
	return nil
}

func (w *Writer) enum(v *Value) error {
	s := v.Enum()
	if s == nil {
		return wrapf(ErrInvalid, "enum without a signature")
	}
	old := w.hdr.Version < 3
	if old && (len(s.Values) != 1 || s.Values[0].Value != int64(v.num)) {
		return wrapf(ErrInvalid, "version %d enum signature %d must hold exactly the value written", w.hdr.Version, s.ID)
	}
	id, def, err := w.enums.id(s, s.ID, sameEnum)
	if err != nil {
		return err
	}
	w.buf = varint.Append(append(w.buf, 9), id)
	if def {
		if len(s.Values) > DefaultMaxEntries {
			return wrapf(ErrInvalid, "enum signature %d with %d values, above the Reader's limit of %d", s.ID, len(s.Values), DefaultMaxEntries)
		}
		if !old {
			w.buf = varint.Append(w.buf, uint64(len(s.Values)))
		}
		for _, e := range s.Values {
			putName(w, "enum value name", e.Name)
			w.buf = appendSint(w.buf, e.Value)
		}
	}
	if !old {
		w.buf = appendSint(w.buf, int64(v.num))
	}
	return nil
}

func (w *Writer) bitmask(v *Value) error {
	s := v.Bitmask()
	if s == nil {
		return wrapf(ErrInvalid, "bitmask without a signature")
	}
	id, def, err := w.bitmasks.id(s, s.ID, sameBitmask)
	if err != nil {
		return err
	}
	w.buf = varint.Append(append(w.buf, 10), id)
	if def {
		if len(s.Flags) > DefaultMaxEntries {
			return wrapf(ErrInvalid, "bitmask signature %d with %d flags, above the Reader's limit of %d", s.ID, len(s.Flags), DefaultMaxEntries)
		}
		w.buf = varint.Append(w.buf, uint64(len(s.Flags)))
		for k, f := range s.Flags {
			if f.Value == 0 && k > 0 {
				// apitrace warns, and its dump prints a zero value
				// with the first flag only.
				return wrapf(ErrInvalid, "bitmask signature %d has the zero flag %s at place %d, not first", s.ID, f.Name, k)
			}
			putName(w, "bitmask flag name", f.Name)
			w.buf = varint.Append(w.buf, f.Value)
		}
	}
	w.buf = varint.Append(w.buf, v.num)
	return nil
}

func (w *Writer) structValue(v *Value, depth int) error {
	s := v.Struct()
	if s == nil {
		return wrapf(ErrInvalid, "struct without a signature")
	}
	id, def, err := w.structs.id(s, s.ID, sameStruct)
	if err != nil {
		return err
	}
	w.buf = varint.Append(append(w.buf, 12), id)
	if def {
		if len(s.Members) > DefaultMaxEntries {
			return wrapf(ErrInvalid, "struct %s with %d members, above the Reader's limit of %d", s.Name, len(s.Members), DefaultMaxEntries)
		}
		putName(w, "struct name", s.Name)
		w.buf = varint.Append(w.buf, uint64(len(s.Members)))
		for _, m := range s.Members {
			putName(w, "struct member name", m)
		}
	} else {
		s = w.structs.byID.get(id) // the signature apitrace reads
	}
	elems := v.Elems()
	if len(elems) != len(s.Members) {
		return wrapf(ErrInvalid, "struct %s with %d values for %d members", s.Name, len(elems), len(s.Members))
	}
	if cstr(s.Name) == "GUID" && len(s.Members) == 4 && !isGUID(elems) {
		// apitrace dump prints such a struct as a GUID, and aborts if
		// it does not hold three integers and an array of eight.
		return wrapf(ErrInvalid, "struct GUID that is not three unsigned integers and an array of 8")
	}
	for k := range elems {
		e := &elems[k]
		if cstr(s.Members[k]) == "" && e.Kind() != KindStruct {
			// apitrace dump prints an anonymous member's members in
			// place of it, and nothing for any other value.
			return wrapf(ErrInvalid, "anonymous member %d of struct %s holds a %v, not a struct", k, s.Name, e.Kind())
		}
		if err := w.value(e, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// isGUID reports whether members, those of a struct of four, hold what
// apitrace reads from a GUID: three unsigned integers and an array of
// eight.
func isGUID(members []Value) bool {
	for k := range 3 {
		if !apitraceInt(&members[k], false) {
			return false
		}
	}
	d4 := members[3].Elems()
	if members[3].Kind() != KindArray || members[3].fromScalar() || len(d4) != 8 {
		return false
	}
	for k := range d4 {
		if !apitraceInt(&d4[k], false) {
			return false
		}
	}
	return true
}
