package leaktext

import (
	"errors"
	"fmt"
)

// SyntaxError reports a problem at a line of a report. Line is 1-based.
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("leaktext: line %d: %v", e.Line, e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

var (
	// ErrLineTooLong means a line is longer than Reader.MaxLineLen.
	ErrLineTooLong = errors.New("line too long")
	// ErrTooManyLines means a call or trace record has more argument or
	// frame lines than Reader.MaxFrames.
	ErrTooManyLines = errors.New("too many argument or frame lines in one record")
	// ErrLineEnding means a report whose header ends in CRLF has a line
	// ending in a bare LF.
	ErrLineEnding = errors.New("line ending differs from the header's CRLF")
	// ErrSyntax means (with Reader.Strict) that a line looks like a call,
	// an argument or a frame but does not parse.
	ErrSyntax = errors.New("malformed record")
	// ErrRange means (with Reader.Strict) that a number in a call or frame
	// line does not fit its field.
	ErrRange = errors.New("number out of range")
	// ErrOrphan means (with Reader.Strict) that argument or frame lines
	// appear where no call line is waiting for them.
	ErrOrphan = errors.New("arguments or frames without a preceding call")
	// ErrBinary means the input starts with the handshake byte (0xf0) of
	// sp-rtrace's binary log, which sp-rtrace-postproc turns into a text
	// report; the real tool tells the two apart by that first byte too.
	ErrBinary = errors.New("binary sp-rtrace log, not a text report (convert it with sp-rtrace-postproc -i FILE)")
	// ErrWriter means a record given to Writer.Write cannot be written
	// as a line that reads back as the same record.
	ErrWriter = errors.New("record cannot be written")
)
