package snappy

import (
	"encoding/binary"
	"math/bits"
)

const (
	// tableBits sizes the hash table: 2^12 eight-byte entries, 32 KiB, the
	// size of the first-level cache. Twice as many find a little more (1%
	// less output on apitrace streams) but miss that cache more often, on
	// the probe every element waits for (2-4% slower).
	tableBits = 12
	// inputMargin is how far from the end of the input the encoder stops
	// looking for matches: the search and the literal fast path load 8 or
	// 16 bytes ahead. The last bytes go out as a literal.
	inputMargin = 16
	// minBlock is the shortest input worth searching for matches.
	minBlock = inputMargin + 4
)

// Encoder compresses blocks. Its hash table is reused from one block to the
// next, so a long-lived Encoder does not allocate. The zero Encoder is ready.
type Encoder struct {
	// table maps the hash of 4 bytes to the last position holding them
	// (the high 32 bits) and those 4 bytes (the low 32 bits): a probe
	// compares them without loading the candidate from the input, so the
	// branch on the outcome resolves one load earlier.
	table [1 << tableBits]uint64
}

// Encode appends the snappy block of src to dst and returns the result. The
// block is at most MaxEncodedLen(len(src)) bytes; Encode grows dst to have
// room for that many, and may write anywhere in that room, past the end of
// the result too. src must be shorter than 2^32 bytes.
func (e *Encoder) Encode(dst, src []byte) []byte {
	n := len(dst)
	bound := MaxEncodedLen(len(src))
	if cap(dst)-n < bound {
		dst = append(dst[:cap(dst)], make([]byte, n+bound-cap(dst))...)
	}
	out := dst[n : n+bound]
	d := binary.PutUvarint(out, uint64(len(src)))
	if len(src) < minBlock {
		if len(src) > 0 {
			d = emitLiteral(out, d, src, 0, len(src))
		}
		return dst[:n+d]
	}
	// A fresh table per block keeps the output a function of src alone.
	// Every entry starts as position 0, with the bytes there.
	first := uint64(load32(src, 0))
	for i := range e.table {
		e.table[i] = first
	}
	d = e.encodeBlock(out, d, src)
	return dst[:n+d]
}

// load32 and load64 read 4 and 8 bytes at b[i:]. Their slice expression
// is the cheapest bounds check: no pointer masking, as the result is never
// empty.
func load32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i : i+4]) }
func load64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i : i+8]) }

// hash4 hashes the low 4 bytes of u. A 32-bit multiply: every element
// waits for a hash, and this one takes one instruction fewer than the
// 64-bit form with the same result.
func hash4(u uint64) uint32 {
	return uint32(u) * 0x1e35a7bd >> (32 - tableBits)
}

// encodeBlock writes the elements of src to out[d:] and returns the end of
// what it wrote. len(src) >= minBlock, and out has room for
// MaxEncodedLen(len(src)) bytes from d.
//
// It is a greedy LZ77 like the reference compressor's: it probes the hash
// table at every position, two per step from one 8-byte load, farther
// apart the longer it goes without a match; it extends a match forward
// eight bytes at a time and backward into the pending literal. After a
// copy it probes where the copy ends, and while that finds a match it
// goes on emitting copies without passing through the literal's code.
// Matches reach up to 65535 bytes back from anywhere in the block.
func (e *Encoder) encodeBlock(out []byte, d int, src []byte) int {
	t := &e.table
	// Capacities cut to the lengths: fewer values to keep in registers.
	src = src[:len(src):len(src)]
	out = out[:len(out):len(out)]
	emitted := 0
	s := 1
	cv := load64(src, s)
	for {
		// Probe s and s+1: a candidate holds the same 4 bytes at most
		// 65535 bytes back.
		h0, h1 := hash4(cv), hash4(cv>>8)
		e0, e1 := t[h0], t[h1]
		// (s+1's entry is s's position plus 1<<32 rather than s+1
		// shifted: the compiler then keeps no s+1 and spills less.)
		t[h0], t[h1] = uint64(s)<<32|uint64(uint32(cv)), uint64(s)<<32+1<<32|uint64(uint32(cv>>8))
		// The candidate's position is compared with the oldest one in
		// reach rather than its offset computed first: one step fewer
		// before the branch resolves, and the compiler no longer keeps
		// e0 whole on the stack. The shift comes after the bytes'
		// compare, which fails more often.
		lo := s - 65535
		cand := int(e0 >> 32)
		if uint32(cv) != uint32(e0) || cand < lo {
			cand = int(e1 >> 32)
			// From s+1 the oldest position in reach is lo+1.
			if uint32(cv>>8) != uint32(e1) || cand <= lo {
				// Once 32 bytes have gone by without a match, the
				// steps grow with the distance, as the reference
				// compressor's do, so that incompressible input goes
				// fast.
				s += 2 + (s-emitted)>>5
				if s > len(src)-inputMargin {
					break
				}
				cv = load64(src, s)
				continue
			}
			s++
		}
		off := s - cand
		// Extend the match backward over the pending literal.
		for cand > 0 && s > emitted && src[cand-1] == src[s-1] {
			cand--
			s--
		}
		if emitted < s {
			// Most literals here are a few bytes: move 16, the bytes
			// past the literal overwritten by what follows. s is at
			// least 16 bytes from the end of src.
			if n := s - emitted - 1; n < 16 && d+17 <= len(out) && emitted+16 <= len(src) {
				out[d] = byte(n) << 2
				*(*[16]byte)(out[d+1 : d+17]) = *(*[16]byte)(src[emitted : emitted+16])
				d += n + 2
			} else {
				d = emitLiteral(out, d, src, emitted, s)
			}
		}
		for {
			// Extend the match forward from its first 4 bytes.
			base := s
			s += 4
			cand += 4
			for s <= len(src)-8 {
				if x := load64(src, s) ^ load64(src, cand); x != 0 {
					s += bits.TrailingZeros64(x) >> 3
					goto extended
				}
				s += 8
				cand += 8
			}
			for s < len(src) && src[s] == src[cand] {
				s++
				cand++
			}
		extended:
			if length := s - base; length <= 64 && d+4 <= len(out) {
				// Either form in one 4-byte store, the spare bytes
				// overwritten by what follows: the 2-byte one where
				// length < 12 and off < 2048 (both differences
				// negative), else the 3-byte one.
				v, k := uint32(off)<<8|uint32(length-1)<<2|tagCopy2, 3
				if (length-12)&(off-2048) < 0 {
					v, k = uint32(off)&0xff<<8|uint32(off>>8)<<5|uint32(length-4)<<2|tagCopy1, 2
				}
				binary.LittleEndian.PutUint32(out[d:d+4], v)
				d += k
			} else {
				d = emitCopy(out, d, off, length)
			}
			emitted = s
			if s > len(src)-inputMargin {
				goto done
			}
			// Enter the position just before the copy's end too, then
			// probe where it ends; on a miss, go on probing from the
			// next position. The probe loads at s itself, not at s-1
			// with a shift: every copy waits on this chain (copy end →
			// load → hash → table load → compare), and the shift was
			// a step on it. The entry for s-1 loads its own 4 bytes,
			// off the chain.
			x := load64(src, s)
			h := hash4(x)
			p := load32(src, s-1)
			t[hash4(uint64(p))] = uint64(s-1)<<32 | uint64(p)
			e := t[h]
			t[h] = uint64(s)<<32 | uint64(uint32(x))
			cand = int(e >> 32)
			if uint32(x) != uint32(e) || cand < s-65535 {
				s++
				cv = x >> 8
				break
			}
			off = s - cand
		}
	}
done:
	if emitted < len(src) {
		d = emitLiteral(out, d, src, emitted, len(src))
	}
	return d
}

// emitLiteral writes src[start:end] as a literal at out[d:] and returns the
// end of what it wrote. Short literals far enough from the ends move as one
// 16-byte word, the bytes past the literal overwritten by what follows.
func emitLiteral(out []byte, d int, src []byte, start, end int) int {
	n := uint32(end - start - 1)
	if n < 16 && start+16 <= len(src) && d+17 <= len(out) {
		out[d] = byte(n) << 2
		*(*[16]byte)(out[d+1 : d+17]) = *(*[16]byte)(src[start : start+16])
		return d + 1 + int(n) + 1
	}
	switch {
	case n < 60:
		out[d] = byte(n) << 2
		d++
	case n < 1<<8:
		out[d], out[d+1] = 60<<2, byte(n)
		d += 2
	case n < 1<<16:
		out[d], out[d+1], out[d+2] = 61<<2, byte(n), byte(n>>8)
		d += 3
	case n < 1<<24:
		out[d], out[d+1], out[d+2], out[d+3] = 62<<2, byte(n), byte(n>>8), byte(n>>16)
		d += 4
	default:
		out[d] = 63 << 2
		binary.LittleEndian.PutUint32(out[d+1:], n)
		d += 5
	}
	return d + copy(out[d:], src[start:end])
}

// emitCopy writes a copy of length bytes from offset back (0 < offset <
// 65536, length >= 4) at out[d:] and returns the end of what it wrote. Long
// copies split into pieces of at most 64 bytes; the last piece is never
// shorter than 4 so that the 1-byte-offset form stays usable.
func emitCopy(out []byte, d, offset, length int) int {
	for length >= 68 {
		out[d], out[d+1], out[d+2] = 63<<2|tagCopy2, byte(offset), byte(offset>>8)
		d += 3
		length -= 64
	}
	if length > 64 {
		out[d], out[d+1], out[d+2] = 59<<2|tagCopy2, byte(offset), byte(offset>>8)
		d += 3
		length -= 60
	}
	if length < 12 && offset < 2048 {
		out[d], out[d+1] = byte(offset>>8)<<5|byte(length-4)<<2|tagCopy1, byte(offset)
		return d + 2
	}
	out[d], out[d+1], out[d+2] = byte(length-1)<<2|tagCopy2, byte(offset), byte(offset>>8)
	return d + 3
}
