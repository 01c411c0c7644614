package brotli

import (
	"math/bits"
)

// Prefix codes decode through tables of uint32 entries: symbol<<16 | n.
// A first-level table is indexed by the next rootBits bits of input. An
// entry whose n is at most rootBits is the symbol whose code is n bits
// long. An entry whose n is larger points to a second-level table at
// offset symbol from the start of the first, indexed by the n-rootBits
// bits after the first rootBits; its entries hold the code's whole length.
const rootBits = 8

// maxCodeLen is the longest code RFC 7932 allows.
const maxCodeLen = 15

// codeLengthOrder is the order in which a complex prefix code lists the
// code lengths of its code length alphabet (RFC 7932 section 3.5).
var codeLengthOrder = [18]uint8{1, 2, 3, 4, 0, 5, 17, 6, 16, 7, 8, 9, 10, 11, 12, 13, 14, 15}

// buildTable appends to dst the decoding table of the prefix code whose
// code lengths are lens (0: symbol unused). The code must be complete, or
// consist of one symbol (then decoding takes no bits).
func buildTable(dst []uint32, lens []uint8, order []uint16) []uint32 {
	var count [maxCodeLen + 1]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	// Sort the symbols by code length, then by value: canonical order.
	var next [maxCodeLen + 1]int
	for l := 1; l <= maxCodeLen; l++ {
		next[l] = next[l-1] + count[l-1]
	}
	used := 0
	for s, l := range lens {
		if l != 0 {
			order[next[l]] = uint16(s)
			next[l]++
			used++
		}
	}
	start := len(dst)
	dst = grow(dst, 1<<rootBits)
	if used == 1 {
		e := uint32(order[0]) << 16
		for i := start; i < len(dst); i++ {
			dst[i] = e
		}
		return dst
	}

	// Codes of at most rootBits bits fill every first-level slot whose
	// low bits are the code, first bit lowest.
	code, i := 0, 0
	for l := 1; l <= rootBits; l++ {
		for n := count[l]; n > 0; n-- {
			e := uint32(order[i])<<16 | uint32(l)
			for j := reverse(code, l); j < 1<<rootBits; j += 1 << l {
				dst[start+j] = e
			}
			i++
			code++
		}
		code <<= 1
	}

	// Longer codes go to second-level tables, one per rootBits-bit prefix.
	// Canonical codes sharing a prefix are consecutive, so each table is
	// filled before the next starts; it is as wide as the longest code in
	// it needs.
	left := count
	prefix, sub, subBits := -1, 0, 0
	for l := rootBits + 1; l <= maxCodeLen; l++ {
		for n := count[l]; n > 0; n-- {
			if p := code >> (l - rootBits); p != prefix {
				prefix = p
				subBits = l - rootBits
				room := 1 << subBits
				for k := l; k < maxCodeLen; k++ {
					room -= left[k]
					if room <= 0 {
						break
					}
					subBits++
					room <<= 1
				}
				sub = len(dst) - start
				dst = grow(dst, 1<<subBits)
				dst[start+reverse(prefix, rootBits)] = uint32(sub)<<16 | uint32(rootBits+subBits)
			}
			e := uint32(order[i])<<16 | uint32(l)
			for j := reverse(code, l) >> rootBits; j < 1<<subBits; j += 1 << (l - rootBits) {
				dst[start+sub+j] = e
			}
			left[l]--
			i++
			code++
		}
		code <<= 1
	}
	return dst
}

// reverse returns the low n bits of code in reverse order: the code's
// first bit becomes bit 0, the order in which the stream delivers it.
func reverse(code, n int) int {
	return int(bits.Reverse16(uint16(code)) >> (16 - n))
}

// grow extends s by n zero entries.
func grow(s []uint32, n int) []uint32 {
	if len(s)+n > cap(s) {
		t := make([]uint32, len(s), 2*cap(s)+n)
		copy(t, s)
		s = t
	}
	s = s[:len(s)+n]
	clear(s[len(s)-n:])
	return s
}

// sym decodes one symbol with the table t.
func (b *bitReader) sym(t []uint32) uint32 {
	if b.nbits < maxCodeLen {
		b.refill()
	}
	e := t[b.val&(1<<rootBits-1)]
	if n := e & 0xff; n > rootBits {
		e = t[e>>16+uint32(b.val>>rootBits)&(1<<(n-rootBits)-1)]
	}
	b.val >>= e & 0xff
	b.nbits -= uint(e & 0xff)
	return e >> 16
}

// codeLengthLength reads one code length of the code length alphabet,
// itself coded with RFC 7932's fixed code: 00→0, 01→3, 10→4, 011→2,
// 0111→1, 1111→5 (bits in the order they arrive).
func (b *bitReader) codeLengthLength() uint8 {
	if b.nbits < 4 {
		b.refill()
	}
	v := b.val
	var n uint
	var l uint8
	switch {
	case v&3 == 0:
		n, l = 2, 0
	case v&3 == 1:
		n, l = 2, 4
	case v&3 == 2:
		n, l = 2, 3
	case v&4 == 0:
		n, l = 3, 2
	case v&8 == 0:
		n, l = 4, 1
	default:
		n, l = 4, 5
	}
	b.val >>= n
	b.nbits -= n
	return l
}

// readPrefixCode reads the description of a prefix code over an alphabet
// of size symbols and appends its table to r.tables, returning where it
// starts.
func (r *Reader) readPrefixCode(size int) (uint32, error) {
	b := &r.br
	lens := r.lens[:size]
	clear(lens)
	start := uint32(len(r.tables))
	b.refill()
	hskip := b.bits(2)
	if hskip == 1 {
		// A simple code: up to four symbols listed, their lengths implied.
		nsym := int(b.bits(2)) + 1
		width := uint(bits.Len(uint(size - 1)))
		var syms [4]uint32
		for i := 0; i < nsym; i++ {
			b.refill()
			syms[i] = b.bits(width)
			if int(syms[i]) >= size {
				return 0, r.fail(wrapf(ErrPrefixCode, "symbol %d outside alphabet of %d", syms[i], size))
			}
			for j := 0; j < i; j++ {
				if syms[j] == syms[i] {
					return 0, r.fail(wrapf(ErrPrefixCode, "symbol %d listed twice", syms[i]))
				}
			}
		}
		switch nsym {
		case 1:
			lens[syms[0]] = 1 // a single symbol: decodes in no bits
		case 2:
			lens[syms[0]], lens[syms[1]] = 1, 1
		case 3:
			lens[syms[0]], lens[syms[1]], lens[syms[2]] = 1, 2, 2
		case 4:
			if b.bits(1) == 0 {
				lens[syms[0]], lens[syms[1]], lens[syms[2]], lens[syms[3]] = 2, 2, 2, 2
			} else {
				lens[syms[0]], lens[syms[1]], lens[syms[2]], lens[syms[3]] = 1, 2, 3, 3
			}
		}
		if b.truncated() {
			return 0, r.truncated()
		}
		r.tables = buildTable(r.tables, lens, r.order[:])
		return start, nil
	}

	// A complex code: first the code lengths of the code length alphabet.
	var clens [18]uint8
	space, nonzero := 32, 0
	for i := int(hskip); i < len(codeLengthOrder); i++ {
		l := b.codeLengthLength()
		clens[codeLengthOrder[i]] = l
		if l != 0 {
			space -= 32 >> l
			nonzero++
			if space <= 0 {
				break
			}
		}
	}
	if nonzero != 1 && space != 0 {
		return 0, r.fail(wrapf(ErrPrefixCode, "code length code does not add up"))
	}
	var clTable [1 << rootBits]uint32
	buildTable(clTable[:0], clens[:], r.order[:])

	// Then the code lengths of the alphabet itself, with repeat codes 16
	// (repeat the last nonzero length) and 17 (repeat zero), whose
	// consecutive uses extend one run.
	sym, prev, repeat, repeatLen := 0, uint8(8), 0, uint8(0)
	space = 1 << maxCodeLen
	for sym < size && space > 0 {
		c := b.sym(clTable[:])
		if c < 16 {
			repeat = 0
			lens[sym] = uint8(c)
			if c != 0 {
				prev = uint8(c)
				space -= (1 << maxCodeLen) >> c
			}
			sym++
			continue
		}
		extra, l := uint(2), prev
		if c == 17 {
			extra, l = 3, 0
		}
		if repeatLen != l {
			repeat, repeatLen = 0, l
		}
		old := repeat
		if repeat > 0 {
			repeat = (repeat - 2) << extra
		}
		repeat += int(b.bits(extra)) + 3
		delta := repeat - old
		if sym+delta > size {
			return 0, r.fail(wrapf(ErrPrefixCode, "code lengths run past alphabet of %d", size))
		}
		for k := sym; k < sym+delta; k++ {
			lens[k] = l
		}
		sym += delta
		if l != 0 {
			space -= delta * ((1 << maxCodeLen) >> l)
		}
	}
	if b.truncated() {
		return 0, r.truncated()
	}
	if space != 0 {
		return 0, r.fail(wrapf(ErrPrefixCode, "code lengths do not add up"))
	}
	r.tables = buildTable(r.tables, lens, r.order[:])
	return start, nil
}
