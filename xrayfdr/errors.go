package xrayfdr

import (
	"errors"
	"strconv"
)

// FormatError reports a log that cannot be read, or a record a Writer
// refuses. Err is one of the sentinels below or io.ErrUnexpectedEOF.
type FormatError struct {
	Offset int64 // byte offset of the offending record (or of the cut)
	Err    error
	// LLVM is what llvm-xray-14 fdr-dump reports on the same input, line
	// by line ("" when it has nothing to say or accepts the input).
	LLVM string
}

func (e *FormatError) Error() string {
	return "xrayfdr: offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Err.Error()
}

func (e *FormatError) Unwrap() error { return e.Err }

// Sentinel errors carried by FormatError.Err.
var (
	// ErrHeader means the file header is unusable (Writer: a version or
	// type it cannot write).
	ErrHeader = errors.New("bad file header")
	// ErrMetadataKind means a metadata record of kind 10 or more.
	ErrMetadataKind = errors.New("bad metadata record kind")
	// ErrEndOfBuffer means an EndOfBuffer record in a log of version 2 or more.
	ErrEndOfBuffer = errors.New("end of buffer record after version 1")
	// ErrAction means a function record with an action other than 0..3
	// (or a basic-mode entry type other than 0..3).
	ErrAction = errors.New("bad function record action")
	// ErrEventSize means a custom or typed event whose size is not positive.
	ErrEventSize = errors.New("bad event size")
	// ErrOverRead means a record that runs past its buffer's extents.
	ErrOverRead = errors.New("record crosses the buffer extents")
	// ErrNoExtents means bytes after a buffer with no BufferExtents record
	// among them.
	ErrNoExtents = errors.New("no buffer extents record in trailing bytes")
	// ErrBasicRecord means a basic-mode record of a type other than 0 or 1.
	ErrBasicRecord = errors.New("bad basic-mode record type")
	// ErrArgMismatch means a basic-mode argument record that does not follow
	// a record of the same function, thread and process.
	ErrArgMismatch = errors.New("argument record does not match its function record")
	// ErrTooLarge means a size beyond the Reader's limits.
	ErrTooLarge = errors.New("size beyond limit")
	// ErrTransition means a record the block state machine does not allow
	// where it stands (Verify).
	ErrTransition = errors.New("invalid record order in block")
	// ErrTerminal means a block that ends in a state where it may not.
	ErrTerminal = errors.New("block ends in an invalid state")
	// ErrField means a Writer was given a value that does not fit its field.
	ErrField = errors.New("value does not fit its field")
)

// SyntaxError reports a malformed line in a text input (an
// instrumentation map).
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string {
	return "xrayfdr: line " + strconv.Itoa(e.Line) + ": " + e.Err.Error()
}

func (e *SyntaxError) Unwrap() error { return e.Err }
