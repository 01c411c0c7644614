package cbf

import (
	"errors"
	"strconv"
)

// FormatError reports input that is not valid CBF or image map data, with
// the byte offset of the offending byte in the stream.
type FormatError struct {
	Offset int64
	Err    error
}

func (e *FormatError) Error() string {
	if e == nil {
		return "<nil>"
	}
	msg := "invalid data"
	if e.Err != nil {
		msg = trimPrefix(e.Err.Error())
	}
	return "cbf: offset " + strconv.FormatInt(e.Offset, 10) + ": " + msg
}

func (e *FormatError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

func trimPrefix(s string) string {
	if len(s) > 5 && s[:5] == "cbf: " {
		return s[5:]
	}
	return s
}

// The errors a FormatError wraps, besides io.ErrUnexpectedEOF for data
// cut short.
var (
	// ErrHeader means the first byte of a stream is no info byte Swift
	// writes (a version other than 0, or the reserved word size): CBF has
	// no file header, so that byte is what tells CBF data from other
	// bytes. The error wraps ErrVersion or ErrWordSize too, saying which.
	ErrHeader = errors.New("cbf: not CBF data")
	// ErrVersion means an info byte names a version other than 0.
	ErrVersion = errors.New("cbf: unsupported version")
	// ErrWordSize means an info byte has the reserved size 3 (or, wrapped
	// in ErrInvalid, a writer was given a word size other than 16, 32 or
	// 64).
	ErrWordSize = errors.New("cbf: reserved word size")
	// ErrOpcode means a reserved instruction (02-0f, 90-ff).
	ErrOpcode = errors.New("cbf: reserved instruction")
	// ErrNoFrame means a rep instruction, or a Repeat frame given to a
	// writer, with no frame before it to repeat.
	ErrNoFrame = errors.New("cbf: rep with no previous frame")
	// ErrOperand means an address operand longer than the word size.
	ErrOperand = errors.New("cbf: operand longer than the word")
	// ErrOverflow means an omit or rep count that does not fit in 63 bits,
	// the range of Swift's Int, or an image map count beyond 64 bits.
	ErrOverflow = errors.New("cbf: count overflows")
	// ErrCount means a rep count of 0, or an Omitted or Repeat frame with
	// count 0 given to a writer, which Swift's encoder cannot write.
	ErrCount = errors.New("cbf: zero count")
	// ErrTooLarge means a limit was exceeded: Reader.MaxFrames,
	// Reader.MaxRepeat, or an image map limit.
	ErrTooLarge = errors.New("cbf: exceeds limit")
	// ErrRange means an image whose end of text is not above its base.
	ErrRange = errors.New("cbf: end of text not above base")
	// ErrPath means an image path that does not decode: an unknown prefix
	// code or one beyond 32 bits.
	ErrPath = errors.New("cbf: bad path")
	// ErrUTF8 means a platform or path that is not valid UTF-8, which
	// Swift's decoder rejects.
	ErrUTF8 = errors.New("cbf: invalid UTF-8")
)

// The errors of writers and of the Reader's and Writer's state.
var (
	// ErrInvalid means a writer refused a record (or image map) it cannot
	// encode so that Swift's decoder reads back what it was given: an
	// address wider than the word, a count of 0 or beyond 63 bits, an
	// unknown frame kind, a frame after Truncated or outside Begin and
	// End. The error also wraps the more specific reason where this
	// package has a sentinel for it (ErrCount, ErrOverflow, ErrWordSize…).
	ErrInvalid = errors.New("cbf: invalid record")
	// ErrClosed means a Writer was used after Close.
	ErrClosed = errors.New("cbf: writer closed")
	// ErrNotOpen means a zero Reader or Writer was used before Reset (or
	// after Reset with a nil io.Reader or io.Writer).
	ErrNotOpen = errors.New("cbf: not open")
)

// invalidError is what a writer refuses a record with: ErrInvalid and
// the reason.
type invalidError struct{ why error }

func (e *invalidError) Error() string {
	return ErrInvalid.Error() + ": " + trimPrefix(e.why.Error())
}

func (e *invalidError) Unwrap() []error { return []error{ErrInvalid, e.why} }

// The reasons a writer refuses a record.
var (
	errAddr      = errors.New("cbf: address does not fit the word size")
	errKind      = errors.New("cbf: bad frame kind")
	errState     = errors.New("cbf: no open record")
	errOpen      = errors.New("cbf: a record begun is not ended (End it first)")
	errOrder     = errors.New("cbf: frame after Truncated")
	errLong      = errors.New("cbf: longer than the format or Swift's decoder takes")
	errNilRecord = errors.New("cbf: nil record")
	errFrames    = errors.New("cbf: more frames than a Reader collects into a record (DefaultMaxFrames)")

	invalidWord     = &invalidError{ErrWordSize}
	invalidAddr     = &invalidError{errAddr}
	invalidKind     = &invalidError{errKind}
	invalidState    = &invalidError{errState}
	invalidOpen     = &invalidError{errOpen}
	invalidOrder    = &invalidError{errOrder}
	invalidCount    = &invalidError{ErrCount}
	invalidOverflow = &invalidError{ErrOverflow}
	invalidNoFrame  = &invalidError{ErrNoFrame}
	invalidRange    = &invalidError{ErrRange}
	invalidUTF8     = &invalidError{ErrUTF8}
	invalidLong     = &invalidError{errLong}
	invalidFrames   = &invalidError{errFrames}
)

// headerError is how a Reader refuses a stream whose first info byte is
// bad: ErrHeader, and why (ErrVersion or ErrWordSize).
type headerError struct {
	info byte
	why  error
}

func (e *headerError) Error() string {
	const hex = "0123456789abcdef"
	return ErrHeader.Error() + ": info byte 0x" + string([]byte{hex[e.info>>4], hex[e.info&15]}) + ": " + trimPrefix(e.why.Error())
}

func (e *headerError) Unwrap() []error { return []error{ErrHeader, e.why} }
