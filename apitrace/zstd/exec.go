package zstd

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Sequences are decoded and executed in two loops, a batch at a time:
// each loop then has few enough live values to keep them in registers
// (one fused loop made the compiler spill a third of its values).

// seqBatch is how many sequences are decoded before they are executed:
// the batch stays in the L1 cache.
const seqBatch = 256

// seqVal is one decoded sequence: literal length, match length, offset
// (an offset value until the execution resolves repeat offsets).
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
		d.prev[[3]int{kindLL: 0, kindML: 1, kindOF: 2}[kind]] = seqEntry(state) << 16
	}
	d.left = nseq

	// The block's output ends by lim; out has copy slack past it, except
	// in a caller's buffer, where the last sequences copy exactly.
	lim := z.hlen + z.outMax
	out := z.hist[:min(lim+copySlack, len(z.hist))]
	op := z.hlen
	lp := 0
	for d.left > 0 {
		var k int
		var err error
		if z.seq[kindLL].noExtra {
			k, err = z.decodeSeqsNoLLExtra()
		} else {
			k, err = z.decodeSeqs()
		}
		if err != nil {
			return 0, err
		}
		if op, lp, err = execSeqs(z.batch[:k], z.lens, out, op, lim, wide, lp, len(lits), &z.rep, z.window, z.seq[kindOF].rep1); err != nil {
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

// decodeSeqs decodes the next batch of sequences into z.batch and returns
// how many it decoded. Their offsets are still offset values: the
// execution resolves the repeat offsets, so that this loop keeps its
// values in registers.
//
// Each iteration first makes the state update of the sequence before (the
// first one's reads the initial states), so that the stream's last
// sequence, which has none, needs no test; the container holds the bits
// for it, checked by the iteration before.
//
// A field of k bits with n bits consumed is rotl(c, n+k) masked to k
// bits: one rotation, no special case for k == 0, and a read past the
// stream's start gives garbage that the final check of the bit count
// rejects.
func (z *Reader) decodeSeqs() (int, error) {
	d := &z.sst
	pos, c, n := d.pos, d.c, d.n
	lle, mle, ofe := d.prev[0], d.prev[1], d.prev[2]
	tabs := &z.seq
	batch := z.batch[:min(d.left, seqBatch)]
	// The batch's total literal lengths | match lengths << 32, for
	// execSeqs: lengths are under 1<<18, their sums do not carry.
	var lens uint64
	for j := range batch {
		// The state updates of the sequence before: literal length,
		// match length, offset. The next state base is in bits 16-31:
		// the bits above it are masked off with the table index. Each
		// bit count is widened once, for the count and the mask index
		// (widened twice, it took two instructions).
		nb := uint(uint8(lle))
		n += nb
		llS := uint64(lle>>16) + bits.RotateLeft64(c, int(n))&bitMask[nb&255]
		nb = uint(uint8(mle))
		n += nb
		mlS := uint64(mle>>16) + bits.RotateLeft64(c, int(n))&bitMask[nb&255]
		nb = uint(uint8(ofe))
		n += nb
		ofS := uint64(ofe>>16) + bits.RotateLeft64(c, int(n))&bitMask[nb&255]

		if pos >= 8 {
			pos -= int(n >> 3)
			n &= 7
			c = binary.LittleEndian.Uint64(d.in[pos : pos+8])
		} else {
			pos, n, c = reloadBits(d.in, pos, n, c)
		}
		lle, mle, ofe = tabs[kindLL].entries[llS&511], tabs[kindML].entries[mlS&511], tabs[kindOF].entries[ofS&511]
		ob, mb, lb := uint(uint8(ofe>>8)), uint(uint8(mle>>8)), uint(uint8(lle>>8))
		var ov uint64
		var ml, ll uint32
		if ob+mb+lb <= 30 {
			// The extra bits and the next state updates (at most 26
			// bits) fit in the container.
			n += ob
			ov = uint64(uint32(ofe>>32)) + bits.RotateLeft64(c, int(n))&bitMask[ob&255]
			n += mb
			ml = uint32(mle>>32) + uint32(bits.RotateLeft64(c, int(n))&bitMask[mb&255])
			n += lb
			ll = uint32(lle>>32) + uint32(bits.RotateLeft64(c, int(n))&bitMask[lb&255])
		} else {
			n += ob
			ov = uint64(uint32(ofe>>32)) + bits.RotateLeft64(c, int(n))&bitMask[ob&255]
			n += mb
			ml = uint32(mle>>32) + uint32(bits.RotateLeft64(c, int(n))&bitMask[mb&255])
			pos, n, c = reloadBits(d.in, pos, n, c)
			n += lb
			ll = uint32(lle>>32) + uint32(bits.RotateLeft64(c, int(n))&bitMask[lb&255])
		}
		batch[j] = seqVal{ll: ll, ml: ml, off: uint32(ov)}
		lens += uint64(ll) | uint64(ml)<<32
	}
	z.lens = lens
	d.left -= len(batch)
	d.pos, d.c, d.n = pos, c, n
	d.prev = [3]seqEntry{lle, mle, ofe}
	return len(batch), nil
}

// decodeSeqsNoLLExtra is decodeSeqs for a block whose literal length
// table reads no extra bits (literal lengths under 16, as in most blocks
// of apitrace's traces at zstd -3): one field fewer to read per sequence,
// a few percent of the whole decoding.
func (z *Reader) decodeSeqsNoLLExtra() (int, error) {
	d := &z.sst
	pos, c, n := d.pos, d.c, d.n
	lle, mle, ofe := d.prev[0], d.prev[1], d.prev[2]
	tabs := &z.seq
	batch := z.batch[:min(d.left, seqBatch)]
	var lens uint64
	for j := range batch {
		nb := uint(uint8(lle))
		n += nb
		llS := uint64(lle>>16) + bits.RotateLeft64(c, int(n))&bitMask[nb&255]
		nb = uint(uint8(mle))
		n += nb
		mlS := uint64(mle>>16) + bits.RotateLeft64(c, int(n))&bitMask[nb&255]
		nb = uint(uint8(ofe))
		n += nb
		ofS := uint64(ofe>>16) + bits.RotateLeft64(c, int(n))&bitMask[nb&255]

		if pos >= 8 {
			pos -= int(n >> 3)
			n &= 7
			c = binary.LittleEndian.Uint64(d.in[pos : pos+8])
		} else {
			pos, n, c = reloadBits(d.in, pos, n, c)
		}
		lle, mle, ofe = tabs[kindLL].entries[llS&511], tabs[kindML].entries[mlS&511], tabs[kindOF].entries[ofS&511]
		ob, mb := uint(uint8(ofe>>8)), uint(uint8(mle>>8))
		var ov uint64
		var ml uint32
		ll := uint32(lle >> 32)
		if ob+mb <= 30 {
			// As in decodeSeqs, the next state updates fit as well.
			n += ob
			ov = uint64(uint32(ofe>>32)) + bits.RotateLeft64(c, int(n))&bitMask[ob&255]
			n += mb
			ml = uint32(mle>>32) + uint32(bits.RotateLeft64(c, int(n))&bitMask[mb&255])
		} else {
			n += ob
			ov = uint64(uint32(ofe>>32)) + bits.RotateLeft64(c, int(n))&bitMask[ob&255]
			pos, n, c = reloadBits(d.in, pos, n, c)
			n += mb
			ml = uint32(mle>>32) + uint32(bits.RotateLeft64(c, int(n))&bitMask[mb&255])
		}
		batch[j] = seqVal{ll: ll, ml: ml, off: uint32(ov)}
		lens += uint64(ll) | uint64(ml)<<32
	}
	z.lens = lens
	d.left -= len(batch)
	d.pos, d.c, d.n = pos, c, n
	d.prev = [3]seqEntry{lle, mle, ofe}
	return len(batch), nil
}

// execSeqs executes seqs, whose offsets are still offset values and whose
// total lengths are lens (as decodeSeqs sums them), into out from op,
// with the literals wide[lp:nlits] (wide has readable slack past nlits).
// The output must end by lim. It returns the new output and
// literal positions.
//
// A batch whose output and literals fit with room for chunk copies, as
// all but the last of a buffer's do, goes through a loop that makes no
// other test of its bounds, and has few enough values to keep them in
// registers; it leaves long non-overlapping matches to a general
// function. Other batches go one sequence at a time through the general
// function.
func execSeqs(seqs []seqVal, lens uint64, out []byte, op, lim int, wide []byte, lp, nlits int, rep *[4]int, window int, rep1 bool) (int, int, error) {
	lsum, sum := int(uint32(lens)), int(lens>>32)
	sum += lsum
	if op+sum <= len(out)-copySlack && lsum <= nlits-lp && lp+lsum+copySlack <= len(wide) {
		for i := 0; ; i++ {
			var err error
			if rep1 {
				i, op, lp, err = execChunksRep1(seqs, i, out, op, wide, lp, rep, window)
			} else {
				i, op, lp, err = execChunks(seqs, i, out, op, wide, lp, rep, window)
			}
			if err != nil || i == len(seqs) {
				return op, lp, err
			}
			if op, lp, err = execOne(seqs[i], out, op, lim, wide, lp, nlits); err != nil {
				return 0, 0, err
			}
		}
	}
	if err := resolveOffsets(seqs, rep, window); err != nil {
		return 0, 0, err
	}
	for _, s := range seqs {
		var err error
		if op, lp, err = execOne(s, out, op, lim, wide, lp, nlits); err != nil {
			return 0, 0, err
		}
	}
	return op, lp, nil
}

// execChunks executes seqs from i with chunk copies, which may write up
// to copySlack bytes past a sequence's end, until it meets a long
// non-overlapping match, and returns its index (len(seqs) when all were
// done). The caller checked that the output and the literals of seqs fit
// with that slack.
func execChunks(seqs []seqVal, i int, out []byte, op int, wide []byte, lp int, rep *[4]int, window int) (int, int, int, error) {
	for ; i < len(seqs); i++ {
		s := &seqs[i]
		ll, ml, ov := int(s.ll), int(s.ml), int(s.off)
		// Offsets 1-3 name the repeat offsets (RFC 8878 3.1.2.5). The
		// repeat offsets stay in memory, indexed: the loop has no
		// registers to spare, and the other work of an iteration hides
		// the latency of reading back what the one before stored.
		var off int
		if ov > 3 {
			off = ov - 3
			if off > window {
				return 0, 0, 0, errSeqOffset
			}
			rep[2], rep[1] = rep[1], rep[0]
		} else {
			// Value 1-3, one more when the literal length is 0, names
			// the first, second or third repeat offset, or the first
			// minus 1. The picked one moves to the front.
			idx := ov - 1
			if ll == 0 {
				idx++
			}
			off = rep[idx&3]
			r1, r3 := rep[0], rep[2]
			if idx >= 2 {
				r3 = rep[1]
			}
			r2 := rep[1]
			if idx != 0 {
				r2 = r1
			}
			if off == 0 {
				return 0, 0, 0, errZeroOffset
			}
			rep[1], rep[2] = r2, r3
		}
		rep[0], rep[3] = off, off-1
		if ml > 128 && ml <= off {
			s.off = uint32(off)
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
				// In words: two 16-byte values would go through the
				// stack.
				src, dst := out[m:m+32], out[op:op+32]
				w0 := binary.LittleEndian.Uint64(src[0:])
				w1 := binary.LittleEndian.Uint64(src[8:])
				w2 := binary.LittleEndian.Uint64(src[16:])
				w3 := binary.LittleEndian.Uint64(src[24:])
				binary.LittleEndian.PutUint64(dst[0:], w0)
				binary.LittleEndian.PutUint64(dst[8:], w1)
				binary.LittleEndian.PutUint64(dst[16:], w2)
				binary.LittleEndian.PutUint64(dst[24:], w3)
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

// execChunksRep1 is execChunks, but for blocks whose offset table makes
// nearly every sequence use the first repeat offset again (as apitrace's
// traces at zstd -3 do, 98% of their sequences): those take a branch
// that leaves the repeat offsets alone, saving their reads and writes.
// Elsewhere that branch would be mispredicted too often, so it is a copy
// of the loop, chosen per block, rather than a branch in execChunks.
func execChunksRep1(seqs []seqVal, i int, out []byte, op int, wide []byte, lp int, rep *[4]int, window int) (int, int, int, error) {
	for ; i < len(seqs); i++ {
		s := &seqs[i]
		ll, ml, ov := int(s.ll), int(s.ml), int(s.off)
		var off int
		if ov == 1 && ll != 0 {
			// The first repeat offset again: nothing moves.
			off = rep[0]
		} else if ov > 3 {
			off = ov - 3
			if off > window {
				return 0, 0, 0, errSeqOffset
			}
			rep[2], rep[1] = rep[1], rep[0]
			rep[0], rep[3] = off, off-1
		} else {
			idx := ov - 1
			if ll == 0 {
				idx++
			}
			off = rep[idx&3]
			r1, r3 := rep[0], rep[2]
			if idx >= 2 {
				r3 = rep[1]
			}
			r2 := rep[1]
			if idx != 0 {
				r2 = r1
			}
			if off == 0 {
				return 0, 0, 0, errZeroOffset
			}
			rep[1], rep[2] = r2, r3
			rep[0], rep[3] = off, off-1
		}
		if ml > 128 && ml <= off {
			s.off = uint32(off)
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
			if ml <= 16 {
				*(*[16]byte)(out[op : op+16]) = *(*[16]byte)(out[m : m+16])
			} else if ml <= 32 {
				src, dst := out[m:m+32], out[op:op+32]
				w0 := binary.LittleEndian.Uint64(src[0:])
				w1 := binary.LittleEndian.Uint64(src[8:])
				w2 := binary.LittleEndian.Uint64(src[16:])
				w3 := binary.LittleEndian.Uint64(src[24:])
				binary.LittleEndian.PutUint64(dst[0:], w0)
				binary.LittleEndian.PutUint64(dst[8:], w1)
				binary.LittleEndian.PutUint64(dst[16:], w2)
				binary.LittleEndian.PutUint64(dst[24:], w3)
			} else {
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

// resolveOffsets turns the offset values of seqs into offsets, as
// execChunks does.
func resolveOffsets(seqs []seqVal, rep *[4]int, window int) error {
	for i := range seqs {
		s := &seqs[i]
		ov := int(s.off)
		var off int
		if ov > 3 {
			off = ov - 3
			if off > window {
				return errSeqOffset
			}
			rep[2], rep[1], rep[0], rep[3] = rep[1], rep[0], off, off-1
			s.off = uint32(off)
			continue
		}
		idx := ov - 1
		if s.ll == 0 {
			idx++
		}
		switch idx {
		case 0:
			off = rep[0]
		case 1:
			off = rep[1]
			rep[1] = rep[0]
		case 2:
			off = rep[2]
			rep[2], rep[1] = rep[1], rep[0]
		default:
			off = rep[0] - 1
			rep[2], rep[1] = rep[1], rep[0]
		}
		if off == 0 {
			return errZeroOffset
		}
		rep[0], rep[3] = off, off-1
		s.off = uint32(off)
	}
	return nil
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
// Indexed by a byte, it needs no bounds check; counts past 63 never
// occur in a table.
var bitMask = func() (m [256]uint64) {
	for k := range m[:64] {
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
