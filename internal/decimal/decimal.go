// Package decimal holds the pieces the text writers share to print
// unsigned numbers in decimal two digits at a time.
package decimal

import (
	"encoding/binary"
	"math/bits"
)

// Pairs is "00" to "99" one after the other: the text of v < 100 is
// Pairs[2*v : 2*v+2].
const Pairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// Pair holds "00" to "99" as little-endian pairs of bytes, and Small the
// text of 0 to 99 the same way, its second byte unused below 10: one
// 16-bit store writes either.
var Pair, Small = func() (pair, small [100]uint16) {
	for v := range pair {
		pair[v] = uint16(Pairs[2*v]) | uint16(Pairs[2*v+1])<<8
		small[v] = pair[v]
		if v < 10 {
			small[v] = uint16('0' + v)
		}
	}
	return pair, small
}()

// pow10 holds 10^i.
var pow10 = func() (m [20]uint64) {
	m[0] = 1
	for i := 1; i < len(m); i++ {
		m[i] = m[i-1] * 10
	}
	return m
}()

// Len returns the number of decimal digits of v, and 0 for 0 (callers
// print small numbers another way).
func Len(v uint64) int {
	// bits*1233>>12 is log10(2^bits) rounded down, one short of or
	// equal to the digit count.
	n := bits.Len64(v|1) * 1233 >> 12
	if v >= pow10[n%len(pow10)] {
		n++
	}
	return n
}

// Window is the room a text writer formats one line in. Offsets into it
// are masked by WindowMask, which spares each store its bounds check;
// the bytes past WindowMask take what a store at the last offset writes
// beyond it.
type Window = [WindowMask + 1 + 32]byte

// WindowMask masks offsets into a Window.
const WindowMask = 255

// Put writes v, 10 or more, in decimal at w[p:], two digits per store,
// and returns the offset after it, which must be at most WindowMask+1:
// the mask spares the stores their bounds checks, the window is no ring.
func Put(w *Window, p int, v uint64) int {
	end := p + Len(v)
	e := end
	for v >= 100 {
		q := v / 100
		e -= 2
		k := e & WindowMask
		binary.LittleEndian.PutUint16(w[k:k+2], Pair[v-q*100])
		v = q
	}
	if v >= 10 {
		k := (e - 2) & WindowMask
		binary.LittleEndian.PutUint16(w[k:k+2], Pair[v])
	} else {
		w[(e-1)&WindowMask] = byte('0' + v)
	}
	return end
}
