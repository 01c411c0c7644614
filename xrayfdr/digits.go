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

// appendNine appends v (below 10^9) as exactly nine digits.
func appendNine(b []byte, v uint32) []byte {
	var d [9]byte
	for i := 8; i > 0; i -= 2 {
		q := v / 100
		r := v - q*100
		d[i-1], d[i] = digitPairs[2*r], digitPairs[2*r+1]
		v = q
	}
	d[0] = byte('0' + v)
	return append(b, d[:]...)
}

// tscCache keeps the decimal digits of a TSC above its last nine.
type tscCache struct {
	ok   bool
	hi   uint64
	text []byte
}

// appendTSC appends v in decimal, reusing the leading digits of the last
// TSC when they are the same.
func (c *tscCache) appendTSC(b []byte, v uint64) []byte {
	hi := v / 1e9
	if hi == 0 {
		return appendUint(b, v)
	}
	if !c.ok || hi != c.hi {
		c.ok, c.hi = true, hi
		c.text = strconv.AppendUint(c.text[:0], hi, 10)
	}
	b = append(b, c.text...)
	return appendNine(b, uint32(v-hi*1e9))
}
