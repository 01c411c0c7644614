package xrayfdr

import (
	"io"
	"math"
)

// Writer writes an FDR or basic-mode log.
//
// Records are encoded over a copy of their Raw bytes, so a record read by
// a Reader is written back byte for byte, uninitialised padding included;
// fields set by hand win over the raw bytes.
type Writer struct {
	w   io.Writer
	h   Header
	c   codec
	buf []byte
	off int64
	err error
}

// NewWriter writes the file header h to w and returns a Writer for the
// records. It refuses versions llvm-xray does not read (FDR 1..5, basic
// 1..3) and types other than TypeBasic and TypeFDR.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	switch {
	case h.Type == TypeFDR && h.Version >= 1 && h.Version <= 5:
	case h.Type == TypeBasic && h.Version >= 1 && h.Version <= 3:
	default:
		return nil, &FormatError{Offset: 0, Err: ErrHeader}
	}
	wr := &Writer{w: w, h: h, c: newCodec(h.BigEndian), buf: make([]byte, 0, minBuf)}
	o := wr.c.order
	b := wr.buf[:HeaderSize]
	o.PutUint16(b, h.Version)
	o.PutUint16(b[2:], h.Type)
	o.PutUint32(b[4:], h.Flags)
	o.PutUint64(b[8:], h.CycleFrequency)
	copy(b[16:], h.FreeForm[:])
	wr.buf = b
	wr.off = HeaderSize
	return wr, nil
}

// Header returns the header the Writer was made with.
func (wr *Writer) Header() Header { return wr.h }

func (wr *Writer) refuse(err error) error {
	wr.err = &FormatError{Offset: wr.off, Err: err}
	return wr.err
}

// Write appends one record (with its Skipped bytes first). Records are
// written as given: BufferExtents values are not computed (see
// WriteBuffer). It refuses a value that does not fit its field and a
// record kind the log's version cannot hold.
func (wr *Writer) Write(rec Record) error {
	if wr.err != nil {
		return wr.err
	}
	start := len(wr.buf)
	wr.buf = append(wr.buf, rec.Skipped...)
	var err error
	if wr.h.Type == TypeBasic {
		err = wr.appendBasic(&rec)
	} else {
		err = wr.appendFDR(&rec)
	}
	if err != nil {
		wr.buf = wr.buf[:start]
		return wr.refuse(err)
	}
	wr.off += int64(len(wr.buf) - start)
	if len(wr.buf) >= minBuf {
		return wr.Flush()
	}
	return nil
}

// WriteBuffer writes one thread buffer of a version 2+ FDR log: a
// BufferExtents record holding the size of recs, then recs. recs should
// start with NewBuffer, WallTime, Pid (version 3+) and NewCPU records.
// For version 1 it writes recs alone; end them with an EndOfBuffer record.
func (wr *Writer) WriteBuffer(recs []Record) error {
	if wr.h.Type == TypeFDR && wr.h.Version >= 2 {
		n := 0
		for i := range recs {
			n += len(recs[i].Skipped) + recs[i].Size(false)
		}
		if err := wr.Write(Record{Kind: KindBufferExtents, Extents: uint64(n)}); err != nil {
			return err
		}
	}
	for _, r := range recs {
		if err := wr.Write(r); err != nil {
			return err
		}
	}
	return nil
}

// rawInto appends size bytes to wr.buf: rec.Raw when it has that size,
// zeros otherwise, and returns them for the fields to be set.
func (wr *Writer) rawInto(raw []byte, size int) []byte {
	n := len(wr.buf)
	if len(raw) == size {
		wr.buf = append(wr.buf, raw...)
	} else {
		wr.buf = append(wr.buf, make([]byte, size)...)
	}
	return wr.buf[n : n+size]
}

func (wr *Writer) appendFDR(rec *Record) error {
	o := wr.c.order
	if rec.Kind == KindFunction {
		if rec.FuncID < 0 || uint64(rec.FuncID) > wr.c.fID.Max() || rec.Delta < 0 || rec.Delta > math.MaxUint32 || rec.Action > EnterArg {
			return ErrField
		}
		b := wr.rawInto(rec.Raw, FunctionSize)
		w, _ := wr.c.fDisc.Set(0, 0)
		w, _ = wr.c.fAct.Set(w, uint64(rec.Action))
		w, _ = wr.c.fID.Set(w, uint64(rec.FuncID))
		o.PutUint32(b, uint32(w))
		o.PutUint32(b[4:], uint32(rec.Delta))
		return nil
	}
	if rec.Kind > KindPid {
		return ErrMetadataKind
	}
	if rec.Kind == KindEndOfBuffer && wr.h.Version >= 2 {
		return ErrEndOfBuffer
	}
	event := rec.Kind == KindCustomEvent || rec.Kind == KindTypedEvent
	if event {
		if len(rec.Data) == 0 || len(rec.Data) > math.MaxInt32 {
			return ErrEventSize
		}
		if (rec.Kind == KindTypedEvent || wr.h.Version >= 5) && (rec.Delta < math.MinInt32 || rec.Delta > math.MaxInt32) {
			return ErrField
		}
	}
	size := MetadataSize
	if rec.Kind == KindBufferExtents && len(rec.Raw) >= 9 && len(rec.Raw) < MetadataSize {
		size = len(rec.Raw) // a log's last record, cut after its count
	}
	b := wr.rawInto(rec.Raw, size)
	w, _ := wr.c.mDisc.Set(0, 1)
	w, _ = wr.c.mKind.Set(w, uint64(rec.Kind))
	b[0] = byte(w)
	switch rec.Kind {
	case KindNewBuffer:
		o.PutUint32(b[1:], uint32(rec.TID))
	case KindNewCPU:
		o.PutUint16(b[1:], rec.CPU)
		o.PutUint64(b[3:], rec.TSC)
	case KindTSCWrap:
		o.PutUint64(b[1:], rec.TSC)
	case KindWallTime:
		o.PutUint64(b[1:], rec.Seconds)
		o.PutUint32(b[9:], rec.Micros)
	case KindCallArg:
		o.PutUint64(b[1:], rec.Arg)
	case KindBufferExtents:
		o.PutUint64(b[1:], rec.Extents)
	case KindPid:
		o.PutUint32(b[1:], uint32(rec.PID))
	case KindCustomEvent, KindTypedEvent:
		o.PutUint32(b[1:], uint32(len(rec.Data)))
		if rec.Kind == KindTypedEvent || wr.h.Version >= 5 {
			o.PutUint32(b[5:], uint32(int32(rec.Delta)))
			if rec.Kind == KindTypedEvent {
				o.PutUint16(b[9:], rec.EventType)
			}
		} else {
			o.PutUint64(b[5:], rec.TSC)
			o.PutUint16(b[13:], rec.CPU)
		}
		wr.buf = append(wr.buf, rec.Data...)
	}
	return nil
}

func (wr *Writer) appendBasic(rec *Record) error {
	o := wr.c.order
	switch rec.Kind {
	case KindFunction:
		if rec.CPU > math.MaxUint8 || rec.Action > EnterArg {
			return ErrField
		}
		b := wr.rawInto(rec.Raw, BasicSize)
		o.PutUint16(b, 0)
		b[2] = byte(rec.CPU)
		b[3] = byte(rec.Action)
		o.PutUint32(b[4:], uint32(rec.FuncID))
		o.PutUint64(b[8:], rec.TSC)
		o.PutUint32(b[16:], uint32(rec.TID))
		o.PutUint32(b[20:], uint32(rec.PID))
	case KindCallArg:
		b := wr.rawInto(rec.Raw, BasicSize)
		o.PutUint16(b, 1)
		o.PutUint32(b[4:], uint32(rec.FuncID))
		o.PutUint32(b[8:], uint32(rec.TID))
		o.PutUint32(b[12:], uint32(rec.PID))
		o.PutUint64(b[16:], rec.Arg)
	default:
		return ErrBasicRecord
	}
	return nil
}

// Flush writes the buffered bytes to the underlying writer.
func (wr *Writer) Flush() error {
	if wr.err != nil {
		return wr.err
	}
	if len(wr.buf) > 0 {
		if _, err := wr.w.Write(wr.buf); err != nil {
			wr.err = err
			return err
		}
		wr.buf = wr.buf[:0]
	}
	return nil
}
