package gotraceraw

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/tracefmt/tracefmt/internal/decimal"
	"github.com/tracefmt/tracefmt/varint"
)

// The text form is the one of Go's internal/trace/raw package and of
// `go tool trace -d=wire`: a header line "Trace Go1.NN", then one line per
// event, "Name arg=value ...", with a line per Stack frame
// ("\tpc=N func=N file=N line=N") and a "\tdata=" line holding the
// strconv.Quote form of the data.

// argText holds, per type, the text between the name and each value:
// " dt=", " g=" ...
var argText = func() (m [len(specs)][]string) {
	for t := range specs {
		for _, a := range specs[t].Args {
			m[t] = append(m[t], " "+a+"=")
		}
	}
	return m
}()

// appendText appends the text form of e and a newline, as Go's TextWriter
// does, without checking e. It also returns the length of e's type byte
// and arguments on the wire as minimal varints, which the TextWriter
// needs and gets cheapest here, with each argument at hand.
func appendText(b []byte, e *Event) ([]byte, int) {
	if pt := &plainTexts[e.Type]; pt.nargs != 0 && int(pt.nargs) == len(e.Args) && e.Data == nil {
		return appendPlainText(b, e.Args, pt)
	}
	if int(e.Type) >= len(specs) || specs[e.Type].Name == "" {
		b = append(b, e.Type.String()...)
		for _, a := range e.Args {
			b = append(b, ' ')
			b = strconv.AppendUint(b, a, 10)
		}
		return append(b, '\n'), 0
	}
	b = append(b, specs[e.Type].Name...)
	at := argText[e.Type]
	i, n := 0, 1
	for ; i < len(at) && i < len(e.Args); i++ {
		b = append(b, at[i]...)
		b = appendUint(b, e.Args[i])
		n += varint.Len(e.Args[i])
	}
	if specs[e.Type].IsStack {
		for j := i; j < len(e.Args); j++ {
			switch (j - i) % 4 {
			case 0:
				b = append(b, "\n\tpc="...)
			case 1:
				b = append(b, " func="...)
			case 2:
				b = append(b, " file="...)
			case 3:
				b = append(b, " line="...)
			}
			b = appendUint(b, e.Args[j])
			n += varint.Len(e.Args[j])
		}
	}
	if e.Data != nil {
		b = append(b, "\n\tdata="...)
		b = appendQuote(b, e.Data)
	}
	return append(b, '\n'), n
}

const lowerhex = "0123456789abcdef"

// appendUint appends v in decimal, as strconv.AppendUint(b, v, 10), two
// digits at a time and without a call for the small values traces hold.
func appendUint(b []byte, v uint64) []byte {
	if v < 10 {
		return append(b, byte('0'+v))
	}
	var tmp [20]byte
	i := len(tmp)
	for v >= 100 {
		q := v / 100
		d := (v - q*100) * 2
		i -= 2
		tmp[i], tmp[i+1] = decimal.Pairs[d], decimal.Pairs[d+1]
		v = q
	}
	if v >= 10 {
		i -= 2
		tmp[i], tmp[i+1] = decimal.Pairs[2*v], decimal.Pairs[2*v+1]
	} else {
		i--
		tmp[i] = byte('0' + v)
	}
	return append(b, tmp[i:]...)
}

// appendQuote appends strconv.Quote(string(s)) without converting s.
func appendQuote(b, s []byte) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, '\\', 'x', lowerhex[c>>4], lowerhex[c&0xf])
				i++
				continue
			}
		}
		i += n
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r >= utf8.RuneSelf && strconv.IsPrint(r):
			b = append(b, s[i-n:i]...)
		case r == '\a':
			b = append(b, `\a`...)
		case r == '\b':
			b = append(b, `\b`...)
		case r == '\f':
			b = append(b, `\f`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\v':
			b = append(b, `\v`...)
		case r < ' ' || r == 0x7f:
			b = append(b, '\\', 'x', lowerhex[r>>4], lowerhex[r&0xf])
		case r < 0x10000:
			b = append(b, '\\', 'u')
			for sh := 12; sh >= 0; sh -= 4 {
				b = append(b, lowerhex[r>>sh&0xf])
			}
		default:
			b = append(b, '\\', 'U')
			for sh := 28; sh >= 0; sh -= 4 {
				b = append(b, lowerhex[r>>sh&0xf])
			}
		}
	}
	return append(b, '"')
}

// TextWriter writes events in the text form, byte for byte as Go's
// TextWriter and `go tool trace -d=wire` print them.
//
// Like Writer, it keeps the batches right: the size it prints for each
// EventBatch is the length on the wire of the events it prints after it
// (as Writer would write them), and it refuses what Writer refuses. It
// holds each batch until the batch ends: call Close at the end.
type TextWriter struct {
	// Validate is Writer.Validate: given the wire bytes of each
	// generation, as Writer would write them, it judges the generation
	// before its text is written.
	Validate Validator

	sink
	validating bool    // Validate was set at the first Write
	wire       *Writer // the wire form of what is written, when validating
}

// NewTextWriter returns a TextWriter of traces of h.Version to w. The
// header line is written with the first Flush or Close.
func NewTextWriter(w io.Writer, h Header) (*TextWriter, error) {
	tw := new(TextWriter)
	if err := tw.Reset(w, h); err != nil {
		return nil, err
	}
	return tw, nil
}

// Reset makes the TextWriter write a new trace of h.Version to w, keeping
// its buffer and dropping any unwritten output and error. The zero
// TextWriter is ready for Reset; before it, every method returns
// ErrNotOpen.
func (w *TextWriter) Reset(out io.Writer, h Header) error {
	w.validating = false
	if err := w.reset(out, h); err != nil {
		return err
	}
	w.buf = append(w.buf, "Trace "...)
	w.buf = append(w.buf, h.Version.String()...)
	w.buf = append(w.buf, '\n')
	return nil
}

// Write writes one event. It refuses what Writer.Write refuses; Widths
// are not part of the text form, but count in the batch sizes it prints.
// Errors are sticky, refusals included.
func (w *TextWriter) Write(e *Event) error {
	if w.open && w.inBatch && !w.held && plainInBatch(e, w.h.Version, w.tab) {
		// The common case, in line: an event of plain arguments in
		// the open batch.
		mark := len(w.buf)
		var n int
		w.buf, n = appendPlainText(w.buf, e.Args, &plainTexts[e.Type])
		if w.body+n > MaxBatchSize {
			w.buf = w.buf[:mark]
			return w.refuse(fmt.Errorf("%w: %v would make its batch longer than %d bytes", ErrInvalid, e.Type, MaxBatchSize), w.endBatch)
		}
		w.body += n
		return nil
	}
	return w.refuse(w.writeEvent(e), w.endBatch)
}

func (w *TextWriter) writeEvent(e *Event) error {
	if err := w.usable(); err != nil {
		return err
	}
	if !w.started {
		w.started, w.validating = true, w.Validate != nil
		if w.validating {
			if w.wire == nil {
				w.wire = new(Writer)
			}
			w.wire.Reset(io.Discard, w.h)
			w.wire.Validate = w.Validate
		}
	}
	if !w.validating {
		return w.writeText(e)
	}
	// The wire form goes first: it makes every check, and says when a
	// generation ends and whether it was accepted.
	accepted := w.wire.g.accepted
	err := w.wire.Write(e)
	if w.wire.g.accepted != accepted && e.Type != EvEndOfGeneration {
		// e comes after the generation held, which was accepted.
		if w.inBatch {
			w.endBatch()
		}
		w.held = false
	}
	if err != nil {
		return err
	}
	if !w.held {
		w.held, w.hold = true, len(w.buf)
	}
	if err := w.writeText(e); err != nil {
		return err
	}
	if w.wire.g.accepted != accepted && e.Type == EvEndOfGeneration {
		w.held = false
	}
	return w.spill()
}

// writeText writes e's text.
func (w *TextWriter) writeText(e *Event) error {
	k, err := check(e, w.h.Version, w.tab)
	if err != nil {
		return err
	}
	// An event inside the open batch, the common case, needs no call.
	ends := false
	if k&kFrame != 0 || !w.inBatch {
		if ends, err = w.place(e, k); err != nil {
			return err
		}
	}
	if ends {
		w.endBatch()
	}
	mark := len(w.buf)
	var n int
	w.buf, n = appendText(w.buf, e)
	switch {
	case w.inBatch:
		if e.Widths != nil || k&kData != 0 {
			n = wireLen(e, k)
		}
		if w.body+n > MaxBatchSize {
			w.buf = w.buf[:mark]
			return fmt.Errorf("%w: %v would make its batch longer than %d bytes", ErrInvalid, e.Type, MaxBatchSize)
		}
		w.body += n
	case e.Type == EvEventBatch:
		// The size, printed last, is as given: endBatch puts the true one.
		var d [20]byte
		width := len(strconv.AppendUint(d[:0], e.Args[3], 10))
		w.inBatch, w.start, w.at, w.width, w.body = true, mark, len(w.buf)-1-width, width, 0
	}
	return w.spill()
}

// wireLen returns the length of e on the wire, as Writer writes it.
func wireLen(e *Event, k uint8) int {
	n := 1 + len(e.Data)
	if e.Widths != nil {
		for _, wd := range e.Widths {
			n += int(wd)
		}
		return n
	}
	for _, a := range e.Args {
		n += varint.Len(a)
	}
	if k&kData != 0 {
		n += varint.Len(uint64(len(e.Data)))
	}
	return n
}

// endBatch prints the open batch's size, the length of its events on the
// wire.
func (w *TextWriter) endBatch() {
	var d [20]byte
	digits := strconv.AppendUint(d[:0], uint64(w.body), 10)
	if len(digits) != w.width {
		w.resize(len(digits))
	}
	copy(w.buf[w.at:], digits)
	w.inBatch = false
}

// Flush writes the buffered text to the underlying writer, but for the
// open batch, whose size is known only at its end, and when validating
// the generation not yet accepted.
func (w *TextWriter) Flush() error { return w.flush() }

// Close ends the open batch and, when validating, the generation, and
// writes all the text. It does not close the underlying writer. Write
// after Close returns ErrClosed; closing again returns nil, or the error
// that stopped the writer. When the Validator refuses the last
// generation, Close writes the generations before it and returns the
// refusal.
func (w *TextWriter) Close() error {
	if w.closed && w.err == nil {
		return nil // closed already
	}
	if err := w.usable(); err != nil {
		return err
	}
	if w.held {
		if err := w.wire.Close(); err != nil {
			return w.refuse(err, w.endBatch)
		}
		w.held = false
	}
	if w.inBatch {
		w.endBatch()
	}
	err := w.write(len(w.buf))
	w.closed, w.open = true, false
	return err
}

// DefaultMaxLineLen bounds one text line where TextReader.MaxLineLen is 0,
// as in every tracefmt text reader: room for the quoted data of the
// largest batch the runtime writes (64 KiB).
const DefaultMaxLineLen = 1 << 20

// TextReader reads the text form of a trace. It reads all Go's TextReader
// reads, and more: lines of any length up to MaxLineLen (Go's stops at
// 64 KiB), and a String or ExperimentalBatch with no data line, which Go's
// own writer prints for empty data read from the wire; that event reads
// with nil Data.
//
// It also reads the CPUSample lines of Go 1.22's tools, which name the
// arguments "time p g m stack" for the values the runtime wrote as m, p
// and g: the values are taken in order, as on the wire. TextWriter prints
// Go 1.23's names, "time m p g stack".
//
// Events returned by Read point into the TextReader's buffers and are
// valid until the next call to Read or Reset. The zero TextReader is
// ready for Reset; before it, Read returns ErrNotOpen.
type TextReader struct {
	// MaxDataLen limits the data of one event; 0 means DefaultMaxDataLen.
	MaxDataLen int
	// MaxFrames limits the frame count of one Stack; 0 means
	// DefaultMaxFrames.
	MaxFrames int
	// MaxLineLen limits the length of one line; 0 means
	// DefaultMaxLineLen.
	MaxLineLen int

	source
	// plain is set while ev holds an event of plain arguments of this
	// trace, nothing is peeked and no error is sticky: the fast path
	// then need only set Type and Args.
	plain  bool
	noFast bool      // tests: parse every line the careful way
	argBuf [8]uint64 // the fast path's Args
	line   int       // number of the last line taken
	peeked []byte    // a line taken but not used, or nil
	cut    bool      // the last line of the input, without its newline, was taken
	peekNo int
	v      Version
	tab    *table
	args   []uint64
	data   []byte
	ev     Event // what Read returns
	err    error
}

// NewTextReader reads the header line from r and returns a TextReader for
// the events that follow.
func NewTextReader(r io.Reader) (*TextReader, error) {
	tr := new(TextReader)
	if err := tr.Reset(r); err != nil {
		return nil, err
	}
	return tr, nil
}

// Reset makes the TextReader read a new trace from r, keeping its buffers
// and limits, and reads the header line. The zero TextReader is ready for
// Reset.
func (r *TextReader) Reset(rd io.Reader) error {
	if r.buf == nil {
		r.buf = make([]byte, minBuf)
	}
	if r.data == nil {
		r.data = make([]byte, 0, 256)
		r.args = make([]uint64, 0, 16) // Args is never nil, as from Reader
	}
	*r = TextReader{MaxDataLen: r.MaxDataLen, MaxFrames: r.MaxFrames, MaxLineLen: r.MaxLineLen,
		source: source{r: rd, buf: r.buf}, args: r.args[:0], data: r.data[:0]}
	if rd == nil {
		return r.fail(ErrNotOpen)
	}
	l, err := r.nextLine()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return r.fail(err)
	}
	i := skipSpace(l, 0)
	j := tokenEnd(l, i)
	k := skipSpace(l, j)
	m := tokenEnd(l, k)
	if string(l[i:j]) != "Trace" || !bytes.HasPrefix(l[k:m], []byte("Go1.")) {
		return r.fail(fmt.Errorf("%w: %q", ErrHeader, l))
	}
	n, ok := parseUint(l[k+4 : m])
	if !ok {
		return r.fail(fmt.Errorf("%w: %q", ErrHeader, l))
	}
	if skipSpace(l, m) != len(l) {
		return r.fail(fmt.Errorf("%w: text after the version: %q", ErrHeader, l))
	}
	v, err := checkVersion(int(min(n, 1<<20)))
	if err == nil && r.cut {
		err = errCutLine
	}
	if err != nil {
		return r.fail(err)
	}
	r.v, r.tab = v, v.table()
	return nil
}

// errCutLine is the error of a text whose last line has no newline: every
// writer ends its lines, so the text was cut, maybe inside a number.
var errCutLine = fmt.Errorf("the last line has no newline: %w", io.ErrUnexpectedEOF)

// Header returns what the trace's header line says; the zero Header
// before a header was read.
func (r *TextReader) Header() Header { return Header{Version: r.v} }

func (r *TextReader) fail(err error) error {
	if err != io.EOF && err != ErrNotOpen {
		err = &SyntaxError{Line: r.line, Err: err}
	}
	r.err, r.plain = err, false
	return err
}

func (r *TextReader) maxLineLen() int { return limit(r.MaxLineLen, DefaultMaxLineLen) }

// nextLine returns the next line that is neither blank nor a comment,
// without its line ending, or io.EOF. The line is valid until the next
// call.
func (r *TextReader) nextLine() ([]byte, error) {
	if r.peeked != nil {
		l := r.peeked
		r.peeked = nil
		r.line = r.peekNo
		return l, nil
	}
	for {
		var l []byte
		if i := bytes.IndexByte(r.buf[r.pos:r.end], '\n'); i >= 0 {
			l = r.buf[r.pos : r.pos+i]
			r.pos += i + 1
		} else if r.eof {
			if r.pos == r.end {
				if r.cut {
					return nil, errCutLine
				}
				return nil, io.EOF
			}
			l = r.buf[r.pos:r.end]
			r.pos = r.end
			r.cut = true
		} else {
			if r.end-r.pos > r.maxLineLen() {
				r.line++
				return nil, fmt.Errorf("%w: line longer than %d bytes", ErrTooLarge, r.maxLineLen())
			}
			if err := r.fill(1); err != nil {
				return nil, err
			}
			continue
		}
		r.line++
		if len(l) > r.maxLineLen() {
			return nil, fmt.Errorf("%w: line longer than %d bytes", ErrTooLarge, r.maxLineLen())
		}
		if len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		if i := skipSpace(l, 0); i < len(l) && l[i] != '#' {
			return l, nil
		}
	}
}

// Read returns the next event. At the end of the text it returns io.EOF;
// a text that ends inside a Stack's frames, or without a newline, gives
// an error wrapping io.ErrUnexpectedEOF. Errors are SyntaxErrors carrying the line, and
// sticky.
//
// The Event and its slices belong to the TextReader and are valid until
// the next call to Read or Reset; Clone keeps one.
func (r *TextReader) Read() (*Event, error) {
	if r.plain && r.end-r.pos >= textWindow+32 && r.readPlain() {
		return &r.ev, nil
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.tab == nil {
		return nil, ErrNotOpen
	}
	ev, err := r.read()
	if err == nil && r.cut && r.peeked == nil {
		err = errCutLine
	}
	if err != nil {
		return nil, r.fail(err)
	}
	r.ev = ev
	r.plain = ev.Data == nil && r.peeked == nil && !r.noFast
	return &r.ev, nil
}

// read parses the next event; Read makes its errors sticky.
func (r *TextReader) read() (Event, error) {
	l, err := r.nextLine()
	if err != nil {
		return Event{}, err
	}
	i := skipSpace(l, 0)
	j := i
	for j < len(l) && l[j] > ' ' && l[j] < utf8.RuneSelf && l[j] != '#' {
		j++ // the usual name: ASCII letters
	}
	if j < len(l) && l[j] >= utf8.RuneSelf {
		j = tokenEnd(l, j)
	}
	t, ok := r.tab.lookup(l[i:j])
	if !ok {
		return Event{}, fmt.Errorf("%w %q in a %v trace", ErrEventType, l[i:j], r.v)
	}
	s := &specs[t]
	args, err := parseArgs(r.args[:0], l[j:], s.Args, argPrefixes[t])
	if err != nil && t == EvCPUSample && r.v == Go122 {
		if a, err2 := parseArgsSlow(args[:0], l[j:], go122CPUSampleArgs); err2 == nil {
			args, err = a, nil
		}
	}
	r.args = args
	if err != nil {
		return Event{}, err
	}
	if s.IsStack {
		nf := args[1]
		if nf > uint64(limit(r.MaxFrames, DefaultMaxFrames)) {
			return Event{}, fmt.Errorf("%w: stack of %d frames (limit %d)", ErrTooLarge, nf, limit(r.MaxFrames, DefaultMaxFrames))
		}
		for f := 0; f < int(nf); f++ {
			l, err := r.nextLine()
			if err == io.EOF {
				err = fmt.Errorf("stack with %d of %d frames: %w", f, nf, io.ErrUnexpectedEOF)
			}
			if err != nil {
				return Event{}, err
			}
			if args, err = parseArgs(args, l, FrameFields[:], framePrefixes); err != nil {
				r.args = args
				return Event{}, err
			}
		}
		r.args = args
	}
	ev := Event{Version: r.v, Type: t, Args: args}
	if s.HasData {
		l, err := r.nextLine()
		if err == io.EOF {
			return ev, nil // no data line: empty data
		}
		if err != nil {
			return Event{}, err
		}
		eq := bytes.IndexByte(l, '=')
		if eq < 0 || string(bytes.TrimSpace(l[:eq])) != "data" {
			r.peeked, r.peekNo = l, r.line
			r.line--
			return ev, nil
		}
		if ev.Data, err = r.unquote(bytes.TrimSpace(l[eq+1:])); err != nil {
			return Event{}, err
		}
	}
	return ev, nil
}

// go122CPUSampleArgs are the argument names Go 1.22's tools print for
// CPUSample: its table named them "time p g m stack" while its runtime
// wrote m, p and g in that order (Go 1.23 corrected the names). The
// values are the same, in wire order, whatever their names.
var go122CPUSampleArgs = []string{"time", "p", "g", "m", "stack"}

// unquote decodes a data line's value as strconv.Unquote does, into the
// reader's data buffer.
func (r *TextReader) unquote(q []byte) ([]byte, error) {
	n := len(q)
	if n >= 2 && q[0] == '"' && q[n-1] == '"' && bytes.IndexByte(q[1:n-1], '"') < 0 &&
		bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q) {
		r.data = append(r.data[:0], q[1:n-1]...)
	} else {
		s, err := strconv.Unquote(string(q))
		if err != nil {
			return nil, fmt.Errorf("%w: data is not a quoted string: %q", ErrSyntax, q)
		}
		r.data = append(r.data[:0], s...)
	}
	if len(r.data) > limit(r.MaxDataLen, DefaultMaxDataLen) {
		return nil, fmt.Errorf("%w: data of %d bytes (limit %d)", ErrTooLarge, len(r.data), limit(r.MaxDataLen, DefaultMaxDataLen))
	}
	return r.data, nil
}

// All returns an iterator over the remaining events: each event with a nil
// error, then, when reading stops early, the error. The events are valid
// only until the next iteration.
func (r *TextReader) All() iter.Seq2[*Event, error] {
	return all(r.Read)
}

// parseArgs appends to args the values of "name=value" tokens of l, which
// must carry exactly the given names in order, and nothing but white space
// after them. It reads the form the writers print, each token preceded by
// its prefix (" name=", or "\tpc=" for a frame's first), in one pass, and
// leaves everything else, errors included, to parseArgsSlow.
func parseArgs(args []uint64, l []byte, names []string, prefixes []prefix) ([]uint64, error) {
	base := len(args)
	full := l[:cap(l)] // the bytes after l, in the reader's buffer, let a prefix be compared as one word
	i := 0
	for p := range prefixes {
		pre := &prefixes[p]
		n := len(pre.s)
		if len(l)-i <= n {
			return parseArgsSlow(args[:base], l, names)
		}
		if n <= 8 && len(full)-i >= 8 {
			if binary.LittleEndian.Uint64(full[i:])&pre.mask != pre.word {
				return parseArgsSlow(args[:base], l, names)
			}
		} else {
			for k := 0; k < n; k++ {
				if l[i+k] != pre.s[k] {
					return parseArgsSlow(args[:base], l, names)
				}
			}
		}
		j := i + n
		var v uint64
		for ; j < len(l); j++ {
			d := l[j] - '0'
			if d > 9 {
				break
			}
			v = v*10 + uint64(d)
		}
		if d := j - i - n; d == 0 || d > 19 { // 19 digits cannot overflow
			return parseArgsSlow(args[:base], l, names)
		}
		args = append(args, v)
		i = j
	}
	if i != len(l) {
		return parseArgsSlow(args[:base], l, names)
	}
	return args, nil
}

// prefix is the text before an argument's value as the writers print it,
// and for up to 8 bytes the same as a little-endian word and mask.
type prefix struct {
	s          string
	word, mask uint64
}

func newPrefixes(ss ...string) []prefix {
	ps := make([]prefix, len(ss))
	for i, s := range ss {
		ps[i].s = s
		if len(s) <= 8 {
			var b [8]byte
			copy(b[:], s)
			ps[i].word = binary.LittleEndian.Uint64(b[:])
			ps[i].mask = 1<<(8*len(s)) - 1
			if len(s) == 8 {
				ps[i].mask = 1<<64 - 1
			}
		}
	}
	return ps
}

// framePrefixes are the prefixes of a frame line's tokens as printed.
var framePrefixes = newPrefixes("\tpc=", " func=", " file=", " line=")

// argPrefixes holds each type's argument prefixes: " dt=", " g=" ...
var argPrefixes = func() (m [len(specs)][]prefix) {
	for t := range argText {
		m[t] = newPrefixes(argText[t]...)
	}
	return m
}()

// parseArgsSlow appends to args the values of "name=value" tokens of l, which
// must carry exactly the given names in order, and nothing but white space
// after them.
func parseArgsSlow(args []uint64, l []byte, names []string) ([]uint64, error) {
	i := 0
	for _, name := range names {
		i = skipSpace(l, i)
		j := tokenEnd(l, i)
		tok := l[i:j]
		if len(tok) == 0 {
			return args, fmt.Errorf("%w: no argument %q", ErrSyntax, name)
		}
		eq := bytes.IndexByte(tok, '=')
		if eq < 0 {
			return args, fmt.Errorf("%w: argument %q is not name=value", ErrSyntax, tok)
		}
		if string(tok[:eq]) != name {
			return args, fmt.Errorf("%w: expected argument %q, got %q", ErrSyntax, name, tok[:eq])
		}
		v, ok := parseUint(tok[eq+1:])
		if !ok {
			return args, fmt.Errorf("%w: argument %q: bad value %q", ErrSyntax, name, tok[eq+1:])
		}
		args = append(args, v)
		i = j
	}
	if i = skipSpace(l, i); i != len(l) {
		return args, fmt.Errorf("%w: unexpected text at the end of the line: %q", ErrSyntax, l[i:])
	}
	return args, nil
}

// parseUint parses a decimal uint64 as strconv.ParseUint(s, 10, 64) does:
// digits only, leading zeros allowed.
func parseUint(s []byte) (uint64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range s {
		d := uint64(c) - '0'
		if d > 9 {
			return 0, false
		}
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// asciiSpace marks the ASCII bytes unicode.IsSpace accepts.
var asciiSpace = [128]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// skipSpace returns the index of the first rune at or after i that is not
// white space (unicode.IsSpace), or len(l).
func skipSpace(l []byte, i int) int {
	for i < len(l) {
		c := l[i]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(l[i:])
		if !unicode.IsSpace(r) {
			return i
		}
		i += n
	}
	return i
}

// tokenEnd returns the index of the first white space or '#' at or after
// i, or len(l): Go's reader ends a token at either.
func tokenEnd(l []byte, i int) int {
	for i < len(l) {
		c := l[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] || c == '#' {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(l[i:])
		if unicode.IsSpace(r) {
			return i
		}
		i += n
	}
	return i
}
