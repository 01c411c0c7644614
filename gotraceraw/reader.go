package gotraceraw

import (
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/tracefmt/tracefmt/varint"
)

// Default limits, used where a reader's limit field is 0.
const (
	// DefaultMaxDataLen bounds the data of one event, as in every
	// tracefmt reader. The runtime writes at most 1 KiB per string and
	// 64 KiB per experimental batch.
	DefaultMaxDataLen = 256 << 20
	// DefaultMaxFrames bounds the frames of one Stack, as in every
	// tracefmt reader. The runtime writes at most 128.
	DefaultMaxFrames = 1 << 16
)

// The limits Go's parser puts on a generation's tables: it rejects a trace
// with a longer String or a Stack of more frames, and so do a validating
// Writer and the parsed level. The runtime never writes past them.
const (
	GoMaxStringLen = 1 << 10 // bytes of one String
	GoMaxFrames    = 128     // frames of one Stack
)

// HeaderLen is the length of the binary header, "go 1.NN trace" padded
// with NUL bytes.
const HeaderLen = 16

const minBuf = 64 << 10

// maxPlainArgs is the most arguments of any event type; the fast path
// relies on it (the tables check at init).
const maxPlainArgs = 5

// Reader reads the events of a binary trace, in stream order.
//
// Where the readers differ from Go's tools:
//
//   - The AllocFree experiment's events 128–136 (GODEBUG=traceallocfree=1)
//     are read under every header from Go1.23 on, as the Go 1.23–1.25
//     runtimes write them. Go 1.26's `-d=wire` refuses them under Go1.23
//     and Go1.25 headers; our text for those traces is what the producing
//     toolchain printed.
//   - The binary header must be exactly the 16-byte form: Go also takes
//     "go  1.26  trace\x00" and "go 1.026 trace\x00\x00\x00". Headers of Go
//     1.5 to 1.21 (the v1 format, another encoding) give ErrV1, naming the
//     version; Go's raw reader takes the header and fails on the first
//     event.
//   - Types 53–127 under Go1.26 are ErrEventType; Go's raw reader takes
//     them as events with no name and no arguments.
//   - A cut inside an event, or inside a batch between two events, is
//     io.ErrUnexpectedEOF; Go's raw reader (and so `-d=wire`) returns io.EOF
//     there unless the cut falls inside a varint, so that a truncated trace
//     looks complete.
//   - The TextReader reads all Go's reads (blank lines, whole-line "#"
//     comments, any Unicode white space, CRLF, leading zeros, any quoting
//     strconv.Unquote takes) and also: a String or ExperimentalBatch without
//     a data line, as empty data (Go ≤ 1.25 runtimes write empty strings,
//     Go's writer prints them without a data line, and Go's reader then
//     refuses its own output); lines longer than Go's 64 KiB, up to
//     MaxLineLen; and the CPUSample lines of Go 1.22's tools, which name
//     the arguments "time p g m stack" for values the runtime wrote in the
//     order m, p, g (the values are read in wire order; the writers print
//     Go 1.23's names, "time m p g stack"). A trailing "# comment" is an
//     error, as in Go. A text whose last line has no newline is
//     io.ErrUnexpectedEOF: every writer, Go's too, ends its lines, so the
//     text was cut, maybe inside a number; Go's reader takes it.
//   - ExperimentalBatch's exp argument is read as a varint, as Go's raw
//     reader does; Go's parser reads one byte, so the writers refuse a
//     value over 127.
//   - The writers recompute batch sizes (see Writing): Go's raw writer
//     writes the size it is given, so that dropping an event makes a trace
//     `go tool trace` cannot read ("expected batch event"). Go has no
//     validating writer.
//
// Events returned by Read point into the Reader's buffers and are valid
// until the next call to Read or Reset. The zero Reader is ready for
// Reset; before it, Read returns ErrNotOpen.
type Reader struct {
	// MaxDataLen limits the data length of one event; 0 means
	// DefaultMaxDataLen. Set it before the first Read.
	MaxDataLen int
	// MaxFrames limits the frame count of one Stack; 0 means
	// DefaultMaxFrames. Set it before the first Read.
	MaxFrames int

	source
	v   Version
	tab *table
	// ev is the event Read returns. While plain is set it holds an event
	// of plain arguments only: Args is argBuf[:n], Data and Widths nil,
	// and the fast path need only set Type and the length of Args.
	ev     Event
	plain  bool
	argBuf [8]uint64  // 8, so that Read's mask by 7 drops the bounds check
	fast   [256]uint8 // table.plain of the version
	args   []uint64
	widths []uint8
	need   int // bytes the event being decoded still lacks, at least
	// The last EventBatch: where it starts, and where the bytes its size
	// declares end, so that a trace cut inside a batch, even between two
	// events, is not taken for a whole one.
	batchAt, batchEnd int64
	batch             Batch // what ReadBatch returns
	err               error
}

// NewReader reads the header from r and returns a Reader for the events
// that follow.
func NewReader(r io.Reader) (*Reader, error) {
	rd := new(Reader)
	if err := rd.Reset(r); err != nil {
		return nil, err
	}
	return rd, nil
}

// Reset makes the Reader read a new trace from r, keeping its buffers and
// limits, and reads the header. The zero Reader is ready for Reset.
func (r *Reader) Reset(rd io.Reader) error {
	if r.buf == nil {
		r.buf = make([]byte, minBuf)
		r.args = make([]uint64, 0, 16) // Args is never nil, as from the fast path
	}
	*r = Reader{MaxDataLen: r.MaxDataLen, MaxFrames: r.MaxFrames, source: source{r: rd, buf: r.buf}, args: r.args[:0], widths: r.widths[:0]}
	if rd == nil {
		r.err = ErrNotOpen
		return r.err
	}
	if err := r.fill(HeaderLen); err != nil {
		r.err = err
		return err
	}
	v, err := parseHeader(r.buf[:r.end])
	if err != nil {
		r.err = &FormatError{Offset: 0, Err: err}
		return r.err
	}
	r.v, r.tab, r.pos = v, v.table(), HeaderLen
	r.fast = r.tab.plain
	r.fast[EvEventBatch] = 0 // batches go the careful way, which keeps their end
	return nil
}

// parseHeader checks the 16-byte binary header at the start of b.
func parseHeader(b []byte) (Version, error) {
	const prefix, suffix = "go 1.", " trace"
	short := func() (Version, error) { return 0, io.ErrUnexpectedEOF }
	i := 0
	for ; i < len(prefix); i++ {
		if i == len(b) {
			return short()
		}
		if b[i] != prefix[i] {
			return 0, ErrHeader
		}
	}
	n, digits := 0, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9' && digits < 3; i++ {
		n = n*10 + int(b[i]-'0')
		digits++
	}
	if i == len(b) {
		return short()
	}
	if digits == 0 || (digits > 1 && b[i-digits] == '0') {
		return 0, ErrHeader
	}
	for j := 0; j < len(suffix); i, j = i+1, j+1 {
		if i == len(b) {
			return short()
		}
		if b[i] != suffix[j] {
			return 0, ErrHeader
		}
	}
	for ; i < HeaderLen; i++ {
		if i == len(b) {
			return short()
		}
		if b[i] != 0 {
			return 0, ErrHeader
		}
	}
	if i != HeaderLen {
		return 0, ErrHeader // the version is too long to leave room for a NUL
	}
	return checkVersion(n)
}

func checkVersion(n int) (Version, error) {
	if n >= 5 && n <= 21 {
		return 0, fmt.Errorf("%w: header names Go 1.%d", ErrV1, n)
	}
	if n > 255 || !Version(n).Valid() {
		return 0, fmt.Errorf("%w: Go 1.%d", ErrVersion, n)
	}
	return Version(n), nil
}

// Header returns what the trace's header says; the zero Header before a
// header was read.
func (r *Reader) Header() Header { return Header{Version: r.v} }

// Offset returns the byte offset of the next event in the stream.
func (r *Reader) Offset() int64 { return r.off + int64(r.pos) }

// source is the buffered input both readers decode from: the bytes
// buf[pos:end] are read and not yet consumed.
type source struct {
	r   io.Reader
	buf []byte
	pos int   // next unread byte in buf
	end int   // end of the bytes read into buf
	off int64 // stream offset of buf[0]
	eof bool  // r has reported io.EOF
}

// fill reads at least need more bytes into buf (fewer at the end of the
// input), first moving the unread bytes to its start. It doubles the buffer
// only when the bytes actually read fill it, so its size follows the input
// and never a length the input declares.
func (r *source) fill(need int) error {
	if r.pos > 0 {
		copy(r.buf, r.buf[r.pos:r.end])
		r.off += int64(r.pos)
		r.end -= r.pos
		r.pos = 0
	}
	want := r.end + max(need, 1)
	for stalls := 0; r.end < want && !r.eof; {
		if r.end == len(r.buf) {
			nb := make([]byte, 2*len(r.buf))
			copy(nb, r.buf[:r.end])
			r.buf = nb
		}
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		if err == io.EOF {
			r.eof = true
			break
		}
		if err != nil {
			return err
		}
		if n == 0 {
			if stalls++; stalls == 100 {
				return io.ErrNoProgress
			}
		}
	}
	return nil
}

// fastWindow is how many bytes the fast path needs in the buffer: more
// than the longest event it decodes (a type byte and five 10-byte
// varints), a power of two so that masked indexes need no bounds checks.
const fastWindow = 64

// Read returns the next event. At the end of the trace it returns io.EOF;
// a trace cut inside an event, or short of the size its last batch
// declares, gives an error wrapping io.ErrUnexpectedEOF.
// Errors are sticky.
//
// The Event and its slices belong to the Reader and are valid until the
// next call to Read or Reset; Clone keeps one.
func (r *Reader) Read() (*Event, error) {
	// The common case: an event of plain arguments only, all in the
	// buffer. r.plain is false after an error and before the header.
	pos := r.pos
	if uint(pos)+fastWindow > uint(r.end) || !r.plain {
		return r.readSlow()
	}
	w := (*[fastWindow]byte)(r.buf[pos : pos+fastWindow])
	t := w[0]
	na := r.fast[t] & 7
	if na == 0 {
		return r.readSlow()
	}
	args := r.argBuf[:na-1]
	p := uint(1)
	for i := range args {
		c := w[p&(fastWindow-1)]
		if c < 0x80 {
			args[i] = uint64(c)
			p++
			continue
		}
		if c2 := w[(p+1)&(fastWindow-1)]; c2-1 < 0x7f {
			args[i] = uint64(c&0x7f) | uint64(c2)<<7
			p += 2
			continue
		}
		v, n := varint.Consume(w[p&(fastWindow-1):])
		if n <= 0 || w[(p+uint(n)-1)&(fastWindow-1)] == 0 {
			return r.readSlow() // overflowing or padded: the careful path
		}
		args[i] = v
		p += uint(n)
	}
	r.pos = pos + int(p)
	r.ev.Type = EventType(t)
	r.ev.Args = r.ev.Args[:len(args)] // argBuf already: no pointer to store
	return &r.ev, nil
}

// readSlow reads the events the fast path leaves: those with frames or
// data, with padded varints, near the end of the buffer, or broken.
func (r *Reader) readSlow() (*Event, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.tab == nil {
		return nil, r.setErr(ErrNotOpen)
	}
	if !r.plain {
		r.ev = Event{Version: r.v, Args: r.argBuf[:0]}
		r.plain = true
		if r.pos+fastWindow <= r.end {
			return r.Read()
		}
	}
	for {
		r.need = 1
		if b := r.buf[r.pos:r.end]; len(b) > 0 {
			ev, n, err := r.decode(b)
			if err != nil {
				return nil, r.setErr(&FormatError{Offset: r.off + int64(r.pos), Err: err})
			}
			if n > 0 {
				if ev.Type == EvEventBatch && len(ev.Args) == 4 {
					r.batchAt = r.off + int64(r.pos)
					r.batchEnd = r.batchAt + int64(n) + int64(min(ev.Args[3], 1<<40))
				}
				r.pos += n
				r.ev, r.plain = ev, false
				return &r.ev, nil
			}
		}
		// The event is not all in the buffer.
		if r.eof {
			if r.pos == r.end {
				if at := r.off + int64(r.pos); at < r.batchEnd {
					return nil, r.setErr(&FormatError{Offset: r.batchAt, Err: fmt.Errorf("EventBatch: read %d of its %d bytes: %w", at-r.batchAt, r.batchEnd-r.batchAt, io.ErrUnexpectedEOF)})
				}
				return nil, r.setErr(io.EOF)
			}
			return nil, r.setErr(&FormatError{Offset: r.off + int64(r.pos), Err: fmt.Errorf("%v: %w", EventType(r.buf[r.pos]), io.ErrUnexpectedEOF)})
		}
		if err := r.fill(r.need); err != nil {
			return nil, r.setErr(err)
		}
	}
}

// setErr makes err sticky.
func (r *Reader) setErr(err error) error {
	r.err, r.plain = err, false
	return err
}

var errShort = errors.New("short")

// decode decodes the event at the start of b, recording varint widths.
// It returns n == 0 and no error when b ends inside the event.
func (r *Reader) decode(b []byte) (Event, int, error) {
	t := EventType(b[0])
	k := r.tab.kind[t]
	if k == 0 {
		return Event{}, 0, fmt.Errorf("%w %d in a %v trace", ErrEventType, uint8(t), r.v)
	}
	args, widths := r.args[:0], r.widths[:0]
	padded := false
	p := 1
	next := func() (uint64, error) {
		v, n := varint.Consume(b[p:])
		if n == 0 {
			return 0, errShort
		}
		if n < 0 {
			return 0, fmt.Errorf("%w in %v", ErrOverflow, t)
		}
		if n > 1 && b[p+n-1] == 0 {
			padded = true
		}
		widths = append(widths, uint8(n))
		p += n
		return v, nil
	}
	defer func() { r.args, r.widths = args, widths }()
	hasData := 0
	if k&kData != 0 {
		hasData = 1
	}
	na := int(r.tab.nargs[t])
	for i := 0; i < na; i++ {
		v, err := next()
		if err != nil {
			r.need = na - i + hasData
			return Event{}, 0, shortOK(err)
		}
		args = append(args, v)
	}
	if k&kStack != 0 {
		nf := args[1]
		if nf > uint64(r.maxFrames()) {
			return Event{}, 0, fmt.Errorf("%w: stack of %d frames (limit %d)", ErrTooLarge, nf, r.maxFrames())
		}
		for i := 0; i < 4*int(nf); i++ {
			v, err := next()
			if err != nil {
				r.need = 4*int(nf) - i + hasData
				return Event{}, 0, shortOK(err)
			}
			args = append(args, v)
		}
	}
	var data []byte
	if k&kData != 0 {
		n, err := next()
		if err != nil {
			return Event{}, 0, shortOK(err)
		}
		if n > uint64(r.maxDataLen()) {
			return Event{}, 0, fmt.Errorf("%w: %v data of %d bytes (limit %d)", ErrTooLarge, t, n, r.maxDataLen())
		}
		if n > uint64(len(b)-p) {
			r.need = int(n) - (len(b) - p)
			return Event{}, 0, nil
		}
		if n > 0 {
			data = b[p : p+int(n) : p+int(n)]
		}
		p += int(n)
	}
	ev := Event{Version: r.v, Type: t, Args: args, Data: data}
	if padded {
		ev.Widths = widths
	}
	return ev, p, nil
}

// shortOK turns the "input ends here" signal into no error: the caller
// reads more.
func shortOK(err error) error {
	if err == errShort {
		return nil
	}
	return err
}

func (r *Reader) maxDataLen() int { return limit(r.MaxDataLen, DefaultMaxDataLen) }

func (r *Reader) maxFrames() int { return limit(r.MaxFrames, DefaultMaxFrames) }

// limit returns a limit field's value, or def when it is 0 or less.
func limit(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// All returns an iterator over the remaining events: each event with a nil
// error, then, when reading stops early, the error. Each event is valid
// only until the next iteration.
func (r *Reader) All() iter.Seq2[*Event, error] {
	return all(r.Read)
}

func all(read func() (*Event, error)) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for {
			ev, err := read()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}
