package snappy

// decodeFast decodes the elements of src[s:] into dst[d:] for as long as
// each one takes a fast path, and returns where it stopped: before the
// first element it leaves to decode's careful path (a literal of more than
// 60 bytes, a copy-4, a copy from fewer than 8 or 16 bytes back, an invalid
// element, or any element within 65 bytes of the end of src or 64 of the
// end of dst).
//
// The loop checks once per element that it is that far from both ends,
// where every fast path fits: the compiler then proves most slices in
// bounds, and the paths need no checks of their own. The checks for 0 <=
// s and 0 <= d, always true, are what lets it prove them.
//
// It makes no calls, so that the loop's variables stay in registers: with
// a call to memmove in the loop, the compiler spills them on every
// element. Each fast path moves a fixed number of bytes (16 or 64) rather
// than branch on the element's length: on small traces the lengths change
// from one element to the next, and a mispredicted branch costs more than
// the bytes moved for nothing. The bytes written past an element are
// overwritten by the following ones.
func decodeFast(dst, src []byte, d, s int) (int, int) {
	// The three-index slices below are checked against the capacities:
	// cut them to the lengths, so that a fast path can never reach the
	// spare capacity of dst whatever its conditions say.
	dst = dst[:len(dst):len(dst)]
	src = src[:len(src):len(src)]
	for 0 <= s && s < len(src)-65 && 0 <= d && d < len(dst)-64 {
		// The tag as an int: a literal's next position hangs on it (load,
		// shift, add), and a byte-typed shift costs one more step there,
		// a zero extension, on every literal.
		tag := int(src[s])
		switch tag & 3 {
		case tagLiteral:
			x := tag >> 2
			if x < 16 {
				*(*[16]byte)(dst[d : d+16 : d+16]) = *(*[16]byte)(src[s+1 : s+17 : s+17])
				d += x + 1
				s += x + 2
				continue
			}
			if x < 60 {
				// Four 16-byte moves: a 64-byte array assignment would
				// be a call to memmove.
				in, out := (*[64]byte)(src[s+1:s+65:s+65]), (*[64]byte)(dst[d:d+64:d+64])
				*(*[16]byte)(out[0:16]) = *(*[16]byte)(in[0:16])
				*(*[16]byte)(out[16:32]) = *(*[16]byte)(in[16:32])
				*(*[16]byte)(out[32:48]) = *(*[16]byte)(in[32:48])
				*(*[16]byte)(out[48:64]) = *(*[16]byte)(in[48:64])
				d += x + 1
				s += x + 2
				continue
			}
			return d, s
		case tagCopy1:
			length := 4 + tag>>2&7
			offset := tag&0xe0<<3 | int(src[s+1])
			if offset < 8 || offset > d {
				return d, s
			}
			// Two 8-byte moves: the second load may read what the first
			// store wrote, final by then. From fewer than 16 bytes back,
			// that load waits for the store to complete (the store
			// cannot be forwarded to a load that only partly overlaps
			// it), so it is left out where the copy does not need it.
			a, out := (*[16]byte)(dst[d-offset:d-offset+16:d-offset+16]), (*[16]byte)(dst[d:d+16:d+16])
			*(*[8]byte)(out[:8]) = *(*[8]byte)(a[:8])
			if offset >= 16 || length > 8 {
				*(*[8]byte)(out[8:]) = *(*[8]byte)(a[8:])
			}
			d += length
			s += 2
		case tagCopy2:
			length := 1 + tag>>2
			offset := int(src[s+1]) | int(src[s+2])<<8
			if offset < 16 || offset > d {
				return d, s
			}
			// 16-byte moves in order, each load reading bytes at least 16
			// back, final by then: two for up to 32 bytes, else four. The
			// copy-2 lengths of real blocks cluster both sides of 16, in
			// no predictable order, and rarely pass 32: a branch between
			// one move and two would be mispredicted more than the second
			// move costs.
			a, out := (*[64]byte)(dst[d-offset:d-offset+64:d-offset+64]), (*[64]byte)(dst[d:d+64:d+64])
			*(*[16]byte)(out[0:16]) = *(*[16]byte)(a[0:16])
			*(*[16]byte)(out[16:32]) = *(*[16]byte)(a[16:32])
			if length > 32 {
				*(*[16]byte)(out[32:48]) = *(*[16]byte)(a[32:48])
				*(*[16]byte)(out[48:64]) = *(*[16]byte)(a[48:64])
			}
			d += length
			s += 3
		default:
			return d, s
		}
	}
	return d, s
}
