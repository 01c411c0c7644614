package zstd

import (
	"math"
	"math/bits"
	"slices"
)

// The optimal parser of the strongest levels: for each block, the
// cheapest way to reach every position is found forward (a literal, or a
// match of any length from the candidates the hash chains and the repeat
// offsets give), pricing literals, lengths and offsets in bits from the
// statistics of the block before; then the cheapest path to the block's end
// is emitted.

// optNode is the cheapest known way to reach a position of the block.
type optNode struct {
	price  int32 // 1/256 bits, including the literal length code due so far
	ml     int32 // the last step: a match of ml bytes, or 0 for a literal
	off    int32 // its offset
	litlen int32 // literals since the last match
	rep    [3]uint32
}

// optPrices are the prices of symbols, in 1/256 bits.
type optPrices struct {
	lit [256]int32
	ll  [maxLLSymbol + 1]int32
	ml  [maxMLSymbol + 1]int32
	of  [maxOFSymbol + 1]int32
}

// setPrices sets the price of each symbol of count: -log2 of
// (count+1)/(total+n), in 1/256 bits.
func setPrices(dst []int32, count []uint32) {
	total := float64(len(count))
	for _, c := range count {
		total += float64(c)
	}
	for s, c := range count {
		dst[s] = int32(math.Log2(total/float64(c+1)) * 256)
	}
}

// initPrices sets the prices at a frame's start: literals from the block's
// bytes, the rest from the predefined distributions.
func (p *optPrices) initPrices(block []byte) {
	var lc [256]uint32
	for _, c := range block {
		lc[c]++
	}
	setPrices(p.lit[:], lc[:])
	for k, d := range [][]int16{llDefault, ofDefault, mlDefault} {
		dst := [][]int32{p.ll[:], p.of[:], p.ml[:]}[k]
		var cnt [64]uint32
		for s, v := range d {
			cnt[s] = uint32(max(v, 1))
		}
		setPrices(dst, cnt[:len(dst)])
	}
}

// update sets the prices from the sequences and literals of the block
// just made.
func (p *optPrices) update(seqs []seq, lits []byte) {
	var lc [256]uint32
	for _, c := range lits {
		lc[c]++
	}
	setPrices(p.lit[:], lc[:])
	var ll [maxLLSymbol + 1]uint32
	var ml [maxMLSymbol + 1]uint32
	var of [maxOFSymbol + 1]uint32
	for _, s := range seqs {
		ll[llCode(s.ll)]++
		ml[mlCode(s.ml-3)]++
		of[bits.Len32(s.off)-1]++
	}
	setPrices(p.ll[:], ll[:])
	setPrices(p.ml[:], ml[:])
	setPrices(p.of[:], of[:])
}

// llPrice is the price of a literal length; a block's last literals may
// count past the largest a sequence holds, and are priced as it.
func (p *optPrices) llPrice(ll int) int32 {
	c := llCode(uint32(min(ll, 1<<17-1)))
	return p.ll[c] + int32(llExtra[c])*256
}

func (p *optPrices) mlPrice(ml int) int32 {
	c := mlCode(uint32(ml - 3))
	return p.ml[c] + int32(mlExtra[c])*256
}

// offPrice is the price of offset off after ll literals with the repeat
// offsets rep, and the repeat offsets after it.
func (p *optPrices) offPrice(off uint32, ll int, rep [3]uint32) (int32, [3]uint32) {
	code := repCode(&rep, off, ll)
	c := bits.Len32(code) - 1
	return p.of[c] + int32(c)*256, rep
}

// opt finds the sequences of src[bs:be] by the cheapest path and returns
// the anchor of the block's last literals.
func (e *Encoder) opt(src []byte, bs, be int) int {
	head, chain := e.tabA, e.tabB
	mml := e.p.mml
	win := min(1<<e.p.wlog, len(chain))
	lim := be - 8
	pr := &e.prices
	n := be - bs
	if cap(e.nodes) < n+1 {
		e.nodes = make([]optNode, n+1)
	}
	nodes := e.nodes[:n+1]
	for i := range nodes {
		nodes[i].price = math.MaxInt32
	}
	nodes[0] = optNode{price: pr.llPrice(0), rep: e.rep}
	skipTo := 0
	for k := 0; k < n; k++ {
		cur := &nodes[k]
		i := bs + k
		// A literal.
		lp := cur.price + pr.lit[src[i]] + pr.llPrice(int(cur.litlen)+1) - pr.llPrice(int(cur.litlen))
		if nx := &nodes[k+1]; lp < nx.price {
			*nx = optNode{price: lp, litlen: cur.litlen + 1, rep: cur.rep}
		}
		if i >= lim || k < skipTo {
			continue
		}
		e.insertChain(src, i)
		// Matches: the repeat offsets, then the chain's candidates, each
		// priced at every length it reaches beyond the ones before.
		best := 0
		relax := func(off, length int) {
			if length <= best {
				return
			}
			op, rep := pr.offPrice(uint32(off), int(cur.litlen), cur.rep)
			base := cur.price + op + pr.llPrice(0)
			from := max(best+1, 3)
			if length-from > 64 {
				from = length // only the whole match when it is long
			}
			for l := from; l <= length; l++ {
				p := base + pr.mlPrice(l)
				if nx := &nodes[k+l]; p < nx.price {
					*nx = optNode{price: p, ml: int32(l), off: int32(off), rep: rep}
				}
			}
			best = length
		}
		for j, r := range cur.rep {
			off := int(r)
			if cur.litlen == 0 {
				// With no literals the codes name the second and third
				// offsets and the first minus one.
				off = [3]int{int(cur.rep[1]), int(cur.rep[2]), int(cur.rep[0]) - 1}[j]
			}
			if off < 1 || off > i || off > win {
				continue
			}
			if l := matchLen(src, i, i-off, be); l >= 3 {
				relax(off, l)
			}
		}
		// The chains' candidates, short prefixes (the nearest) and 8-byte
		// ones (reaching further back among common prefixes), relaxed by
		// increasing offset, so each length is priced at the nearest
		// offset reaching it.
		cands := e.cands[:0]
		walk := func(head, chain []int32, n, depth int) {
			// Along a chain offsets grow: a candidate no longer than
			// the ones before it (or the repeat offsets') is no use.
			e.walkChain(src, head, chain, i, n, depth, best, be, func(off, l int) bool {
				cands = append(cands, [2]int32{int32(off), int32(l)})
				return true
			})
		}
		walk(head, chain, mml, max(e.p.depth/8, 4))
		if i+8 <= be {
			walk(e.tabC, e.tabD, 8, e.p.depth)
		}
		slices.SortFunc(cands, func(a, b [2]int32) int { return int(a[0] - b[0]) })
		for _, c := range cands {
			relax(int(c[0]), int(c[1]))
		}
		e.cands = cands
		if best >= e.p.target {
			// A long match is taken as it is: the positions it covers
			// are not searched.
			skipTo = k + best
		}
	}
	// The cheapest path, backward, then emitted forward.
	steps := e.steps[:0]
	for k := n; k > 0; {
		nd := &nodes[k]
		if nd.ml == 0 {
			k--
			continue
		}
		steps = append(steps, [2]int32{int32(k) - nd.ml, nd.ml}, [2]int32{nd.off, 0})
		k -= int(nd.ml)
	}
	e.steps = steps
	anchor := bs
	for j := len(steps) - 2; j >= 0; j -= 2 {
		start := bs + int(steps[j][0])
		anchor = e.emit(src, anchor, start, int(steps[j][1]), int(steps[j+1][0]))
	}
	return anchor
}
