package brotli

// Phases of a command (RFC 7932 section 5): its insert-and-copy code,
// the literals, the distance, the copy. Decoding pauses between or inside
// phases when the ring buffer is full.
const (
	phaseCmd = iota
	phaseLits
	phaseDist
	phaseCopy
)

// cmdCode is what an insert-and-copy symbol stands for.
type cmdCode struct {
	insBase, copyBase uint32
	insBits, copyBits uint8
	distZero          bool  // the distance is the last one, no code follows
	distCtx           uint8 // the distance context: copy length 2, 3, 4 or more
}

var cmdCodes = func() (t [704]cmdCode) {
	// RFC 7932 section 5: insert and copy length codes, base and extra bits.
	insBase := [24]uint32{0, 1, 2, 3, 4, 5, 6, 8, 10, 14, 18, 26, 34, 50, 66, 98, 130, 194, 322, 578, 1090, 2114, 6210, 22594}
	insBits := [24]uint8{0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 12, 14, 24}
	copyBase := [24]uint32{2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 18, 22, 30, 38, 54, 70, 102, 134, 198, 326, 582, 1094, 2118}
	copyBits := [24]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 24}
	// Each block of 64 symbols pairs 8 insert codes from one of three
	// ranges with 8 copy codes from one of three; the first two blocks
	// also reuse the last distance.
	cells := [11][2]int{{0, 0}, {0, 8}, {0, 0}, {0, 8}, {8, 0}, {8, 8}, {0, 16}, {16, 0}, {8, 16}, {16, 8}, {16, 16}}
	for s := range t {
		c := cells[s>>6]
		i, k := c[0]+(s>>3)&7, c[1]+s&7
		t[s] = cmdCode{insBase[i], copyBase[k], insBits[i], copyBits[k], s < 128, uint8(min(k, 3))}
	}
	return t
}()

// commands decodes commands of the current meta-block until it ends or
// the ring buffer is full.
func (z *Reader) commands() error {
	b := &z.br
	for {
		switch z.phase {
		case phaseCmd:
			if z.remaining == 0 || z.pos >= z.size {
				return nil
			}
			if z.pos+4*fastRoom < z.size {
				if err := z.fastCommands(); err != nil {
					return err
				}
				continue
			}
			b.refill()
			cs := &z.blocks[1]
			if cs.left == 0 {
				z.switchBlock(1)
				b.refill()
			}
			cs.left--
			cc := &cmdCodes[b.sym(z.tables[z.cmdTrees[cs.typ]:])]
			ins := int(cc.insBase) + int(b.bits(uint(cc.insBits)))
			b.refill()
			z.copyLen = int(cc.copyBase) + int(b.bits(uint(cc.copyBits)))
			z.distZero = cc.distZero
			if b.truncated() {
				return z.truncated()
			}
			if ins > z.remaining {
				return z.fail(wrapf(ErrCorrupt, "insert of %d bytes past the meta-block's end (%d left)", ins, z.remaining))
			}
			z.insLeft = ins
			z.phase = phaseLits
		case phaseLits:
			if err := z.literals(); err != nil {
				return err
			}
			if z.insLeft > 0 {
				return nil
			}
			if z.remaining == 0 {
				// The meta-block ends after the literals; the copy
				// length means nothing.
				z.phase = phaseCmd
				return nil
			}
			z.phase = phaseDist
		case phaseDist:
			if err := z.distance(); err != nil {
				return err
			}
		case phaseCopy:
			z.copyOut()
			if z.copyLeft > 0 {
				return nil
			}
			z.phase = phaseCmd
		}
	}
}

// literals inserts the current command's literals, as many as fit in the
// ring buffer.
func (z *Reader) literals() error {
	b := &z.br
	n := min(z.insLeft, z.size-z.pos)
	start := z.pos
	end := start + n
	win := z.win[:end]
	p1, p2 := z.back(1), z.back(2)
	lit := &z.blocks[0]
	if z.litStale {
		z.literalBlock()
	}
	tables := z.tables
	lut := contextLUT[int(z.modes[lit.typ])*512:][:512]
	for pos := start; pos < end; pos++ {
		if lit.left == 0 {
			z.switchBlock(0)
			z.literalBlock()
			lut = contextLUT[int(z.modes[lit.typ])*512:][:512]
		}
		lit.left--
		t := z.litBase[(lut[p1]|lut[256+int(p2)])&63]
		if b.nbits < maxCodeLen {
			b.refill()
		}
		e := tables[t+uint32(b.val&(1<<rootBits-1))]
		if n := e & 0xff; n > rootBits {
			e = tables[t+e>>16+uint32(b.val>>rootBits)&(1<<(n-rootBits)-1)]
		}
		b.val >>= e & 0xff
		b.nbits -= uint(e & 0xff)
		c := byte(e >> 16)
		win[pos] = c
		p2, p1 = p1, c
	}
	if b.truncated() {
		return z.truncated()
	}
	z.pos = end
	z.insLeft -= n
	z.remaining -= n
	return nil
}

// literalBlock points litBase at the trees of the current literal block
// type.
func (z *Reader) literalBlock() {
	cmap := z.cmapL[z.blocks[0].typ*64:][:64]
	single := true
	for i, t := range cmap {
		z.litBase[i] = z.litTrees[t]
		single = single && t == cmap[0]
	}
	z.litSingle = single
	z.litStale = false
}

// shortDelta is what distance codes 4 to 9 (and 10 to 15) add to the
// last (second-to-last) distance.
var shortDelta = [6]int{-1, 1, -2, 2, -3, 3}

// distance decodes the current command's distance and either sets up the
// copy or inserts a static dictionary word.
func (z *Reader) distance() error {
	b := &z.br
	d, code0 := z.dist[0], true
	if !z.distZero {
		ds := &z.blocks[2]
		if ds.left == 0 {
			z.switchBlock(2)
		}
		ds.left--
		ctx := 3
		if z.copyLen <= 4 {
			ctx = z.copyLen - 2
		}
		s := int(b.sym(z.tables[z.dstTrees[z.cmapD[ds.typ*4+ctx]]:]))
		code0 = s == 0
		switch {
		case s < 4:
			d = z.dist[s]
		case s < 10:
			d = z.dist[0] + shortDelta[s-4]
		case s < 16:
			d = z.dist[1] + shortDelta[s-10]
		case s < 16+z.ndirect:
			d = s - 15
		default:
			b.refill()
			d = int(z.dbase[s]) + int(b.bits(uint(z.dbits[s])))<<z.npostfix
		}
		if b.truncated() {
			return z.truncated()
		}
		if d <= 0 {
			return z.fail(wrapf(ErrDistance, "distance %d", d))
		}
	}
	maxDist := int(min(int64(z.window), z.base+int64(z.pos)))
	if d > maxDist {
		return z.dictionaryWord(d - maxDist - 1)
	}
	if !code0 {
		z.dist[3], z.dist[2], z.dist[1], z.dist[0] = z.dist[2], z.dist[1], z.dist[0], d
	}
	if z.copyLen > z.remaining {
		return z.fail(wrapf(ErrCorrupt, "copy of %d bytes past the meta-block's end (%d left)", z.copyLen, z.remaining))
	}
	z.remaining -= z.copyLen
	z.copyLeft, z.copyDist = z.copyLen, d
	z.phase = phaseCopy
	return nil
}

// dictionaryWord inserts word id of the static dictionary, transformed;
// the command's copy length is the word's length.
func (z *Reader) dictionaryWord(id int) error {
	l := z.copyLen
	if l < minWordLen || l > maxWordLen {
		return z.fail(wrapf(ErrDistance, "dictionary reference with length %d", l))
	}
	nb := dictBits[l]
	t := id >> nb
	if t >= numTransforms {
		return z.fail(wrapf(ErrDistance, "dictionary word %d of length %d: transform %d", id&(1<<nb-1), l, t))
	}
	off := dictOffset[l] + (id&(1<<nb-1))*l
	n := transformWord(z.win[z.pos:], dictionary[off:off+l], t)
	if n > z.remaining {
		return z.fail(wrapf(ErrCorrupt, "dictionary word of %d bytes past the meta-block's end (%d left)", n, z.remaining))
	}
	z.pos += n
	z.remaining -= n
	z.phase = phaseCmd
	return nil
}

// copyOut copies as much of the current back-reference as fits in the
// ring buffer.
func (z *Reader) copyOut() {
	win, pos, d := z.win, z.pos, z.copyDist
	n := min(z.copyLeft, z.size-pos)
	z.copyLeft -= n
	for n > 0 {
		src := pos - d
		if src < 0 {
			src += z.size
		}
		k := n
		if src < pos {
			// The source may overlap what is being written: copy the
			// pattern, which doubles each round.
			for k > 0 {
				c := copy(win[pos:pos+k], win[src:pos])
				pos += c
				k -= c
			}
			n = 0
			break
		}
		k = min(k, z.size-src)
		copy(win[pos:pos+k], win[src:src+k])
		pos += k
		n -= k
	}
	z.pos = pos
}
