package leaktext

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Writer writes a report: the header line, then records, each as lines
// that read back as the same record.
//
// It refuses (ErrInvalid, the message naming the rule) what would
// read back differently or what the real reader would misread: a header
// line that does not start "version=N.N" (no reader takes it for a
// report), a header key or value holding "," or a line end, an empty
// header value before other fields; a comment that would parse as a
// record; frames that would join the call before them; a backtrace deeper
// than the header's "backtrace depth"; an index, size or time beyond 32
// bits; a free with a size or a time without HasTime (their lines have no
// place for them); a memory map path, resource type, attachment or
// argument name that is not one word, or any field holding a line end; a
// Verbatim line (header, call or frame) that does not read back as the
// record's fields, because they were changed after it was read or it is
// no such line at all; what sp-rtrace's reader would cut short, split or
// overflow its buffers with: a NUL byte (it holds lines as C strings),
// a line longer than 4095 bytes with its line end (it reads lines through
// a 4096-byte buffer, and a longer one becomes several records), a
// function name, resource type or description, context or attachment name
// longer than 511 bytes, an argument name longer than 127, a header key
// longer than 255. It keeps a call's index as given: the real tools
// keep a call's number through filtering, so gaps are normal.
//
// A refused record leaves the Writer as it was: nothing of it is
// buffered, and Flush and Close still write every record accepted before
// it (the refusal is sticky: Write, Flush and Close then return it). Check
// applies the same rules without writing.
//
// A zero Writer is usable after Reset; before that every method returns
// ErrNotOpen.
type Writer struct {
	w       io.Writer
	buf     []byte
	crlf    bool
	depth   int  // the header's backtrace depth, -1 for none
	last    Kind // the kind of the last record written
	tail    byte // what the last call or trace ended with: 0, 'a' (an argument) or 'f' (a frame)
	err     error
	refused bool // err is a refusal, which left buf whole
	closed  bool
}

// NewWriter returns a Writer that has written h as the first line of a
// report to w.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	wr := new(Writer)
	if err := wr.Reset(w, h); err != nil {
		return nil, err
	}
	return wr, nil
}

// Reset makes w write a new report to dst, starting with the header h,
// and keeps its buffer. Unwritten data of the previous report is
// dropped. A nil dst leaves w not open (ErrNotOpen).
func (w *Writer) Reset(dst io.Writer, h Header) error {
	*w = Writer{w: dst, buf: w.buf[:0], crlf: h.CRLF}
	if dst == nil {
		return ErrNotOpen
	}
	if w.buf == nil {
		w.buf = make([]byte, 0, 64<<10)
	}
	if err := w.header(h); err != nil {
		w.buf = w.buf[:0]
		w.err = err
		return err
	}
	return nil
}

func (w *Writer) header(h Header) error {
	fields := h.Fields
	if h.Verbatim != nil {
		v := h.Verbatim
		if hasNL(v) || (!h.CRLF && len(v) > 0 && v[len(v)-1] == '\r') || (len(v) > 0 && v[0] == binaryHandshake) {
			return invalid("header line %q", v)
		}
		// The backtrace depth, and what a reader finds, are what the
		// line says: fields that say otherwise were changed after it
		// was read.
		fields = parseHeader(v).Fields
		if h.Fields != nil && !slices.Equal(fields, h.Fields) {
			return invalid("header line %q does not hold the header's fields (clear Verbatim after changing Fields)", v)
		}
		w.buf = append(w.buf, v...)
	} else {
		for i, f := range h.Fields {
			k, v := f.Key, f.Value
			if k == "" || k[0] == ' ' || k[0] == binaryHandshake || strings.ContainsAny(k, "=,\n") || strings.ContainsAny(v, ",\n") {
				return invalid("header field %q=%q", k, v)
			}
			if v == "" && i+1 < len(h.Fields) {
				return invalid("header field %q has an empty value: the real reader would stop there and lose the fields after it", k)
			}
		}
		w.buf = appendHeader(w.buf, h.Fields)
	}
	if !formatterHeader(w.buf) {
		return invalid("header line %q does not start as a report's (version=N.N, ...)", w.buf)
	}
	for _, f := range fields {
		if err := tooLong("header key", f.Key, realMaxKey); err != nil {
			return err
		}
	}
	w.depth = Header{Fields: fields}.depth()
	w.eol()
	return checkLines(w.buf)
}

// appendHeader appends the header line the formatter writes for fields.
func appendHeader(b []byte, fields []Field) []byte {
	for _, f := range fields {
		b = append(b, f.Key...)
		b = append(b, '=')
		b = append(b, f.Value...)
		b = append(b, ", "...)
	}
	return b
}

func (w *Writer) eol() {
	if w.crlf {
		w.buf = append(w.buf, '\r')
	}
	w.buf = append(w.buf, '\n')
}

// Write writes one record. Records of kind KindCall and KindTrace write
// their argument lines, then their frame lines. A record Write refuses
// leaves the Writer as it was (see Writer); errors, refusals too, are
// sticky.
func (w *Writer) Write(r *Record) error {
	if err := w.usable(); err != nil {
		return err
	}
	mark := len(w.buf)
	if err := w.appendChecked(r); err != nil {
		w.buf = w.buf[:mark]
		w.err, w.refused = err, true
		return err
	}
	w.last = r.Kind
	if len(w.buf) >= 64<<10 {
		return w.Flush()
	}
	return nil
}

// Check returns the error Write(r) would return now, without writing r or
// changing the Writer: nil if Write would accept it, an error wrapping
// ErrInvalid that says why not otherwise.
func (w *Writer) Check(r *Record) error {
	if err := w.usable(); err != nil {
		return err
	}
	mark, tail := len(w.buf), w.tail
	err := w.appendChecked(r)
	w.buf, w.tail = w.buf[:mark], tail
	return err
}

func (w *Writer) usable() error {
	switch {
	case w.w == nil:
		return ErrNotOpen
	case w.closed:
		return ErrClosed
	}
	return w.err
}

func hasNL(b []byte) bool { return bytes.IndexByte(b, '\n') >= 0 }

// The real reader's bounds: it reads a report a line at a time through a
// 4096-byte fgets buffer, splitting a longer line into pieces that read
// as other records (a stray comment, an empty line that ends a call's
// group), holds each line as a C string, which ends at a NUL, and copies
// fields into fixed buffers, which a longer field overflows.
const (
	realMaxLine  = 4095 // bytes of a line, its line end included
	realMaxName  = 511  // a function name, resource type or description, context or attachment name
	realMaxArg   = 127  // an argument name
	realMaxKey   = 255  // a header key
	realMaxFlags = 1023 // a resource's flags
)

// errBound marks the refusals of what only the real reader's bounds
// keep out (our Reader reads it), for the tests.
var errBound = errors.New("beyond the real reader's bounds")

// bound returns a refusal for what is beyond the real reader's bounds.
func bound(format string, args ...any) error {
	return fmt.Errorf("%w: "+format+"%.0w", append(append([]any{ErrInvalid}, args...), errBound)...)
}

// appendChecked appends r's lines, then checks them against the real
// reader's bounds.
func (w *Writer) appendChecked(r *Record) error {
	mark := len(w.buf)
	if err := w.append(r); err != nil {
		return err
	}
	return checkLines(w.buf[mark:])
}

// checkLines refuses, in lines each ended by its line end, a line the real
// reader would split or cut short.
func checkLines(b []byte) error {
	for len(b) > 0 {
		n := bytes.IndexByte(b, '\n') + 1
		if n == 0 {
			n = len(b)
		}
		line := b[:n]
		if len(line) > realMaxLine {
			return bound("a line of %d bytes with its line end: the real reader reads lines %d bytes at a time and splits longer ones", len(line), realMaxLine)
		}
		if i := bytes.IndexByte(line, 0); i >= 0 {
			return bound("a NUL byte in the line %q: the real reader's line ends there", line[:i])
		}
		b = b[n:]
	}
	return nil
}

// tooLong returns a refusal when field, named what, is longer than the
// real reader's buffer for it holds.
func tooLong[S []byte | string](what string, field S, max int) error {
	if len(field) > max {
		return bound("%s of %d bytes: the real reader holds %d", what, len(field), max)
	}
	return nil
}

func (w *Writer) append(r *Record) error {
	if r == nil {
		return invalid("nil record")
	}
	b := w.buf
	switch r.Kind {
	case KindBlank:
	case KindComment:
		if !readsAsComment(r.Text) {
			return invalid("comment %q would read back as another record", r.Text)
		}
		b = append(b, r.Text...)
	case KindMemoryMap:
		if !word(r.Map.Path) {
			return invalid("memory map path %q: the real reader takes one word", r.Map.Path)
		}
		b = AppendMemoryMap(b, r.Map)
	case KindContext:
		if len(r.Context.Name) == 0 || hasNL(r.Context.Name) {
			return invalid("context name %q", r.Context.Name)
		}
		if err := tooLong("context name", r.Context.Name, realMaxName); err != nil {
			return err
		}
		b = AppendContext(b, r.Context)
	case KindResource:
		res := r.Resource
		if !word(res.Type) || len(res.Desc) == 0 || hasNL(res.Desc) || (res.Flags != nil && !validFlags(res.Flags)) {
			return invalid("resource %q (%q) [%q]", res.Type, res.Desc, res.Flags)
		}
		if err := cmp.Or(tooLong("resource type", res.Type, realMaxName), tooLong("resource description", res.Desc, realMaxName),
			tooLong("resource flags", res.Flags, realMaxFlags)); err != nil {
			return err
		}
		b = AppendResource(b, res)
	case KindAttachment:
		a := r.Attachment
		if !word(a.Name) || blank(a.Path) || hasNL(a.Path) {
			return invalid("attachment %q : %q", a.Name, a.Path)
		}
		if err := tooLong("attachment name", a.Name, realMaxName); err != nil {
			return err
		}
		b = appendAttachment(b, a)
	case KindCall, KindTrace:
		c := &r.Call
		if w.depth >= 0 && len(c.Frames) > w.depth {
			return invalid("%d frames, more than the header's backtrace depth %d", len(c.Frames), w.depth)
		}
		if r.Kind == KindCall {
			if err := checkCall(c); err != nil {
				return err
			}
			if c.Verbatim != nil {
				b = append(b, c.Verbatim...)
			} else {
				b = AppendCall(b, *c)
			}
		} else {
			if len(c.Args)+len(c.Frames) == 0 {
				return invalid("trace without lines")
			}
			// Lines right after a call's or trace's own would join it,
			// unless arguments follow frames.
			if (w.last == KindCall || w.last == KindTrace) && (w.tail != 'f' || len(c.Args) == 0) {
				return invalid("a trace right after a %v would read back as part of it", w.last)
			}
		}
		for i, a := range c.Args {
			if !word(a.Name) || hasNL(a.Value) {
				return invalid("argument %q = %q", a.Name, a.Value)
			}
			if err := tooLong("argument name", a.Name, realMaxArg); err != nil {
				return err
			}
			if r.Kind == KindCall || i > 0 {
				w.buf = b
				w.eol()
				b = w.buf
			}
			b = AppendArg(b, a)
		}
		for i, f := range c.Frames {
			if err := checkFrame(&f); err != nil {
				return err
			}
			if r.Kind == KindCall || i > 0 || len(c.Args) > 0 {
				w.buf = b
				w.eol()
				b = w.buf
			}
			b = AppendFrame(b, f)
		}
		w.tail = 0
		switch {
		case len(c.Frames) > 0:
			w.tail = 'f'
		case len(c.Args) > 0:
			w.tail = 'a'
		}
	default:
		return invalid("record kind %d", r.Kind)
	}
	w.buf = b
	w.eol()
	return nil
}

// checkCall checks that a call line reads back as the same call, and that
// the real reader, which keeps the index, size and time in C ints, reads
// it right.
func checkCall(c *Call) error {
	// A verbatim line holds these fields too (it is checked below to).
	if err := cmp.Or(tooLong("function name", c.Func, realMaxName), tooLong("resource type", c.Type, realMaxName)); err != nil {
		return err
	}
	if c.Verbatim != nil {
		var back Call
		switch parseCall(c.Verbatim, &back) {
		case okRecord:
		case wideRecord:
			return invalid("call line %q: the real reader keeps 32 bits of the index, size and time", c.Verbatim)
		default:
			return invalid("call line %q does not read as a call", c.Verbatim)
		}
		if !sameCall(&back, c) {
			return invalid("call line %q does not hold the call's fields (clear Verbatim after changing them)", c.Verbatim)
		}
		return nil
	}
	switch {
	case c.Index < 0 || c.Index > maxInt32:
		return invalid("call index %d: the real reader keeps 32 bits", c.Index)
	case c.Free && c.Size != 0:
		return invalid("free of size %d: a free line has no size", c.Size)
	case !c.Free && (c.Size > maxInt32 || c.Size < -maxInt32-1):
		return invalid("call size %d: the real reader keeps 32 bits", c.Size)
	case c.HasTime && (c.Time < 0 || c.Time > maxInt32):
		return invalid("call time %d ms: the real reader keeps 32 bits", c.Time)
	case !c.HasTime && c.Time != 0:
		return invalid("call time %d ms without HasTime: a line without a timestamp has no time", c.Time)
	}
	if hasNL(c.Func) || hasNL(c.Type) || bytes.ContainsAny(c.Type, "<>") ||
		(c.Type != nil && len(c.Type) == 0) || (c.Type == nil && bytes.HasSuffix(c.Func, []byte(">"))) ||
		(!c.HasTime && c.Context == 0 && len(c.Func) > 1 && c.Func[0] == '@' && isHex(c.Func[1])) ||
		(!c.HasTime && len(c.Func) > 0 && c.Func[0] == '[' && timeLike(c.Func)) {
		return invalid("call %q", c.Func)
	}
	return nil
}

// sameCall reports whether a call read back from a line says what c says.
func sameCall(back, c *Call) bool {
	return back.Index == c.Index && back.Context == c.Context && back.HasTime == c.HasTime &&
		back.Time == c.Time && bytes.Equal(back.Func, c.Func) && bytes.Equal(back.Type, c.Type) &&
		(back.Type == nil) == (c.Type == nil) && back.Free == c.Free && back.Size == c.Size && back.ID == c.ID
}

// checkFrame checks that a frame line reads back as the same frame.
func checkFrame(f *Frame) error {
	if f.Verbatim != nil {
		var back Frame
		line := append([]byte{'\t'}, f.Verbatim...)
		if hasNL(f.Verbatim) || parseFrame(line, &back) != okRecord {
			return invalid("frame line %q does not read as a frame", f.Verbatim)
		}
		if back.Addr != f.Addr || !bytes.Equal(back.Resolved, f.Resolved) || (back.Resolved == nil) != (f.Resolved == nil) {
			return invalid("frame line %q does not hold the frame's fields (clear Verbatim after changing them)", f.Verbatim)
		}
		return nil
	}
	if hasNL(f.Resolved) || (f.Resolved != nil && (len(f.Resolved) == 0 || f.Resolved[0] == ' ' || f.Resolved[0] == '\t')) {
		return invalid("frame %#x %q", f.Addr, f.Resolved)
	}
	return nil
}

// readsAsComment reports whether a line reads back as a comment whatever
// comes before it.
func readsAsComment(t []byte) bool {
	if len(t) == 0 || hasNL(t) {
		return false
	}
	var rec Record
	var f Frame
	var a Arg
	switch t[0] {
	case '\t':
		return parseFrame(t, &f) != okRecord && parseArg(t, &a) != okRecord
	case ':':
		return !parseMap(t, &rec.Map)
	case '@':
		return !parseContext(t, &rec.Context)
	case '<':
		return !parseResource(t, &rec.Resource)
	case '&':
		return !parseAttachment(t, &rec.Attachment)
	}
	if t[0]-'0' < 10 {
		res := parseCall(t, &rec.Call)
		return res != okRecord && res != wideRecord
	}
	return true
}

// Flush writes buffered data to the underlying writer. After a refusal
// it still writes the records accepted before it, and returns the
// refusal.
func (w *Writer) Flush() error {
	if w.w == nil {
		return ErrNotOpen
	}
	if w.closed {
		return ErrClosed
	}
	if w.err != nil && !w.refused {
		return w.err
	}
	if len(w.buf) > 0 {
		_, err := w.w.Write(w.buf)
		w.buf = w.buf[:0]
		if err != nil {
			w.err, w.refused = err, false
		}
	}
	return w.err
}

// Close flushes the report, also after a refusal (see Flush). It does not
// close the underlying writer; a Write after Close is ErrClosed; closing
// again returns nil, or the error that stopped the Writer.
func (w *Writer) Close() error {
	if w.w == nil {
		return ErrNotOpen
	}
	if w.closed {
		return w.err
	}
	err := w.Flush()
	w.closed = true
	return err
}

func appendHex(b []byte, v uint64) []byte {
	b = append(b, "0x"...)
	return strconv.AppendUint(b, v, 16)
}

// AppendMemoryMap appends the memory-map line (without line ending).
func AppendMemoryMap(b []byte, m MemoryMap) []byte {
	b = append(b, ": "...)
	b = append(b, m.Path...)
	b = append(b, " => "...)
	b = appendHex(b, m.Start)
	b = append(b, '-')
	return appendHex(b, m.End)
}

// AppendContext appends the context registry line.
func AppendContext(b []byte, c Context) []byte {
	b = append(b, "@ "...)
	b = strconv.AppendUint(b, uint64(c.ID), 16)
	b = append(b, " : "...)
	return append(b, c.Name...)
}

// AppendResource appends the resource registry line.
func AppendResource(b []byte, r Resource) []byte {
	b = append(b, '<')
	b = strconv.AppendUint(b, uint64(r.ID), 16)
	b = append(b, "> : "...)
	b = append(b, r.Type...)
	b = append(b, " ("...)
	b = append(b, r.Desc...)
	b = append(b, ')')
	if r.Flags != nil {
		b = append(b, " ["...)
		b = append(b, r.Flags...)
		b = append(b, ']')
	}
	return b
}

func appendAttachment(b []byte, a Attachment) []byte {
	b = append(b, "& "...)
	b = append(b, a.Name...)
	b = append(b, " : "...)
	return append(b, a.Path...)
}

func append2(b []byte, v int64) []byte {
	if v < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, v, 10)
}

// AppendCall appends the call line as the formatter writes it, ignoring
// Verbatim, Args and Frames.
func AppendCall(b []byte, c Call) []byte {
	b = strconv.AppendInt(b, c.Index, 10)
	b = append(b, ". "...)
	if c.Context != 0 {
		b = append(b, '@')
		b = strconv.AppendUint(b, uint64(c.Context), 16)
		b = append(b, ' ')
	}
	if c.HasTime {
		t := c.Time
		b = append(b, '[')
		b = append2(b, t/3600000)
		b = append(b, ':')
		b = append2(b, t/60000%60)
		b = append(b, ':')
		b = append2(b, t/1000%60)
		b = append(b, '.')
		ms := t % 1000
		if ms < 100 {
			b = append(b, '0')
		}
		b = append2(b, ms)
		b = append(b, "] "...)
	}
	b = append(b, c.Func...)
	if c.Type != nil {
		b = append(b, '<')
		b = append(b, c.Type...)
		b = append(b, '>')
	}
	b = append(b, '(')
	if c.Free {
		b = appendHex(b, c.ID)
		return append(b, ')')
	}
	b = strconv.AppendInt(b, c.Size, 10)
	b = append(b, ") = "...)
	return appendHex(b, c.ID)
}

// AppendArg appends an argument line ("\t$name = value").
func AppendArg(b []byte, a Arg) []byte {
	b = append(b, "\t$"...)
	b = append(b, a.Name...)
	b = append(b, " = "...)
	return append(b, a.Value...)
}

// AppendFrame appends a frame line ("\t0xaddr[ resolved]").
func AppendFrame(b []byte, f Frame) []byte {
	b = append(b, '\t')
	if f.Verbatim != nil {
		return append(b, f.Verbatim...)
	}
	b = appendHex(b, f.Addr)
	if f.Resolved != nil {
		b = append(b, ' ')
		b = append(b, f.Resolved...)
	}
	return b
}

// timeLike reports whether a function name would read as a timestamp.
func timeLike(b []byte) bool {
	_, _, _, res := parseTime(b)
	return res != notRecord
}
