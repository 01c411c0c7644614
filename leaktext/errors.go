package leaktext

import (
	"errors"
	"fmt"
	"strings"
)

// SyntaxError reports a problem at a line of a report. Line is 1-based.
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string {
	if e == nil {
		return "<nil>"
	}
	msg := "<nil>"
	if e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "leaktext: ")
	}
	return fmt.Sprintf("leaktext: line %d: %s", e.Line, msg)
}

func (e *SyntaxError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

var (
	// ErrTooLarge means a line is longer than Reader.MaxLineLen, a
	// backtrace has more frames than Reader.MaxFrames, or a call has more
	// argument lines than MaxArgs.
	ErrTooLarge = errors.New("leaktext: too large")
	// ErrOverflow means (with Reader.Strict) that a number in a call or
	// frame line does not fit the field the real reader keeps it in: an
	// index, size or timestamp beyond 32 bits, an id or address beyond 64.
	ErrOverflow = errors.New("leaktext: number out of range")
	// ErrLineEnding means a report whose header ends in CRLF has a line
	// ending in a bare LF.
	ErrLineEnding = errors.New("leaktext: line ending differs from the header's CRLF")
	// ErrSyntax means (with Reader.Strict) that a line looks like a call,
	// an argument or a frame but does not parse.
	ErrSyntax = errors.New("leaktext: malformed record")
	// ErrOrphan means (with Reader.Strict) that argument or frame lines
	// appear where no call line is waiting for them.
	ErrOrphan = errors.New("leaktext: arguments or frames without a preceding call")
	// ErrDepth means (with Reader.Strict) that a backtrace has more frames
	// than the header's "backtrace depth".
	ErrDepth = errors.New("leaktext: more frames than the header's backtrace depth")
	// ErrHeader means the first line is no header sp-rtrace's formatter
	// writes: "version=" and a protocol version ("2.0") followed by ", "
	// or the end of the line. Every report of every sp-rtrace release
	// starts so; a file that does not is no report.
	ErrHeader = errors.New("leaktext: not an sp-rtrace text report")
	// ErrBinary means the input starts with the handshake byte (0xf0) of
	// sp-rtrace's binary log, which sp-rtrace-postproc turns into a text
	// report; the real tool tells the two apart by that first byte too.
	// It wraps ErrHeader: errors.Is(err, ErrHeader) holds for it too.
	ErrBinary = fmt.Errorf("%w: a binary sp-rtrace log (convert it with sp-rtrace-postproc -i FILE)", ErrHeader)
	// ErrInvalid means the Writer refuses a header or record: its lines
	// would not read back as the same record, or the real reader would
	// misread them (the message says which).
	ErrInvalid = errors.New("leaktext: invalid record")
	// ErrClosed means a Writer was used after Close.
	ErrClosed = errors.New("leaktext: writer closed")
	// ErrNotOpen means a method was called on a zero Reader or Writer
	// before Reset, or Reset was given a nil reader or writer.
	ErrNotOpen = errors.New("leaktext: not open (use NewReader, NewWriter or Reset)")
)

// invalid returns an ErrInvalid error with the details.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}
