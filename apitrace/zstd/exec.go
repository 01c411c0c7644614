package zstd

import (
	"encoding/binary"
	"fmt"
)

// execute decodes nseq sequences from the backward bit stream src and
// executes them into hist from hlen, with the literals lits (wide is lits
// with readable slack after them). It returns the new output length.
//
// Decoding and executing happen in one loop; the bit reader's fields live
// in locals so that they stay in registers.
func (z *Reader) execute(src []byte, nseq int, lits, wide []byte) (int, error) {
	var br backReader
	if err := br.init(src, &z.pads[4]); err != nil {
		return 0, err
	}
	in, pos, c, n := br.in, br.pos, br.c, br.n
	// One base pointer for the three tables keeps a register free.
	seq := &z.seq

	// Reading k bits (k <= 32) is c << n >> (64 - k), written as two
	// right shifts so that k == 0 yields 0 with shift counts below 64.
	k := z.seq[kindLL].log
	llS := c << (n & 63) >> 1 >> ((63 - k) & 63)
	n += uint(k)
	k = z.seq[kindOF].log
	ofS := c << (n & 63) >> 1 >> ((63 - k) & 63)
	n += uint(k)
	k = z.seq[kindML].log
	mlS := c << (n & 63) >> 1 >> ((63 - k) & 63)
	n += uint(k)

	out := z.hist
	op := z.hlen
	oend := op + z.blockMax
	window := z.window
	rep1, rep2, rep3 := z.rep[0], z.rep[1], z.rep[2]
	lp := 0
	for i := nseq; i > 0; i-- {
		if pos >= 8 {
			pos -= int(n >> 3)
			n &= 7
			c = binary.LittleEndian.Uint64(in[pos : pos+8])
		} else {
			pos, n, c = reloadBits(in, pos, n, c)
		}
		lle, mle, ofe := seq[kindLL].entries[llS&511], seq[kindML].entries[mlS&511], seq[kindOF].entries[ofS&511]
		ofBits, mlBits, llBits := uint8(ofe>>32), uint8(mle>>32), uint8(lle>>32)
		ov := uint64(uint32(ofe)) + c<<(n&63)>>1>>((63-ofBits)&63)
		n += uint(ofBits)
		ml := int(uint32(mle)) + int(c<<(n&63)>>1>>((63-mlBits)&63))
		n += uint(mlBits)
		if ofBits+mlBits+llBits >= 31 {
			if pos >= 8 {
				pos -= int(n >> 3)
				n &= 7
				c = binary.LittleEndian.Uint64(in[pos : pos+8])
			} else {
				pos, n, c = reloadBits(in, pos, n, c)
			}
		}
		ll := int(uint32(lle)) + int(c<<(n&63)>>1>>((63-llBits)&63))
		n += uint(llBits)

		// Offsets 1-3 name the repeat offsets (RFC 8878 3.1.2.5).
		var off int
		if ofBits > 1 {
			off = int(ov - 3)
			rep3, rep2, rep1 = rep2, rep1, off
		} else {
			// A repeat offset: picked from a table and the repeat list
			// updated with conditional moves rather than a switch, whose
			// branches the data makes unpredictable.
			idx := int(ov) - 1
			if ll == 0 {
				idx++
			}
			t := [4]int{rep1, rep2, rep3, rep1 - 1}
			off = t[idx&3]
			if idx >= 2 {
				rep3 = rep2
			}
			if idx != 0 {
				rep2 = rep1
			}
			rep1 = off
			if off == 0 {
				return 0, errZeroOffset
			}
		}
		if i > 1 {
			// State updates: literal length, match length, offset.
			k = uint8(lle >> 40)
			llS = uint64(lle>>48) + c<<(n&63)>>1>>((63-k)&63)
			n += uint(k)
			k = uint8(mle >> 40)
			mlS = uint64(mle>>48) + c<<(n&63)>>1>>((63-k)&63)
			n += uint(k)
			k = uint8(ofe >> 40)
			ofS = uint64(ofe>>48) + c<<(n&63)>>1>>((63-k)&63)
			n += uint(k)
		}

		if ll > len(lits)-lp || op+ll+ml > oend {
			return 0, errSeqBounds
		}
		// Literals.
		if ll <= 16 && lp+16 <= len(wide) {
			*(*[16]byte)(out[op : op+16]) = *(*[16]byte)(wide[lp : lp+16])
		} else if ll <= 128 && lp+128 <= len(wide) {
			for j := 0; j < ll; j += 16 {
				*(*[16]byte)(out[op+j : op+j+16]) = *(*[16]byte)(wide[lp+j : lp+j+16])
			}
		} else {
			copy(out[op:op+ll], lits[lp:lp+ll])
		}
		op += ll
		lp += ll

		// Match.
		if off > op || off > window {
			return 0, errSeqOffset
		}
		m := op - off
		switch {
		case ml <= off:
			// No overlap: the bytes read past the match are never used,
			// so both halves are loaded before either is stored (a load
			// overlapping a store just made would stall).
			if ml <= 16 {
				*(*[16]byte)(out[op : op+16]) = *(*[16]byte)(out[m : m+16])
			} else if ml <= 32 {
				a, b := *(*[16]byte)(out[m : m+16]), *(*[16]byte)(out[m+16 : m+16+16])
				*(*[16]byte)(out[op : op+16]) = a
				*(*[16]byte)(out[op+16 : op+16+16]) = b
			} else if ml <= 128 {
				// off >= ml > 32: no chunk reads what another wrote.
				for j := 0; j < ml; j += 16 {
					*(*[16]byte)(out[op+j : op+j+16]) = *(*[16]byte)(out[m+j : m+j+16])
				}
			} else {
				copy(out[op:op+ml], out[m:m+ml])
			}
		case off >= 16:
			for j := 0; j < ml; j += 16 {
				*(*[16]byte)(out[op+j : op+j+16]) = *(*[16]byte)(out[m+j : m+j+16])
			}
		case off >= 8:
			for j := 0; j < ml; j += 8 {
				*(*[8]byte)(out[op+j : op+j+8]) = *(*[8]byte)(out[m+j : m+j+8])
			}
		default:
			copyShort(out, op, m, ml, off)
		}
		op += ml
	}
	z.rep = [3]int{rep1, rep2, rep3}
	pos, n, _ = reloadBits(in, pos, n, c)
	if pos != 0 || n != 64 {
		return 0, fmt.Errorf("%w: sequence bit stream not consumed exactly", ErrCorrupt)
	}
	rest := len(lits) - lp
	if op+rest > oend {
		return 0, fmt.Errorf("%w: literals past the block", ErrCorrupt)
	}
	op += copy(out[op:], lits[lp:])
	return op, nil
}

// Errors of the sequence loop, made once: a call to build them inside the
// loop would make the compiler spill its registers.
var (
	errZeroOffset = fmt.Errorf("%w: zero repeat offset", ErrCorrupt)
	errSeqBounds  = fmt.Errorf("%w: sequence past the literals or the block", ErrCorrupt)
	errSeqOffset  = fmt.Errorf("%w: match offset beyond the window or the frame's start", ErrCorrupt)
)

// copyShort copies a match of ml bytes at distance off < 8: byte by byte
// until the pattern repeats at a distance of at least 8, then 8 bytes at a
// time from that distance.
func copyShort(out []byte, op, m, ml, off int) {
	d := off * ((8 + off - 1) / off)
	j := 0
	for ; j < ml && j < d; j++ {
		out[op+j] = out[m+j]
	}
	for ; j < ml; j += 8 {
		*(*[8]byte)(out[op+j : op+j+8]) = *(*[8]byte)(out[op+j-d : op+j-d+8])
	}
}
