package zstd

import (
	"errors"
	"fmt"
	"strings"
)

// FormatError reports bad or cut-short input. Offset is the position in
// the compressed input of the frame header, block or seek table entry where
// the problem was found.
type FormatError struct {
	Offset int64
	Err    error
}

func (e *FormatError) Error() string {
	if e == nil {
		return "<nil>"
	}
	if e.Err == nil {
		return fmt.Sprintf("zstd: offset %d: bad input", e.Offset)
	}
	return fmt.Sprintf("zstd: offset %d: %s", e.Offset, strings.TrimPrefix(e.Err.Error(), "zstd: "))
}

func (e *FormatError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

var (
	// ErrHeader reports input that is not a zstd frame (a bad magic number)
	// or a frame header with reserved bits set.
	ErrHeader = errors.New("zstd: not a zstd frame")
	// ErrTooLarge reports a window, block or frame larger than the Reader's
	// limit or than the format allows.
	ErrTooLarge = errors.New("zstd: size over the limit")
	// ErrDictionary reports a frame that needs a dictionary: this package
	// reads none.
	ErrDictionary = errors.New("zstd: frame needs a dictionary, and dictionaries are not supported")
	// ErrChecksum reports decoded content whose XXH64 checksum differs from
	// the one the frame or seek table stores.
	ErrChecksum = errors.New("zstd: checksum mismatch")
	// ErrTable reports an FSE or Huffman table description that does not
	// describe a valid table, or a block that repeats a table it never had.
	ErrTable = errors.New("zstd: bad FSE or Huffman table")
	// ErrCorrupt reports a block that does not decode: a bad block type,
	// sizes that disagree, a match before the start of the window, or a
	// frame whose content size differs from its header's.
	ErrCorrupt = errors.New("zstd: corrupt block")
	// ErrSeekTable reports a seekable file whose seek table is malformed or
	// points past the file.
	ErrSeekTable = errors.New("zstd: bad seek table")
	// ErrNotOpen is returned by every method of a zero Reader or Seekable
	// before it is opened.
	ErrNotOpen = errors.New("zstd: reader not opened")
)

func formatErr(off int64, sentinel error, format string, args ...any) error {
	if format == "" {
		return &FormatError{Offset: off, Err: sentinel}
	}
	return &FormatError{Offset: off, Err: wrapf(sentinel, format, args...)}
}

// wrapf wraps sentinel with a formatted detail, for errors.Is.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
