package snappy

import "encoding/binary"

// DecodePrefix decodes as much of a block cut short as its complete elements
// (and the bytes present of a literal cut inside) give, appending to dst. It
// is for a truncated file, where apitrace too keeps what decodes. It stops
// at the first element that is cut or invalid, and never yields more than the
// preamble announces or limit bytes.
func DecodePrefix(dst, src []byte, limit int) []byte {
	n, w, err := DecodedLen(src)
	if err != nil {
		return dst
	}
	if limit > 0 && n > limit {
		n = limit
	}
	start := len(dst)
	src = src[w:]
	for s := 0; s < len(src) && len(dst)-start < n; {
		tag := src[s]
		room := n - (len(dst) - start)
		var length, offset int
		switch tag & 3 {
		case tagLiteral:
			x := int(tag >> 2)
			s++
			if x >= 60 {
				k := x - 59
				if s+k > len(src) {
					return dst
				}
				var v uint32
				for j := 0; j < k; j++ {
					v |= uint32(src[s+j]) << (8 * j)
				}
				s += k
				x = int(v)
			}
			length = min(x+1, len(src)-s, room)
			dst = append(dst, src[s:s+length]...)
			s += length
			continue
		case tagCopy1:
			if s+2 > len(src) {
				return dst
			}
			length = 4 + int(tag>>2)&7
			offset = int(tag&0xe0)<<3 | int(src[s+1])
			s += 2
		case tagCopy2:
			if s+3 > len(src) {
				return dst
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint16(src[s+1:]))
			s += 3
		default:
			if s+5 > len(src) {
				return dst
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint32(src[s+1:]))
			s += 5
		}
		d := len(dst) - start
		if offset <= 0 || offset > d {
			return dst
		}
		length = min(length, room)
		for j := 0; j < length; j++ {
			dst = append(dst, dst[len(dst)-offset])
		}
	}
	return dst
}
