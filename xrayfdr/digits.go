package xrayfdr

import (
	"encoding/binary"
	"math/bits"
	"strconv"
)

// Fast decimal formatting for the numbers that fill the text outputs:
// small ids and deltas, and TSCs whose leading digits repeat from one
// event to the next.

const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// appendUint appends v in decimal; numbers below 10000 take a short path.
func appendUint(b []byte, v uint64) []byte {
	switch {
	case v < 10:
		return append(b, byte('0'+v))
	case v < 100:
		return append(b, digitPairs[2*v], digitPairs[2*v+1])
	case v < 1000:
		q, r := v/100, v%100
		return append(b, byte('0'+q), digitPairs[2*r], digitPairs[2*r+1])
	case v < 10000:
		q, r := v/100, v%100
		return append(b, digitPairs[2*q], digitPairs[2*q+1], digitPairs[2*r], digitPairs[2*r+1])
	}
	return strconv.AppendUint(b, v, 10)
}

// pairText holds "00" to "99" as little-endian pairs of bytes, and
// smallText the text of 0 to 99 the same way, the second byte unused
// below 10: one store writes them.
var pairText, smallText = func() (pairs, small [100]uint16) {
	for v := range pairs {
		pairs[v] = uint16(digitPairs[2*v]) | uint16(digitPairs[2*v+1])<<8
		small[v] = pairs[v]
		if v < 10 {
			small[v] = uint16('0' + v)
		}
	}
	return pairs, small
}()

// pow10 holds 10^i.
var pow10 = func() (m [20]uint64) {
	m[0] = 1
	for i := 1; i < len(m); i++ {
		m[i] = m[i-1] * 10
	}
	return m
}()

// decimalLen returns the number of decimal digits of v.
func decimalLen(v uint64) int {
	// bits*1233>>12 is log10(2^bits) rounded down, one short of or
	// equal to the digit count.
	n := bits.Len64(v|1) * 1233 >> 12
	if v >= pow10[n%len(pow10)] {
		n++
	}
	return n
}

// putDecimal writes v in decimal at w[p:], two digits per store, and
// returns the index after it.
func putDecimal(w *[yamlWindow]byte, p int, v uint64) int {
	if v < 100 {
		q := p & yamlMask
		binary.LittleEndian.PutUint16(w[q:q+2], smallText[v])
		if v < 10 {
			return p + 1
		}
		return p + 2
	}
	end := p + decimalLen(v)
	e := end
	for v >= 100 {
		q := v / 100
		e -= 2
		k := e & yamlMask
		binary.LittleEndian.PutUint16(w[k:k+2], pairText[v-q*100])
		v = q
	}
	if v >= 10 {
		k := (e - 2) & yamlMask
		binary.LittleEndian.PutUint16(w[k:k+2], pairText[v])
	} else {
		w[(e-1)&yamlMask] = byte('0' + v)
	}
	return end
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
	return append(b, digitPairs[2*q], digitPairs[2*q+1], digitPairs[2*r], digitPairs[2*r+1])
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
	binary.LittleEndian.PutUint16(w[q:q+2], pairText[hi])
	binary.LittleEndian.PutUint16(w[q+2:q+4], pairText[low-hi*100])
	return p + 4
}
