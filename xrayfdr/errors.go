package xrayfdr

import (
	"errors"
	"strconv"
	"strings"
)

// FormatError reports a log that cannot be read. Err is one of the
// sentinels below (possibly wrapped with detail) or io.ErrUnexpectedEOF.
type FormatError struct {
	Offset int64 // byte offset of the offending record (or of the cut)
	Err    error
	// LLVM is what llvm-xray-14 fdr-dump reports on the same input, line
	// by line ("" when it has nothing to say or accepts the input).
	LLVM string
}

func (e *FormatError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return "xrayfdr: offset " + strconv.FormatInt(e.Offset, 10) + ": " + errText(e.Err)
}

func (e *FormatError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// errText is err's message without the package prefix, so that an error
// names the package once.
func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return strings.TrimPrefix(err.Error(), "xrayfdr: ")
}

// Sentinel errors carried by FormatError.Err.
var (
	// ErrHeader means the first 32 bytes are no header an XRay runtime
	// writes (a type other than basic and FDR, version 0, a cycle
	// frequency no CPU has): the input is not an XRay log.
	ErrHeader = errors.New("xrayfdr: bad file header")
	// ErrVersion means a log version or type llvm-xray does not read
	// (FDR 1 to 5, basic 1 to 3).
	ErrVersion = errors.New("xrayfdr: unsupported log version")
	// ErrMetadataKind means a metadata record of kind 10 or more (with
	// Reader.Strict, also a kind the log's version never held).
	ErrMetadataKind = errors.New("xrayfdr: bad metadata record kind")
	// ErrEndOfBuffer means an EndOfBuffer record in a log of version 2 or more.
	ErrEndOfBuffer = errors.New("xrayfdr: end of buffer record after version 1")
	// ErrAction means a function record with an action other than 0..3
	// (or a basic-mode entry type other than 0..3).
	ErrAction = errors.New("xrayfdr: bad function record action")
	// ErrEventSize means a custom or typed event whose size is not positive.
	ErrEventSize = errors.New("xrayfdr: bad event size")
	// ErrOverRead means a record that runs past its buffer's extents.
	ErrOverRead = errors.New("xrayfdr: record crosses the buffer extents")
	// ErrNoExtents means bytes after a buffer with no BufferExtents record
	// among them.
	ErrNoExtents = errors.New("xrayfdr: no buffer extents record in trailing bytes")
	// ErrBasicRecord means a basic-mode record of a type other than 0 or 1.
	ErrBasicRecord = errors.New("xrayfdr: bad basic-mode record type")
	// ErrArgMismatch means a basic-mode argument record that does not follow
	// a record of the same function, thread and process.
	ErrArgMismatch = errors.New("xrayfdr: argument record does not match its function record")
	// ErrTooLarge means a size beyond the Reader's limits.
	ErrTooLarge = errors.New("xrayfdr: size beyond limit")
	// ErrOverflow means a number that does not fit where it goes (with
	// Reader.Strict, a buffer extents count of 4 GiB or more).
	ErrOverflow = errors.New("xrayfdr: number out of range")
	// ErrTransition means a record the block state machine does not allow
	// where it stands (Verify).
	ErrTransition = errors.New("xrayfdr: invalid record order in block")
	// ErrTerminal means a block that ends in a state where it may not.
	ErrTerminal = errors.New("xrayfdr: block ends in an invalid state")
	// ErrInvalid means a record a Writer refuses: a value that does not
	// fit its field, or a record that would make llvm-xray misread the log.
	ErrInvalid = errors.New("xrayfdr: invalid record")
	// ErrClosed means a Writer used after Close.
	ErrClosed = errors.New("xrayfdr: writer closed")
	// ErrNotOpen means a zero Reader or Writer used before Reset.
	ErrNotOpen = errors.New("xrayfdr: not open")
)

// SyntaxError reports a malformed line in a text input (an
// instrumentation map).
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return "xrayfdr: line " + strconv.Itoa(e.Line) + ": " + errText(e.Err)
}

func (e *SyntaxError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// errNilFunc is what a function given a nil callback returns: a caller's
// mistake, not bad input.
var errNilFunc = errors.New("xrayfdr: nil function argument")
