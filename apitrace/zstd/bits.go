package zstd

import (
	"encoding/binary"
	"math/bits"
)

// backReader reads a backward bit stream (RFC 8878 section 4.1): written
// forward, read from its last byte to its first, whose highest set bit in
// the last byte marks where the data starts. The 64-bit container c holds
// the 8 bytes at in[pos:pos+8]; n counts the bits of c already consumed,
// from the top. Hot loops copy these fields to locals and use the same
// scheme inline.
type backReader struct {
	in  []byte
	pos int
	c   uint64
	n   uint
}

// init starts reading src. A stream must end with a non-zero byte. A
// stream shorter than 8 bytes is read from a zero-padded copy in pad,
// which the caller owns (so that no reader escapes to the heap).
func (b *backReader) init(src []byte, pad *[8]byte) error {
	if len(src) == 0 || src[len(src)-1] == 0 {
		return ErrCorrupt
	}
	last := src[len(src)-1]
	if len(src) < 8 {
		*pad = [8]byte{}
		copy(pad[:], src)
		b.in = pad[:]
		b.pos = 0
		b.n = uint(8-len(src))*8 + uint(bits.LeadingZeros8(last)) + 1
	} else {
		b.in = src
		b.pos = len(src) - 8
		b.n = uint(bits.LeadingZeros8(last)) + 1
	}
	b.c = binary.LittleEndian.Uint64(b.in[b.pos:])
	return nil
}

// get consumes k bits (k <= 56 after a reload). Past the start of the
// stream it yields zeros; overflow tells.
func (b *backReader) get(k uint8) uint64 {
	v := b.c << (b.n & 63) >> (64 - uint(k)) // k == 0 shifts by 64: 0
	if b.n >= 64 {
		v = 0
	}
	b.n += uint(k)
	return v
}

// reload refills the container so that at least 56 bits are available,
// unless the stream's start is near.
func (b *backReader) reload() {
	b.pos, b.n, b.c = reloadBits(b.in, b.pos, b.n, b.c)
}

// reloadBits is the reload step on unpacked fields.
func reloadBits(in []byte, pos int, n uint, c uint64) (int, uint, uint64) {
	if n > 64 || pos == 0 {
		return pos, n, c
	}
	k := int(n >> 3)
	if k > pos {
		k = pos
	}
	pos -= k
	n -= uint(k) * 8
	return pos, n, binary.LittleEndian.Uint64(in[pos : pos+8])
}

// overflow reports whether more bits were consumed than the stream holds.
func (b *backReader) overflow() bool { return b.n > 64 }
