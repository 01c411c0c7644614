package zstd

import (
	"encoding/binary"
	"math/bits"
)

// Match finding. Four strategies, as zstd's levels use them: fast (one
// hash table, levels 1-2), double fast (a table of 8-byte and one of
// short prefixes, levels 3-4), hash chains with lazy evaluation (levels
// 5-11) and hash chains with an optimal parser (12-22).
// Each one tries the repeat offsets, which cost the fewest bits.

type strategy uint8

const (
	stratFast strategy = iota
	stratDFast
	stratLazy
	stratOpt
)

// params are a level's match finder settings.
type params struct {
	strat  strategy
	wlog   uint8 // window log
	hlog   uint8 // fast: the table; dfast: the long table; lazy: the chain heads
	slog   uint8 // dfast: the short table; lazy: the chain
	mml    int   // bytes a hashed prefix covers (the shortest match)
	depth  int   // lazy: candidates tried per position
	lazy   int   // lazy: positions after a match tried for a better one
	target int   // lazy: a match this long ends the search
	skip   uint  // log2 of the literal run that makes the search step grow
	passes bool  // opt: every block parsed twice, the second time priced by the first
}

// levels holds each level's settings. The window stays at 2 MiB at most,
// the frame size apitrace uses. Levels 8-11 are level 7: deeper lazy
// searches made apitrace's traces larger (a longer match at a new offset
// breaks runs of repeat offsets); from 12 on the optimal parser searches
// deeper and deeper, with 3-byte matches from 16.
var levels = [MaxLevel + 1]params{
	1: {strat: stratFast, wlog: 19, hlog: 15, mml: 6, skip: 6},
	2: {strat: stratFast, wlog: 20, hlog: 16, mml: 5, skip: 7},
	3: {strat: stratDFast, wlog: 21, hlog: 17, slog: 16, mml: 5, skip: 8},
	4: {strat: stratDFast, wlog: 21, hlog: 18, slog: 18, mml: 4, skip: 8},
	5: {strat: stratLazy, wlog: 21, hlog: 18, slog: 18, mml: 4, depth: 4, lazy: 1, target: 256, skip: 8},
	6: {strat: stratLazy, wlog: 21, hlog: 18, slog: 18, mml: 4, depth: 4, lazy: 2, target: 256, skip: 8},
	7: {strat: stratLazy, wlog: 21, hlog: 18, slog: 18, mml: 4, depth: 8, lazy: 2, target: 256, skip: 8},
	8: {strat: stratLazy, wlog: 21, hlog: 18, slog: 18, mml: 4, depth: 12, lazy: 2, target: 256, skip: 8},
	9: {strat: stratLazy, wlog: 21, hlog: 18, slog: 18, mml: 4, depth: 16, lazy: 2, target: 256, skip: 8},
}

func init() {
	for l := 8; l <= 11; l++ {
		levels[l] = levels[7]
	}
	for l := 12; l <= 15; l++ {
		levels[l] = params{strat: stratOpt, wlog: 21, hlog: 18, slog: 18, mml: 4, depth: 16, target: 256}
	}
	for l := 16; l <= 18; l++ {
		levels[l] = params{strat: stratOpt, wlog: 21, hlog: 18, slog: 18, mml: 3, depth: 32, target: 256}
	}
	for l := 19; l <= MaxLevel; l++ {
		levels[l] = params{strat: stratOpt, wlog: 21, hlog: 18, slog: 18, mml: 3, depth: 128, target: 999, passes: l == MaxLevel}
	}
}

func levelParams(level int) (params, error) {
	if level < MinLevel || level > MaxLevel {
		return params{}, wrapf(ErrInvalid, "level %d outside %d..%d", level, MinLevel, MaxLevel)
	}
	return levels[level], nil
}

const hashPrime = 0x9e3779b185ebca87

// hashAt hashes the n low bytes of u (the bytes at a position) to log bits.
func hashAt(u uint64, n int, log uint8) uint32 {
	return uint32((u << (64 - 8*uint(n))) * hashPrime >> (64 - log))
}

func load32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }
func load64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// matchLen returns how many bytes from src[a:] equal those from src[b:],
// up to end for a.
func matchLen(src []byte, a, b, end int) int {
	n := 0
	for a+n+8 <= end {
		if x := load64(src, a+n) ^ load64(src, b+n); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for a+n < end && src[a+n] == src[b+n] {
		n++
	}
	return n
}

// resetMatcher empties the tables for a frame of n bytes: frames do not
// refer to each other. Tables no larger than the frame needs are cleared.
func (e *Encoder) resetMatcher(n int) {
	size := func(log uint8) int {
		return 1 << min(int(log), max(bits.Len(uint(n)), 8))
	}
	e.tabA = resize(e.tabA, size(e.p.hlog))
	if e.p.strat != stratFast {
		e.tabB = resize(e.tabB, size(e.p.slog))
	}
	if e.p.strat == stratOpt {
		e.tabC = resize(e.tabC, size(e.p.hlog))
		e.tabD = resize(e.tabD, size(e.p.slog))
	}
	e.next = 0
}

// resize returns t with n entries, all zero (position 0).
func resize(t []int32, n int) []int32 {
	if cap(t) < n {
		return make([]int32, n)
	}
	t = t[:n]
	clear(t)
	return t
}

// tabLog is the log of a table's size as resetMatcher made it.
func tabLog(t []int32) uint8 { return uint8(bits.Len(uint(len(t))) - 1) }

// findMatches adds the sequences of src[bs:be] to the block, and its
// last literals, with matches anywhere in src[:be] within the window.
func (e *Encoder) findMatches(src []byte, bs, be int) {
	var anchor int
	switch e.p.strat {
	case stratFast:
		anchor = e.fast(src, bs, be)
	case stratDFast:
		anchor = e.dfast(src, bs, be)
	case stratLazy:
		anchor = e.lazy(src, bs, be)
	default:
		if bs == 0 || e.p.passes {
			// A first pass gives the prices of the frame's first block
			// (or of every block) the statistics of the block itself.
			if bs == 0 {
				e.prices.initPrices(src[bs:be])
			}
			rep, next := e.rep, e.next
			e.saveA = append(append(e.saveA[:0], e.tabA...), e.tabC...)
			e.saveB = append(append(e.saveB[:0], e.tabB...), e.tabD...)
			a := e.opt(src, bs, be)
			e.prices.update(e.seqs, append(e.lits, src[a:be]...))
			e.seqs, e.lits = e.seqs[:0], e.lits[:0]
			e.rep, e.next = rep, next
			copy(e.tabC, e.saveA[copy(e.tabA, e.saveA):])
			copy(e.tabD, e.saveB[copy(e.tabB, e.saveB):])
		}
		anchor = e.opt(src, bs, be)
	}
	e.lits = append(e.lits, src[anchor:be]...)
	if e.p.strat == stratOpt {
		e.prices.update(e.seqs, e.lits)
	}
}

// extendBack extends a match at start from cand backward over the
// literals since anchor.
func extendBack(src []byte, anchor, start, cand, ml int) (int, int, int) {
	for start > anchor && cand > 0 && src[start-1] == src[cand-1] {
		start--
		cand--
		ml++
	}
	return start, cand, ml
}

// repeatRun emits matches at ip with the second repeat offset for as
// long as they follow each other (a swap of the two latest offsets costs
// no bits), and returns the new position.
func (e *Encoder) repeatRun(src []byte, ip, lim, be int, insert func(int)) int {
	for ip < lim {
		r := int(e.rep[1])
		if r > ip || load32(src, ip) != load32(src, ip-r) {
			break
		}
		ml := 4 + matchLen(src, ip+4, ip+4-r, be)
		insert(ip)
		ip = e.emit(src, ip, ip, ml, r)
	}
	return ip
}

// fast is the single hash table strategy. It returns the anchor of the
// block's last literals.
func (e *Encoder) fast(src []byte, bs, be int) int {
	tab := e.tabA
	log := tabLog(tab)
	mml := e.p.mml
	win := 1 << e.p.wlog
	anchor, ip := bs, bs
	lim := be - 8
	insert := func(i int) { tab[hashAt(load64(src, i), mml, log)] = int32(i) }
	for ip < lim {
		cur := load64(src, ip)
		h := hashAt(cur, mml, log)
		cand := int(tab[h])
		tab[h] = int32(ip)
		start, ml, off := 0, 0, 0
		if r := int(e.rep[0]); r <= ip && load32(src, ip+1-r) == uint32(cur>>8) {
			start, off = ip+1, r
			ml = 4 + matchLen(src, ip+5, ip+5-r, be)
		} else if cand < ip && ip-cand <= win && (load64(src, cand)^cur)<<(64-8*uint(mml)) == 0 {
			ml = mml + matchLen(src, ip+mml, cand+mml, be)
			start, cand, ml = extendBack(src, anchor, ip, cand, ml)
			off = start - cand
		} else {
			ip += 1 + (ip-anchor)>>e.p.skip
			continue
		}
		ip = e.emit(src, anchor, start, ml, off)
		anchor = ip
		if ip < lim {
			insert(ip - 2)
			ip = e.repeatRun(src, ip, lim, be, insert)
			anchor = ip
		}
	}
	return anchor
}

// dfast is the double fast strategy: a table of 8-byte prefixes for long
// matches, and one of short prefixes for the rest.
func (e *Encoder) dfast(src []byte, bs, be int) int {
	long, short := e.tabA, e.tabB
	llog, slog := tabLog(long), tabLog(short)
	mml := e.p.mml
	win := 1 << e.p.wlog
	anchor, ip := bs, bs
	lim := be - 8
	insert := func(i int) {
		u := load64(src, i)
		long[hashAt(u, 8, llog)] = int32(i)
		short[hashAt(u, mml, slog)] = int32(i)
	}
	for ip < lim {
		cur := load64(src, ip)
		hl, hs := hashAt(cur, 8, llog), hashAt(cur, mml, slog)
		cl, cs := int(long[hl]), int(short[hs])
		long[hl], short[hs] = int32(ip), int32(ip)
		var start, ml, off int
		switch {
		case int(e.rep[0]) <= ip && load32(src, ip+1-int(e.rep[0])) == uint32(cur>>8):
			r := int(e.rep[0])
			start, off = ip+1, r
			ml = 4 + matchLen(src, ip+5, ip+5-r, be)
		case cl < ip && ip-cl <= win && load64(src, cl) == cur:
			ml = 8 + matchLen(src, ip+8, cl+8, be)
			start, cl, ml = extendBack(src, anchor, ip, cl, ml)
			off = start - cl
		case cs < ip && ip-cs <= win && load32(src, cs) == uint32(cur):
			// A long match one byte on beats the short one here.
			nxt := load64(src, ip+1)
			h1 := hashAt(nxt, 8, llog)
			c1 := int(long[h1])
			long[h1] = int32(ip + 1)
			if c1 < ip+1 && ip+1-c1 <= win && load64(src, c1) == nxt {
				ml = 8 + matchLen(src, ip+9, c1+8, be)
				start, c1, ml = extendBack(src, anchor, ip+1, c1, ml)
				off = start - c1
			} else {
				ml = 4 + matchLen(src, ip+4, cs+4, be)
				start, cs, ml = extendBack(src, anchor, ip, cs, ml)
				off = start - cs
			}
		default:
			ip += 1 + (ip-anchor)>>e.p.skip
			continue
		}
		ip = e.emit(src, anchor, start, ml, off)
		anchor = ip
		if ip < lim {
			insert(start + 2)
			insert(ip - 2)
			short[hashAt(load64(src, ip-1), mml, slog)] = int32(ip - 1)
			ip = e.repeatRun(src, ip, lim, be, insert)
			anchor = ip
		}
	}
	return anchor
}

// insertChain adds the positions before i to the hash chains of the lazy
// and optimal strategies.
func (e *Encoder) insertChain(src []byte, i int) {
	head, chain := e.tabA, e.tabB
	log, cmask := tabLog(head), len(chain)-1
	long := e.p.strat == stratOpt
	for p := e.next; p < i; p++ {
		u := load64(src, p)
		h := hashAt(u, e.p.mml, log)
		chain[p&cmask] = head[h]
		head[h] = int32(p)
		if long {
			// The optimal parser's second chains, of 8-byte prefixes.
			h = hashAt(u, 8, log)
			e.tabD[p&cmask] = e.tabC[h]
			e.tabC[h] = int32(p)
		}
	}
	e.next = max(e.next, i)
}

// walkChain visits the candidates at i of the chains (head, chain) of
// n-byte prefixes, nearest first, that are longer than lb: accept says
// whether a candidate becomes the one to beat. It stops after depth
// candidates, at the window's start, or after a match that reaches end or
// the target length.
func (e *Encoder) walkChain(src []byte, head, chain []int32, i, n, depth, lb, end int, accept func(off, l int) bool) {
	low := max(i-min(1<<e.p.wlog, len(chain)), 0)
	cmask := len(chain) - 1
	u := load64(src, i)
	c := int(head[hashAt(u, n, tabLog(head))])
	for d := depth; d > 0 && c >= low && c < i; d-- {
		if i+lb < end && src[c+lb] == src[i+lb] && (load64(src, c)^u)<<(64-8*uint(n)) == 0 {
			if l := n + matchLen(src, i+n, c+n, end); l > lb && accept(i-c, l) {
				lb = l
				if i+l >= end || l >= e.p.target {
					break
				}
			}
		}
		next := int(chain[c&cmask])
		if next >= c {
			break
		}
		c = next
	}
}

// lazy is the hash chain strategy: at each position the best of depth
// candidates, then, before taking it, the next positions are tried for
// a better one (a longer match, or as long with a nearer offset).
func (e *Encoder) lazy(src []byte, bs, be int) int {
	head, chain := e.tabA, e.tabB
	mml := e.p.mml
	anchor, ip := bs, bs
	lim := be - 8
	// best returns the longest match at i (length, offset).
	best := func(i int) (int, int) {
		e.insertChain(src, i)
		bl, bo := 0, 0
		e.walkChain(src, head, chain, i, mml, e.p.depth, 0, be, func(off, l int) bool {
			// Longer, unless the offset's extra bits eat the gain.
			if 4*(l-bl) <= bits.Len(uint(off+3))-bits.Len(uint(bo+3)) {
				return false
			}
			bl, bo = l, off
			return true
		})
		if bl < mml {
			return 0, 0
		}
		return bl, bo
	}
	// gain weighs a match's length against the bits of its offset: a
	// repeat of the latest offset costs next to none.
	gain := func(ml, off int) int {
		if off == int(e.rep[0]) {
			return 4 * ml
		}
		return 4*ml - bits.Len(uint(off+3)) + 1
	}
	repAt := func(i int) int {
		r := int(e.rep[0])
		if r > i || load32(src, i) != load32(src, i-r) {
			return 0
		}
		return 4 + matchLen(src, i+4, i+4-r, be)
	}
	for ip < lim {
		start, ml, off := ip, 0, 0
		if l := repAt(ip + 1); l > 0 {
			start, ml, off = ip+1, l, int(e.rep[0])
		}
		if l, o := best(ip); l > ml {
			start, ml, off = ip, l, o
		}
		if ml == 0 {
			ip += 1 + (ip-anchor)>>e.p.skip
			continue
		}
		// Lazy steps: a better match one position on is taken instead.
		for d := 0; d < e.p.lazy && start+1 < lim; d++ {
			i := start + 1
			improved := false
			if l := repAt(i); l > 0 && 3*l > 3*ml-bits.Len(uint(off+3))+1+d {
				start, ml, off, improved = i, l, int(e.rep[0]), true
			}
			if l, o := best(i); l > 0 && gain(l, o) > gain(ml, off)+4+3*d {
				start, ml, off, improved = i, l, o, true
			}
			if !improved {
				break
			}
		}
		start, _, ml = extendBack(src, anchor, start, start-off, ml)
		ip = e.emit(src, anchor, start, ml, off)
		anchor = ip
		if ip < lim {
			ip = e.repeatRun(src, ip, lim, be, func(int) {})
			anchor = ip
		}
	}
	return anchor
}
