package brotli

import (
	"errors"
	"fmt"
	"strings"
)

// FormatError reports a stream that is not valid Brotli, or one cut short.
// Offset is the position in the compressed input (bytes from the start of
// the stream) where the problem was found.
type FormatError struct {
	Offset int64
	Err    error
}

func (e *FormatError) Error() string {
	if e == nil {
		return "<nil>"
	}
	msg := "<nil>"
	if e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "brotli: ")
	}
	return fmt.Sprintf("brotli: offset %d: %s", e.Offset, msg)
}

func (e *FormatError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

var (
	// ErrHeader reports a stream header with a reserved window size,
	// including the large-window extension, which RFC 7932 does not
	// define and this package does not read.
	ErrHeader = errors.New("brotli: invalid stream header")
	// ErrTooLarge reports a stream whose window is larger than the
	// Reader's MaxWindow.
	ErrTooLarge = errors.New("brotli: window exceeds limit")
	// ErrPrefixCode reports a prefix (Huffman) code that is incomplete,
	// oversubscribed, or names a symbol twice or outside its alphabet.
	ErrPrefixCode = errors.New("brotli: invalid prefix code")
	// ErrDistance reports a backward distance of zero or less, or a
	// reference to the static dictionary that names no word or transform.
	ErrDistance = errors.New("brotli: invalid distance")
	// ErrCorrupt reports any other violation of RFC 7932: a meta-block
	// whose commands produce more than its length, a bad context map,
	// nonzero padding or reserved bits, a length with a superfluous zero
	// nibble.
	ErrCorrupt = errors.New("brotli: corrupt stream")
	// ErrNotOpen reports a Read on a zero Reader before Reset.
	ErrNotOpen = errors.New("brotli: not open (use NewReader or Reset)")
)

// wrapf returns an error wrapping sentinel, its message followed by the
// formatted details.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
