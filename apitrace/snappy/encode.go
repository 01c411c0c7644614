package snappy

import (
	"encoding/binary"
	"math/bits"
)

const (
	fragmentSize = 1 << 16
	tableBits    = 14
	// minMatch is the shortest match the encoder looks for; inputLimit is
	// how close to the end of a fragment it still probes, so 8-byte loads
	// stay inside the input.
	minMatch = 4
	tailSkip = 15
)

// Encoder compresses blocks. Its hash table is reused from one block to the
// next, so a long-lived Encoder does not allocate. The zero Encoder is ready.
type Encoder struct {
	table [1 << tableBits]int32
}

// Encode appends the snappy block of src to dst and returns the result. The
// block is at most MaxEncodedLen(len(src)) bytes. src must be shorter than
// 2^32 bytes.
func (e *Encoder) Encode(dst, src []byte) []byte {
	var pre [5]byte
	n := binary.PutUvarint(pre[:], uint64(len(src)))
	dst = append(dst, pre[:n]...)
	// A fresh table per block keeps the output a function of src alone.
	clear(e.table[:])
	for start := 0; start < len(src); start += fragmentSize {
		end := min(start+fragmentSize, len(src))
		dst = e.fragment(dst, src, start, end)
	}
	return dst
}

func hash4(u uint32) uint32 { return (u * 0x1e35a7bd) >> (32 - tableBits) }

// fragment encodes src[start:end]; copies never reach before start, so every
// offset fits the 2-byte form.
func (e *Encoder) fragment(dst, src []byte, start, end int) []byte {
	if end-start <= tailSkip+minMatch {
		return appendLiteral(dst, src[start:end])
	}
	t := &e.table
	// Entries written for earlier fragments hold positions before start
	// and are rejected below, so the table is cleared once per block only.
	limit := end - tailSkip
	emitted := start
	s := start + 1
	for s < limit {
		cur := binary.LittleEndian.Uint32(src[s:])
		h := hash4(cur)
		cand := int(t[h])
		t[h] = int32(s)
		if cand < start || cand >= s || binary.LittleEndian.Uint32(src[cand:]) != cur {
			s += 1 + (s-emitted)>>5
			continue
		}
		// Extend the match forward, eight bytes at a time.
		m := s + minMatch
		c := cand + minMatch
		for m+8 <= end {
			x := binary.LittleEndian.Uint64(src[m:]) ^ binary.LittleEndian.Uint64(src[c:])
			if x != 0 {
				m += bits.TrailingZeros64(x) >> 3
				goto matched
			}
			m += 8
			c += 8
		}
		for m < end && src[m] == src[c] {
			m++
			c++
		}
	matched:
		if emitted < s {
			dst = appendLiteral(dst, src[emitted:s])
		}
		dst = appendCopy(dst, s-cand, m-s)
		s = m
		emitted = s
		if s < limit {
			// Remember the position just before the match end too, so
			// runs of matches chain without a literal between them.
			t[hash4(binary.LittleEndian.Uint32(src[s-1:]))] = int32(s - 1)
		}
	}
	if emitted < end {
		dst = appendLiteral(dst, src[emitted:end])
	}
	return dst
}

func appendLiteral(dst, lit []byte) []byte {
	n := uint32(len(lit) - 1)
	switch {
	case n < 60:
		dst = append(dst, byte(n)<<2|tagLiteral)
	case n < 1<<8:
		dst = append(dst, 60<<2|tagLiteral, byte(n))
	case n < 1<<16:
		dst = append(dst, 61<<2|tagLiteral, byte(n), byte(n>>8))
	case n < 1<<24:
		dst = append(dst, 62<<2|tagLiteral, byte(n), byte(n>>8), byte(n>>16))
	default:
		dst = append(dst, 63<<2|tagLiteral, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	return append(dst, lit...)
}

// appendCopy emits a copy of length bytes from offset back (offset < 65536),
// split into pieces of at most 64 bytes; the last piece is never shorter
// than 4 so that the 1-byte-offset form stays usable.
func appendCopy(dst []byte, offset, length int) []byte {
	for length >= 68 {
		dst = append(dst, 63<<2|tagCopy2, byte(offset), byte(offset>>8))
		length -= 64
	}
	if length > 64 {
		dst = append(dst, 59<<2|tagCopy2, byte(offset), byte(offset>>8))
		length -= 60
	}
	if length >= 4 && length < 12 && offset < 2048 {
		return append(dst, byte(offset>>8)<<5|byte(length-4)<<2|tagCopy1, byte(offset))
	}
	return append(dst, byte(length-1)<<2|tagCopy2, byte(offset), byte(offset>>8))
}
