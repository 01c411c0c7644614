package zstd

import "fmt"

// block decodes a compressed block (RFC 8878 3.1.1.3) into hist[hlen:].
// ext is the input from the block's start to the end of what is buffered,
// so that literal copies may read a little past the block.
func (z *Reader) block(src, ext []byte) error {
	lits, wide, used, err := z.literals(src, ext)
	if err != nil {
		return err
	}
	return z.sequences(src[used:], lits, wide)
}

// literals decodes the literals section. It returns the literals, the
// same bytes with readable slack after them, and the section's size.
func (z *Reader) literals(src, ext []byte) (lits, wide []byte, used int, err error) {
	if len(src) == 0 {
		return nil, nil, 0, ErrCorrupt
	}
	b0 := src[0]
	typ := b0 & 3
	sf := (b0 >> 2) & 3
	if typ < 2 {
		var size, hs int
		switch sf {
		case 0, 2:
			size, hs = int(b0>>3), 1
		case 1:
			if len(src) < 2 {
				return nil, nil, 0, ErrCorrupt
			}
			size, hs = int(b0>>4)+int(src[1])<<4, 2
		case 3:
			if len(src) < 3 {
				return nil, nil, 0, ErrCorrupt
			}
			size, hs = int(b0>>4)+int(src[1])<<4+int(src[2])<<12, 3
		}
		if size > z.blockMax {
			return nil, nil, 0, ErrCorrupt
		}
		if typ == 0 {
			if hs+size > len(src) {
				return nil, nil, 0, ErrCorrupt
			}
			return src[hs : hs+size], ext[hs:], hs + size, nil
		}
		if hs+1 > len(src) {
			return nil, nil, 0, ErrCorrupt
		}
		buf := z.litBuf(size)
		b := src[hs]
		for i := range buf[:size] {
			buf[i] = b
		}
		return buf[:size], buf, hs + 1, nil
	}
	hs := [4]int{3, 3, 4, 5}[sf]
	width := [4]uint{10, 10, 14, 18}[sf]
	if len(src) < hs {
		return nil, nil, 0, ErrCorrupt
	}
	var h uint64
	for i := hs - 1; i >= 0; i-- {
		h = h<<8 | uint64(src[i])
	}
	mask := uint64(1)<<width - 1
	regen := int(h >> 4 & mask)
	comp := int(h >> (4 + width) & mask)
	if regen > z.blockMax || hs+comp > len(src) {
		return nil, nil, 0, ErrCorrupt
	}
	data := src[hs : hs+comp]
	if typ == 2 {
		n, err := z.huf.read(data, &z.scratch, &z.pads[0])
		if err != nil {
			return nil, nil, 0, err
		}
		data = data[n:]
	} else if !z.huf.valid {
		return nil, nil, 0, fmt.Errorf("%w: treeless literals without a previous table", ErrTable)
	}
	buf := z.litBuf(regen)
	if sf == 0 {
		err = decode1X(buf[:regen], data, &z.huf, &z.pads[0])
	} else {
		err = decode4X(buf[:regen], data, &z.huf, (*[4][8]byte)(z.pads[:4]))
	}
	if err != nil {
		return nil, nil, 0, err
	}
	return buf[:regen], buf, hs + comp, nil
}

// litBuf returns the literal buffer with room for n bytes and copy slack.
func (z *Reader) litBuf(n int) []byte {
	if len(z.lits) < n+copySlack {
		z.lits = make([]byte, max(n+copySlack, min(2*len(z.lits), maxBlockSize+copySlack)))
	}
	return z.lits
}

// sequences decodes the sequences section and executes it with lits.
func (z *Reader) sequences(src, lits, wide []byte) error {
	if len(src) == 0 {
		return ErrCorrupt
	}
	out := z.hist
	op := z.hlen
	oend := op + z.outMax
	b0 := int(src[0])
	var nseq, p int
	switch {
	case b0 == 0:
		if len(src) != 1 || op+len(lits) > oend {
			return ErrCorrupt
		}
		z.hlen += copy(out[op:], lits)
		return nil
	case b0 < 128:
		nseq, p = b0, 1
	case b0 < 255:
		if len(src) < 2 {
			return ErrCorrupt
		}
		nseq, p = (b0-128)<<8+int(src[1]), 2
	default:
		if len(src) < 3 {
			return ErrCorrupt
		}
		nseq, p = int(src[1])+int(src[2])<<8+0x7F00, 3
	}
	if p >= len(src) {
		return ErrCorrupt
	}
	modes := src[p]
	p++
	if modes&3 != 0 {
		return ErrCorrupt
	}
	for _, k := range [3]seqKind{kindLL, kindOF, kindML} {
		mode := modes >> (6 - 2*uint(k)) & 3
		t := &z.seq[k]
		switch mode {
		case 0: // predefined
			d := &predefined[k]
			copy(t.entries[:1<<d.log], d.entries[:])
			t.log, t.valid, t.noExtra, t.rep1 = d.log, true, d.noExtra, d.rep1
		case 1: // RLE
			if p >= len(src) {
				return ErrCorrupt
			}
			sym := src[p]
			p++
			if int(sym) > k.maxSym() {
				return ErrTable
			}
			t.rle(k, sym)
		case 2: // FSE table description
			var probs [64]int16
			nsym, accLog, used, err := readProbs(src[p:], &probs, k.maxSym(), k.maxLog())
			if err != nil {
				return err
			}
			if err := t.fill(k, probs[:nsym], accLog, &z.scratch); err != nil {
				return err
			}
			p += used
		case 3: // repeat
			if !t.valid {
				return fmt.Errorf("%w: repeat mode without a previous table", ErrTable)
			}
		}
	}
	op, err := z.execute(src[p:], nseq, lits, wide)
	if err != nil {
		return err
	}
	z.hlen = op
	return nil
}
