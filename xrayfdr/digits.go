package xrayfdr

import (
	"encoding/binary"
	"strconv"

	"github.com/tracefmt/tracefmt/internal/decimal"
)

// Fast decimal formatting for the numbers that fill the text outputs:
// small ids and deltas, and TSCs whose leading digits repeat from one
// event to the next.

// appendUint appends v in decimal; numbers below 10000 take a short path.
func appendUint(b []byte, v uint64) []byte {
	switch {
	case v < 10:
		return append(b, byte('0'+v))
	case v < 100:
		return append(b, decimal.Pairs[2*v], decimal.Pairs[2*v+1])
	case v < 1000:
		q, r := v/100, v%100
		return append(b, byte('0'+q), decimal.Pairs[2*r], decimal.Pairs[2*r+1])
	case v < 10000:
		q, r := v/100, v%100
		return append(b, decimal.Pairs[2*q], decimal.Pairs[2*q+1], decimal.Pairs[2*r], decimal.Pairs[2*r+1])
	}
	return strconv.AppendUint(b, v, 10)
}

// putDecimal writes v in decimal at w[p:], two digits per store, and
// returns the index after it.
func putDecimal(w *[yamlWindow]byte, p int, v uint64) int {
	if v < 100 {
		q := p & yamlMask
		binary.LittleEndian.PutUint16(w[q:q+2], decimal.Small[v])
		if v < 10 {
			return p + 1
		}
		return p + 2
	}
	return decimal.Put((*decimal.Window)(w[:len(decimal.Window{})]), p, v)
}

// tscCache keeps the decimal digits of a TSC above its last four: events
// in TSC order mostly share them.
type tscCache struct {
	ok   bool
	n    uint8
	top  uint64
	text [24]byte // the first n bytes
}

// set makes c hold the digits of top.
func (c *tscCache) set(top uint64) {
	c.ok, c.top = true, top
	c.n = uint8(len(strconv.AppendUint(c.text[:0], top, 10)))
}

// appendTSC appends v in decimal, reusing the leading digits of the last
// TSC when they are the same.
func (c *tscCache) appendTSC(b []byte, v uint64) []byte {
	top := v / 10000
	if top == 0 {
		return appendUint(b, v)
	}
	if !c.ok || top != c.top {
		c.set(top)
	}
	b = append(b, c.text[:c.n]...)
	low := v - top*10000
	q, r := low/100, low%100
	return append(b, decimal.Pairs[2*q], decimal.Pairs[2*q+1], decimal.Pairs[2*r], decimal.Pairs[2*r+1])
}

// put is appendTSC into a line's window: it writes v at w[p:] and
// returns the index after it.
func (c *tscCache) put(w *[yamlWindow]byte, p int, v uint64) int {
	top := v / 10000
	if top == 0 {
		return putDecimal(w, p, v)
	}
	if !c.ok || top != c.top {
		c.set(top)
	}
	q := p & yamlMask
	*(*[24]byte)(w[q : q+24]) = c.text
	p += int(c.n)
	low := v - top*10000
	hi := low / 100
	q = p & yamlMask
	binary.LittleEndian.PutUint16(w[q:q+2], decimal.Pair[hi])
	binary.LittleEndian.PutUint16(w[q+2:q+4], decimal.Pair[low-hi*100])
	return p + 4
}
