package demangle

import (
	"math"
	"strconv"
	"strings"
)

// formatFloatLiteral prints a floating literal's bits (big-endian hex, as
// mangled) the way C's printf prints them with %a (float: "%af", double:
// "%a", x87 long double: "%LaL"), which is what LLVM's demangler shows.
func formatFloatLiteral(hex string, k int) string {
	var bits []byte
	for i := 0; i+1 < len(hex); i += 2 {
		bits = append(bits, hexVal(hex[i])<<4|hexVal(hex[i+1]))
	}
	switch k {
	case flFloat:
		var v uint32
		for _, b := range bits {
			v = v<<8 | uint32(b)
		}
		return hexFloat(float64(math.Float32frombits(v))) + "f"
	case flDouble:
		var v uint64
		for _, b := range bits {
			v = v<<8 | uint64(b)
		}
		return hexFloat(math.Float64frombits(v))
	}
	// 80-bit x87: sign and 15-bit exponent, then a 64-bit mantissa with an
	// explicit integer bit.
	se := uint16(bits[0])<<8 | uint16(bits[1])
	var mant uint64
	for _, b := range bits[2:10] {
		mant = mant<<8 | uint64(b)
	}
	return hexLongDouble(se>>15 != 0, int(se&0x7fff), mant) + "L"
}

// hexVal mirrors LLVM: digits, else a lower-case letter's offset.
func hexVal(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c - 'a' + 10
}

// hexFloat formats like glibc's %a for a double.
func hexFloat(f float64) string {
	sign := ""
	if math.Signbit(f) {
		sign = "-"
	}
	switch {
	case math.IsNaN(f):
		return sign + "nan"
	case math.IsInf(f, 0):
		return sign + "inf"
	case f == 0:
		return sign + "0x0p+0"
	}
	b := math.Float64bits(f)
	exp := int(b>>52) & 0x7ff
	mant := b & (1<<52 - 1)
	lead := "1"
	if exp == 0 { // subnormal: glibc prints 0x0.xxxp-1022
		lead = "0"
		exp = 1
	}
	digits := strings.TrimRight(padHex(mant, 13), "0")
	s := sign + "0x" + lead
	if digits != "" {
		s += "." + digits
	}
	return s + "p" + expString(exp-1023)
}

func hexLongDouble(neg bool, exp int, mant uint64) string {
	sign := ""
	if neg {
		sign = "-"
	}
	if exp == 0x7fff {
		if mant<<1 == 0 {
			return sign + "inf"
		}
		return sign + "nan"
	}
	if exp == 0 && mant == 0 {
		return sign + "0x0p+0"
	}
	e := exp - 16383
	if exp == 0 {
		e = -16382
	}
	// glibc prints the leading hex digit from the top four mantissa bits.
	lead := mant >> 60
	rest := strings.TrimRight(padHex(mant<<4, 16), "0")
	s := sign + "0x" + strconv.FormatUint(lead, 16)
	if rest != "" {
		s += "." + rest
	}
	return s + "p" + expString(e-3)
}

func padHex(v uint64, n int) string {
	s := strconv.FormatUint(v, 16)
	if len(s) > n {
		s = s[len(s)-n:]
	}
	return strings.Repeat("0", n-len(s)) + s
}

func expString(e int) string {
	if e >= 0 {
		return "+" + strconv.Itoa(e)
	}
	return strconv.Itoa(e)
}
