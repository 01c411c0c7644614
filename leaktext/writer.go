package leaktext

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// Writer writes a report: the header line, then records.
type Writer struct {
	w    io.Writer
	buf  []byte
	crlf bool
	err  error
}

// NewWriter writes h as the first line of a report to w.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	wr := &Writer{w: w, crlf: h.CRLF, buf: make([]byte, 0, 64<<10)}
	if h.Verbatim != nil {
		wr.buf = append(wr.buf, h.Verbatim...)
	} else {
		for _, f := range h.Fields {
			if f.Key == "" || bytes.IndexByte([]byte(f.Key), '=') >= 0 || bytes.IndexAny([]byte(f.Key+f.Value), ",\n") >= 0 {
				return nil, fmt.Errorf("leaktext: header field %q=%q: %w", f.Key, f.Value, ErrWriter)
			}
			wr.buf = append(wr.buf, f.Key...)
			wr.buf = append(wr.buf, '=')
			wr.buf = append(wr.buf, f.Value...)
			wr.buf = append(wr.buf, ", "...)
		}
	}
	wr.eol()
	return wr, nil
}

func (w *Writer) eol() {
	if w.crlf {
		w.buf = append(w.buf, '\r')
	}
	w.buf = append(w.buf, '\n')
}

// Write writes one record. Records of kind KindCall and KindTrace write
// their argument lines, then their frame lines. Errors are sticky.
func (w *Writer) Write(r Record) error {
	if w.err != nil {
		return w.err
	}
	mark := len(w.buf)
	if err := w.append(r); err != nil {
		w.buf = w.buf[:mark]
		w.err = err
		return err
	}
	if len(w.buf) >= 64<<10 {
		return w.Flush()
	}
	return nil
}

func bad(what string, b []byte) error {
	return fmt.Errorf("leaktext: %s %q: %w", what, b, ErrWriter)
}

func hasNL(b []byte) bool { return bytes.IndexByte(b, '\n') >= 0 }

func (w *Writer) append(r Record) error {
	b := w.buf
	switch r.Kind {
	case KindBlank:
	case KindComment:
		if hasNL(r.Text) {
			return bad("comment", r.Text)
		}
		b = append(b, r.Text...)
	case KindMemoryMap:
		if !word(r.Map.Path) {
			return bad("memory map path", r.Map.Path)
		}
		b = AppendMemoryMap(b, r.Map)
	case KindContext:
		if len(r.Context.Name) == 0 || hasNL(r.Context.Name) {
			return bad("context name", r.Context.Name)
		}
		b = AppendContext(b, r.Context)
	case KindResource:
		if !word(r.Resource.Type) || len(r.Resource.Desc) == 0 || bytes.IndexAny(r.Resource.Desc, ")\n") >= 0 || (r.Resource.Flags != nil && (len(r.Resource.Flags) == 0 || bytes.IndexAny(r.Resource.Flags, "]\n") >= 0)) {
			return bad("resource", r.Resource.Type)
		}
		b = AppendResource(b, r.Resource)
	case KindAttachment:
		if !word(r.Attachment.Name) || !word(r.Attachment.Path) {
			return bad("attachment", r.Attachment.Name)
		}
		b = appendAttachment(b, r.Attachment)
	case KindCall, KindTrace:
		if r.Kind == KindCall {
			c := r.Call
			if c.Verbatim != nil {
				if hasNL(c.Verbatim) {
					return bad("call line", c.Verbatim)
				}
				b = append(b, c.Verbatim...)
			} else {
				if c.Index < 0 || c.Time < 0 || hasNL(c.Func) || hasNL(c.Type) || bytes.IndexAny(c.Type, "<>") >= 0 ||
					(c.Type != nil && len(c.Type) == 0) || (c.Type == nil && bytes.HasSuffix(c.Func, []byte(">"))) ||
					(!c.HasTime && c.Context == 0 && len(c.Func) > 1 && c.Func[0] == '@' && isHex(c.Func[1])) ||
					(!c.HasTime && len(c.Func) > 0 && c.Func[0] == '[' && timeLike(c.Func)) {
					return bad("call", c.Func)
				}
				b = AppendCall(b, c)
			}
		} else if len(r.Call.Args)+len(r.Call.Frames) == 0 {
			return bad("trace without lines", nil)
		}
		for i, a := range r.Call.Args {
			if !word(a.Name) || hasNL(a.Value) || len(bytes.TrimLeft(a.Value, " \t")) == 0 {
				return bad("argument", a.Name)
			}
			if r.Kind == KindCall || i > 0 {
				w.buf = b
				w.eol()
				b = w.buf
			}
			b = AppendArg(b, a)
		}
		for i, f := range r.Call.Frames {
			if hasNL(f.Verbatim) || hasNL(f.Resolved) || (f.Resolved != nil && (len(f.Resolved) == 0 || f.Resolved[0] == ' ' || f.Resolved[0] == '\t')) {
				return bad("frame", f.Resolved)
			}
			if r.Kind == KindCall || i > 0 || len(r.Call.Args) > 0 {
				w.buf = b
				w.eol()
				b = w.buf
			}
			b = AppendFrame(b, f)
		}
	default:
		return fmt.Errorf("leaktext: record kind %d: %w", r.Kind, ErrWriter)
	}
	w.buf = b
	w.eol()
	return nil
}

// Flush writes buffered data to the underlying writer.
func (w *Writer) Flush() error {
	if len(w.buf) > 0 && w.err == nil {
		_, err := w.w.Write(w.buf)
		w.buf = w.buf[:0]
		if err != nil {
			w.err = err
		}
	}
	return w.err
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
