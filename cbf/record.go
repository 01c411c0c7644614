package cbf

import (
	"fmt"
	"strconv"
	"strings"
)

// WordSize is the machine word of a backtrace or image map in bits: 16, 32
// or 64. It is what the info byte's size field says.
type WordSize uint8

// The word sizes CBF and the image map format know.
const (
	Word16 WordSize = 16
	Word32 WordSize = 32
	Word64 WordSize = 64
)

// code is the info byte's size field for w, or 3 (reserved) for any other w.
func (w WordSize) code() uint64 {
	switch w {
	case Word16:
		return 0
	case Word32:
		return 1
	case Word64:
		return 2
	}
	return 3
}

// Valid reports whether w is 16, 32 or 64.
func (w WordSize) Valid() bool { return w.code() != 3 }

// mask is the all-ones value of a w-bit word.
func (w WordSize) mask() uint64 { return ^uint64(0) >> (64 - uint(w)) }

// Bytes is the number of bytes in a word of w.
func (w WordSize) Bytes() int { return int(w) / 8 }

func (w WordSize) String() string { return strconv.Itoa(int(w)) + "-bit" }

// Kind says what a Frame is.
type Kind uint8

// The frame kinds. PC, RA and Async carry an address in Frame.Addr;
// Omitted and Repeat a count in Frame.Count; Truncated nothing.
const (
	// PC is a program counter: the instruction that was executing.
	PC Kind = iota + 1
	// RA is a return address: the instruction after a call, not yet run.
	RA
	// Async is the entry point of an async resume function.
	Async
	// Omitted says Count frames were left out while capturing.
	Omitted
	// Repeat says the frame before it occurs Count more times. Only a
	// Reader that keeps repeats (the default) yields it; a Writer accepts
	// it and also finds runs of equal frames by itself.
	Repeat
	// Truncated ends a backtrace that was cut short. Swift's decoder
	// yields it for a trunc instruction and for any data it cannot decode.
	Truncated
)

var kindNames = [...]string{PC: "pc", RA: "ra", Async: "async", Omitted: "omit", Repeat: "rep", Truncated: "trunc"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// HasAddr reports whether frames of kind k carry an address.
func (k Kind) HasAddr() bool { return k >= PC && k <= Async }

// Frame is one entry of a backtrace.
type Frame struct {
	Kind Kind
	// Addr is the address of a PC, RA or Async frame, within the word size.
	Addr uint64
	// Count is the number of frames an Omitted frame stands for, or the
	// number of extra copies of the previous frame a Repeat frame adds.
	Count uint64
}

// String formats f the way cbfdump prints it: "pc 0x1000", "ra 0x7f",
// "async 0x…", "omit 5", "rep 9", "trunc".
func (f Frame) String() string { return string(f.AppendText(nil)) }

// AppendText appends the text form of f (see String) to dst.
func (f Frame) AppendText(dst []byte) []byte {
	switch f.Kind {
	case PC, RA, Async:
		dst = append(dst, kindNames[f.Kind]...)
		dst = append(dst, " 0x"...)
		return strconv.AppendUint(dst, f.Addr, 16)
	case Omitted, Repeat:
		dst = append(dst, kindNames[f.Kind]...)
		dst = append(dst, ' ')
		return strconv.AppendUint(dst, f.Count, 10)
	case Truncated:
		return append(dst, "trunc"...)
	}
	return append(dst, f.Kind.String()...)
}

// ParseFrame parses the text form String prints. Addresses take a 0x
// prefix or are read as hexadecimal anyway; counts are decimal.
func ParseFrame(s string) (Frame, error) {
	s = strings.TrimSpace(s)
	name, arg, _ := strings.Cut(s, " ")
	arg = strings.TrimSpace(arg)
	for k := PC; k <= Truncated; k++ {
		if name != kindNames[k] {
			continue
		}
		switch {
		case k == Truncated:
			if arg != "" {
				break
			}
			return Frame{Kind: k}, nil
		case k.HasAddr():
			a := strings.TrimPrefix(strings.TrimPrefix(arg, "0x"), "0X")
			v, err := strconv.ParseUint(a, 16, 64)
			if err != nil {
				return Frame{}, fmt.Errorf("cbf: bad address in %q", s)
			}
			return Frame{Kind: k, Addr: v}, nil
		default:
			v, err := strconv.ParseUint(arg, 10, 64)
			if err != nil {
				return Frame{}, fmt.Errorf("cbf: bad count in %q", s)
			}
			return Frame{Kind: k, Count: v}, nil
		}
	}
	return Frame{}, fmt.Errorf("cbf: unknown frame %q", s)
}

// norm clears the fields a frame's kind does not use, so that equal
// frames compare equal.
func (f Frame) norm() Frame {
	switch {
	case f.Kind.HasAddr():
		f.Count = 0
	case f.Kind == Omitted || f.Kind == Repeat:
		f.Addr = 0
	default:
		f.Addr, f.Count = 0, 0
	}
	return f
}

// Record is one backtrace: an info byte, then frames up to end or trunc.
//
// Where Swift's format document differs from its code, which the package
// follows:
//
//   - The first frame, relative to 0, is relative whenever the delta is
//     as short; the document says it must be absolute. Swift's decoder
//     takes both, and so does the Reader.
//   - rep is missing from the older document: 1 to 8 copies in the
//     instruction, more in 1 to 8 count bytes. Swift's decoder turns a
//     count above 1,048,577 into trunc (DefaultMaxRepeat).
//   - Omit counts of 32 and more take count bytes (60 20 for 32, though
//     5f could hold it).
//   - A record without end or trunc is a truncated backtrace to Swift's
//     decoder, though the document calls end optional.
//   - Reserved instructions are errors, not extensions.
//   - An older revision of the codec wrote neither rep nor end and no
//     count bytes for omits of 32 and more: its records read as truncated
//     and its large omits cannot be recovered.
//
// A Record that Reader.Read returns belongs to the Reader: it and its
// Frames are valid until the next call to Read, Next or Reset; Clone
// makes a copy to keep.
type Record struct {
	Word WordSize
	// Frames ends with a Truncated frame when the backtrace was cut short.
	Frames []Frame
	// Offset is the position of the record's info byte in the stream. A
	// Writer ignores it.
	Offset int64
}

// Clone returns a copy of r that owns its frames (nil for a nil r).
func (r *Record) Clone() *Record {
	if r == nil {
		return nil
	}
	c := *r
	if c.Frames != nil {
		c.Frames = append([]Frame(nil), c.Frames...)
	}
	return &c
}

// Truncated reports whether the record ends with a Truncated frame.
func (r *Record) Truncated() bool {
	return r != nil && len(r.Frames) > 0 && r.Frames[len(r.Frames)-1].Kind == Truncated
}
