package zstd

import (
	"encoding/binary"
	"fmt"
)

// Sequences are decoded and executed in two loops, a batch at a time:
// each loop then has few enough live values to keep them in registers
// (one fused loop made the compiler spill a third of its values).

// seqBatch is how many sequences are decoded before they are executed:
// the batch stays in the L1 cache.
const seqBatch = 256

// seqVal is one decoded sequence: literal length, match length, offset.
type seqVal struct {
	ll, ml, off uint32
}

// seqState is the sequence decoder's state between batches.
type seqState struct {
	in   []byte
	pos  int
	c    uint64
	n    uint
	prev [3]seqEntry // literal length, match length, offset entries
	left int         // sequences still to decode
}

// execute decodes nseq sequences from the backward bit stream src and
// executes them into hist from hlen, with the literals lits (wide is lits
// with readable slack after them). It returns the new output length.
func (z *Reader) execute(src []byte, nseq int, lits, wide []byte) (int, error) {
	var br backReader
	if err := br.init(src, &z.pads[4]); err != nil {
		return 0, err
	}
	d := &z.sst
	d.pos, d.n, d.c = reloadBits(br.in, br.pos, br.n, br.c)
	d.in = br.in
	// The initial states, read in the order literal length, offset, match
	// length, become the state update of entries that read no bits.
	for _, kind := range [3]seqKind{kindLL, kindOF, kindML} {
		lg := z.seq[kind].log
		state := d.c << (d.n & 63) >> 1 >> ((63 - lg) & 63)
		d.n += uint(lg)
		d.prev[[3]int{kindLL: 0, kindML: 1, kindOF: 2}[kind]] = seqEntry(state) << 48
	}
	d.left = nseq

	// The block's output ends by lim; out has copy slack past it, except
	// in a caller's buffer, where the last sequences copy exactly.
	lim := z.hlen + z.outMax
	out := z.hist[:min(lim+copySlack, len(z.hist))]
	op := z.hlen
	lp := 0
	for d.left > 0 {
		k, err := z.decodeSeqs()
		if err != nil {
			return 0, err
		}
		if op, lp, err = execSeqs(z.batch[:k], out, op, lim, wide, lp, len(lits)); err != nil {
			return 0, err
		}
	}
	pos, n, _ := reloadBits(d.in, d.pos, d.n, d.c)
	d.in = nil
	if pos != 0 || n != 64 {
		return 0, fmt.Errorf("%w: sequence bit stream not consumed exactly", ErrCorrupt)
	}
	rest := len(lits) - lp
	if op+rest > lim {
		return 0, fmt.Errorf("%w: literals past the block", ErrCorrupt)
	}
	op += copy(out[op:], lits[lp:])
	return op, nil
}

// decodeSeqs decodes the next batch of sequences into z.batch, resolving
// repeat offsets, and returns how many it decoded.
//
// Each iteration first makes the state update of the sequence before (the
// first one's reads the initial states), so that the stream's last
// sequence, which has none, needs no test; the container holds the bits
// for it, checked by the iteration before.
func (z *Reader) decodeSeqs() (int, error) {
	d := &z.sst
	in, pos, c, n := d.in, d.pos, d.c, d.n
	lle, mle, ofe := d.prev[0], d.prev[1], d.prev[2]
	rep1, rep2, rep3 := z.rep[0], z.rep[1], z.rep[2]
	k := min(d.left, seqBatch)
	// Reading k bits (k <= 32) at n is c << n >> (64 - k), written as two
	// right shifts so that k == 0 yields 0 with shift counts below 64
	// (63-k is k^63). The three state updates are one read, split with
	// masks, and so are the three extra values unless they are long.
	for j := 0; j < k; j++ {
		k1, k2, k3 := uint(uint8(lle>>40)), uint(uint8(mle>>40)), uint(uint8(ofe>>40))
		k23 := k2 + k3
		kAll := k1 + k23
		v := c << (n & 63) >> 1 >> ((kAll ^ 63) & 63)
		n += kAll
		llS := uint64(lle>>48) + v>>(k23&63)
		mlS := uint64(mle>>48) + v>>(k3&63)&bitMask[k2&63]
		ofS := uint64(ofe>>48) + v&bitMask[k3&63]

		if pos >= 8 {
			pos -= int(n >> 3)
			n &= 7
			c = binary.LittleEndian.Uint64(in[pos : pos+8])
		} else {
			pos, n, c = reloadBits(in, pos, n, c)
		}
		lle, mle, ofe = z.seq[kindLL].entries[llS&511], z.seq[kindML].entries[mlS&511], z.seq[kindOF].entries[ofS&511]
		ofBits, mlBits, llBits := uint(uint8(ofe>>32)), uint(uint8(mle>>32)), uint(uint8(lle>>32))
		eLM := llBits + mlBits
		eAll := eLM + ofBits
		var ov uint64
		var ml, ll uint32
		if eAll < 31 {
			// The extra bits and the next state update (at most 26
			// bits) fit in the container.
			v := c << (n & 63) >> 1 >> ((eAll ^ 63) & 63)
			n += eAll
			ll = uint32(lle) + uint32(v&bitMask[llBits&63])
			ml = uint32(mle) + uint32(v>>(llBits&63)&bitMask[mlBits&63])
			ov = uint64(uint32(ofe)) + v>>(eLM&63)
		} else {
			ov = uint64(uint32(ofe)) + c<<(n&63)>>1>>((ofBits^63)&63)
			n += ofBits
			ml = uint32(mle) + uint32(c<<(n&63)>>1>>((mlBits^63)&63))
			n += mlBits
			pos, n, c = reloadBits(in, pos, n, c)
			ll = uint32(lle) + uint32(c<<(n&63)>>1>>((llBits^63)&63))
			n += llBits
		}

		// Offsets 1-3 name the repeat offsets (RFC 8878 3.1.2.5).
		var off int
		if ofBits > 1 {
			off = int(ov - 3)
			if off > z.window {
				return 0, errSeqOffset
			}
			rep3, rep2, rep1 = rep2, rep1, off
		} else {
			// A repeat offset, picked and the repeat list updated with
			// conditional moves rather than a switch, whose branches the
			// data makes unpredictable (nor from a table in memory: the
			// load would wait for the stores just made).
			idx := int(ov) - 1
			if ll == 0 {
				idx++
			}
			lo, hi := rep1, rep3
			if idx&1 != 0 {
				lo, hi = rep2, rep1-1
			}
			off = lo
			if idx&2 != 0 {
				off = hi
			}
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
		z.batch[j] = seqVal{ll: ll, ml: ml, off: uint32(off)}
	}
	d.left -= k
	d.pos, d.c, d.n = pos, c, n
	d.prev = [3]seqEntry{lle, mle, ofe}
	z.rep = [3]int{rep1, rep2, rep3}
	return k, nil
}

// execSeqs executes seqs into out from op, with the literals wide[lp:nlits]
// (wide has readable slack past nlits). The output must end by lim. It
// returns the new output and literal positions.
//
// The common sequences go through a loop without calls, whose values
// then stay in registers; it leaves the others to a general function.
func execSeqs(seqs []seqVal, out []byte, op, lim int, wide []byte, lp, nlits int) (int, int, error) {
	for i := 0; ; i++ {
		var err error
		i, op, lp, err = execChunks(seqs, i, out, op, wide, lp, nlits)
		if err != nil || i == len(seqs) {
			return op, lp, err
		}
		if op, lp, err = execOne(seqs[i], out, op, lim, wide, lp, nlits); err != nil {
			return 0, 0, err
		}
	}
}

// execChunks executes seqs from i with chunk copies, which may write up
// to copySlack bytes past a sequence's end, until it meets one that needs
// more than that or a long copy, and returns its index (len(seqs) when
// all were done).
func execChunks(seqs []seqVal, i int, out []byte, op int, wide []byte, lp, nlits int) (int, int, int, error) {
	for ; i < len(seqs); i++ {
		s := seqs[i]
		ll, ml, off := int(s.ll), int(s.ml), int(s.off)
		if ll > nlits-lp {
			return 0, 0, 0, errSeqBounds
		}
		if op+ll+ml > len(out)-copySlack || ll > 128 || lp+128 > len(wide) || (ml > 128 && ml <= off) {
			return i, op, lp, nil
		}
		// Literals.
		if ll <= 16 {
			*(*[16]byte)(out[op : op+16]) = *(*[16]byte)(wide[lp : lp+16])
		} else {
			for j := 0; j < ll; j += 16 {
				*(*[16]byte)(out[op+j : op+j+16]) = *(*[16]byte)(wide[lp+j : lp+j+16])
			}
		}
		op += ll
		lp += ll

		// Match.
		if off > op {
			return 0, 0, 0, errSeqOffset
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
			} else {
				// off >= ml > 32: no chunk reads what another wrote.
				for j := 0; j < ml; j += 16 {
					*(*[16]byte)(out[op+j : op+j+16]) = *(*[16]byte)(out[m+j : m+j+16])
				}
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
			// A distance under 8: byte by byte until the pattern
			// repeats at a distance of at least 8, then 8 bytes at a
			// time from that distance.
			d := off * ((8 + off - 1) / off)
			j := 0
			for ; j < ml && j < d; j++ {
				out[op+j] = out[m+j]
			}
			for ; j < ml; j += 8 {
				*(*[8]byte)(out[op+j : op+j+8]) = *(*[8]byte)(out[op+j-d : op+j-d+8])
			}
		}
		op += ml
	}
	return i, op, lp, nil
}

// execOne executes one sequence with exact copies: one with long copies,
// or too near the end of out for chunk copies.
func execOne(s seqVal, out []byte, op, lim int, wide []byte, lp, nlits int) (int, int, error) {
	ll, ml, off := int(s.ll), int(s.ml), int(s.off)
	if ll > nlits-lp || op+ll+ml > lim {
		return 0, 0, errSeqBounds
	}
	op += copy(out[op:op+ll], wide[lp:lp+ll])
	lp += ll
	if off > op {
		return 0, 0, errSeqOffset
	}
	// An overlapping match repeats the off bytes before it: each copy
	// doubles what is there to copy from.
	m := op - off
	for j := 0; j < ml; {
		j += copy(out[op+j:op+ml], out[m:op+j])
	}
	return op + ml, lp, nil
}

// bitMask[k] keeps the low k bits.
var bitMask = func() (m [64]uint64) {
	for k := range m {
		m[k] = 1<<k - 1
	}
	return m
}()

// Errors of the sequence loops, made once: a call to build them inside a
// loop would make the compiler spill its registers.
var (
	errZeroOffset = fmt.Errorf("%w: zero repeat offset", ErrCorrupt)
	errSeqBounds  = fmt.Errorf("%w: sequence past the literals or the block", ErrCorrupt)
	errSeqOffset  = fmt.Errorf("%w: match offset beyond the window or the frame's start", ErrCorrupt)
)
