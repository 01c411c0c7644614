// Package snappy decodes and encodes raw snappy blocks (the block format of
// google/snappy's format_description.txt, without the framing format), as
// apitrace's snappy container holds one per chunk.
//
// The decoder accepts every valid block, whatever compressor made it, and
// rejects every invalid one with an error; it never reads or writes outside
// its slices: the benchmark module's FuzzAgree checks that it accepts and
// rejects the same blocks as github.com/golang/snappy and decodes them to
// the same bytes. The encoder is a greedy LZ77 with one hash table, like
// the reference compressor, but its matches reach up to 65535 bytes back
// from anywhere in the block rather than within 64 KiB fragments; its
// output is deterministic (a function of the input alone), never uses
// 4-byte-offset copies, and is read by golang/snappy and by the real
// apitrace.
package snappy

import (
	"encoding/binary"
	"errors"
)

var (
	// ErrCorrupt reports a block that does not decode: a bad preamble, an
	// element running past the input, a copy reaching before the start of
	// the output, or a decoded size different from the preamble.
	ErrCorrupt = errors.New("snappy: corrupt block")
	// ErrTooLarge reports a preamble length above the caller's limit.
	ErrTooLarge = errors.New("snappy: decoded block too large")
)

const (
	tagLiteral = 0
	tagCopy1   = 1
	tagCopy2   = 2
	tagCopy4   = 3
)

// DecodedLen returns the decoded length the block's preamble announces and
// the preamble's width. Like github.com/golang/snappy, it reads the preamble
// as any uvarint of up to 10 bytes, padded ones included (google/snappy
// stops at 5), as long as its value fits in 32 bits.
func DecodedLen(src []byte) (n int, width int, err error) {
	v, w := binary.Uvarint(src)
	if w <= 0 || v > 0xffffffff {
		return 0, 0, ErrCorrupt
	}
	return int(v), w, nil
}

// Decode decodes the block src into dst, reusing dst's capacity when it is
// large enough, and returns the decoded bytes. A preamble announcing more than
// limit bytes is ErrTooLarge (limit <= 0 means no limit but the format's 2^32-1).
// The output is allocated only after the preamble is checked against limit
// and against what src can hold: no element yields more than 64 bytes per
// byte of input, so a preamble above 64 × len(src) is ErrCorrupt.
func Decode(dst, src []byte, limit int) ([]byte, error) {
	n, w, err := DecodedLen(src)
	if err != nil {
		return nil, err
	}
	if limit > 0 && n > limit {
		return nil, ErrTooLarge
	}
	// A copy element of at most 5 bytes yields at most 64 bytes, a literal
	// yields at most its own length, so n cannot exceed 64 × len(src).
	if uint64(n) > 64*uint64(len(src)) {
		return nil, ErrCorrupt
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	} else {
		dst = dst[:n]
	}
	if err := decode(dst, src[w:]); err != nil {
		return nil, err
	}
	return dst, nil
}

// decode fills dst exactly from the elements in src.
//
// decodeFast takes every element it can; the loop here decodes one element
// it left (long, overlapping, invalid or near the end of the block),
// checking every length, with calls to memmove where needed, and hands
// back to it.
func decode(dst, src []byte) error {
	var d, s int
	for {
		d, s = decodeFast(dst, src, d, s)
		if s >= len(src) {
			break
		}
		tag := src[s]
		var length, offset int
		switch tag & 3 {
		case tagLiteral:
			x := uint32(tag >> 2)
			switch {
			case x < 60:
				s++
			case x == 60:
				s += 2
				if uint(s) > uint(len(src)) {
					return ErrCorrupt
				}
				x = uint32(src[s-1])
			case x == 61:
				s += 3
				if uint(s) > uint(len(src)) {
					return ErrCorrupt
				}
				x = uint32(src[s-2]) | uint32(src[s-1])<<8
			case x == 62:
				s += 4
				if uint(s) > uint(len(src)) {
					return ErrCorrupt
				}
				x = uint32(src[s-3]) | uint32(src[s-2])<<8 | uint32(src[s-1])<<16
			default:
				s += 5
				if uint(s) > uint(len(src)) {
					return ErrCorrupt
				}
				x = binary.LittleEndian.Uint32(src[s-4:])
			}
			length = int(uint64(x) + 1)
			if length > len(dst)-d || length > len(src)-s {
				return ErrCorrupt
			}
			copy(dst[d:], src[s:s+length])
			d += length
			s += length
			continue
		case tagCopy1:
			s += 2
			if uint(s) > uint(len(src)) {
				return ErrCorrupt
			}
			length = 4 + int(tag>>2)&7
			offset = int(tag&0xe0)<<3 | int(src[s-1])
		case tagCopy2:
			s += 3
			if uint(s) > uint(len(src)) {
				return ErrCorrupt
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint16(src[s-2:]))
		default:
			s += 5
			if uint(s) > uint(len(src)) {
				return ErrCorrupt
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint32(src[s-4:]))
		}
		// One unsigned compare rejects offset 0 and offsets reaching
		// before the start.
		if uint(d-offset) >= uint(d) || length > len(dst)-d {
			return ErrCorrupt
		}
		if length <= 16 && offset >= 8 && len(dst)-d >= 16 {
			// Short copies (most of them) in one or two 8-byte moves.
			a, out := dst[d-offset:d-offset+16], dst[d:d+16]
			switch {
			case length <= 8:
				binary.LittleEndian.PutUint64(out, binary.LittleEndian.Uint64(a))
			case offset >= 16:
				// Both loads first: neither reads what a store writes.
				x, y := binary.LittleEndian.Uint64(a), binary.LittleEndian.Uint64(a[8:])
				binary.LittleEndian.PutUint64(out, x)
				binary.LittleEndian.PutUint64(out[8:], y)
			default:
				// The second load reads part of what the first store
				// wrote, which is final by then.
				binary.LittleEndian.PutUint64(out, binary.LittleEndian.Uint64(a))
				binary.LittleEndian.PutUint64(out[8:], binary.LittleEndian.Uint64(a[8:]))
			}
			d += length
			continue
		}
		if offset >= length {
			copy(dst[d:d+length], dst[d-offset:])
			d += length
			continue
		}
		if offset >= 8 && len(dst)-d >= length+8 {
			// Every 8-byte load reads bytes at least 8 back, all final
			// already, so the words may overlap what they write. The
			// last store may run up to 7 bytes past the copy, into
			// output still to be written.
			for k := 0; k < length; k += 8 {
				binary.LittleEndian.PutUint64(dst[d+k:], binary.LittleEndian.Uint64(dst[d+k-offset:]))
			}
			d += length
			continue
		}
		// Overlapping copy: the output repeats with period offset. Copy
		// the period, then twice as much from the same start, and so on.
		end := d + length
		for d < end {
			d += copy(dst[d:end], dst[d-offset:d])
			offset += offset
		}
	}
	if d != len(dst) {
		return ErrCorrupt
	}
	return nil
}

// MaxEncodedLen returns the largest block Encode can make from n bytes:
// 32 + n + n/6, the reference compressor's bound.
func MaxEncodedLen(n int) int { return 32 + n + n/6 }
