package zstd

import (
	"encoding/binary"
	"math/bits"
)

// Huffman-coded literals (RFC 8878 section 4.2).

const maxHuffBits = 11

// hufTable decodes maxBits bits at once: entry = symbol | bits used << 8.
type hufTable struct {
	entries [1 << maxHuffBits]uint16
	maxBits uint8
	valid   bool
}

// read reads a Huffman tree description and returns the bytes it used.
func (t *hufTable) read(src []byte, scratch *[512]fseEntry, pad *[8]byte) (int, error) {
	if len(src) == 0 {
		return 0, ErrTable
	}
	var w [256]uint8
	nw := 0
	used := 0
	hb := int(src[0])
	if hb >= 128 {
		// Direct: hb-127 weights, 4 bits each, high nibble first.
		nw = hb - 127
		used = 1 + (nw+1)/2
		if used > len(src) {
			return 0, ErrTable
		}
		for i := 0; i < nw; i++ {
			b := src[1+i/2]
			if i%2 == 0 {
				w[i] = b >> 4
			} else {
				w[i] = b & 15
			}
		}
	} else {
		used = 1 + hb
		if used > len(src) {
			return 0, ErrTable
		}
		var err error
		if nw, err = fseWeights(src[1:used], &w, scratch, pad); err != nil {
			return 0, err
		}
	}
	return used, t.build(w[:], nw)
}

// fseWeights decodes FSE-compressed Huffman weights into w.
func fseWeights(src []byte, w *[256]uint8, scratch *[512]fseEntry, pad *[8]byte) (int, error) {
	var probs [64]int16
	nsym, accLog, used, err := readProbs(src, &probs, 12, maxWeightLog)
	if err != nil {
		return 0, err
	}
	tab := scratch[:1<<accLog]
	if err := buildFSE(tab, probs[:nsym], accLog); err != nil {
		return 0, err
	}
	var br backReader
	if err := br.init(src[used:], pad); err != nil {
		return 0, ErrTable
	}
	s1 := br.get(uint8(accLog))
	s2 := br.get(uint8(accLog))
	br.reload()
	n := 0
	// Two interleaved states; the stream ends when a state update reads
	// past its start, and the other state then gives the last weight.
	for {
		if n > 253 {
			return 0, ErrTable
		}
		e := tab[s1&uint64(len(tab)-1)]
		w[n] = e.sym
		n++
		s1 = uint64(e.base) + br.get(e.nbBits)
		br.reload()
		if br.overflow() {
			w[n] = tab[s2&uint64(len(tab)-1)].sym
			n++
			break
		}
		if n > 253 {
			return 0, ErrTable
		}
		e = tab[s2&uint64(len(tab)-1)]
		w[n] = e.sym
		n++
		s2 = uint64(e.base) + br.get(e.nbBits)
		br.reload()
		if br.overflow() {
			w[n] = tab[s1&uint64(len(tab)-1)].sym
			n++
			break
		}
	}
	return n, nil
}

// build makes the decoding table from nw weights; the last symbol's
// weight is implied by the others.
func (t *hufTable) build(w []uint8, nw int) error {
	var count [maxHuffBits + 2]int
	total := 0
	for _, x := range w[:nw] {
		if x > maxHuffBits {
			return ErrTable
		}
		count[x]++
		if x > 0 {
			total += 1 << (x - 1)
		}
	}
	if total == 0 {
		return ErrTable
	}
	maxBits := bits.Len(uint(total))
	if maxBits > maxHuffBits {
		return ErrTable
	}
	rest := 1<<maxBits - total
	if rest&(rest-1) != 0 {
		return ErrTable
	}
	last := uint8(bits.Len(uint(rest)))
	w[nw] = last
	count[last]++
	nw++
	// At least two symbols have the smallest code, and an even number.
	if count[1] < 2 || count[1]&1 != 0 {
		return ErrTable
	}
	var start [maxHuffBits + 2]int
	pos := 0
	for x := 1; x <= maxBits; x++ {
		start[x] = pos
		pos += count[x] << (x - 1)
	}
	for s, x := range w[:nw] {
		if x == 0 {
			continue
		}
		e := uint16(s) | uint16(maxBits+1-int(x))<<8
		p := start[x]
		n := 1 << (x - 1)
		if n < 16 {
			for i := p; i < p+n; i++ {
				t.entries[i] = e
			}
		} else {
			// Long runs: each copy doubles what is filled.
			run := t.entries[p : p+n]
			for i := range run[:8] {
				run[i] = e
			}
			for i := 8; i < n; i *= 2 {
				copy(run[i:], run[:i])
			}
		}
		start[x] = p + n
	}
	t.maxBits = uint8(maxBits)
	t.valid = true
	return nil
}

// huffStream is one backward Huffman stream being decoded.
type huffStream struct {
	in  []byte
	pos int
	c   uint64
	n   uint
}

func (s *huffStream) init(src []byte, pad *[8]byte) error {
	var br backReader
	if err := br.init(src, pad); err != nil {
		return err
	}
	s.in, s.pos, s.c, s.n = br.in, br.pos, br.c, br.n
	return nil
}

// tail decodes dst[op:end] one symbol at a time, then checks that the
// stream was consumed exactly.
func (s *huffStream) tail(dst []byte, op, end int, t *hufTable) error {
	shift := 64 - uint(t.maxBits)
	in, pos, c, n := s.in, s.pos, s.c, s.n
	for ; op < end; op++ {
		if n > 64-maxHuffBits {
			pos, n, c = reloadBits(in, pos, n, c)
			if n > 64 {
				return ErrCorrupt
			}
		}
		e := t.entries[(c<<(n&63)>>shift)&(1<<maxHuffBits-1)]
		dst[op] = byte(e)
		n += uint(e >> 8)
	}
	pos, n, _ = reloadBits(in, pos, n, c)
	if pos != 0 || n != 64 {
		return ErrCorrupt
	}
	return nil
}

// decode1X decodes one stream filling dst.
func decode1X(dst, src []byte, t *hufTable, pad *[8]byte) error {
	var s huffStream
	if err := s.init(src, pad); err != nil {
		return err
	}
	shift := (64 - uint(t.maxBits)) & 63
	in, pos, c, n := s.in, s.pos, s.c, s.n
	op := 0
	for pos >= 8 && op+4 <= len(dst) {
		pos -= int(n >> 3)
		n &= 7
		c = binary.LittleEndian.Uint64(in[pos : pos+8])
		// 4 symbols of at most 11 bits fit in the 57 bits available.
		e := t.entries[(c<<n>>shift)&(1<<maxHuffBits-1)]
		n += uint(e >> 8)
		dst[op] = byte(e)
		e = t.entries[(c<<(n&63)>>shift)&(1<<maxHuffBits-1)]
		n += uint(e >> 8)
		dst[op+1] = byte(e)
		e = t.entries[(c<<(n&63)>>shift)&(1<<maxHuffBits-1)]
		n += uint(e >> 8)
		dst[op+2] = byte(e)
		e = t.entries[(c<<(n&63)>>shift)&(1<<maxHuffBits-1)]
		n += uint(e >> 8)
		dst[op+3] = byte(e)
		op += 4
	}
	s.pos, s.c, s.n = pos, c, n
	return s.tail(dst, op, len(dst), t)
}

// decode4X decodes the four streams of src (after their 6-byte jump
// table) filling dst, each stream a quarter of it.
func decode4X(dst, src []byte, t *hufTable, pad *[4][8]byte) error {
	if len(src) < 10 || len(dst) < 6 {
		return ErrCorrupt
	}
	l1 := int(binary.LittleEndian.Uint16(src[0:]))
	l2 := int(binary.LittleEndian.Uint16(src[2:]))
	l3 := int(binary.LittleEndian.Uint16(src[4:]))
	rest := len(src) - 6
	if l1+l2+l3 >= rest {
		return ErrCorrupt
	}
	src = src[6:]
	seg := (len(dst) + 3) / 4
	var s [4]huffStream
	if err := s[0].init(src[:l1], &pad[0]); err != nil {
		return err
	}
	if err := s[1].init(src[l1:l1+l2], &pad[1]); err != nil {
		return err
	}
	if err := s[2].init(src[l1+l2:l1+l2+l3], &pad[2]); err != nil {
		return err
	}
	if err := s[3].init(src[l1+l2+l3:], &pad[3]); err != nil {
		return err
	}
	shift := (64 - uint(t.maxBits)) & 63
	ent := &t.entries
	const m = 1<<maxHuffBits - 1
	in1, p1, c1, n1 := s[0].in, s[0].pos, s[0].c, s[0].n
	in2, p2, c2, n2 := s[1].in, s[1].pos, s[1].c, s[1].n
	in3, p3, c3, n3 := s[2].in, s[2].pos, s[2].c, s[2].n
	in4, p4, c4, n4 := s[3].in, s[3].pos, s[3].c, s[3].n
	last := len(dst) - 3*seg // symbols of the shortest, fourth stream
	d1 := dst[:seg]
	d2 := dst[seg : 2*seg]
	d3 := dst[2*seg : 3*seg]
	d4 := dst[3*seg:]
	op := 0
	for p1 >= 8 && p2 >= 8 && p3 >= 8 && p4 >= 8 && op+4 <= last {
		p1 -= int(n1 >> 3)
		n1 &= 7
		c1 = binary.LittleEndian.Uint64(in1[p1 : p1+8])
		p2 -= int(n2 >> 3)
		n2 &= 7
		c2 = binary.LittleEndian.Uint64(in2[p2 : p2+8])
		p3 -= int(n3 >> 3)
		n3 &= 7
		c3 = binary.LittleEndian.Uint64(in3[p3 : p3+8])
		p4 -= int(n4 >> 3)
		n4 &= 7
		c4 = binary.LittleEndian.Uint64(in4[p4 : p4+8])
		o1, o2, o3, o4 := d1[op:op+4], d2[op:op+4], d3[op:op+4], d4[op:op+4]
		for i := 0; i < 4; i++ {
			e1 := ent[(c1<<(n1&63)>>shift)&m]
			e2 := ent[(c2<<(n2&63)>>shift)&m]
			e3 := ent[(c3<<(n3&63)>>shift)&m]
			e4 := ent[(c4<<(n4&63)>>shift)&m]
			n1 += uint(e1 >> 8)
			n2 += uint(e2 >> 8)
			n3 += uint(e3 >> 8)
			n4 += uint(e4 >> 8)
			o1[i] = byte(e1)
			o2[i] = byte(e2)
			o3[i] = byte(e3)
			o4[i] = byte(e4)
		}
		op += 4
	}
	s[0].pos, s[0].c, s[0].n = p1, c1, n1
	s[1].pos, s[1].c, s[1].n = p2, c2, n2
	s[2].pos, s[2].c, s[2].n = p3, c3, n3
	s[3].pos, s[3].c, s[3].n = p4, c4, n4
	if err := s[0].tail(d1, op, len(d1), t); err != nil {
		return err
	}
	if err := s[1].tail(d2, op, len(d2), t); err != nil {
		return err
	}
	if err := s[2].tail(d3, op, len(d3), t); err != nil {
		return err
	}
	return s[3].tail(d4, op, len(d4), t)
}
