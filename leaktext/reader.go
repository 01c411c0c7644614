package leaktext

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
)

// DefaultMaxLineLen is the longest line a Reader accepts when MaxLineLen
// is 0: 1 MiB. Resolved C++ frames of several hundred bytes are normal.
const DefaultMaxLineLen = 1 << 20

// DefaultMaxFrames is the most frames one backtrace may have when
// MaxFrames is 0.
const DefaultMaxFrames = 1 << 16

// DefaultMaxArgs is the most argument lines one call may have when
// MaxArgs is 0 (sp-rtrace's modules write at most three).
const DefaultMaxArgs = 1 << 12

const minRead = 64 << 10

// binaryHandshake is the first byte of sp-rtrace's binary log.
const binaryHandshake = 0xf0

// Reader reads the records of a report one at a time.
//
// Where the Reader differs from sp-rtrace's reader: it keeps what its text
// parser (sp-rtrace HEAD, shared by sp-rtrace-postproc) loses.
//
//   - An empty header value ("process=, ", which the formatter writes
//     for a process without a name) stops its header parse: pid, backtrace
//     depth and origin are lost. We read every field.
//   - A resource description holding ")" ("fd (file descriptor (see
//     open(2)))") is cut at its first ")" and the type's flags are lost
//     (a refcounted type is then counted as plain). We keep both.
//   - An argument value or attachment path with spaces ("fe80::1%eth0
//     port 22", "/tmp/my file") keeps only its first word; an empty
//     argument value ("$path = ", what the file module writes for a socket
//     without a path) is a comment, and the call's backtrace is then lost.
//     We keep whole values, empty ones too.
//   - It splits lines longer than 4095 bytes into stray comments; we read
//     them whole (up to MaxLineLen).
//
// A zero Reader is usable after Reset; before that every method returns
// ErrNotOpen. Set the fields before the first Read.
type Reader struct {
	// MaxLineLen is the longest line accepted, without its line ending;
	// 0 means DefaultMaxLineLen. A longer line is an ErrTooLarge.
	MaxLineLen int
	// MaxFrames is the most frames one backtrace may have; 0 means
	// DefaultMaxFrames. More is an ErrTooLarge.
	MaxFrames int
	// MaxArgs is the most argument lines one call may have; 0 means
	// DefaultMaxArgs. More is an ErrTooLarge.
	MaxArgs int
	// Strict also refuses what sp-rtrace's formatter never writes: lines
	// that look like a call, an argument or a frame but do not parse
	// (ErrSyntax, ErrOverflow), argument or frame lines with no call
	// before them (ErrOrphan), and backtraces deeper than the header's
	// "backtrace depth" (ErrDepth). Without it such lines are comments
	// (or an orphan KindTrace, or kept), as for the real reader.
	Strict bool

	hdr      Header
	depth    int // the header's backtrace depth, -1 when it sets none
	rec      Record
	r        io.Reader
	buf      []byte
	pos      int   // start of unread data
	end      int   // end of data
	ends     []int // ends of lines found, relative to where consumed was 0
	e0       int   // first line of ends not yet consumed
	consumed int   // bytes consumed since ends was started
	stopped  bool  // the scan for continuation lines reached a line that is none
	line     int   // lines consumed
	rdErr    error
	err      error
	open     bool // a call group waits for its backtrace
	args     []Arg
	frames   []Frame
}

// NewReader returns a Reader that has read the report's header line.
func NewReader(r io.Reader) (*Reader, error) {
	rd := new(Reader)
	if err := rd.Reset(r); err != nil {
		return nil, err
	}
	return rd, nil
}

// Reset makes rd read a new report from r, keeping its buffers and
// settings, and reads the header line. A nil r leaves rd not open
// (ErrNotOpen).
func (rd *Reader) Reset(r io.Reader) error {
	rd.r = r
	rd.pos, rd.end, rd.line = 0, 0, 0
	rd.ends, rd.e0, rd.consumed, rd.stopped = rd.ends[:0], 0, 0, false
	rd.rdErr, rd.err = nil, nil
	rd.open = false
	rd.hdr = Header{}
	rd.depth = -1
	rd.rec = Record{}
	if r == nil {
		rd.err = ErrNotOpen
		return ErrNotOpen
	}
	if rd.buf == nil {
		rd.buf = make([]byte, minRead)
	}
	// The first read tells a report from other data, before the line's
	// end is sought: a file that is no report may have no line end for
	// megabytes. (An input that ends here is lineAt's to report.)
	rd.fill()
	if head := rd.buf[rd.pos:rd.end]; len(head) > 0 && head[0] == binaryHandshake {
		return rd.fail(1, ErrBinary)
	} else if k := min(len(head), len(headerStart)); !bytes.Equal(head[:k], headerStart[:k]) {
		return rd.fail(1, fmt.Errorf("%w: it starts %q", ErrHeader, head[:min(len(head), 16)]))
	}
	n, err := rd.lineAt(0)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return rd.fail(1, err)
	}
	raw := rd.buf[rd.pos : rd.pos+n]
	line := raw
	crlf := false
	if len(line) > 0 && line[len(line)-1] == '\r' {
		crlf = true
		line = line[:len(line)-1]
	}
	if !formatterHeader(line) {
		rd.hdr = Header{}
		return rd.fail(1, fmt.Errorf("%w: it starts %q", ErrHeader, line[:min(len(line), 16)]))
	}
	rd.hdr = parseHeader(line)
	rd.hdr.CRLF = crlf
	rd.depth = rd.hdr.depth()
	rd.pos += n + 1
	rd.line = 1
	return nil
}

// Header returns the report's header line, read by NewReader or Reset.
// It is the caller's: the Reader does not change it.
func (rd *Reader) Header() Header { return rd.hdr }

func (rd *Reader) fail(line int, err error) error {
	var se *SyntaxError
	if !errors.As(err, &se) {
		err = &SyntaxError{Line: line, Err: err}
	}
	rd.err = err
	return err
}

func (rd *Reader) maxLine() int {
	if rd.MaxLineLen > 0 {
		return rd.MaxLineLen
	}
	return DefaultMaxLineLen
}

// fill reads more input, moving unread data to the front of the buffer
// or growing it as data arrives. It returns false at the end of input.
func (rd *Reader) fill() bool {
	if rd.rdErr != nil {
		return false
	}
	if rd.end == len(rd.buf) {
		if rd.pos > 0 {
			copy(rd.buf, rd.buf[rd.pos:rd.end])
			rd.end -= rd.pos
			rd.pos = 0
		} else {
			nb := make([]byte, 2*len(rd.buf))
			copy(nb, rd.buf[:rd.end])
			rd.buf = nb
		}
	}
	for tries := 0; tries < 100; tries++ {
		n, err := rd.r.Read(rd.buf[rd.end:])
		rd.end += n
		if err != nil {
			rd.rdErr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	rd.rdErr = io.ErrNoProgress
	return false
}

// lineAt finds the line starting at offset off from rd.pos and returns
// its length without the "\n". The buffer may move; offsets from rd.pos
// stay valid. A line cut by the end of input is io.ErrUnexpectedEOF; no
// line at all is io.EOF (or the read error).
func (rd *Reader) lineAt(off int) (int, error) {
	scanned := 0
	max := rd.maxLine()
	for {
		start := rd.pos + off
		if i := bytes.IndexByte(rd.buf[start+scanned:rd.end], '\n'); i >= 0 {
			n := scanned + i
			if n > max+1 || (n == max+1 && rd.buf[start+n-1] != '\r') {
				return 0, rd.lineTooLong()
			}
			return n, nil
		}
		scanned = rd.end - start
		if scanned > max+1 {
			return 0, rd.lineTooLong()
		}
		if !rd.fill() {
			start = rd.pos + off
			if rd.end > start {
				if rd.rdErr == io.EOF {
					return 0, io.ErrUnexpectedEOF
				}
				return 0, rd.rdErr
			}
			return 0, rd.rdErr
		}
	}
}

func (rd *Reader) lineTooLong() error {
	return fmt.Errorf("%w: a line longer than MaxLineLen (%d bytes)", ErrTooLarge, rd.maxLine())
}

// content strips a line's "\r" in a CRLF report.
func (rd *Reader) content(b []byte, lineNo int) ([]byte, error) {
	if !rd.hdr.CRLF {
		return b, nil
	}
	if len(b) == 0 || b[len(b)-1] != '\r' {
		return nil, &SyntaxError{Line: lineNo, Err: ErrLineEnding}
	}
	return b[:len(b)-1], nil
}

func (rd *Reader) maxFrames() int {
	if rd.MaxFrames > 0 {
		return rd.MaxFrames
	}
	return DefaultMaxFrames
}

func (rd *Reader) maxArgs() int {
	if rd.MaxArgs > 0 {
		return rd.MaxArgs
	}
	return DefaultMaxArgs
}

// Read returns the next record. At the end of the report it returns
// io.EOF. The record belongs to the Reader: it and every slice in it are
// valid until the next call to Read or Reset (Record.Clone keeps one).
// A last line without its line ending is a cut report: a *SyntaxError
// wrapping io.ErrUnexpectedEOF. Errors are sticky.
func (rd *Reader) Read() (*Record, error) {
	if rd.err != nil {
		return nil, rd.err
	}
	if rd.r == nil {
		return nil, ErrNotOpen
	}
	first := rd.line + 1
	if rd.e0 == len(rd.ends) {
		rd.ends, rd.e0, rd.consumed, rd.stopped = rd.ends[:0], 0, 0, false
		n, err := rd.lineAt(0)
		if err != nil {
			if err == io.EOF {
				rd.err = io.EOF
				return nil, io.EOF
			}
			return nil, rd.fail(first, err)
		}
		rd.ends = append(rd.ends, n)
	}
	n := rd.ends[rd.e0] - rd.consumed
	// Find the continuation lines (starting with a tab) that may belong to
	// this record, before slicing anything: the buffer may still move.
	// Line ends found once are kept, so each line is scanned once however
	// the lines then split into records. One line more than the limits
	// allow is enough to tell that a record breaks them.
	if n > 0 && !rd.stopped && (rd.buf[rd.pos] == '\t' || rd.buf[rd.pos]-'0' < 10) {
		for len(rd.ends)-rd.e0 <= rd.maxFrames()+rd.maxArgs()+1 {
			off := rd.ends[len(rd.ends)-1] + 1 - rd.consumed
			m, err := rd.lineAt(off)
			if err != nil || m == 0 || rd.buf[rd.pos+off] != '\t' {
				rd.stopped = true
				break
			}
			rd.ends = append(rd.ends, off+m+rd.consumed)
		}
	}
	line, err := rd.content(rd.buf[rd.pos:rd.pos+n], first)
	if err != nil {
		return nil, rd.fail(first, err)
	}
	rec := &rd.rec
	*rec = Record{}
	used, err := rd.parse(rec, line, first)
	if err != nil {
		return nil, rd.fail(first, err)
	}
	if used == 0 {
		used = 1
	}
	adv := rd.ends[rd.e0+used-1] + 1 - rd.consumed
	rd.pos += adv
	rd.consumed += adv
	rd.e0 += used
	rd.line += used
	return rec, nil
}

// continuation returns the i-th continuation line of the current record.
func (rd *Reader) continuation(i int) []byte {
	start := rd.ends[rd.e0+i-1] + 1 - rd.consumed
	return rd.buf[rd.pos+start : rd.pos+rd.ends[rd.e0+i]-rd.consumed]
}

func (rd *Reader) parse(rec *Record, line []byte, lineNo int) (int, error) {
	rec.Line = lineNo
	switch {
	case len(line) == 0:
		rec.Kind = KindBlank
		rd.open = false
		return 1, nil
	case line[0] == '\t':
		var f Frame
		var a Arg
		r1 := parseFrame(line, &f)
		r2 := notRecord
		if r1 == notRecord {
			r2 = parseArg(line, &a)
		}
		if r1 == okRecord || r2 == okRecord {
			if !rd.open && rd.Strict {
				return 0, ErrOrphan
			}
			rec.Kind = KindTrace
			rd.args, rd.frames = rd.args[:0], rd.frames[:0]
			used, err := rd.tail(0, line, lineNo)
			if err != nil {
				return 0, err
			}
			rec.Call.Args, rec.Call.Frames = rd.args, rd.frames
			return used, nil
		}
		if err := rd.strictErr(max(r1, r2)); err != nil {
			return 0, err
		}
	case line[0]-'0' < 10:
		c := &rec.Call
		res := parseCall(line, c)
		if res == wideRecord {
			if rd.Strict {
				return 0, ErrOverflow
			}
			res = okRecord
		}
		switch res {
		case okRecord:
			rec.Kind = KindCall
			rd.open = true
			rd.args, rd.frames = rd.args[:0], rd.frames[:0]
			used, err := rd.tail(1, nil, lineNo)
			if err != nil {
				return 0, err
			}
			c.Args, c.Frames = rd.args, rd.frames
			return used, nil
		default:
			if err := rd.strictErr(res); err != nil {
				return 0, err
			}
			*c = Call{}
		}
	case line[0] == ':' && parseMap(line, &rec.Map):
		return rd.single(rec, KindMemoryMap)
	case line[0] == '@' && parseContext(line, &rec.Context):
		return rd.single(rec, KindContext)
	case line[0] == '<' && parseResource(line, &rec.Resource):
		return rd.single(rec, KindResource)
	case line[0] == '&' && parseAttachment(line, &rec.Attachment):
		return rd.single(rec, KindAttachment)
	}
	rec.Kind = KindComment
	rec.Text = line
	if !rec.Temporary() {
		rd.open = false
	}
	return 1, nil
}

// single ends parse for a one-line registry record.
func (rd *Reader) single(rec *Record, k Kind) (int, error) {
	rec.Kind = k
	rd.open = false
	return 1, nil
}

// strictErr is the error a line that looks like a record but is not one
// makes in Strict mode.
func (rd *Reader) strictErr(res parseResult) error {
	if !rd.Strict {
		return nil
	}
	switch res {
	case badRange:
		return ErrOverflow
	case badRecord:
		return ErrSyntax
	}
	return nil
}

// tail collects argument lines, then frame lines, starting with the
// continuation line i (or with line itself when i is 0). It returns how
// many lines the record uses.
func (rd *Reader) tail(i int, line []byte, lineNo int) (int, error) {
	framesSeen := false
	for {
		if i > 0 {
			if rd.e0+i >= len(rd.ends) {
				return i, nil
			}
			var err error
			line, err = rd.content(rd.continuation(i), lineNo+i)
			if err != nil {
				return 0, err
			}
		}
		var f Frame
		switch res := parseFrame(line, &f); res {
		case okRecord:
			if err := rd.checkDepth(); err != nil {
				return 0, &SyntaxError{Line: lineNo + i, Err: err}
			}
			rd.frames = append(rd.frames, f)
			framesSeen = true
			i++
			continue
		case badRange, badRecord:
			if err := rd.strictErr(res); err != nil {
				return 0, &SyntaxError{Line: lineNo + i, Err: err}
			}
			return max(i, 1), nil
		}
		var a Arg
		switch parseArg(line, &a) {
		case okRecord:
			if framesSeen {
				return i, nil // arguments after frames start a trace record
			}
			if len(rd.args) >= rd.maxArgs() {
				return 0, &SyntaxError{Line: lineNo + i, Err: fmt.Errorf("%w: more than MaxArgs (%d) arguments in one call", ErrTooLarge, rd.maxArgs())}
			}
			rd.args = append(rd.args, a)
			i++
			continue
		case badRecord:
			if err := rd.strictErr(badRecord); err != nil {
				return 0, &SyntaxError{Line: lineNo + i, Err: err}
			}
		}
		return max(i, 1), nil
	}
}

// checkDepth is the error, if any, of one frame more in the backtrace
// being read.
func (rd *Reader) checkDepth() error {
	n := len(rd.frames)
	if n >= rd.maxFrames() {
		return fmt.Errorf("%w: more than MaxFrames (%d) frames in one backtrace", ErrTooLarge, rd.maxFrames())
	}
	if rd.Strict && rd.depth >= 0 && n >= rd.depth {
		return ErrDepth
	}
	return nil
}

// All returns an iterator over the remaining records, as Read returns
// them (each valid until the iteration goes on); it stops after the
// first error, which it yields, and at io.EOF, which it does not.
func (rd *Reader) All() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for {
			rec, err := rd.Read()
			if err == io.EOF {
				return
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}
