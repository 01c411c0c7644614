package bitfield

import (
	"errors"
	"math/bits"
)

// Order says where a layout's first field sits in the word.
type Order uint8

const (
	// LSBFirst puts the first field at bit 0, as compilers for
	// little-endian machines allocate C bit-fields (XRay on x86-64).
	LSBFirst Order = iota
	// MSBFirst puts the first field at the top bit, as compilers for
	// big-endian machines do and as CBF draws its opcode bytes.
	MSBFirst
)

func (o Order) String() string {
	switch o {
	case LSBFirst:
		return "LSBFirst"
	case MSBFirst:
		return "MSBFirst"
	}
	return "Order(?)"
}

// ErrLayout means a layout's widths do not fit its word.
var ErrLayout = errors.New("bitfield: fields do not fit the word")

// MaxFields is the most fields a layout holds.
const MaxFields = 16

// Field is one field of a word: its position and width. The zero Field is
// empty and reads as 0.
type Field struct {
	// shift is kept as a full word, and below 64, so Get compiles to a
	// bare shift and mask with no widening or range check.
	shift uint
	mask  uint64 // width low bits set
}

// Shift is the position of the field's lowest bit.
func (f Field) Shift() int { return int(f.shift) }

// Width is the number of bits in the field.
func (f Field) Width() int { return bits.OnesCount64(f.mask) }

// Max is the largest value the field holds.
func (f Field) Max() uint64 { return f.mask }

// Get extracts the field from w.
func (f Field) Get(w uint64) uint64 {
	// The &63 changes nothing (shift is below 64) but lets the compiler
	// drop Go's handling of oversized shifts.
	return w >> (f.shift & 63) & f.mask
}

// GetSigned extracts the field from w as a two's-complement number.
func (f Field) GetSigned(w uint64) int64 {
	return SignExtend(f.Get(w), f.Width())
}

// Set returns w with the field replaced by v and true, or w unchanged and
// false when v does not fit the field.
func (f Field) Set(w, v uint64) (uint64, bool) {
	if v&^f.mask != 0 {
		return w, false
	}
	s := f.shift & 63
	return w&^(f.mask<<s) | v<<s, true
}

// SetSigned is Set for a two's-complement value, refused when v is outside
// the field's signed range.
func (f Field) SetSigned(w uint64, v int64) (uint64, bool) {
	width := f.Width()
	if width == 0 || width < 64 && (v < -1<<(width-1) || v >= 1<<(width-1)) {
		return w, false
	}
	return f.Set(w, uint64(v)&f.mask)
}

// Layout is a sequence of fields packed into a word of 8, 16, 32 or 64
// bits. It is built once, typically in a package variable, and read
// without allocation.
type Layout struct {
	bits   uint8
	order  Order
	n      uint8
	fields [MaxFields]Field
}

// New declares a layout of the given field widths, in declaration order,
// inside a word of wordBits bits. The widths need not fill the word; the
// bits left over are unused (at the top for LSBFirst, at the bottom for
// MSBFirst).
func New(wordBits int, order Order, widths ...int) (Layout, error) {
	var l Layout
	switch wordBits {
	case 8, 16, 32, 64:
	default:
		return l, ErrLayout
	}
	if len(widths) > MaxFields || order > MSBFirst {
		return l, ErrLayout
	}
	l.bits, l.order, l.n = uint8(wordBits), order, uint8(len(widths))
	used := 0
	for i, w := range widths {
		if w <= 0 || used+w > wordBits {
			return Layout{}, ErrLayout
		}
		shift := used
		if order == MSBFirst {
			shift = wordBits - used - w
		}
		l.fields[i] = Field{shift: uint(shift), mask: 1<<uint(w) - 1}
		if w == 64 {
			l.fields[i].mask = ^uint64(0)
		}
		used += w
	}
	return l, nil
}

// Must is New for layouts fixed in the source; it panics on a bad layout,
// which is a programming error, not an input error.
func Must(wordBits int, order Order, widths ...int) Layout {
	l, err := New(wordBits, order, widths...)
	if err != nil {
		panic(err)
	}
	return l
}

// Bits is the word size.
func (l Layout) Bits() int { return int(l.bits) }

// Order is the bit order the layout was declared with.
func (l Layout) Order() Order { return l.order }

// Len is the number of fields.
func (l Layout) Len() int { return int(l.n) }

// Field returns field i, in declaration order; it is the zero Field when i
// is out of range.
func (l Layout) Field(i int) Field {
	if uint(i) >= uint(l.n) {
		return Field{}
	}
	return l.fields[i]
}

// Pack builds a word from one value per field, in declaration order. It
// reports false when the count is wrong or a value does not fit.
func (l Layout) Pack(values ...uint64) (uint64, bool) {
	if len(values) != int(l.n) {
		return 0, false
	}
	var w uint64
	for i, v := range values {
		var ok bool
		if w, ok = l.fields[i].Set(w, v); !ok {
			return 0, false
		}
	}
	return w, true
}

// Unpack stores each field of w into dst, in declaration order, and
// returns how many it stored.
func (l Layout) Unpack(w uint64, dst []uint64) int {
	n := min(len(dst), int(l.n))
	for i := 0; i < n; i++ {
		dst[i] = l.fields[i].Get(w)
	}
	return n
}

// FieldAt returns the field of width bits whose lowest bit is bit shift
// of a word, for a field fixed in the source. Called with constants, it
// and Get and Set on its result compile to shifts and masks by constants,
// with nothing loaded. It panics when the field does not fit in 64 bits,
// which is a programming error.
func FieldAt(shift, width int) Field {
	if shift < 0 || width <= 0 || shift+width > 64 {
		panic(ErrLayout)
	}
	return Field{shift: uint(shift), mask: 1<<uint(width) - 1}
}
