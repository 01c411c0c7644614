package brotli

import (
	"encoding/binary"
	"io"
)

// inputSize is how much compressed input the Reader reads from its source
// at a time.
const inputSize = 32 << 10

// bitReader serves the stream's bits lowest first from a 64-bit
// accumulator refilled from an input buffer. When the source ends it pads
// the accumulator with zero bytes so decoding can peek ahead; truncated
// reports when such padding was actually consumed.
type bitReader struct {
	src      io.Reader
	buf      []byte // buf[pos:end] is input not yet in val
	pos, end int
	val      uint64 // unread bits, the next one lowest
	nbits    uint   // number of bits in val
	base     int64  // stream offset of buf[0]
	fake     int    // zero bytes added after the end of the input
	eof      bool   // the source is exhausted (or failed)
	rerr     error  // the source's error, other than io.EOF
}

func (b *bitReader) reset(src io.Reader) {
	if b.buf == nil {
		b.buf = make([]byte, inputSize)
	}
	*b = bitReader{src: src, buf: b.buf}
}

// refill makes sure val holds at least 56 bits.
func (b *bitReader) refill() {
	if b.pos+8 <= b.end {
		b.val |= binary.LittleEndian.Uint64(b.buf[b.pos:]) << b.nbits
		b.pos += int((63 - b.nbits) >> 3)
		b.nbits |= 56
		return
	}
	b.refillSlow()
}

func (b *bitReader) refillSlow() {
	for b.nbits <= 56 {
		if b.pos < b.end {
			b.val |= uint64(b.buf[b.pos]) << b.nbits
			b.pos++
			b.nbits += 8
			continue
		}
		if b.fill() {
			continue
		}
		// The input has ended: pad with a zero byte. Padding stays in
		// val only as long as nothing consumes it.
		b.fake++
		b.nbits += 8
	}
}

// fill moves the unread input to the front of buf and reads more from
// the source. It reports whether any bytes arrived.
func (b *bitReader) fill() bool {
	if b.eof {
		return false
	}
	n := copy(b.buf, b.buf[b.pos:b.end])
	b.base += int64(b.pos)
	b.pos, b.end = 0, n
	for tries := 0; tries < 100; tries++ {
		m, err := b.src.Read(b.buf[b.end:])
		b.end += m
		if err != nil {
			b.eof = true
			if err != io.EOF {
				b.rerr = err
			}
			return m > 0
		}
		if m > 0 {
			return true
		}
	}
	b.eof, b.rerr = true, io.ErrNoProgress
	return false
}

// truncated reports whether decoding consumed bits past the end of the
// input.
func (b *bitReader) truncated() bool { return b.nbits < uint(b.fake)*8 }

// offset is the stream offset of the byte holding the next unread bit.
func (b *bitReader) offset() int64 {
	off := ((b.base+int64(b.pos+b.fake))*8 - int64(b.nbits)) / 8
	return min(off, b.base+int64(b.end))
}

// bits reads an n-bit number, n <= 32.
func (b *bitReader) bits(n uint) uint32 {
	if b.nbits < n {
		b.refill()
	}
	v := uint32(b.val & (1<<n - 1))
	b.val >>= n
	b.nbits -= n
	return v
}

// align skips to the next byte boundary and reports whether the skipped
// bits were zero.
func (b *bitReader) align() bool {
	n := b.nbits & 7
	v := b.val & (1<<n - 1)
	b.val >>= n
	b.nbits -= n
	return v == 0
}

// raw copies the next len(dst) bytes of input, the reader being byte
// aligned, into dst (or skips them when dst is nil and n > 0). It returns
// how many bytes it took; fewer than asked means the input ended.
func (b *bitReader) raw(dst []byte, n int) int {
	done := 0
	// First the whole bytes still in the accumulator, real ones only.
	for done < n && b.nbits >= 8 && b.nbits > uint(b.fake)*8 {
		if dst != nil {
			dst[done] = byte(b.val)
		}
		b.val >>= 8
		b.nbits -= 8
		done++
	}
	if done == n || b.fake > 0 {
		return done
	}
	// The fast refill may have left bits of the following input above
	// nbits; they are no longer next.
	b.val = 0
	for done < n {
		if b.pos == b.end && !b.fill() {
			break
		}
		k := min(n-done, b.end-b.pos)
		if dst != nil {
			copy(dst[done:], b.buf[b.pos:b.pos+k])
		}
		b.pos += k
		done += k
	}
	return done
}
