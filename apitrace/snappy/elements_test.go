package snappy

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
)

// referenceDecode decodes a block one byte at a time, straight from the
// format's description: what Decode must give, fast paths or not.
func referenceDecode(src []byte) ([]byte, bool) {
	n, w := binary.Uvarint(src)
	if w <= 0 || n > 1<<24 {
		return nil, false
	}
	out := make([]byte, 0, n)
	for s := w; s < len(src); {
		tag := src[s]
		var length, offset int
		switch tag & 3 {
		case tagLiteral:
			x := int(tag >> 2)
			s++
			if x >= 60 {
				k := x - 59
				if s+k > len(src) {
					return nil, false
				}
				x = 0
				for i := 0; i < k; i++ {
					x |= int(src[s+i]) << (8 * i)
				}
				s += k
			}
			length = x + 1
			if s+length > len(src) || len(out)+length > int(n) {
				return nil, false
			}
			out = append(out, src[s:s+length]...)
			s += length
			continue
		case tagCopy1:
			if s+2 > len(src) {
				return nil, false
			}
			length = 4 + int(tag>>2)&7
			offset = int(tag>>5)<<8 | int(src[s+1])
			s += 2
		case tagCopy2:
			if s+3 > len(src) {
				return nil, false
			}
			length = 1 + int(tag>>2)
			offset = int(src[s+1]) | int(src[s+2])<<8
			s += 3
		default:
			if s+5 > len(src) {
				return nil, false
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint32(src[s+1:]))
			s += 5
		}
		if offset <= 0 || offset > len(out) || len(out)+length > int(n) {
			return nil, false
		}
		for i := 0; i < length; i++ {
			out = append(out, out[len(out)-offset])
		}
	}
	return out, len(out) == int(n)
}

// TestDecodeElementMix decodes random sequences of every kind of element
// (literals of 1 to 70 bytes, copies of every form from 1 to 3000 bytes
// back, now and then an invalid one), so that every kind meets every
// other at each position of the fast loop's pairs and of its margins at
// the ends, and compares with referenceDecode.
func TestDecodeElementMix(t *testing.T) {
	rng := rand.New(rand.NewSource(18))
	var blk, body []byte
	for trial := 0; trial < 3000; trial++ {
		body = body[:0]
		produced := 0
		target := rng.Intn(4000)
		if trial%3 == 0 {
			target = rng.Intn(300) // mostly within the margins
		}
		for produced < target {
			bad := rng.Intn(200) == 0
			switch k := rng.Intn(4); {
			case k == 0 || produced == 0:
				n := 1 + rng.Intn(70)
				if n <= 60 {
					body = append(body, byte(n-1)<<2|tagLiteral)
				} else {
					body = append(body, 60<<2|tagLiteral, byte(n-1))
				}
				for i := 0; i < n; i++ {
					body = append(body, byte(rng.Intn(256)))
				}
				produced += n
			case k == 1:
				n := 4 + rng.Intn(8)
				off := 1 + rng.Intn(min(produced, 2047))
				if rng.Intn(2) == 0 {
					off = 1 + rng.Intn(min(produced, 20)) // short offsets, overlapping
				}
				if bad {
					off = produced + 1 + rng.Intn(8)&3
				}
				body = append(body, byte(off>>8)<<5|byte(n-4)<<2|tagCopy1, byte(off))
				produced += n
			default:
				n := 1 + rng.Intn(64)
				off := 1 + rng.Intn(min(produced, 3000))
				if bad {
					off = produced + 1
				}
				if k == 2 {
					body = append(body, byte(n-1)<<2|tagCopy2, byte(off), byte(off>>8))
				} else {
					body = append(body, byte(n-1)<<2|tagCopy4, byte(off), byte(off>>8), 0, 0)
				}
				produced += n
			}
		}
		blk = binary.AppendUvarint(blk[:0], uint64(produced))
		blk = append(blk, body...)
		want, ok := referenceDecode(blk)
		got, err := Decode(nil, blk, 0)
		if ok != (err == nil) || (ok && !bytes.Equal(got, want)) {
			t.Fatalf("trial %d: block % x\nreference ok=%v, Decode err=%v, outputs equal=%v", trial, blk, ok, err, bytes.Equal(got, want))
		}
		// The same block with a wrong length: too short and too long.
		for _, delta := range []int{-1, 1} {
			if produced+delta < 0 {
				continue
			}
			blk2 := binary.AppendUvarint(nil, uint64(produced+delta))
			blk2 = append(blk2, body...)
			_, ok := referenceDecode(blk2)
			_, err := Decode(nil, blk2, 0)
			if ok != (err == nil) {
				t.Fatalf("trial %d, length %+d: reference ok=%v, Decode err=%v", trial, delta, ok, err)
			}
		}
	}
}
