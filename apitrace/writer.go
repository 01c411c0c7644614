package apitrace

import (
	"compress/gzip"
	"encoding/binary"
	"io"
	"math"

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
// Signatures and backtrace frames are defined in the stream at their first
// use, as apitrace requires: the Writer remembers which ids it has defined
// (each kind has its own id space) and writes a definition from the pointed-to
// signature the first time an id appears. It keeps the caller's ids.
// Writing the events a Reader returned, in order, reproduces the reader's
// decompressed stream byte for byte for every trace apitrace writes.
//
// Errors are sticky. Close must be called to write the last chunk; it does
// not close the underlying io.Writer.
type Writer struct {
	// ChunkSize is the decompressed size of each snappy chunk but the last;
	// 0 means DefaultChunkSize. Values above DefaultChunkSize are refused,
	// since apitrace could not read the file. Set it before the first Write.
	ChunkSize int

	w       io.Writer
	hdr     Header
	buf     []byte // stream bytes not yet compressed
	out     []byte // one compressed chunk with its length
	enc     snappy.Encoder
	gz      *gzip.Writer
	err     error
	closed  bool
	calls   uint64
	defined [5]idSet
}

const (
	defFunc = iota
	defEnum
	defBitmask
	defStruct
	defFrame
)

// idSet is a set of signature ids: a bit vector for small ids, a map beyond.
type idSet struct {
	small []uint64
	big   map[uint64]bool
}

// add inserts id and reports whether it was new.
func (s *idSet) add(id uint64) bool {
	if id < smallIDs {
		w, bit := id/64, uint64(1)<<(id%64)
		for uint64(len(s.small)) <= w {
			s.small = append(s.small, 0)
		}
		if s.small[w]&bit != 0 {
			return false
		}
		s.small[w] |= bit
		return true
	}
	if s.big[id] {
		return false
	}
	if s.big == nil {
		s.big = make(map[uint64]bool)
	}
	s.big[id] = true
	return true
}

// NewWriter returns a Writer that writes h's container magic and stream
// header to w. h.Container must be Snappy or Gzip; the versions must be
// at most 6, the semantic version at most the version, and properties are
// only allowed from version 6.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	wr := &Writer{w: w, hdr: h}
	switch h.Container {
	case Snappy:
		if _, err := w.Write(magicSnappy); err != nil {
			return nil, err
		}
	case Gzip:
		gz, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
		if err != nil {
			return nil, err
		}
		wr.gz = gz
	default:
		return nil, wrapf(ErrWrite, "container %v", h.Container)
	}
	if h.Version > Version {
		return nil, wrapf(ErrWrite, "version %d", h.Version)
	}
	wr.buf = varint.Append(wr.buf, h.Version)
	if h.Version >= 6 {
		if h.SemanticVersion > h.Version {
			return nil, wrapf(ErrWrite, "semantic version %d above version %d", h.SemanticVersion, h.Version)
		}
		wr.buf = varint.Append(wr.buf, h.SemanticVersion)
		for _, p := range h.Properties {
			if p.Name == "" {
				return nil, wrapf(ErrWrite, "property with an empty name")
			}
			wr.buf = appendString(wr.buf, p.Name)
			wr.buf = appendString(wr.buf, p.Value)
		}
		wr.buf = append(wr.buf, 0)
	} else if len(h.Properties) > 0 || h.SemanticVersion != h.Version && h.SemanticVersion != 0 {
		return nil, wrapf(ErrWrite, "version %d has no semantic version or properties", h.Version)
	}
	return wr, nil
}

func appendString[S string | []byte](dst []byte, s S) []byte {
	dst = varint.Append(dst, uint64(len(s)))
	return append(dst, s...)
}

// Write appends one event. An enter event's call number is implicit in the
// stream (enters are numbered in order), so Event.Call is ignored for it.
func (w *Writer) Write(ev Event) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return wrapf(ErrWrite, "write after Close")
	}
	mark := len(w.buf)
	if err := w.event(&ev); err != nil {
		// Leave no half event behind. The error is sticky, since the
		// event may have marked signatures as defined.
		w.buf = w.buf[:mark]
		w.err = err
		return err
	}
	if ev.Kind == Enter {
		w.calls++
	}
	size := w.chunkSize()
	if size < 0 {
		w.err = wrapf(ErrWrite, "chunk size %d above %d", w.ChunkSize, DefaultChunkSize)
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
	if w.err != nil {
		return w.err
	}
	size := w.chunkSize()
	if size < 0 {
		w.err = wrapf(ErrWrite, "chunk size %d above %d", w.ChunkSize, DefaultChunkSize)
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
// close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	err := w.Flush()
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

func (w *Writer) event(ev *Event) error {
	switch ev.Kind {
	case Enter:
		if ev.Sig == nil {
			return wrapf(ErrWrite, "enter event without a signature")
		}
		w.buf = append(w.buf, 0)
		if w.hdr.Version >= 4 {
			w.buf = varint.Append(w.buf, ev.Thread)
		} else if ev.Thread != 0 {
			return wrapf(ErrWrite, "thread %d in a version %d stream", ev.Thread, w.hdr.Version)
		}
		w.funcSig(ev.Sig)
	case Leave:
		w.buf = append(w.buf, 1)
		w.buf = varint.Append(w.buf, ev.Call)
	default:
		return wrapf(ErrWrite, "event kind %d", ev.Kind)
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
				return wrapf(ErrWrite, "nil backtrace frame")
			}
			w.frame(f)
		}
	}
	for k := range ev.Args {
		a := &ev.Args[k]
		if a.Index < 0 {
			return wrapf(ErrWrite, "argument index %d", a.Index)
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

func (w *Writer) funcSig(s *FunctionSig) {
	w.buf = varint.Append(w.buf, s.ID)
	if !w.defined[defFunc].add(s.ID) {
		return
	}
	w.buf = appendString(w.buf, s.Name)
	w.buf = varint.Append(w.buf, uint64(len(s.ArgNames)))
	for _, n := range s.ArgNames {
		w.buf = appendString(w.buf, n)
	}
}

func (w *Writer) frame(f *Frame) {
	w.buf = varint.Append(w.buf, f.ID)
	if !w.defined[defFrame].add(f.ID) {
		return
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
			return wrapf(ErrWrite, "float bits 0x%x", v.Bits)
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
			return wrapf(ErrWrite, "bitmask without a signature")
		}
		w.buf = varint.Append(append(w.buf, 10), s.ID)
		if w.defined[defBitmask].add(s.ID) {
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
			return wrapf(ErrWrite, "struct without a signature")
		}
		if len(v.Elems) != len(s.Members) {
			return wrapf(ErrWrite, "struct %s with %d values for %d members", s.Name, len(v.Elems), len(s.Members))
		}
		w.buf = varint.Append(append(w.buf, 12), s.ID)
		if w.defined[defStruct].add(s.ID) {
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
			return wrapf(ErrWrite, "repr with %d values", len(v.Elems))
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
		return wrapf(ErrWrite, "value of kind %v", v.Kind)
	}
	return nil
}

func (w *Writer) enum(v *Value) error {
	s := v.Enum
	if s == nil {
		return wrapf(ErrWrite, "enum without a signature")
	}
	old := w.hdr.Version < 3
	if old && (len(s.Values) != 1 || s.Values[0].Value != v.Int()) {
		return wrapf(ErrWrite, "version %d enum signature %d must hold exactly the value written", w.hdr.Version, s.ID)
	}
	w.buf = varint.Append(append(w.buf, 9), s.ID)
	if w.defined[defEnum].add(s.ID) {
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
