package bitfield

// SignExtend interprets the low bits bits of v as a two's-complement number.
// bits outside 1..64 yield v unchanged as int64.
func SignExtend(v uint64, bits int) int64 {
	if bits <= 0 || bits >= 64 {
		return int64(v)
	}
	s := uint(64 - bits)
	return int64(v<<s) >> s
}

// BigEndian returns the zero-extended value of the big-endian integer b,
// which may be 0 to 8 bytes long; longer slices keep their last 8 bytes.
func BigEndian(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// BigEndianSigned returns the sign-extended value of the big-endian
// two's-complement integer b (1 to 8 bytes); an empty b is 0.
func BigEndianSigned(b []byte) int64 {
	if len(b) == 0 || len(b) >= 8 {
		return int64(BigEndian(b))
	}
	return SignExtend(BigEndian(b), 8*len(b))
}

// LittleEndian returns the zero-extended value of the little-endian
// integer b (0 to 8 bytes).
func LittleEndian(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// LittleEndianSigned returns the sign-extended value of the little-endian
// two's-complement integer b (1 to 8 bytes); an empty b is 0.
func LittleEndianSigned(b []byte) int64 {
	if len(b) == 0 || len(b) >= 8 {
		return int64(LittleEndian(b))
	}
	return SignExtend(LittleEndian(b), 8*len(b))
}

// AppendBigEndian appends the low n bytes of v, most significant first.
// n must be 0 to 8; the caller checks that v fits (UnsignedLen, SignedLen).
func AppendBigEndian(dst []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*uint(i))))
	}
	return dst
}

// AppendLittleEndian appends the low n bytes of v, least significant first.
func AppendLittleEndian(dst []byte, v uint64, n int) []byte {
	for i := 0; i < n; i++ {
		dst = append(dst, byte(v>>(8*uint(i))))
	}
	return dst
}

// UnsignedLen is the fewest bytes that hold v zero-extended: 1 for 0.
func UnsignedLen(v uint64) int {
	n := 1
	for v > 0xff {
		v >>= 8
		n++
	}
	return n
}

// SignedLen is the fewest bytes that hold v as a two's-complement number
// that sign-extends back to v.
func SignedLen(v int64) int {
	n := 1
	for v < -0x80 || v > 0x7f {
		v >>= 8
		n++
	}
	return n
}
