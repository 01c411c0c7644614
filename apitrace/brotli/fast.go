package brotli

import "encoding/binary"

// fastRoom is how much room the ring buffer must have past a command's
// output for fastCommands to decode it: 8-byte copies write up to 7 bytes
// too far.
const fastRoom = 16

// fastCommands decodes whole commands while they fit in the ring buffer,
// with the bit reader's state in locals. It returns when the meta-block
// ends, or leaves a command that does not fit to commands (with phase
// set to phaseLits).
func (z *Reader) fastCommands() error {
	br := &z.br
	val, nbits, ip, in := br.val, br.nbits, br.pos, br.buf[:br.end]
	fake8 := uint(br.fake) * 8
	win, pos, size := z.win, z.pos, z.size
	remaining := z.remaining
	tables := z.tables
	ls, cs, ds := &z.blocks[0], &z.blocks[1], &z.blocks[2]
	if z.litStale {
		z.literalBlock()
	}
	lut := contextLUT[int(z.modes[ls.typ])*512:][:512]
	cmdT := z.cmdTrees[cs.typ]
	distT := z.distBase(ds.typ)
	var err error
	start := pos // where the command being decoded started
	for remaining > 0 {
		start = pos
		if ip+8 <= len(in) {
			val |= binary.LittleEndian.Uint64(in[ip:]) << nbits
			ip += int((63 - nbits) >> 3)
			nbits |= 56
		} else {
			br.val, br.nbits, br.pos = val, nbits, ip
			br.refillSlow()
			val, nbits, ip, in, fake8 = br.val, br.nbits, br.pos, br.buf[:br.end], uint(br.fake)*8
		}
		if cs.left == 0 {
			br.val, br.nbits, br.pos = val, nbits, ip
			z.switchBlock(1)
			br.refill()
			val, nbits, ip, in, fake8 = br.val, br.nbits, br.pos, br.buf[:br.end], uint(br.fake)*8
			cmdT = z.cmdTrees[cs.typ]
		}
		cs.left--

		// The insert-and-copy code and its two lengths.
		e := tables[cmdT+uint32(val&(1<<rootBits-1))]
		if n := e & 0xff; n > rootBits {
			e = tables[cmdT+e>>16+uint32(val>>rootBits)&(1<<(n-rootBits)-1)]
		}
		val >>= e & 0xff
		nbits -= uint(e & 0xff)
		cc := &cmdCodes[e>>16]
		ins := int(cc.insBase) + int(val&(1<<cc.insBits-1))
		val >>= cc.insBits
		nbits -= uint(cc.insBits)
		if nbits < 24 {
			if ip+8 <= len(in) {
				val |= binary.LittleEndian.Uint64(in[ip:]) << nbits
				ip += int((63 - nbits) >> 3)
				nbits |= 56
			} else {
				br.val, br.nbits, br.pos = val, nbits, ip
				br.refillSlow()
				val, nbits, ip, in, fake8 = br.val, br.nbits, br.pos, br.buf[:br.end], uint(br.fake)*8
			}
		}
		copyLen := int(cc.copyBase) + int(val&(1<<cc.copyBits-1))
		val >>= cc.copyBits
		nbits -= uint(cc.copyBits)
		if ins > remaining {
			br.val, br.nbits, br.pos = val, nbits, ip
			z.pos, z.remaining = pos, remaining
			if br.truncated() {
				return z.truncated()
			}
			return z.fail(wrapf(ErrCorrupt, "insert of %d bytes past the meta-block's end (%d left)", ins, remaining))
		}
		if pos+ins+copyLen+fastRoom > size {
			// Leave the command to the careful path.
			br.val, br.nbits, br.pos = val, nbits, ip
			z.pos, z.remaining = pos, remaining
			z.insLeft, z.copyLen, z.distZero = ins, copyLen, cc.distZero
			z.phase = phaseLits
			if br.truncated() {
				return z.truncated()
			}
			return nil
		}

		// The literals.
		if ins > 0 {
			var p1, p2 byte
			if pos >= 2 {
				p1, p2 = win[pos-1], win[pos-2]
			} else {
				z.pos = pos
				p1, p2 = z.back(1), z.back(2)
			}
			left := ls.left
			for end := pos + ins; pos < end; {
				if left == 0 {
					br.val, br.nbits, br.pos = val, nbits, ip
					z.switchBlock(0)
					val, nbits, ip, in, fake8 = br.val, br.nbits, br.pos, br.buf[:br.end], uint(br.fake)*8
					z.literalBlock()
					lut = contextLUT[int(z.modes[ls.typ])*512:][:512]
					left = ls.left
				}
				// A run of literals within one block.
				run := min(end-pos, left)
				left -= run
				if z.litSingle {
					// One tree for every context: no context to compute.
					t := z.litBase[0]
					// Two literals (at most 30 bits) per refill.
					for stop := pos + run; pos < stop; {
						if nbits < 2*maxCodeLen {
							if ip+8 <= len(in) {
								val |= binary.LittleEndian.Uint64(in[ip:]) << nbits
								ip += int((63 - nbits) >> 3)
								nbits |= 56
							} else {
								br.val, br.nbits, br.pos = val, nbits, ip
								br.refillSlow()
								val, nbits, ip, in, fake8 = br.val, br.nbits, br.pos, br.buf[:br.end], uint(br.fake)*8
							}
						}
						e := tables[t+uint32(val&(1<<rootBits-1))]
						if n := e & 0xff; n > rootBits {
							e = tables[t+e>>16+uint32(val>>rootBits)&(1<<(n-rootBits)-1)]
						}
						val >>= e & 0xff
						nbits -= uint(e & 0xff)
						win[pos] = byte(e >> 16)
						if pos++; pos == stop {
							break
						}
						e = tables[t+uint32(val&(1<<rootBits-1))]
						if n := e & 0xff; n > rootBits {
							e = tables[t+e>>16+uint32(val>>rootBits)&(1<<(n-rootBits)-1)]
						}
						val >>= e & 0xff
						nbits -= uint(e & 0xff)
						win[pos] = byte(e >> 16)
						pos++
					}
					if pos >= 2 {
						p1, p2 = win[pos-1], win[pos-2]
					} else {
						z.pos = pos
						p1, p2 = z.back(1), z.back(2)
					}
					continue
				}
				// Two literals (at most 30 bits) per refill.
				for stop := pos + run; pos < stop; {
					if nbits < 2*maxCodeLen {
						if ip+8 <= len(in) {
							val |= binary.LittleEndian.Uint64(in[ip:]) << nbits
							ip += int((63 - nbits) >> 3)
							nbits |= 56
						} else {
							br.val, br.nbits, br.pos = val, nbits, ip
							br.refillSlow()
							val, nbits, ip, in, fake8 = br.val, br.nbits, br.pos, br.buf[:br.end], uint(br.fake)*8
						}
					}
					t := z.litBase[(lut[p1]|lut[256+int(p2)])&63]
					e := tables[t+uint32(val&(1<<rootBits-1))]
					if n := e & 0xff; n > rootBits {
						e = tables[t+e>>16+uint32(val>>rootBits)&(1<<(n-rootBits)-1)]
					}
					val >>= e & 0xff
					nbits -= uint(e & 0xff)
					c := byte(e >> 16)
					win[pos] = c
					p2, p1 = p1, c
					if pos++; pos == stop {
						break
					}
					t = z.litBase[(lut[p1]|lut[256+int(p2)])&63]
					e = tables[t+uint32(val&(1<<rootBits-1))]
					if n := e & 0xff; n > rootBits {
						e = tables[t+e>>16+uint32(val>>rootBits)&(1<<(n-rootBits)-1)]
					}
					val >>= e & 0xff
					nbits -= uint(e & 0xff)
					c = byte(e >> 16)
					win[pos] = c
					p2, p1 = p1, c
					pos++
				}
			}
			ls.left = left
			remaining -= ins
			if remaining == 0 {
				break // the meta-block ends; the copy length means nothing
			}
		}

		// The distance.
		d, code0 := z.dist[0], true
		if !cc.distZero {
			if ds.left == 0 {
				br.val, br.nbits, br.pos = val, nbits, ip
				z.switchBlock(2)
				val, nbits, ip, in, fake8 = br.val, br.nbits, br.pos, br.buf[:br.end], uint(br.fake)*8
				distT = z.distBase(ds.typ)
			}
			ds.left--
			if nbits < 40 {
				if ip+8 <= len(in) {
					val |= binary.LittleEndian.Uint64(in[ip:]) << nbits
					ip += int((63 - nbits) >> 3)
					nbits |= 56
				} else {
					br.val, br.nbits, br.pos = val, nbits, ip
					br.refillSlow()
					val, nbits, ip, in, fake8 = br.val, br.nbits, br.pos, br.buf[:br.end], uint(br.fake)*8
				}
			}
			t := distT[cc.distCtx]
			e := tables[t+uint32(val&(1<<rootBits-1))]
			if n := e & 0xff; n > rootBits {
				e = tables[t+e>>16+uint32(val>>rootBits)&(1<<(n-rootBits)-1)]
			}
			val >>= e & 0xff
			nbits -= uint(e & 0xff)
			s := int(e >> 16)
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
				nb := z.dbits[s]
				d = int(z.dbase[s]) + int(val&(1<<nb-1))<<z.npostfix
				val >>= nb
				nbits -= uint(nb)
			}
			if d <= 0 {
				br.val, br.nbits, br.pos = val, nbits, ip
				z.pos, z.remaining = start, remaining
				if br.truncated() {
					return z.truncated()
				}
				return z.fail(wrapf(ErrDistance, "distance %d", d))
			}
		}
		if nbits < fake8 {
			break // truncated: reported below, without this command's output
		}
		maxDist := int(min(int64(z.window), z.base+int64(pos)))
		if d > maxDist {
			br.val, br.nbits, br.pos = val, nbits, ip
			z.pos, z.remaining, z.copyLen = pos, remaining, copyLen
			if err = z.dictionaryWord(d - maxDist - 1); err != nil {
				return err
			}
			pos, remaining = z.pos, z.remaining
			continue
		}
		if !code0 {
			z.dist[3], z.dist[2], z.dist[1], z.dist[0] = z.dist[2], z.dist[1], z.dist[0], d
		}
		if copyLen > remaining {
			br.val, br.nbits, br.pos = val, nbits, ip
			z.pos, z.remaining = pos, remaining
			return z.fail(wrapf(ErrCorrupt, "copy of %d bytes past the meta-block's end (%d left)", copyLen, remaining))
		}
		remaining -= copyLen

		// The copy.
		src := pos - d
		switch {
		case src >= 0 && copyLen > 16 && d >= copyLen:
			copy(win[pos:pos+copyLen], win[src:src+copyLen])
		case src >= 0 && d >= 8:
			// 8 bytes at a time; may write up to 7 bytes past the end,
			// which lie outside the window and are overwritten later.
			for k := 0; k < copyLen; k += 8 {
				binary.LittleEndian.PutUint64(win[pos+k:], binary.LittleEndian.Uint64(win[src+k:]))
			}
		case src >= 0:
			if copyLen <= 32 {
				for k := 0; k < copyLen; k++ {
					win[pos+k] = win[src+k]
				}
			} else {
				for k := 0; k < copyLen; {
					k += copy(win[pos+k:pos+copyLen], win[src:pos+k])
				}
			}
		default:
			src += size
			n := min(copyLen, size-src)
			copy(win[pos:pos+n], win[src:src+n])
			for k := n; k < copyLen; {
				k += copy(win[pos+k:pos+copyLen], win[k-n:pos+k])
			}
		}
		pos += copyLen
	}
	br.val, br.nbits, br.pos = val, nbits, ip
	if br.truncated() {
		// Keep only the output of commands decoded from real input.
		z.pos = start
		return z.truncated()
	}
	z.pos, z.remaining = pos, remaining
	z.phase = phaseCmd
	return err
}

// distBase returns the distance tables' starts for the four distance
// contexts of distance block type typ.
func (z *Reader) distBase(typ int) (t [4]uint32) {
	for i := range t {
		t[i] = z.dstTrees[z.cmapD[typ*4+i]]
	}
	return t
}
