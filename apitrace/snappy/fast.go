package snappy

// decodeFast decodes the elements of src[s:] into dst[d:] for as long as
// each one takes a fast path, and returns where it stopped: before the
// first element it leaves to decode's careful path (a literal of more than
// 60 bytes, a copy-4, a copy from fewer than 8 or 16 bytes back, an invalid
// element, or any element within 130 bytes of the end of src or 128 of the
// end of dst).
//
// The loop decodes two elements per pass and checks once per pass that it
// is that far from both ends, where both elements fit (one element
// advances s by at most 62 and d by at most 64). The compiler then proves
// the first element's slices in bounds, so that its paths need no checks
// of their own; the checks for 0 <= s and 0 <= d, always true, are what
// lets it prove them. It cannot carry those facts through the first
// element's three ways out, so the second element keeps the compiler's own
// checks (two or three per path), still fewer than the loop's four.
//
// Each path loads the next element's tag before it advances s. A literal's
// length decides where the next element starts: loading the next tag from
// the literal's own window, at an address the load of its length does not
// wait for, leaves load, shift, load on that chain, where a load from
// src[s] at the top of the loop also waited for s's two adds. The next
// element's kind is then known that much sooner, and a mispredicted branch
// on it costs that much less (tri_glsl and glxinfo-brief alternate kinds in
// no predictable order). The tag is a uint so that the shifts need no sign
// and the literal's window index needs no bounds check.
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
	if s < 0 || s >= len(src) {
		return d, s
	}
	// The first element's tag; from then on each path loads the next one.
	tag := uint(src[s])
	for 0 <= s && s < len(src)-130 && 0 <= d && d < len(dst)-128 {
		switch tag & 3 {
		case tagLiteral:
			x := int(tag >> 2)
			// The literal's bytes, and the next element's tag at in[x+1].
			in := (*[64]byte)(src[s+1 : s+65 : s+65])
			if x < 16 {
				*(*[16]byte)(dst[d : d+16 : d+16]) = *(*[16]byte)(in[:16])
				tag = uint(in[x+1])
				d += x + 1
				s += x + 2
				goto second
			}
			if x < 60 {
				// Four 16-byte moves: a 64-byte array assignment would
				// be a call to memmove.
				out := (*[64]byte)(dst[d : d+64 : d+64])
				*(*[16]byte)(out[0:16]) = *(*[16]byte)(in[0:16])
				*(*[16]byte)(out[16:32]) = *(*[16]byte)(in[16:32])
				*(*[16]byte)(out[32:48]) = *(*[16]byte)(in[32:48])
				*(*[16]byte)(out[48:64]) = *(*[16]byte)(in[48:64])
				tag = uint(in[x+1])
				d += x + 1
				s += x + 2
				goto second
			}
			return d, s
		case tagCopy1:
			length := 4 + int(tag>>2&7)
			offset := int(tag&0xe0)<<3 | int(src[s+1])
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
			tag = uint(src[s+2])
			d += length
			s += 2
			goto second
		case tagCopy2:
			length := 1 + int(tag>>2)
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
			tag = uint(src[s+3])
			d += length
			s += 3
			goto second
		default:
			return d, s
		}
	second:
		// The second element: the same paths, back to the loop's check.
		switch tag & 3 {
		case tagLiteral:
			x := int(tag >> 2)
			in := (*[64]byte)(src[s+1 : s+65 : s+65])
			if x < 16 {
				*(*[16]byte)(dst[d : d+16 : d+16]) = *(*[16]byte)(in[:16])
				tag = uint(in[x+1])
				d += x + 1
				s += x + 2
				continue
			}
			if x < 60 {
				out := (*[64]byte)(dst[d : d+64 : d+64])
				*(*[16]byte)(out[0:16]) = *(*[16]byte)(in[0:16])
				*(*[16]byte)(out[16:32]) = *(*[16]byte)(in[16:32])
				*(*[16]byte)(out[32:48]) = *(*[16]byte)(in[32:48])
				*(*[16]byte)(out[48:64]) = *(*[16]byte)(in[48:64])
				tag = uint(in[x+1])
				d += x + 1
				s += x + 2
				continue
			}
			return d, s
		case tagCopy1:
			length := 4 + int(tag>>2&7)
			offset := int(tag&0xe0)<<3 | int(src[s+1])
			if offset < 8 || offset > d {
				return d, s
			}
			a, out := (*[16]byte)(dst[d-offset:d-offset+16:d-offset+16]), (*[16]byte)(dst[d:d+16:d+16])
			*(*[8]byte)(out[:8]) = *(*[8]byte)(a[:8])
			if offset >= 16 || length > 8 {
				*(*[8]byte)(out[8:]) = *(*[8]byte)(a[8:])
			}
			tag = uint(src[s+2])
			d += length
			s += 2
			continue
		case tagCopy2:
			length := 1 + int(tag>>2)
			offset := int(src[s+1]) | int(src[s+2])<<8
			if offset < 16 || offset > d {
				return d, s
			}
			a, out := (*[64]byte)(dst[d-offset:d-offset+64:d-offset+64]), (*[64]byte)(dst[d:d+64:d+64])
			*(*[16]byte)(out[0:16]) = *(*[16]byte)(a[0:16])
			*(*[16]byte)(out[16:32]) = *(*[16]byte)(a[16:32])
			if length > 32 {
				*(*[16]byte)(out[32:48]) = *(*[16]byte)(a[32:48])
				*(*[16]byte)(out[48:64]) = *(*[16]byte)(a[48:64])
			}
			tag = uint(src[s+3])
			d += length
			s += 3
			continue
		default:
			return d, s
		}
	}
	return d, s
}
