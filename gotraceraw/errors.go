package gotraceraw

import (
	"errors"
	"strconv"
	"strings"
)

// The errors the readers and writers return, wrapped in a FormatError or
// SyntaxError when they come from the input, besides io.ErrUnexpectedEOF
// (the input ends inside a header or an event).
var (
	// ErrHeader means the input does not start with a Go trace header:
	// exactly "go 1.NN trace" padded with NUL bytes to 16, or the text
	// line "Trace Go1.NN".
	ErrHeader = errors.New("gotraceraw: not a Go execution trace header")
	// ErrVersion means a version this package does not know (Go 1.24
	// writes Go1.23; there is no Go1.24 header).
	ErrVersion = errors.New("gotraceraw: unsupported trace version")
	// ErrV1 means the header names a Go 1.5–1.21 trace, whose v1 format
	// this package does not read: use golang.org/x/exp/trace, or record
	// again with Go 1.22 or later.
	ErrV1 = errors.New("gotraceraw: v1 trace format (Go 1.5–1.21) is not supported at the raw level")
	// ErrEventType means an event type (byte or text name) that the
	// trace's version does not have.
	ErrEventType = errors.New("gotraceraw: unknown event type")
	// ErrTooLarge means a data length, a frame count or a text line beyond
	// the reader's limit.
	ErrTooLarge = errors.New("gotraceraw: beyond the reader's limit")
	// ErrOverflow means a varint longer than ten bytes or above 2^64-1.
	ErrOverflow = errors.New("gotraceraw: varint overflows 64 bits")
	// ErrSyntax means a text line that is not an event, a frame or a data
	// line of the expected form.
	ErrSyntax = errors.New("gotraceraw: malformed text")
	// ErrInvalid means a writer refused an event: it does not fit its type
	// or the trace's version, Go's trace parser would misread the file it
	// makes (an event outside a batch, a batch over 64 KiB), or, with a
	// Validator, the checks or the Validator refused it or its generation.
	ErrInvalid = errors.New("gotraceraw: invalid event")
	// ErrClosed means a Writer or TextWriter was used after Close.
	ErrClosed = errors.New("gotraceraw: writer closed")
	// ErrNotOpen means a reader or writer was used before a successful
	// Reset (or constructor).
	ErrNotOpen = errors.New("gotraceraw: not open")
)

// FormatError reports a problem in a binary trace at a byte offset: the
// offset of the header or of the event that failed.
type FormatError struct {
	Offset int64
	Err    error
}

func (e *FormatError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return "gotraceraw: offset " + strconv.FormatInt(e.Offset, 10) + ": " + trimPrefix(e.Err)
}

func (e *FormatError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// SyntaxError reports a problem in a text trace at a line (counting from 1,
// blank and comment lines included).
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return "gotraceraw: line " + strconv.Itoa(e.Line) + ": " + trimPrefix(e.Err)
}

func (e *SyntaxError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// trimPrefix returns err's message without the package name, which the
// caller prints once.
func trimPrefix(err error) string {
	if err == nil {
		return "unknown error"
	}
	return strings.TrimPrefix(err.Error(), "gotraceraw: ")
}
