package xrayfdr

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// Writer writes an FDR or basic-mode log.
//
// Records are encoded over a copy of their Raw bytes, so a record read by
// a Reader is written back byte for byte, uninitialised padding included;
// fields set by hand win over the raw bytes.
//
// The Writer owns the buffer extents of a version 2+ FDR log: a
// BufferExtents record opens a thread buffer, and the Writer holds the
// buffer until the next BufferExtents record (or Close) to write the
// number of bytes that really follow, whatever count the record carries.
// So dropping records from a log, or adding some, keeps every buffer
// readable. The count given is kept where llvm-xray reads the same with
// it: when it equals the buffer's size modulo 2^32 (llvm-xray keeps 32
// bits), and when the buffer is written as a Reader read it, which the
// records' Offset fields tell (they follow each other, and the next
// buffer's BufferExtents record follows them), so that a log cut short,
// or a version 2 log whose counts llvm-xray ignores, is reproduced byte
// for byte (for the last buffer of a log cut short, set KeepCutCount).
// Flush writes the completed buffers; the open one waits for its end.
//
// Write checks each record against the rules llvm-xray 14 reads a log by
// (fdr-dump -verify and convert), before any of it is buffered, and
// refuses one that breaks them with an error wrapping ErrInvalid that
// names the rule:
//   - in an FDR log, the block order of llvm-xray's verifier (Verifier):
//     a block runs from a NewBuffer record to the next, and starts
//     NewBuffer, WallTime, an optional Pid, NewCPU; then come NewCPU,
//     TSCWrap, function records (each followed by its CallArg records),
//     custom and typed events, and in version 1 EndOfBuffer, after which
//     only a NewBuffer record may come. A NewBuffer record that would end
//     the block before ahead of its NewCPU record is refused, and so is a
//     BufferExtents record there (the runtime writes a block's preamble
//     at the start of a thread buffer);
//   - where a record may stand: in a version 3+ FDR log, a record before
//     the first BufferExtents record, Skipped bytes anywhere but before
//     one, EndOfBuffer after version 1; in a basic-mode log, a call
//     argument that does not follow a function record of the same
//     function, thread and (from version 3) process, and the FDR kinds;
//   - values that do not fit their fields: a function id beyond 28 bits,
//     a delta beyond 32, an unknown kind or action, an event payload
//     that is empty or beyond 2^31-1 bytes, an event delta beyond 32
//     bits, a basic-mode CPU beyond 8 bits.
//
// A refused record leaves the Writer as it was: Flush and Close still
// write every record accepted before it, and return the refusal, which
// sticks. Check applies the same rules without writing. Close cannot add
// records that are missing, so it drops a last block that never got past
// its preamble (with its thread buffer's BufferExtents record, when the
// block was the buffer's only one), and a log left without a block (or a
// basic-mode log without a record) is written as its header alone, which
// llvm-xray fdr-dump and fdr-dump -verify read as an empty log and
// llvm-xray convert refuses; Close then says so (ErrInvalid).
//
// A zero Writer is ready after Reset; before that every method returns
// ErrNotOpen.
type Writer struct {
	// KeepCutCount keeps the count of the log's last thread buffer as
	// given when it is larger than the bytes written and the buffer's
	// records are as a Reader read them: what a log cut short holds, so
	// that such a log is written back byte for byte. Without it the last
	// buffer gets its true size, like every other one, so records dropped
	// from its end leave a log llvm-xray reads whole.
	KeepCutCount bool

	w    io.Writer
	h    Header
	c    codec
	buf  []byte
	off  int64 // file offset of buf[0]
	err  error
	open bool
	// the open thread buffer of a version 2+ FDR log: its BufferExtents
	// record is at buf[ext:], the records from buf[body:] on
	inBuf     bool
	ext, body int
	extents   uint64 // the count the caller gave
	// nextOff is the Offset the next record has when the open buffer's
	// records follow each other as a Reader read them (contig)
	nextOff    int64
	contig     bool
	nextFlush  int
	hasExtents bool // a BufferExtents record was written

	refused bool // err is a refusal, which left the Writer whole
	closed  bool
	// An FDR log's blocks, in llvm-xray's state machine: the state after
	// the last record, where the open block's NewBuffer record is in buf
	// (while the block is in its preamble, nothing from there on is
	// written out, so that Close can drop a block that never started),
	// and how many blocks were begun.
	v       Verifier
	blockAt int
	blocks  int
	// A basic-mode log: the last function record, which a call argument
	// must match, and how many records were written.
	lastFn  Record
	hasFn   bool
	records int
}

// NewWriter writes the file header h to w and returns a Writer for the
// records. It refuses versions llvm-xray does not read (FDR 1..5, basic
// 1..3) and types other than TypeBasic and TypeFDR (ErrVersion).
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	wr := new(Writer)
	if err := wr.Reset(w, h); err != nil {
		return nil, err
	}
	return wr, nil
}

// Reset discards the Writer's state, reusing its buffer, and starts a
// new log with header h on w, as NewWriter does.
func (wr *Writer) Reset(w io.Writer, h Header) error {
	buf := wr.buf[:0]
	if buf == nil {
		buf = make([]byte, 0, minBuf)
	}
	*wr = Writer{KeepCutCount: wr.KeepCutCount, w: w, h: h, c: newCodec(h.BigEndian), buf: buf, nextFlush: minBuf}
	switch {
	case w == nil:
		wr.err = ErrNotOpen
		return wr.err
	case h.Type == TypeFDR && h.Version >= 1 && h.Version <= 5:
	case h.Type == TypeBasic && h.Version >= 1 && h.Version <= 3:
	default:
		wr.err = fmt.Errorf("%w: log type %d version %d", ErrVersion, h.Type, h.Version)
		return wr.err
	}
	o := wr.c.order
	b := wr.buf[:HeaderSize]
	clear(b)
	o.PutUint16(b, h.Version)
	o.PutUint16(b[2:], h.Type)
	o.PutUint32(b[4:], h.Flags)
	o.PutUint64(b[8:], h.CycleFrequency)
	copy(b[16:], h.FreeForm[:])
	wr.buf = b
	wr.open = true
	return nil
}

// Header returns the header the Writer was made with.
func (wr *Writer) Header() Header { return wr.h }

func (wr *Writer) sticky() error {
	switch {
	case wr.closed:
		return ErrClosed
	case wr.err != nil:
		return wr.err
	case !wr.open:
		return ErrNotOpen
	}
	return nil
}

// invalid is ErrInvalid with what is wrong.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Write appends one record (with its Skipped bytes first), or refuses it
// with ErrInvalid, leaving the Writer as it was (see Writer for the rules).
func (wr *Writer) Write(rec *Record) error {
	if err := wr.sticky(); err != nil {
		return err
	}
	if err := wr.add(rec); err != nil {
		wr.err, wr.refused = err, true
		return err
	}
	if len(wr.buf) >= wr.nextFlush {
		return wr.flush()
	}
	return nil
}

// Check returns the error Write(rec) would return now, without writing
// rec or changing the Writer: nil if Write would accept it, an error
// wrapping ErrInvalid that names the rule it breaks otherwise.
func (wr *Writer) Check(rec *Record) error {
	if err := wr.sticky(); err != nil {
		return err
	}
	// add on a copy of the state: what it changes is the Writer's fields,
	// the bytes it appends, and the count of the open thread buffer's
	// BufferExtents record, which a BufferExtents record completes.
	save := *wr
	var count [8]byte
	if wr.inBuf {
		copy(count[:], wr.buf[wr.ext+1:])
	}
	err := wr.add(rec)
	buf := wr.buf[:len(save.buf)]
	*wr = save
	wr.buf = buf
	if wr.inBuf {
		copy(wr.buf[wr.ext+1:], count[:])
	}
	return err
}

// add appends rec, or leaves the Writer as it was and returns the rule
// rec breaks.
func (wr *Writer) add(rec *Record) error {
	if rec == nil {
		return invalid("nil record")
	}
	start := len(wr.buf)
	if wr.h.Type == TypeBasic {
		if err := wr.basicOrder(rec); err != nil {
			return err
		}
		if err := wr.appendBasic(rec); err != nil {
			wr.buf = wr.buf[:start]
			return err
		}
		if rec.Kind == KindFunction {
			wr.lastFn, wr.hasFn = Record{FuncID: rec.FuncID, TID: rec.TID, PID: rec.PID}, true
		}
		wr.records++
		return nil
	}
	v, err := wr.order(rec)
	if err != nil {
		return err
	}
	// appendFDR checks before it changes anything but the buffer.
	if err := wr.appendFDR(rec); err != nil {
		wr.buf = wr.buf[:start]
		return err
	}
	wr.v = v
	if rec.Kind == KindNewBuffer {
		wr.blockAt = start
		wr.blocks++
	}
	return nil
}

// inPreamble reports whether a block has begun and not yet reached the
// NewCPU record that lets it end.
func (v *Verifier) inPreamble() bool {
	return v.state == StateNewBuffer || v.state == StateWallClockTime || v.state == StatePIDEntry
}

// order applies llvm-xray's block rules to rec, the next record of an FDR
// log, and returns the verifier's state after it. Blocks run from one
// NewBuffer record to the next; BufferExtents records are not part of
// them.
func (wr *Writer) order(rec *Record) (Verifier, error) {
	v := wr.v
	switch {
	case rec.Kind == KindBufferExtents:
		if v.inPreamble() {
			// The runtime writes a block's preamble at the start of a
			// thread buffer; one split between two buffers could not be
			// dropped whole at Close.
			return v, invalid("BufferExtents record inside a block's preamble (after its %v record)", v.state)
		}
		return v, nil
	case v.state == StateEndOfBuffer && rec.Kind != KindNewBuffer:
		return v, invalid("%v record after EndOfBuffer: only a NewBuffer record may follow it", rec.Kind)
	case rec.Kind == KindNewBuffer && v.state != StateUnknown:
		if err := v.End(); err != nil {
			return v, invalid("NewBuffer record ends the block before after its %v record, which llvm-xray refuses: %s", v.state, err.(*FormatError).LLVM)
		}
		v.Reset()
	}
	if int(rec.Kind) >= len(kindStates) {
		return v, invalid("record kind %d", rec.Kind)
	}
	if err := v.Next(rec); err != nil {
		return v, invalid("%v record after %v, which llvm-xray refuses: %s", rec.Kind, wr.v.state, err.(*FormatError).LLVM)
	}
	return v, nil
}

// basicOrder applies llvm-xray's rule for the call arguments of a
// basic-mode log: each follows a function record (or another argument of
// it) of the same function, thread and (from version 3) process.
func (wr *Writer) basicOrder(rec *Record) error {
	if rec.Kind != KindCallArg {
		return nil
	}
	f := &wr.lastFn
	switch {
	case !wr.hasFn:
		return invalid("call argument before any function record")
	case rec.FuncID != f.FuncID || rec.TID != f.TID || wr.h.Version >= 3 && rec.PID != f.PID:
		return invalid("call argument of function %d, thread %d, process %d after a record of function %d, thread %d, process %d",
			rec.FuncID, rec.TID, rec.PID, f.FuncID, f.TID, f.PID)
	}
	return nil
}

// WriteBuffer writes one thread buffer: for a version 2+ FDR log, a
// BufferExtents record (its count is computed), then recs. recs should
// start with NewBuffer, WallTime, Pid (version 3+) and NewCPU records. For
// version 1 it writes recs alone; end them with an EndOfBuffer record. It
// writes each record as Write does, and stops at the first one refused:
// the records before it stay.
func (wr *Writer) WriteBuffer(recs []Record) error {
	if err := wr.sticky(); err != nil {
		return err
	}
	if wr.h.Type == TypeFDR && wr.h.Version >= 2 {
		if err := wr.Write(&Record{Kind: KindBufferExtents}); err != nil {
			return err
		}
	}
	for i := range recs {
		if err := wr.Write(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// rawInto appends size bytes to wr.buf: raw when it has that size,
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
	if len(rec.Skipped) > 0 {
		if rec.Kind != KindBufferExtents || wr.h.Version < 3 {
			return invalid("skipped bytes before a %v record in a version %d log", rec.Kind, wr.h.Version)
		}
		if bytes.IndexByte(rec.Skipped, wr.c.extIntro) >= 0 {
			return invalid("skipped bytes hold the first byte of a BufferExtents record")
		}
	}
	if rec.Kind != KindBufferExtents && wr.h.Version >= 3 && !wr.hasExtents {
		return invalid("%v record before the first BufferExtents record", rec.Kind)
	}
	if rec.Kind == KindFunction {
		if rec.FuncID < 0 || uint64(rec.FuncID) > wr.c.fID.Max() {
			return invalid("function id %d does not fit 28 bits", rec.FuncID)
		}
		if rec.Delta < 0 || rec.Delta > math.MaxUint32 || rec.Action > EnterArg {
			return invalid("function record delta %d or action %d out of range", rec.Delta, rec.Action)
		}
		if rec.Offset != wr.nextOff {
			wr.contig = false
		}
		wr.nextOff += FunctionSize
		b := wr.rawInto(rec.Raw, FunctionSize)
		w, _ := wr.c.fDisc.Set(0, 0)
		w, _ = wr.c.fAct.Set(w, uint64(rec.Action))
		w, _ = wr.c.fID.Set(w, uint64(rec.FuncID))
		o.PutUint32(b, uint32(w))
		o.PutUint32(b[4:], uint32(rec.Delta))
		return nil
	}
	if rec.Kind > KindPid {
		return invalid("record kind %d", rec.Kind)
	}
	if rec.Kind == KindEndOfBuffer && wr.h.Version >= 2 {
		return invalid("EndOfBuffer record in a version %d log", wr.h.Version)
	}
	event := rec.Kind == KindCustomEvent || rec.Kind == KindTypedEvent
	if event {
		if len(rec.Data) == 0 || len(rec.Data) > math.MaxInt32 {
			return invalid("event payload of %d bytes", len(rec.Data))
		}
		if (rec.Kind == KindTypedEvent || wr.h.Version >= 5) && (rec.Delta < math.MinInt32 || rec.Delta > math.MaxInt32) {
			return invalid("event delta %d does not fit 32 bits", rec.Delta)
		}
	}
	if rec.Kind == KindBufferExtents && wr.h.Version >= 2 {
		// the open buffer ends here: unchanged when this record follows
		// its last one in the file read
		if rec.Offset != wr.nextOff+int64(len(rec.Skipped)) {
			wr.contig = false
		}
		if err := wr.endBuffer(false); err != nil {
			return err
		}
		wr.buf = append(wr.buf, rec.Skipped...)
	}
	size := MetadataSize
	if rec.Kind == KindBufferExtents && len(rec.Raw) >= 9 && len(rec.Raw) < MetadataSize {
		size = len(rec.Raw) // a log's last record, cut after its count
	}
	if rec.Offset != wr.nextOff {
		wr.contig = false
	}
	wr.nextOff += int64(size + len(rec.Data))
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
		if wr.h.Version < 2 {
			break // version 1 has no extents: llvm-xray reads the record and ignores it
		}
		wr.inBuf, wr.hasExtents = true, true
		wr.ext, wr.body, wr.extents = len(wr.buf)-size, len(wr.buf), rec.Extents
		wr.nextOff, wr.contig = rec.Offset+int64(size), rec.Offset >= HeaderSize
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

// endBuffer writes the size of the open thread buffer into its
// BufferExtents record (see Writer for when the given count is kept).
func (wr *Writer) endBuffer(last bool) error {
	if !wr.inBuf {
		return nil
	}
	n := uint64(len(wr.buf) - wr.body)
	if n > math.MaxUint32 && !wr.contig {
		return invalid("thread buffer of %d bytes: llvm-xray counts 32 bits", n)
	}
	wr.inBuf = false
	// A stale count is kept where the records prove nothing was dropped:
	// in a buffer the next BufferExtents record follows as read, and in the
	// last one only when asked (KeepCutCount), since records dropped from
	// its end look like a log cut short.
	if uint32(wr.extents) == uint32(n) || wr.contig && (!last || wr.KeepCutCount) {
		return nil
	}
	wr.c.order.PutUint64(wr.buf[wr.ext+1:], n)
	return nil
}

func (wr *Writer) appendBasic(rec *Record) error {
	o := wr.c.order
	switch rec.Kind {
	case KindFunction:
		if rec.CPU > math.MaxUint8 || rec.Action > EnterArg {
			return invalid("basic-mode CPU %d or action %d out of range", rec.CPU, rec.Action)
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
		return invalid("%v record in a basic-mode log", rec.Kind)
	}
	if len(rec.Skipped) > 0 {
		return invalid("skipped bytes in a basic-mode log")
	}
	return nil
}

// flush writes what is final: everything but the open thread buffer and
// a block still in its preamble.
func (wr *Writer) flush() error {
	n := len(wr.buf)
	if wr.inBuf {
		n = wr.ext
	}
	if wr.h.Type == TypeFDR && wr.v.inPreamble() {
		n = min(n, wr.blockAt)
	}
	if wr.h.Type == TypeFDR && wr.blocks == 0 {
		// Before the first block only the header is final: a log
		// that never gets a block is written as its header alone.
		n = min(n, max(0, HeaderSize-int(wr.off)))
	}
	if n > 0 {
		if _, err := wr.w.Write(wr.buf[:n]); err != nil {
			wr.err, wr.refused = err, false
			return err
		}
		rest := copy(wr.buf, wr.buf[n:])
		wr.buf = wr.buf[:rest]
		wr.off += int64(n)
		wr.ext -= n
		wr.body -= n
		wr.blockAt -= n
	}
	// a long open buffer waits in memory; do not try again on every record
	wr.nextFlush = max(minBuf, len(wr.buf)+minBuf)
	return nil
}

// Flush writes the buffered bytes to the underlying writer, but for the
// open thread buffer of a version 2+ FDR log, whose size is known only at
// its end (the next BufferExtents record, or Close), and a block still in
// its preamble. After a refusal it still writes them, and returns the
// refusal.
func (wr *Writer) Flush() error {
	if wr.refused && !wr.closed {
		if err := wr.flush(); err != nil {
			return err
		}
		return wr.err
	}
	if err := wr.sticky(); err != nil {
		return err
	}
	return wr.flush()
}

// Close ends the open thread buffer and writes everything buffered. It
// does not close the underlying writer. Write after Close returns
// ErrClosed; closing again returns nil, or the error that stopped the
// Writer.
//
// A log llvm-xray would refuse cannot be finished whole: a last block
// that never got past its preamble (no NewCPU record after its NewBuffer,
// WallTime and Pid) is dropped, with its thread buffer's BufferExtents
// record when nothing else is in that buffer, and a log left without a
// block, or a basic-mode log without records, is written as its header
// alone (which llvm-xray convert refuses); Close then returns an error
// wrapping ErrInvalid that says so. After a refusal
// Close finishes the log with every record accepted before it, and
// returns the refusal.
func (wr *Writer) Close() error {
	if wr.closed || wr.err == ErrClosed {
		return wr.errAfterClose()
	}
	if wr.err != nil && !wr.refused {
		return wr.err
	}
	if !wr.open {
		return ErrNotOpen
	}
	refusal := wr.err
	if wr.h.Type == TypeFDR && wr.v.inPreamble() {
		state := wr.v.state
		wr.buf = wr.buf[:wr.blockAt]
		wr.contig = false // records dropped: the true count
		if wr.inBuf && wr.blockAt == wr.body {
			// The block was its thread buffer's only one: the buffer
			// goes with it, rather than stay empty.
			wr.buf = wr.buf[:wr.ext]
			wr.inBuf = false
		}
		wr.v.Reset()
		wr.blocks--
		if refusal == nil {
			refusal = invalid("the last block ends after its %v record, which llvm-xray refuses: it is dropped", state)
		}
	}
	if wr.h.Type == TypeFDR && wr.blocks == 0 {
		// No block: the header alone (flush wrote nothing after it).
		wr.buf = wr.buf[:max(0, HeaderSize-int(wr.off))]
		wr.inBuf = false
	}
	if err := wr.endBuffer(true); err != nil {
		wr.err, wr.refused = err, false
		return err
	}
	if refusal == nil && (wr.h.Type == TypeFDR && wr.blocks == 0 || wr.h.Type == TypeBasic && wr.records == 0) {
		refusal = invalid("a log without records, which llvm-xray convert refuses")
	}
	if err := wr.flush(); err != nil {
		return err
	}
	wr.closed = true
	if refusal != nil {
		wr.err, wr.refused = refusal, true
		return refusal
	}
	wr.err = ErrClosed
	return nil
}

// errAfterClose is what a second Close returns: nil after a clean close,
// or the error that stopped the Writer.
func (wr *Writer) errAfterClose() error {
	if wr.err == ErrClosed {
		return nil
	}
	return wr.err
}
