package zstd

import (
	"encoding/binary"
	"math/bits"
)

// XXH64 (seed 0), the content checksum of zstd frames and seek tables.
// Variables, not constants: the initial state wraps around 64 bits.
var (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

// xxh64 is a streaming XXH64 with seed 0.
type xxh64 struct {
	v     [4]uint64
	total uint64
	buf   [32]byte
	n     int // bytes in buf
}

func (h *xxh64) reset() {
	h.v = [4]uint64{prime1 + prime2, prime2, 0, 0 - prime1}
	h.total = 0
	h.n = 0
}

func round(acc, in uint64) uint64 {
	acc += in * prime2
	return bits.RotateLeft64(acc, 31) * prime1
}

func mergeRound(acc, v uint64) uint64 {
	acc ^= round(0, v)
	return acc*prime1 + prime4
}

func (h *xxh64) write(p []byte) {
	h.total += uint64(len(p))
	if h.n > 0 {
		k := copy(h.buf[h.n:], p)
		h.n += k
		p = p[k:]
		if h.n < 32 {
			return
		}
		h.stripes(h.buf[:])
		h.n = 0
	}
	if len(p) >= 32 {
		full := len(p) &^ 31
		h.stripes(p[:full])
		p = p[full:]
	}
	h.n = copy(h.buf[:], p)
}

// stripes consumes a multiple of 32 bytes.
func (h *xxh64) stripes(p []byte) {
	v0, v1, v2, v3 := h.v[0], h.v[1], h.v[2], h.v[3]
	for ; len(p) >= 32; p = p[32:] {
		v0 = round(v0, binary.LittleEndian.Uint64(p[0:8]))
		v1 = round(v1, binary.LittleEndian.Uint64(p[8:16]))
		v2 = round(v2, binary.LittleEndian.Uint64(p[16:24]))
		v3 = round(v3, binary.LittleEndian.Uint64(p[24:32]))
	}
	h.v = [4]uint64{v0, v1, v2, v3}
}

func (h *xxh64) sum() uint64 {
	var acc uint64
	if h.total >= 32 {
		v := h.v
		acc = bits.RotateLeft64(v[0], 1) + bits.RotateLeft64(v[1], 7) + bits.RotateLeft64(v[2], 12) + bits.RotateLeft64(v[3], 18)
		for _, x := range v {
			acc = mergeRound(acc, x)
		}
	} else {
		acc = h.v[2] + prime5
	}
	acc += h.total
	p := h.buf[:h.n]
	for ; len(p) >= 8; p = p[8:] {
		acc ^= round(0, binary.LittleEndian.Uint64(p))
		acc = bits.RotateLeft64(acc, 27)*prime1 + prime4
	}
	if len(p) >= 4 {
		acc ^= uint64(binary.LittleEndian.Uint32(p)) * prime1
		acc = bits.RotateLeft64(acc, 23)*prime2 + prime3
		p = p[4:]
	}
	for _, b := range p {
		acc ^= uint64(b) * prime5
		acc = bits.RotateLeft64(acc, 11) * prime1
	}
	acc ^= acc >> 33
	acc *= prime2
	acc ^= acc >> 29
	acc *= prime3
	acc ^= acc >> 32
	return acc
}
