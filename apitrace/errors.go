package apitrace

import (
	"errors"
	"fmt"
)

// FormatError reports bad or cut-short input. Offset is the position in the
// decompressed stream where the problem was found; Chunk is the file offset
// of the snappy chunk header that holds that position (for gzip, whose
// stream has no chunks, it is -1).
type FormatError struct {
	Offset int64
	Chunk  int64
	Err    error
}

func (e *FormatError) Error() string {
	if e.Chunk < 0 {
		return fmt.Sprintf("apitrace: offset %d: %v", e.Offset, e.Err)
	}
	return fmt.Sprintf("apitrace: offset %d (chunk at file offset %d): %v", e.Offset, e.Chunk, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

var (
	// ErrContainer reports a container this package does not read (Brotli,
	// zstd) or a file that is no trace at all. The message says how to
	// convert it.
	ErrContainer = errors.New("unsupported container")
	// ErrVersion reports a stream version above 6, or a semantic version
	// above the stream version.
	ErrVersion = errors.New("unsupported trace version")
	// ErrEvent reports an event byte other than 0x00 (enter) and 0x01 (leave).
	ErrEvent = errors.New("unknown event")
	// ErrDetail reports an unknown call detail or frame detail byte.
	ErrDetail = errors.New("unknown call detail")
	// ErrValue reports an unknown value type byte, or an enum value that is
	// not a typed integer.
	ErrValue = errors.New("unknown value type")
	// ErrTooLarge reports a length, count, id, nesting depth or chunk size
	// above the Reader's limits.
	ErrTooLarge = errors.New("exceeds limit")
	// ErrOverflow reports an integer longer than ten bytes.
	ErrOverflow = errors.New("integer overflows 64 bits")
	// ErrCorrupt reports a snappy chunk that does not decode.
	ErrCorrupt = errors.New("corrupt snappy chunk")
	// ErrWrite reports an Event or Header the Writer cannot encode (see its
	// message).
	ErrWrite = errors.New("cannot encode")
)

func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
