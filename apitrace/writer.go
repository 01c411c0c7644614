package apitrace

import (
	"compress/gzip"
	"encoding/binary"
	"io"
	"math"
	"slices"

	"github.com/tracefmt/tracefmt/apitrace/snappy"
	"github.com/tracefmt/tracefmt/varint"
)

// DefaultChunkSize is the decompressed size of the snappy chunks the Writer
// makes: 1 MiB, what apitrace writes and the most its reader accepts (its
// buffer for a compressed chunk is sized for 1 MiB of input).
const DefaultChunkSize = 1 << 20

// A Writer writes a trace: the header, then events, in the snappy container
// (the default) or gzip.
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
//     given the next free id of its kind in this stream. A signature must
//     not change once written.
//
// Writing the events a Reader returned, in order, reproduces the reader's
// decompressed stream byte for byte for every trace apitrace writes.
//
// A zero Writer returns ErrNotOpen until Reset. Errors are sticky. Close
// must be called to write the last chunk; it does not close the underlying
// io.Writer.
type Writer struct {
	// ChunkSize is the decompressed size of each snappy chunk but the last;
	// 0 means DefaultChunkSize. Values above DefaultChunkSize are refused,
	// since apitrace could not read the file. Set it before the first Write.
	ChunkSize int

	w      io.Writer
	hdr    Header
	buf    []byte // stream bytes not yet compressed
	out    []byte // one compressed chunk with its length
	enc    snappy.Encoder
	gz     *gzip.Writer
	err    error
	open   bool
	closed bool
	calls  uint64

	// The call just entered and not yet left (the usual case: a leave
	// follows its enter), then the other pending calls: the caller's call
	// number to the one written.
	last    pendingCall
	hasLast bool
	pending map[uint64]uint64

	// The signatures written so far, by id.
	funcs    sigIDs[FunctionSig]
	enums    sigIDs[EnumSig]
	bitmasks sigIDs[BitmaskSig]
	structs  sigIDs[StructSig]
	frames   sigIDs[Frame]
}

type pendingCall struct{ from, to uint64 }

// NewWriter returns a Writer that writes h's container magic and stream
// header to w. h.Container must be Snappy or Gzip; the versions must be
// at most 6, the semantic version at most the version, and properties are
// only allowed from version 6.
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
	w.open, w.closed, w.err = false, false, nil
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
	switch h.Container {
	case Snappy:
		w.gz = nil
		if _, err := out.Write(magicSnappy); err != nil {
			return err
		}
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
	if h.Container != Snappy && h.Container != Gzip {
		return wrapf(ErrInvalid, "container %v (the Writer writes snappy and gzip)", h.Container)
	}
	if h.Version > Version {
		return wrapf(ErrInvalid, "version %d", h.Version)
	}
	if h.Version >= 6 {
		if h.SemanticVersion > h.Version {
			return wrapf(ErrInvalid, "semantic version %d above version %d", h.SemanticVersion, h.Version)
		}
		for _, p := range h.Properties {
			if p.Name == "" {
				return wrapf(ErrInvalid, "property with an empty name")
			}
		}
	} else if len(h.Properties) > 0 || h.SemanticVersion != h.Version && h.SemanticVersion != 0 {
		return wrapf(ErrInvalid, "version %d has no semantic version or properties", h.Version)
	}
	return nil
}

func appendString[S string | []byte](dst []byte, s S) []byte {
	dst = varint.Append(dst, uint64(len(s)))
	return append(dst, s...)
}

// Write appends one event. An enter event gets the next call number; a
// leave event gets the number of the enter whose Call it names, or is
// dropped when there is none (see Writer).
func (w *Writer) Write(ev *Event) error {
	if err := w.usable(); err != nil {
		return err
	}
	if ev == nil {
		return wrapf(ErrInvalid, "nil event")
	}
	if ev.Kind == Enter && w.isPending(ev.Call) {
		// Its leave could not tell the two calls apart.
		w.err = wrapf(ErrInvalid, "call %d entered again before its leave", ev.Call)
		return w.err
	}
	mark := len(w.buf)
	no, keep := w.number(ev)
	if !keep {
		return nil
	}
	if err := w.event(ev, no); err != nil {
		// Leave no half event behind. The error is sticky, since the
		// event may have marked signatures as defined.
		w.buf = w.buf[:mark]
		w.err = err
		return err
	}
	if ev.Kind == Enter {
		w.enter(ev.Call)
	}
	return w.spill()
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

// number returns the call number to write for ev, and false for a leave
// whose enter was not written.
func (w *Writer) number(ev *Event) (uint64, bool) {
	if ev.Kind != Leave {
		return w.calls, true
	}
	if w.hasLast && w.last.from == ev.Call {
		w.hasLast = false
		return w.last.to, true
	}
	no, ok := w.pending[ev.Call]
	if ok {
		delete(w.pending, ev.Call)
	}
	return no, ok
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

// enter records that the caller's call from is written as the next number.
func (w *Writer) enter(from uint64) {
	if w.hasLast {
		if w.pending == nil {
			w.pending = make(map[uint64]uint64)
		}
		w.pending[w.last.from] = w.last.to
	}
	w.last, w.hasLast = pendingCall{from: from, to: w.calls}, true
	w.calls++
}

// spill compresses and writes the whole chunks buffered.
func (w *Writer) spill() error {
	size := w.chunkSize()
	if size < 0 {
		w.err = wrapf(ErrInvalid, "chunk size %d above %d", w.ChunkSize, DefaultChunkSize)
		return w.err
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

func (w *Writer) chunkSize() int {
	switch {
	case w.ChunkSize == 0:
		return DefaultChunkSize
	case w.ChunkSize > DefaultChunkSize:
		return -1
	}
	return w.ChunkSize
}

// emit writes p as chunks of size bytes (the last may be shorter).
func (w *Writer) emit(p []byte, size int) error {
	if w.gz != nil {
		if _, err := w.gz.Write(p); err != nil {
			w.err = err
			return err
		}
		return nil
	}
	for len(p) > 0 {
		n := min(size, len(p))
		w.out = append(w.out[:0], 0, 0, 0, 0)
		w.out = w.enc.Encode(w.out, p[:n])
		binary.LittleEndian.PutUint32(w.out, uint32(len(w.out)-4))
		if _, err := w.w.Write(w.out); err != nil {
			w.err = err
			return err
		}
		p = p[n:]
	}
	return nil
}

// Flush writes the buffered stream as a (possibly short) chunk, and flushes
// gzip. apitrace's tracer does the same on signals; readers do not mind.
func (w *Writer) Flush() error {
	if err := w.usable(); err != nil {
		return err
	}
	return w.flush()
}

func (w *Writer) flush() error {
	size := w.chunkSize()
	if size < 0 {
		w.err = wrapf(ErrInvalid, "chunk size %d above %d", w.ChunkSize, DefaultChunkSize)
		return w.err
	}
	if err := w.emit(w.buf, size); err != nil {
		return err
	}
	w.buf = w.buf[:0]
	if w.gz != nil {
		if err := w.gz.Flush(); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

// Close writes what is buffered and finishes the container. It does not
// close the underlying writer. Closing again returns nil, or the error
// that stopped the Writer.
func (w *Writer) Close() error {
	if w.closed || w.err != nil {
		return w.err
	}
	if !w.open {
		return ErrNotOpen
	}
	err := w.flush()
	w.closed = true
	if err != nil {
		return err
	}
	if w.gz != nil {
		if err := w.gz.Close(); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

// Calls returns the number of enter events written.
func (w *Writer) Calls() uint64 { return w.calls }

// event appends ev, numbered no if it is a leave.
func (w *Writer) event(ev *Event, no uint64) error {
	switch ev.Kind {
	case Enter:
		if ev.Sig == nil {
			return wrapf(ErrInvalid, "enter event without a signature")
		}
		w.buf = append(w.buf, 0)
		if w.hdr.Version >= 4 {
			w.buf = varint.Append(w.buf, ev.Thread)
		} else if ev.Thread != 0 {
			return wrapf(ErrInvalid, "thread %d in a version %d stream", ev.Thread, w.hdr.Version)
		}
		if err := w.funcSig(ev.Sig); err != nil {
			return err
		}
	case Leave:
		w.buf = append(w.buf, 1)
		w.buf = varint.Append(w.buf, no)
	default:
		return wrapf(ErrInvalid, "event kind %d", ev.Kind)
	}
	if ev.Flags != 0 {
		w.buf = append(w.buf, 5)
		w.buf = varint.Append(w.buf, uint64(ev.Flags))
	}
	if ev.Backtrace != nil {
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
	for k := range ev.Args {
		a := &ev.Args[k]
		if a.Index < 0 {
			return wrapf(ErrInvalid, "argument index %d", a.Index)
		}
		w.buf = append(w.buf, 1)
		w.buf = varint.Append(w.buf, uint64(a.Index))
		if err := w.value(&a.Value); err != nil {
			return err
		}
	}
	if ev.Ret.Kind != KindNone {
		w.buf = append(w.buf, 2)
		if err := w.value(&ev.Ret); err != nil {
			return err
		}
	}
	w.buf = append(w.buf, 0)
	return nil
}

// sigIDs gives each signature written its id in the new stream: its own id
// while no different signature holds it, else the next free one.
type sigIDs[T any] struct {
	byID  table[T]
	alias map[*T]uint64 // signatures written under another id than their own
	next  uint64        // no id at or above next is taken (but after a wrap)
}

// id returns the id to write for s, whose own id is own, and whether s is
// new to the stream and must be defined.
func (t *sigIDs[T]) id(s *T, own uint64, same func(a, b *T) bool) (id uint64, define bool) {
	prev := t.byID.get(own)
	switch {
	case prev == s:
		return own, false
	case prev == nil:
		t.take(own, s)
		return own, true
	case same(prev, s):
		return own, false
	}
	if id, ok := t.alias[s]; ok {
		return id, false
	}
	id = t.next
	for t.byID.get(id) != nil {
		id++
	}
	t.take(id, s)
	if t.alias == nil {
		t.alias = make(map[*T]uint64)
	}
	t.alias[s] = id
	return id, true
}

func (t *sigIDs[T]) take(id uint64, s *T) {
	t.byID.put(id, s)
	if id >= t.next {
		t.next = id + 1
	}
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

func (w *Writer) funcSig(s *FunctionSig) error {
	id, def := w.funcs.id(s, s.ID, sameFunc)
	w.buf = varint.Append(w.buf, id)
	if !def {
		return nil
	}
	w.buf = appendString(w.buf, s.Name)
	w.buf = varint.Append(w.buf, uint64(len(s.ArgNames)))
	for _, n := range s.ArgNames {
		w.buf = appendString(w.buf, n)
	}
	return nil
}

func (w *Writer) frame(f *Frame) error {
	id, def := w.frames.id(f, f.ID, sameFrame)
	w.buf = varint.Append(w.buf, id)
	if !def {
		return nil
	}
	if f.Has&HasModule != 0 {
		w.buf = appendString(append(w.buf, 1), f.Module)
	}
	if f.Has&HasFunction != 0 {
		w.buf = appendString(append(w.buf, 2), f.Function)
	}
	if f.Has&HasFile != 0 {
		w.buf = appendString(append(w.buf, 3), f.File)
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

func (w *Writer) value(v *Value) error {
	switch v.Kind {
	case KindNull:
		w.buf = append(w.buf, 0)
	case KindFalse:
		w.buf = append(w.buf, 1)
	case KindTrue:
		w.buf = append(w.buf, 2)
	case KindSInt:
		w.buf = varint.Append(append(w.buf, 3), -v.Bits)
	case KindUInt:
		w.buf = varint.Append(append(w.buf, 4), v.Bits)
	case KindFloat:
		if v.Bits > math.MaxUint32 {
			return wrapf(ErrInvalid, "float bits 0x%x", v.Bits)
		}
		w.buf = binary.LittleEndian.AppendUint32(append(w.buf, 5), uint32(v.Bits))
	case KindDouble:
		w.buf = binary.LittleEndian.AppendUint64(append(w.buf, 6), v.Bits)
	case KindString:
		w.buf = appendString(append(w.buf, 7), v.Data)
	case KindBlob:
		w.buf = appendString(append(w.buf, 8), v.Data)
	case KindEnum:
		return w.enum(v)
	case KindBitmask:
		s := v.Bitmask
		if s == nil {
			return wrapf(ErrInvalid, "bitmask without a signature")
		}
		id, def := w.bitmasks.id(s, s.ID, sameBitmask)
		w.buf = varint.Append(append(w.buf, 10), id)
		if def {
			w.buf = varint.Append(w.buf, uint64(len(s.Flags)))
			for _, f := range s.Flags {
				w.buf = varint.Append(appendString(w.buf, f.Name), f.Value)
			}
		}
		w.buf = varint.Append(w.buf, v.Bits)
	case KindArray:
		w.buf = varint.Append(append(w.buf, 11), uint64(len(v.Elems)))
		for k := range v.Elems {
			if err := w.value(&v.Elems[k]); err != nil {
				return err
			}
		}
	case KindStruct:
		s := v.Struct
		if s == nil {
			return wrapf(ErrInvalid, "struct without a signature")
		}
		if len(v.Elems) != len(s.Members) {
			return wrapf(ErrInvalid, "struct %s with %d values for %d members", s.Name, len(v.Elems), len(s.Members))
		}
		id, def := w.structs.id(s, s.ID, sameStruct)
		w.buf = varint.Append(append(w.buf, 12), id)
		if def {
			w.buf = appendString(w.buf, s.Name)
			w.buf = varint.Append(w.buf, uint64(len(s.Members)))
			for _, m := range s.Members {
				w.buf = appendString(w.buf, m)
			}
		}
		for k := range v.Elems {
			if err := w.value(&v.Elems[k]); err != nil {
				return err
			}
		}
	case KindPointer:
		w.buf = varint.Append(append(w.buf, 13), v.Bits)
	case KindRepr:
		if len(v.Elems) != 2 {
			return wrapf(ErrInvalid, "repr with %d values", len(v.Elems))
		}
		w.buf = append(w.buf, 14)
		for k := range v.Elems {
			if err := w.value(&v.Elems[k]); err != nil {
				return err
			}
		}
	case KindWString:
		w.buf = varint.Append(append(w.buf, 15), uint64(len(v.Elems)))
		for k := range v.Elems {
			w.buf = varint.Append(w.buf, v.Elems[k].Bits)
		}
	default:
		return wrapf(ErrInvalid, "value of kind %v", v.Kind)
	}
	return nil
}

func (w *Writer) enum(v *Value) error {
	s := v.Enum
	if s == nil {
		return wrapf(ErrInvalid, "enum without a signature")
	}
	old := w.hdr.Version < 3
	if old && (len(s.Values) != 1 || s.Values[0].Value != v.Int()) {
		return wrapf(ErrInvalid, "version %d enum signature %d must hold exactly the value written", w.hdr.Version, s.ID)
	}
	id, def := w.enums.id(s, s.ID, sameEnum)
	w.buf = varint.Append(append(w.buf, 9), id)
	if def {
		if !old {
			w.buf = varint.Append(w.buf, uint64(len(s.Values)))
		}
		for _, e := range s.Values {
			w.buf = appendSint(appendString(w.buf, e.Name), e.Value)
		}
	}
	if !old {
		w.buf = appendSint(w.buf, v.Int())
	}
	return nil
}
