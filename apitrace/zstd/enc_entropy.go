package zstd

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
)

// The entropy coders of the encoder: the bit writer, FSE tables (their
// normalization, description and encoding) and Huffman codes for
// literals. Each mirrors the decoder in this package, whose tables
// (spreadFSE, the baselines, the predefined distributions) it reuses.

// bitWriter writes a bit stream that the decoder reads backward: bits go
// in from the low end, and close adds the end marker. The caller keeps
// at least 8 spare bytes in out past i.
type bitWriter struct {
	out []byte
	i   int
	c   uint64
	n   uint
}

func (w *bitWriter) reset(out []byte) {
	w.out, w.i, w.c, w.n = out, 0, 0, 0
}

// add adds the low nb bits of v. n+nb must stay within 64.
func (w *bitWriter) add(v uint64, nb uint) {
	w.c |= (v & bitMask[nb&255]) << (w.n & 63)
	w.n += nb
}

// flush writes out the whole bytes held.
func (w *bitWriter) flush() {
	k := w.n >> 3
	binary.LittleEndian.PutUint64(w.out[w.i:], w.c)
	w.i += int(k)
	w.c = w.c >> (k * 8) // k == 8 clears c: Go shifts by 64 to zero
	w.n &= 7
}

// close adds the end marker and returns the stream.
func (w *bitWriter) close() []byte {
	w.add(1, 1)
	w.flush()
	if w.n > 0 {
		w.out[w.i] = byte(w.c)
		w.i++
	}
	return w.out[:w.i]
}

// log2Cost[k] is -log2(k/1024) in 1/256 bits, the cost of a symbol of
// probability k/1024; costs are estimates used to choose between table
// modes, never written.
var log2Cost = func() (t [1025]uint32) {
	for k := 1; k <= 1024; k++ {
		t[k] = uint32(math.Round(-math.Log2(float64(k)/1024) * 256))
	}
	t[0] = 64 * 256
	return t
}()

// probCost is the cost of a symbol of normalized count p in a table of
// accuracy log acc, in 1/256 bits.
func probCost(p int16, acc int) uint32 {
	if p < 1 {
		p = 1
	}
	return log2Cost[int(p)<<(10-acc)]
}

// optimalLog chooses the accuracy log of an FSE table for n symbols whose
// largest is maxSym: small inputs take small tables, whose description
// costs less, and the table needs room for every symbol.
func optimalLog(maxLog, n, maxSym int) int {
	log := maxLog
	if fromSize := bits.Len(uint(n-1)) - 2; fromSize < log {
		log = fromSize
	}
	minLog := min(bits.Len(uint(n)), bits.Len(uint(maxSym))+1) + 1
	if minLog > log {
		log = minLog
	}
	return max(5, min(log, maxLog))
}

// normalize scales count[:nsym] (summing to total) to norm, summing to
// 1<<acc, every present symbol at least 1. The slots left over by
// rounding down go where they save the most bits, and slots taken back
// where they cost the least.
func normalize(norm []int16, count []uint32, total int, acc int) {
	size := 1 << acc
	sum := 0
	for s, c := range count {
		if c == 0 {
			norm[s] = 0
			continue
		}
		v := int(uint64(c) << acc / uint64(total))
		if v < 1 {
			v = 1
		}
		norm[s] = int16(v)
		sum += v
	}
	for ; sum < size; sum++ {
		best, gain := -1, -1.0
		for s, c := range count {
			if c == 0 {
				continue
			}
			v := float64(norm[s])
			if g := float64(c) * math.Log2((v+1)/v); g > gain {
				best, gain = s, g
			}
		}
		norm[best]++
	}
	for ; sum > size; sum-- {
		best, loss := -1, math.Inf(1)
		for s, c := range count {
			if norm[s] <= 1 {
				continue
			}
			v := float64(norm[s])
			if l := float64(c) * math.Log2(v/(v-1)); l < loss {
				best, loss = s, l
			}
		}
		norm[best]--
	}
}

// appendProbs appends the FSE table description of norm (RFC 8878
// 4.1.1), the inverse of readProbs.
func appendProbs(dst []byte, norm []int16, acc int) []byte {
	// The last symbol with a probability ends the description.
	last := len(norm) - 1
	for last > 0 && norm[last] == 0 {
		last--
	}
	var c uint64
	var n uint
	put := func(v uint64, nb uint) {
		c |= v << n
		n += nb
		for n >= 8 {
			dst = append(dst, byte(c))
			c >>= 8
			n -= 8
		}
	}
	put(uint64(acc-5), 4)
	remaining := 1<<acc + 1
	threshold := 1 << acc
	nbBits := uint(acc + 1)
	for s := 0; s <= last; {
		count := int(norm[s])
		val := count + 1
		max := 2*threshold - 1 - remaining
		switch {
		case val < max:
			put(uint64(val), nbBits-1)
		case val < threshold:
			put(uint64(val), nbBits)
		default:
			put(uint64(val+max), nbBits)
		}
		if count < 0 {
			remaining--
		} else {
			remaining -= count
		}
		s++
		if count == 0 {
			z := 0
			for s+z <= last && norm[s+z] == 0 {
				z++
			}
			s += z
			for ; z >= 3; z -= 3 {
				put(3, 2)
			}
			put(uint64(z), 2)
		}
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
	}
	if n > 0 {
		dst = append(dst, byte(c))
	}
	return dst
}

// fseSym is a symbol's encoding transform: from state x, the symbol
// writes (x+deltaNb)>>16 bits and moves to state[x>>nb + deltaFind].
type fseSym struct {
	deltaNb   uint32
	deltaFind int32
}

// fseEnc is an FSE encoding table, built from the same spread of states
// as the decoder's.
type fseEnc struct {
	state [512]uint16
	sym   [64]fseSym
	first [64]uint16 // each symbol's first state, the initial one
	log   uint8
}

func (e *fseEnc) build(norm []int16, acc int, scratch *[512]fseEntry) error {
	var next [256]uint16
	if err := spreadFSE(scratch[:], norm, acc, &next); err != nil {
		return err
	}
	size := 1 << acc
	var cumul [65]int
	for s, p := range norm {
		cumul[s+1] = cumul[s] + max(int(p), 0)
		if p < 0 {
			cumul[s+1]++
		}
	}
	pos := cumul
	for u, t := range scratch[:size] {
		e.state[pos[t.sym]] = uint16(size + u)
		pos[t.sym]++
	}
	for s, p := range norm {
		switch {
		case p == 0:
			e.sym[s] = fseSym{}
		case p == 1 || p == -1:
			e.sym[s] = fseSym{uint32(acc<<16 - size), int32(cumul[s] - 1)}
		default:
			out := acc - (bits.Len(uint(p-1)) - 1)
			e.sym[s] = fseSym{uint32(out<<16 - int(p)<<out), int32(cumul[s] - int(p))}
		}
		if p != 0 {
			e.first[s] = e.state[cumul[s]]
		}
	}
	e.log = uint8(acc)
	return nil
}

// encode writes symbol s from state x and returns the new state.
func (e *fseEnc) encode(w *bitWriter, x uint32, s uint8) uint32 {
	t := e.sym[s&63]
	nb := (x + t.deltaNb) >> 16
	w.add(uint64(x), uint(nb))
	return uint32(e.state[(int32(x>>nb)+t.deltaFind)&511])
}

// Huffman codes for literals (RFC 8878 4.2.1).

// hufEnc is a Huffman code: each byte's code and length.
type hufEnc struct {
	code    [256]uint16
	nbits   [256]uint8
	maxBits int
	maxSym  int
}

// build makes a code of at most maxHuffBits bits for count[:maxSym+1]
// (at least two symbols present), complete, as the decoder requires.
func (h *hufEnc) build(count *[256]uint32, maxSym int) {
	type leaf struct {
		c   uint32
		sym uint8
	}
	var leaves [256]leaf
	n := 0
	for s := 0; s <= maxSym; s++ {
		if count[s] > 0 {
			leaves[n] = leaf{count[s], uint8(s)}
			n++
		}
	}
	ls := leaves[:n]
	slices.SortFunc(ls, func(a, b leaf) int { return int(a.c) - int(b.c) })
	// Two queues: the sorted leaves and the internal nodes, made in
	// increasing weight, so the two lightest are always at the heads.
	var weight [512]uint64
	var parent [512]int16
	for i, l := range ls {
		weight[i] = uint64(l.c)
	}
	li, ni, next := 0, n, n
	pick := func() int {
		if li < n && (ni >= next || weight[li] <= weight[ni]) {
			li++
			return li - 1
		}
		ni++
		return ni - 1
	}
	for next < 2*n-1 {
		a, b := pick(), pick()
		weight[next] = weight[a] + weight[b]
		parent[a], parent[b] = int16(next), int16(next)
		next++
	}
	var depth [512]uint8
	for k := 2*n - 3; k >= 0; k-- {
		depth[k] = depth[parent[k]] + 1
	}
	lens := depth[:n] // lens[i] is the length of ls[i]
	limitLengths(lens, maxHuffBits)
	h.nbits = [256]uint8{}
	h.maxBits = 0
	for i, l := range ls {
		h.nbits[l.sym] = lens[i]
		h.maxBits = max(h.maxBits, int(lens[i]))
	}
	h.maxSym = maxSym
	h.assign()
}

// limitLengths makes the code lengths of leaves sorted by increasing count
// at most limit, keeping the code complete: longer lengths are cut to the
// limit, then the rarest shorter codes lengthened until the code fits,
// then the commonest of the longest codes shortened to fill what is left.
func limitLengths(lens []uint8, limit uint8) {
	over := false
	for _, l := range lens {
		over = over || l > limit
	}
	if !over {
		return
	}
	full := 1 << limit
	kraft := 0
	for i, l := range lens {
		if l > limit {
			lens[i] = limit
		}
		kraft += 1 << (limit - lens[i])
	}
	for kraft > full {
		// The rarest of the longest codes below the limit.
		best := -1
		for i, l := range lens {
			if l < limit && (best < 0 || l > lens[best]) {
				best = i
			}
		}
		lens[best]++
		kraft -= 1 << (limit - lens[best])
	}
	for kraft < full {
		// The commonest of the longest codes that fits in what is left.
		best := -1
		for i := len(lens) - 1; i >= 0; i-- {
			c := 1 << (limit - lens[i])
			if lens[i] > 1 && c <= full-kraft && (best < 0 || lens[i] > lens[best]) {
				best = i
			}
		}
		kraft += 1 << (limit - lens[best])
		lens[best]--
	}
}

// assign gives the codes the decoder expects from the lengths: by
// increasing weight (the longest codes first), then by symbol.
func (h *hufEnc) assign() {
	var count [maxHuffBits + 2]int
	for s := 0; s <= h.maxSym; s++ {
		if l := h.nbits[s]; l > 0 {
			count[h.maxBits+1-int(l)]++
		}
	}
	var start [maxHuffBits + 2]int
	pos := 0
	for x := 1; x <= h.maxBits; x++ {
		start[x] = pos
		pos += count[x] << (x - 1)
	}
	for s := 0; s <= h.maxSym; s++ {
		l := h.nbits[s]
		if l == 0 {
			continue
		}
		x := h.maxBits + 1 - int(l)
		h.code[s] = uint16(start[x] >> (x - 1))
		start[x] += 1 << (x - 1)
	}
}

// cost is the size in bits of the literals whose histogram is count when
// coded with h, or -1 when h has no code for one of them.
func (h *hufEnc) cost(count *[256]uint32, maxSym int) int {
	if maxSym > h.maxSym {
		return -1
	}
	total := 0
	for s, c := range count[:maxSym+1] {
		if c > 0 {
			if h.nbits[s] == 0 {
				return -1
			}
			total += int(c) * int(h.nbits[s])
		}
	}
	return total
}

// appendTable appends the code's description: weights compressed with
// FSE when that is smaller, else 4 bits each. ok is false when neither
// can describe it (more than 128 weights that FSE cannot compress).
func (h *hufEnc) appendTable(dst []byte, enc *fseEnc, scratch *[512]fseEntry, pad *[8]byte, tmp []byte) (_ []byte, ok bool) {
	nw := h.maxSym // the last symbol's weight is implied
	var w [256]uint8
	var hist [16]uint32
	maxW := 0
	for s := 0; s < nw; s++ {
		if l := h.nbits[s]; l > 0 {
			w[s] = uint8(h.maxBits + 1 - int(l))
		}
		hist[w[s]]++
		maxW = max(maxW, int(w[s]))
	}
	if f := packWeights(w[:nw], hist[:maxW+1], enc, scratch, pad, tmp); f != nil && len(f) < 128 && (nw > 128 || len(f) < (nw+1)/2) {
		dst = append(dst, byte(len(f)))
		return append(dst, f...), true
	}
	if nw > 128 {
		return dst, false
	}
	dst = append(dst, byte(127+nw))
	for i := 0; i < nw; i += 2 {
		dst = append(dst, w[i]<<4|w[i+1])
	}
	return dst, true
}

// packWeights compresses Huffman weights with FSE, two interleaved states
// as the decoder reads them, into tmp; nil when it cannot. The result is
// decoded again and compared: the decoder ends a stream of weights by
// reading past its start, which some tables cannot signal.
func packWeights(w []uint8, hist []uint32, enc *fseEnc, scratch *[512]fseEntry, pad *[8]byte, tmp []byte) []byte {
	n := len(w)
	if n < 2 {
		return nil
	}
	for _, c := range hist {
		if int(c) == n {
			return nil // one weight only
		}
	}
	acc := optimalLog(maxWeightLog, n, len(hist)-1)
	var norm [16]int16
	normalize(norm[:len(hist)], hist, n, acc)
	if enc.build(norm[:len(hist)], acc, scratch) != nil {
		return nil
	}
	out := appendProbs(tmp[:0], norm[:len(hist)], acc)
	var bw bitWriter
	bw.reset(tmp[len(out):cap(tmp)])
	// w[n-1] and w[n-2] are the states' last symbols, read with no
	// update after them; the even positions are the first state's.
	var st [2]uint32
	st[(n-1)&1] = uint32(enc.first[w[n-1]])
	st[(n-2)&1] = uint32(enc.first[w[n-2]])
	for i := n - 3; i >= 0; i-- {
		st[i&1] = enc.encode(&bw, st[i&1], w[i])
		bw.flush()
	}
	bw.add(uint64(st[1]), uint(acc))
	bw.add(uint64(st[0]), uint(acc))
	stream := bw.close()
	out = append(out, stream...)
	// Check it decodes to w.
	var got [256]uint8
	k, err := fseWeights(out, &got, scratch, pad)
	if err != nil || k != n || string(got[:n]) != string(w) {
		return nil
	}
	return out
}
