package apitrace

import (
	"errors"
	"fmt"
	"strings"
)

// FormatError reports bad or cut-short input. Offset is the position in the
// decompressed stream where the problem was found; Chunk is the file offset
// of the snappy chunk header or seekable zstd frame that holds that
// position (for gzip, Brotli and plain zstd, whose streams have no chunks,
// it is -1). Err wraps the Brotli or zstd decoder's *FormatError, with its
// offset in the file, when the container does not decode.
type FormatError struct {
	Offset int64
	Chunk  int64
	Err    error
}

func (e *FormatError) Error() string {
	if e == nil {
		return "<nil>"
	}
	msg := "<nil>"
	if e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "apitrace: ")
	}
	if e.Chunk < 0 {
		return fmt.Sprintf("apitrace: offset %d: %s", e.Offset, msg)
	}
	return fmt.Sprintf("apitrace: offset %d (chunk at file offset %d): %s", e.Offset, e.Chunk, msg)
}

func (e *FormatError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

var (
	// ErrHeader reports input that is not an apitrace trace: see
	// ErrContainer, the one way a file fails to be one before its stream
	// is read. (A stream whose version apitrace does not know is
	// ErrVersion.)
	ErrHeader = errors.New("apitrace: not an apitrace trace")
	// ErrContainer reports a file that is in no container apitrace reads:
	// not snappy, gzip or zstd by its first bytes, and not Brotli either.
	// It is the reason a file is refused with ErrHeader, and wraps it:
	// errors.Is(err, ErrHeader) holds for it too.
	ErrContainer = fmt.Errorf("%w: in no container apitrace reads", ErrHeader)
	// ErrVersion reports a stream version above 6, or a semantic version
	// above the stream version.
	ErrVersion = errors.New("apitrace: unsupported trace version")
	// ErrBadEvent reports an event byte other than 0x00 (enter) and 0x01
	// (leave).
	ErrBadEvent = errors.New("apitrace: unknown event")
	// ErrBadDetail reports an unknown call detail or frame detail byte.
	ErrBadDetail = errors.New("apitrace: unknown call detail")
	// ErrBadValue reports an unknown value type byte, or an enum value that
	// is not a typed integer.
	ErrBadValue = errors.New("apitrace: unknown value type")
	// ErrTooLarge reports a length, count, id, nesting depth or chunk size
	// above the Reader's limits.
	ErrTooLarge = errors.New("apitrace: exceeds limit")
	// ErrNonMinimal reports, with Strict, an integer written in more bytes
	// than it needs, which no tracer writes.
	ErrNonMinimal = errors.New("apitrace: integer not in its shortest form")
	// ErrOverflow reports an integer longer than ten bytes.
	ErrOverflow = errors.New("apitrace: integer overflows 64 bits")
	// ErrCorrupt reports a snappy chunk that does not decode.
	ErrCorrupt = errors.New("apitrace: corrupt snappy chunk")
	// ErrInvalid reports an Event, Call or Header a writer refuses: one it
	// cannot encode, or one that would make a stream apitrace misreads (the
	// message says which).
	ErrInvalid = errors.New("apitrace: invalid record")
	// ErrClosed reports a write to a writer after Close.
	ErrClosed = errors.New("apitrace: writer closed")
	// ErrNotOpen reports a method called on a zero Reader, CallReader,
	// Writer or CallWriter before Reset.
	ErrNotOpen = errors.New("apitrace: not open (a zero value before Reset)")
)

// wrapf returns an error wrapping sentinel, its message followed by the
// formatted details.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
