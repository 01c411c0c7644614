package apitrace

import (
	"math"
	"strconv"
	"strings"
)

// This file holds the leaf formatting rules of apitrace dump 11.1
// (lib/trace/trace_dump.cpp and trace_dump_internal.hpp), each as an
// append function so that a whole call line is built in one reused buffer
// without allocating.

// appendDumpFloat appends f the way a C++ ostream with precision 7 prints a
// float (digits10+1): C's %.7g. strconv's 'g' with the same precision gives
// the same digits and exponent form; only NaN and the infinities are spelled
// differently in C ("nan", "-nan", "inf", "-inf").
func appendDumpFloat(dst []byte, f float32) []byte {
	// Fast path: a whole number of at most 7 digits prints as itself
	// (GL traces are full of 0, 1, -1, 5...). Zero keeps its sign.
	if i := int32(f); float32(i) == f && i > -10_000_000 && i < 10_000_000 && (i != 0 || !math.Signbit(float64(f))) {
		return strconv.AppendInt(dst, int64(i), 10)
	}
	if out, ok := appendDumpFloatFixed(dst, f); ok {
		return out
	}
	return appendDumpG(dst, float64(f), 7)
}

// pow10 holds the powers of ten that fit a uint64.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// appendDumpFloatFixed appends %.7g of f in exact integer arithmetic when
// %g picks the fixed notation (a decimal exponent from -4 to 6) and f has
// a fraction; ok is false, with nothing appended, for the other numbers.
//
// f is m/2^s with m below 2^24. Its seven significant digits are the
// integer nearest m*10^k/2^s, ties to even as C's printf and strconv
// round, for the k that puts that quotient in [10^6, 10^7); the decimal
// exponent is 6-k (one more when rounding carries to 10^7).
func appendDumpFloatFixed(dst []byte, f float32) ([]byte, bool) {
	b := math.Float32bits(f)
	e := int(b>>23) & 0xff
	if e == 0 || e == 0xff {
		return dst, false // zero, subnormal, infinite or NaN
	}
	m := uint64(b&(1<<23-1) | 1<<23)
	s := 150 - e // f = m / 2^s
	// f < 2^-17 has an exponent below -4; f >= 2^23 has no fraction.
	if s < 1 || s > 40 {
		return dst, false
	}
	// The decimal exponent is that of 2^(e-127), or one more.
	p := ((e - 127) * 78913) >> 18 // floor((e-127) * log10(2))
	k := 6 - p
	if k < 0 || k >= len(pow10) {
		return dst, false
	}
	hi := uint64(10_000_000) << s // 10^7 * 2^s fits: s <= 40
	n := m * pow10[k]             // fits: k <= 12 here, m < 2^24
	if n >= hi {
		if k == 0 {
			return dst, false
		}
		k--
		n = m * pow10[k]
	}
	x := 6 - k
	if x < -4 || x > 6 {
		return dst, false
	}
	digits := n >> s
	rem := n & (1<<s - 1)
	half := uint64(1) << (s - 1)
	if rem > half || rem == half && digits&1 == 1 {
		digits++
	}
	if digits == 10_000_000 {
		digits /= 10
		x++
		if x > 6 {
			return dst, false
		}
	}
	var t [7]byte
	for i := 6; i >= 0; i-- {
		t[i] = byte('0' + digits%10)
		digits /= 10
	}
	if b>>31 != 0 {
		dst = append(dst, '-')
	}
	frac := t[:]
	if x >= 0 {
		dst = append(dst, t[:x+1]...)
		frac = t[x+1:]
	}
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if len(frac) == 0 {
		return dst, true
	}
	if x >= 0 {
		dst = append(dst, '.')
	} else {
		dst = append(dst, "0.0000"[:1-x]...)
	}
	return append(dst, frac...), true
}

// appendDumpDouble appends d as C's %.16g.
func appendDumpDouble(dst []byte, d float64) []byte {
	return appendDumpG(dst, d, 16)
}

func appendDumpG(dst []byte, v float64, prec int) []byte {
	if math.IsNaN(v) {
		if math.Signbit(v) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	}
	if math.IsInf(v, 1) {
		return append(dst, "inf"...)
	}
	if math.IsInf(v, -1) {
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, v, 'g', prec, 64)
}

// dumpPlain reports which bytes apitrace's string printer copies unchanged:
// printable ASCII except the quote and the backslash.
var dumpPlain = func() (t [256]bool) {
	for c := 0x20; c <= 0x7e; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// The text a newline in a string prints as: itself in multiline mode,
// with the colour reset around it in colour, and \n with --multiline=no.
const (
	dumpNewline      = "\n"
	dumpNewlineColor = "\x1b[0m\n\x1b[34m"
	dumpNewlineFlat  = `\n`
)

// appendDumpQuoted appends s between double quotes, escaped as apitrace
// dump prints strings: the text stops at the first NUL byte, '"' and '\'
// get a backslash, TAB is kept, CR is dropped, LF prints as nl (one of the
// dumpNewline constants), and every other byte outside 0x20-0x7e gets
// apitrace's own octal escape (see appendDumpOctal).
func appendDumpQuoted(dst, s []byte, nl string) []byte {
	dst = append(dst, '"')
	dst, _ = appendDumpEscaped(dst, s, nl)
	return append(dst, '"')
}

// appendDumpEscaped appends s escaped as between the quotes of
// appendDumpQuoted; ended reports a NUL, where apitrace's text ends. Each
// byte is escaped on its own, so a string may be escaped piece by piece.
func appendDumpEscaped(dst, s []byte, nl string) (_ []byte, ended bool) {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if dumpPlain[c] {
			continue
		}
		dst = append(dst, s[start:i]...)
		start = i + 1
		if c == 0 {
			return dst, true
		}
		dst = appendDumpEscape(dst, uint32(c), nl)
	}
	return append(dst, s[start:]...), false
}

// appendDumpWide appends the quoted part of a wide string (the caller
// writes the L): its code units escaped like bytes. apitrace reads each
// unit into a 32-bit wchar_t, so only the low 32 bits count, and a unit
// whose low 32 bits are zero ends the text.
func appendDumpWide(dst []byte, units []Value, nl string) []byte {
	dst = append(dst, '"')
	for i := range units {
		c := uint32(units[i].Bits())
		if c == 0 {
			break
		}
		if c < 0x80 && dumpPlain[c] {
			dst = append(dst, byte(c))
			continue
		}
		dst = appendDumpEscape(dst, c, nl)
	}
	return append(dst, '"')
}

// appendDumpEscape appends the printed form of a character that is not
// copied unchanged.
func appendDumpEscape(dst []byte, c uint32, nl string) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\t':
		return append(dst, '\t')
	case '\r':
		return dst
	case '\n':
		return append(dst, nl...)
	}
	return appendDumpOctal(dst, c)
}

// appendDumpOctal appends apitrace's octal escape, which is not C's: a
// backslash, then the digit of bits 3-5 twice when it is not zero, then
// the digit of bits 0-2. Higher bits are dropped. So 0x01 is `\1`, 0x08
// `\110`, 0x1b `\333`, 0x80 `\0` and 0xe9 `\551`.
func appendDumpOctal(dst []byte, c uint32) []byte {
	dst = append(dst, '\\')
	if mid := byte(c>>3) & 7; mid != 0 {
		dst = append(dst, '0'+mid, '0'+mid)
	}
	return append(dst, '0'+byte(c)&7)
}

// cstr returns s up to its first NUL byte: apitrace keeps names (of
// functions, arguments, members, enum values, flags, properties) and frame
// strings as C strings, so it prints them only that far.
func cstr(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// appendDumpHex appends 0x and v in lower-case hex without padding, the
// form of pointers and of bitmask leftovers.
func appendDumpHex(dst []byte, v uint64) []byte {
	dst = append(dst, '0', 'x')
	return strconv.AppendUint(dst, v, 16)
}

// appendDumpBitmask appends a bitmask value the way apitrace prints it:
// walking the flags in signature order, a non-zero flag is printed (joined
// by " | ") when all its bits are set in what is left of v, and its bits
// are cleared; a zero flag is printed only when v is zero; the walk stops
// as soon as v is zero. Bits left over, or a value that printed no name,
// end with 0x<hex of the rest>. Names and the hex part are wrapped in the
// lit and normal colour escapes.
func appendDumpBitmask(dst []byte, v uint64, flags []BitmaskFlag, lit, normal string) []byte {
	first := true
	for i := range flags {
		f := flags[i].Value
		if (f != 0 && v&f == f) || (f == 0 && v == 0) {
			if !first {
				dst = append(dst, " | "...)
			}
			dst = append(dst, lit...)
			dst = append(dst, cstr(flags[i].Name)...)
			dst = append(dst, normal...)
			v &^= f
			first = false
		}
		if v == 0 {
			break
		}
	}
	if v != 0 || first {
		if !first {
			dst = append(dst, " | "...)
		}
		dst = append(dst, lit...)
		dst = appendDumpHex(dst, v)
		dst = append(dst, normal...)
	}
	return dst
}

// appendDumpFrame appends one backtrace frame line without its newline:
// the module or "?", then ": function", then "+0x<offset>", then
// ": file" and ":line". apitrace keeps the line in an int and the offset in
// a long long, both -1 when absent, so values that turn negative in those
// types are not printed either.
func appendDumpFrame(dst []byte, f *Frame) []byte {
	if f.Has&HasModule != 0 {
		dst = append(dst, cstr(f.Module)...)
	} else {
		dst = append(dst, '?')
	}
	if f.Has&HasFunction != 0 {
		dst = append(dst, ": "...)
		dst = append(dst, cstr(f.Function)...)
	}
	if f.Has&HasOffset != 0 && int64(f.Offset) >= 0 {
		dst = append(dst, "+0x"...)
		dst = strconv.AppendUint(dst, f.Offset, 16)
	}
	if f.Has&HasFile != 0 {
		dst = append(dst, ": "...)
		dst = append(dst, cstr(f.File)...)
		if l := int32(uint32(f.Line)); f.Has&HasLine != 0 && l >= 0 {
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, int64(l), 10)
		}
	}
	return dst
}

// appendDumpGUID appends a GUID (Data1, Data2 and Data3 big-endian, then
// Data4) the way apitrace prints one it has no name for:
// uuid(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx) in lower-case hex.
func appendDumpGUID(dst []byte, g [16]byte) []byte {
	dst = append(dst, "uuid("...)
	for i, b := range g {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = appendDumpHexPad(dst, uint64(b), 2)
	}
	return append(dst, ')')
}

func appendDumpHexPad(dst []byte, v uint64, width int) []byte {
	const digits = "0123456789abcdef"
	for shift := 4 * (width - 1); shift >= 0; shift -= 4 {
		dst = append(dst, digits[(v>>uint(shift))&0xf])
	}
	return dst
}
