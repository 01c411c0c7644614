package xrayfdr

import "strconv"

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

// tscCache keeps the decimal digits of a TSC above its last four: events
// in TSC order mostly share them.
type tscCache struct {
	ok   bool
	top  uint64
	text []byte
}

// appendTSC appends v in decimal, reusing the leading digits of the last
// TSC when they are the same.
func (c *tscCache) appendTSC(b []byte, v uint64) []byte {
	top := v / 10000
	if top == 0 {
		return appendUint(b, v)
	}
	if !c.ok || top != c.top {
		c.ok, c.top = true, top
		c.text = strconv.AppendUint(c.text[:0], top, 10)
	}
	b = append(b, c.text...)
	low := v - top*10000
	q, r := low/100, low%100
	return append(b, digitPairs[2*q], digitPairs[2*q+1], digitPairs[2*r], digitPairs[2*r+1])
}
