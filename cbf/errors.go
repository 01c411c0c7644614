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
	return "cbf: offset " + strconv.FormatInt(e.Offset, 10) + ": " + trimPrefix(e.Err.Error())
}

func (e *FormatError) Unwrap() error { return e.Err }

func trimPrefix(s string) string {
	if len(s) > 5 && s[:5] == "cbf: " {
		return s[5:]
	}
	return s
}

// The errors a FormatError wraps, besides io.ErrUnexpectedEOF for data
// cut short, and the errors a Writer refuses frames with.
var (
	// ErrVersion means an info byte names a version other than 0.
	ErrVersion = errors.New("cbf: unsupported version")
	// ErrWordSize means an info byte has the reserved size 3, or a writer
	// was given a word size other than 16, 32 or 64.
	ErrWordSize = errors.New("cbf: reserved word size")
	// ErrOpcode means a reserved instruction (02-0f, 90-ff).
	ErrOpcode = errors.New("cbf: reserved instruction")
	// ErrNoFrame means a rep instruction, or a Repeat frame given to a
	// Writer, with no frame before it to repeat.
	ErrNoFrame = errors.New("cbf: rep with no previous frame")
	// ErrOperand means an address operand longer than the word size.
	ErrOperand = errors.New("cbf: operand longer than the word")
	// ErrOverflow means an omit or rep count that does not fit in 63 bits,
	// the range of Swift's Int.
	ErrOverflow = errors.New("cbf: count overflows")
	// ErrCount means a rep count of 0, or a Writer given an Omitted frame
	// with count 0, which Swift's encoder cannot write.
	ErrCount = errors.New("cbf: zero count")
	// ErrTooLarge means a limit was exceeded: Reader.MaxFrames,
	// Reader.MaxRepeat, or an image map limit.
	ErrTooLarge = errors.New("cbf: exceeds limit")
	// ErrAddr means a Writer was given an address that does not fit the
	// word size.
	ErrAddr = errors.New("cbf: address does not fit the word size")
	// ErrKind means a Writer was given a frame of unknown kind.
	ErrKind = errors.New("cbf: bad frame kind")
	// ErrState means a Writer call out of order: a frame outside a record
	// (before Begin, or after a Truncated frame ended it).
	ErrState = errors.New("cbf: no open record")
	// ErrRange means an image whose end of text is not above its base.
	ErrRange = errors.New("cbf: end of text not above base")
	// ErrPath means an image path the image map format cannot hold or that
	// does not decode: an unknown prefix code, an over-long string, or a
	// platform string over 255 bytes.
	ErrPath = errors.New("cbf: bad path")
	// ErrUTF8 means a platform or path that is not valid UTF-8, which
	// Swift's decoder rejects.
	ErrUTF8 = errors.New("cbf: invalid UTF-8")
)
