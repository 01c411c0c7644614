package varint

import (
	"errors"
	"io"
	"math/bits"
)

// MaxLen is the most bytes a 64-bit value can take: ten groups of seven bits.
const MaxLen = 10

// ErrOverflow means a value runs past ten bytes or past 64 bits.
var ErrOverflow = errors.New("varint: value overflows 64 bits")

// errNilReader is what Read and ReadWidth return for a nil reader, a
// caller's mistake rather than bad input.
var errNilReader = errors.New("varint: read from a nil io.ByteReader")

// ErrWidth means a value does not fit in the width asked of AppendPadded.
var ErrWidth = errors.New("varint: value does not fit in the requested width")

// Len returns how many bytes Append uses for v.
func Len(v uint64) int {
	// Seven bits a byte, without a branch per byte, so that a mix of
	// widths (a third of a Go trace's values take two bytes) costs no
	// mispredictions: (n*9+64)/64 is n/7 rounded up for n from 1 to 64.
	return (bits.Len64(v|1)*9 + 64) / 64
}

// Append appends the minimal encoding of v to dst.
func Append(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// AppendPadded appends v encoded in exactly width bytes, padding with
// continuation bytes as the Go runtime does for batch lengths. It refuses a
// width below Len(v) or above MaxLen, leaving dst unchanged.
func AppendPadded(dst []byte, v uint64, width int) ([]byte, error) {
	if width < Len(v) || width > MaxLen {
		return dst, ErrWidth
	}
	for i := 1; i < width; i++ {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v)), nil
}

// Consume decodes the value at the start of b and returns it with its width
// n, which may exceed Len(v) for a non-minimal encoding. n == 0 means b ends
// inside the value; n < 0 means the value overflows, and -n is the number of
// bytes examined.
func Consume(b []byte) (v uint64, n int) {
	// Small enough to inline into the caller's loop, which is most of its
	// speed: the loop stops at MaxLen, so the shift needs no range check.
	for i := 0; i < len(b) && i < MaxLen; i++ {
		c := b[i]
		if c < 0x80 {
			if i == MaxLen-1 && c > 1 {
				return 0, -MaxLen
			}
			return v | uint64(c)<<(7*uint(i)), i + 1
		}
		v |= uint64(c&0x7f) << (7 * uint(i))
	}
	if len(b) >= MaxLen {
		return 0, -MaxLen
	}
	return 0, 0
}

// Read decodes one value from r. It returns io.EOF only when r has no byte
// at all, and io.ErrUnexpectedEOF when r ends inside the value.
func Read(r io.ByteReader) (uint64, error) {
	v, _, err := ReadWidth(r)
	return v, err
}

// ReadWidth is Read that also reports how many bytes the value took, so a
// writer can reproduce a non-minimal encoding.
func ReadWidth(r io.ByteReader) (v uint64, n int, err error) {
	if r == nil {
		return 0, 0, errNilReader
	}
	for i := 0; i < MaxLen; i++ {
		c, err := r.ReadByte()
		if err != nil {
			if err == io.EOF && i > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, i, err
		}
		if c < 0x80 {
			if i == MaxLen-1 && c > 1 {
				return 0, i + 1, ErrOverflow
			}
			return v | uint64(c)<<(7*uint(i)), i + 1, nil
		}
		v |= uint64(c&0x7f) << (7 * uint(i))
	}
	return 0, MaxLen, ErrOverflow
}
