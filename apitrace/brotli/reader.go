package brotli

import (
	"io"
)

// DefaultMaxWindow is the window limit a Reader applies when MaxWindow is
// 0: 16 MiB, the largest window RFC 7932 defines, so that every valid
// stream is read.
const DefaultMaxWindow = 1 << 24

// slack is room past the end of the ring buffer for a dictionary word,
// which is written whole (a transform adds at most 13 bytes of prefix and
// suffix to a word of at most 24 bytes), and for 8-byte copies that write
// a few bytes too far.
const slack = 64

// Reader decompresses a Brotli stream read from an underlying io.Reader.
// A zero Reader returns ErrNotOpen until Reset.
type Reader struct {
	// MaxWindow caps the sliding window a stream may declare, in bytes
	// (a stream's window is 2^WBITS-16 bytes, WBITS 10 to 24). A stream
	// asking for more fails with ErrTooLarge before its window is
	// allocated. 0 means DefaultMaxWindow. Set it before the first Read.
	MaxWindow int

	br    bitReader
	open  bool
	err   error // sticky: the error Read returns once output is drained
	state int

	window int    // largest backward distance: 2^WBITS-16
	full   int    // ring size the window needs: 2^WBITS
	win    []byte // ring buffer of output, size bytes plus slack
	size   int    // current ring size; grows to full with the output
	pos    int    // where the next output byte goes in win
	read   int    // win[read:pos] is output not yet returned by Read
	base   int64  // stream position of win[0]

	// The meta-block being decoded.
	last      bool
	remaining int        // bytes the meta-block has yet to produce
	insLeft   int        // literals still to insert for the current command
	copyLeft  int        // bytes still to copy for the current command
	copyDist  int        // distance of the current command's copy
	copyLen   int        // the current command's copy length
	distZero  bool       // the current command reuses the last distance
	phase     int        // where decoding stands in the current command
	litStale  bool       // litBase needs recomputing
	litSingle bool       // litBase holds one tree for every context
	litBase   [64]uint32 // literal table start for each context ID
	dist      [4]int     // the last four distances, dist[0] the last

	blocks   [3]blockState // literal, insert-and-copy, distance
	npostfix uint
	ndirect  int
	modes    [256]uint8 // context mode of each literal block type
	cmapL    []uint8    // literal context map: 64 entries per block type
	cmapD    []uint8    // distance context map: 4 entries per block type
	litTrees []uint32   // table starts in tables
	cmdTrees []uint32
	dstTrees []uint32
	tables   []uint32
	dbase    [maxDistAlphabet]uint32 // distance symbol: base distance
	dbits    [maxDistAlphabet]uint8  // distance symbol: extra bits

	// Scratch for reading prefix codes.
	lens  [704]uint8
	order [704]uint16
}

// blockState tracks one category's block types and block lengths.
type blockState struct {
	ntypes    int
	typ, prev int    // current and previous block type
	left      int    // symbols left in the current block
	typeTree  uint32 // table starts in tables
	countTree uint32
}

const maxDistAlphabet = 16 + 15<<3 + 48<<3

const (
	stateStream   = iota // before the stream header
	stateMeta            // before a meta-block header
	stateRaw             // copying an uncompressed meta-block
	stateCommands        // decoding a compressed meta-block
	stateDone
)

// NewReader returns a Reader decompressing the Brotli stream r holds.
// Nothing is read from r until the first Read.
func NewReader(r io.Reader) *Reader {
	z := new(Reader)
	z.Reset(r)
	return z
}

// Reset discards the Reader's state and makes it read a new stream from
// r, reusing its buffers. MaxWindow is kept. Reset(nil) returns ErrNotOpen
// and leaves the Reader closed.
func (z *Reader) Reset(r io.Reader) error {
	if r == nil {
		z.open, z.err = false, nil
		return ErrNotOpen
	}
	z.br.reset(r)
	z.open, z.err, z.state = true, nil, stateStream
	z.pos, z.read, z.base, z.size = 0, 0, 0, 0
	z.last = false
	z.remaining, z.insLeft, z.copyLeft = 0, 0, 0
	z.phase = phaseCmd
	z.dist = [4]int{4, 11, 15, 16}
	return nil
}

// Read reads up to len(p) bytes of decompressed output into p. It
// returns io.EOF after the last byte of a stream that ended properly,
// and a *FormatError (wrapping io.ErrUnexpectedEOF when the input ends
// too soon) for one that does not decode; errors are sticky. Output
// decoded before an error is returned first. Read may read past the
// end of the stream in r.
func (z *Reader) Read(p []byte) (int, error) {
	if !z.open {
		return 0, ErrNotOpen
	}
	for {
		if z.read < z.pos {
			n := copy(p, z.win[z.read:z.pos])
			z.read += n
			return n, nil
		}
		if z.err != nil {
			return 0, z.err
		}
		if len(p) == 0 {
			return 0, nil
		}
		z.err = z.decode()
	}
}

// fail wraps err with the input offset. When decoding has run past the
// end of the input, what it found there is no error of the stream's: the
// error is the truncation.
func (z *Reader) fail(err error) error {
	if z.br.truncated() {
		return z.truncated()
	}
	return &FormatError{Offset: z.br.offset(), Err: err}
}

// truncated reports input that ended inside the stream, or the source's
// own error.
func (z *Reader) truncated() error {
	if z.br.rerr != nil {
		return z.br.rerr
	}
	return &FormatError{Offset: z.br.offset(), Err: io.ErrUnexpectedEOF}
}

// makeRoom readies the ring buffer for more output once Read has
// returned all of it: it grows the ring while it is smaller than the
// window needs, and otherwise wraps around to the start.
func (z *Reader) makeRoom() {
	if z.pos < z.size {
		return
	}
	if z.size < z.full {
		n := min(2*z.size, z.full)
		for n < z.pos {
			n *= 2
		}
		z.resize(n)
		return
	}
	n := copy(z.win, z.win[z.size:z.pos])
	z.base += int64(z.size)
	z.pos, z.read = n, n
}

// resize makes the ring n bytes (plus slack), keeping its contents.
func (z *Reader) resize(n int) {
	if cap(z.win) >= n+slack {
		z.win = z.win[:n+slack]
	} else {
		w := make([]byte, n+slack)
		copy(w, z.win[:z.pos])
		z.win = w
	}
	z.size = n
}

// back returns the byte n positions before the end of the output, or 0
// before the start of the stream.
func (z *Reader) back(n int) byte {
	if z.base+int64(z.pos) < int64(n) {
		return 0
	}
	i := z.pos - n
	if i < 0 {
		i += z.size
	}
	return z.win[i]
}

// decode decodes until the ring buffer is full or the stream ends,
// returning io.EOF at its end.
func (z *Reader) decode() error {
	for {
		switch z.state {
		case stateStream:
			if err := z.streamHeader(); err != nil {
				return err
			}
			z.state = stateMeta
		case stateMeta:
			if z.last {
				if !z.br.align() {
					return z.fail(wrapf(ErrCorrupt, "nonzero padding after the last meta-block"))
				}
				if z.br.truncated() {
					return z.truncated()
				}
				z.state = stateDone
				continue
			}
			if err := z.metaHeader(); err != nil {
				return err
			}
		case stateRaw:
			z.makeRoom()
			if z.pos >= z.size {
				return nil
			}
			n := min(z.remaining, z.size-z.pos)
			got := z.br.raw(z.win[z.pos:z.pos+n], n)
			z.pos += got
			z.remaining -= got
			if got < n {
				return z.truncated()
			}
			if z.remaining == 0 {
				z.state = stateMeta
			}
			if z.pos >= z.size {
				return nil
			}
		case stateCommands:
			z.makeRoom()
			if err := z.commands(); err != nil {
				return err
			}
			if z.remaining == 0 && z.phase == phaseCmd {
				z.state = stateMeta
			}
			if z.pos >= z.size {
				return nil
			}
		case stateDone:
			return io.EOF
		}
	}
}

// streamHeader reads WBITS and sets up the window.
func (z *Reader) streamHeader() error {
	b := &z.br
	b.refill()
	wbits := uint(16)
	if b.bits(1) == 1 {
		if n := b.bits(3); n != 0 {
			wbits = 17 + uint(n)
		} else {
			switch m := b.bits(3); m {
			case 0:
				wbits = 17
			case 1:
				return z.fail(wrapf(ErrHeader, "large-window stream (an extension of RFC 7932) not supported"))
			default:
				wbits = 8 + uint(m)
			}
		}
	}
	if b.truncated() {
		return z.truncated()
	}
	limit := z.MaxWindow
	if limit <= 0 {
		limit = DefaultMaxWindow
	}
	z.window = 1<<wbits - 16
	if z.window > limit {
		return z.fail(wrapf(ErrTooLarge, "window of %d bytes, limit %d", z.window, limit))
	}
	z.full = 1 << wbits
	z.pos, z.read, z.base = 0, 0, 0
	z.resize(min(z.full, 1<<16))
	return nil
}

// metaHeader reads a meta-block header and, for a compressed meta-block,
// all its prefix codes and context maps.
func (z *Reader) metaHeader() error {
	b := &z.br
	b.refill()
	z.last = b.bits(1) == 1
	if z.last && b.bits(1) == 1 {
		return nil // ISLASTEMPTY: the stream ends here
	}
	if nib := b.bits(2); nib == 3 {
		return z.metadata()
	} else {
		nib += 4
		mlen := 0
		for i := uint32(0); i < nib; i++ {
			v := b.bits(4)
			if v == 0 && i == nib-1 && nib > 4 {
				return z.fail(wrapf(ErrCorrupt, "meta-block length with a zero last nibble"))
			}
			mlen |= int(v) << (4 * i)
		}
		z.remaining = mlen + 1
	}
	if !z.last && b.bits(1) == 1 {
		if !b.align() {
			return z.fail(wrapf(ErrCorrupt, "nonzero padding before an uncompressed meta-block"))
		}
		if b.truncated() {
			return z.truncated()
		}
		z.state = stateRaw
		return nil
	}
	if err := z.compressedHeader(); err != nil {
		return err
	}
	z.state = stateCommands
	return nil
}

// metadata skips a metadata meta-block.
func (z *Reader) metadata() error {
	b := &z.br
	if b.bits(1) != 0 {
		return z.fail(wrapf(ErrCorrupt, "reserved bit set"))
	}
	nbytes := b.bits(2)
	skip := 0
	for i := uint32(0); i < nbytes; i++ {
		v := b.bits(8)
		if v == 0 && i == nbytes-1 && nbytes > 1 {
			return z.fail(wrapf(ErrCorrupt, "metadata length with a zero last byte"))
		}
		skip |= int(v) << (8 * i)
	}
	if nbytes > 0 {
		skip++
	}
	if !b.align() {
		return z.fail(wrapf(ErrCorrupt, "nonzero padding before metadata"))
	}
	if b.truncated() || b.raw(nil, skip) < skip {
		return z.truncated()
	}
	return nil
}

// varLen8 reads RFC 7932's variable-length code for 0..255.
func (b *bitReader) varLen8() int {
	b.refill()
	if b.bits(1) == 0 {
		return 0
	}
	n := uint(b.bits(3))
	if n == 0 {
		return 1
	}
	return 1<<n + int(b.bits(n))
}

// blockCount reads a block length with the block count code t.
func (z *Reader) blockCount(t uint32) int {
	b := &z.br
	s := b.sym(z.tables[t:])
	b.refill()
	return int(blockCountBase[s]) + int(b.bits(uint(blockCountBits[s])))
}

// RFC 7932 section 6: block count symbols, their base and extra bits.
var (
	blockCountBase = [26]uint32{1, 5, 9, 13, 17, 25, 33, 41, 49, 65, 81, 97, 113, 145, 177, 209, 241, 305, 369, 497, 753, 1265, 2289, 4337, 8433, 16625}
	blockCountBits = [26]uint8{2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 7, 8, 9, 10, 11, 12, 13, 24}
)

// compressedHeader reads the rest of a compressed meta-block's header.
func (z *Reader) compressedHeader() error {
	b := &z.br
	z.tables = z.tables[:0]
	for c := range z.blocks {
		bs := &z.blocks[c]
		*bs = blockState{ntypes: b.varLen8() + 1, prev: 1, left: 1 << 30}
		if bs.ntypes < 2 {
			continue
		}
		var err error
		if bs.typeTree, err = z.readPrefixCode(bs.ntypes + 2); err != nil {
			return err
		}
		if bs.countTree, err = z.readPrefixCode(26); err != nil {
			return err
		}
		bs.left = z.blockCount(bs.countTree)
	}
	b.refill()
	z.npostfix = uint(b.bits(2))
	z.ndirect = int(b.bits(4)) << z.npostfix
	for i := 0; i < z.blocks[0].ntypes; i++ {
		b.refill()
		z.modes[i] = uint8(b.bits(2))
	}
	ntreesL := b.varLen8() + 1
	var err error
	if z.cmapL, err = z.contextMap(z.cmapL, 64*z.blocks[0].ntypes, ntreesL); err != nil {
		return err
	}
	ntreesD := b.varLen8() + 1
	if z.cmapD, err = z.contextMap(z.cmapD, 4*z.blocks[2].ntypes, ntreesD); err != nil {
		return err
	}
	if z.litTrees, err = z.readTrees(z.litTrees, ntreesL, 256); err != nil {
		return err
	}
	if z.cmdTrees, err = z.readTrees(z.cmdTrees, z.blocks[1].ntypes, 704); err != nil {
		return err
	}
	dsize := 16 + z.ndirect + 48<<z.npostfix
	if z.dstTrees, err = z.readTrees(z.dstTrees, ntreesD, dsize); err != nil {
		return err
	}
	// Distance symbols past the 16 short codes and NDIRECT direct ones:
	// extra bits and a base to which the extra value, shifted left by
	// NPOSTFIX, is added (RFC 7932 section 4).
	for s := 16 + z.ndirect; s < dsize; s++ {
		x := s - z.ndirect - 16
		nbits := 1 + x>>(z.npostfix+1)
		offset := (2+(x>>z.npostfix)&1)<<nbits - 4
		z.dbits[s] = uint8(nbits)
		z.dbase[s] = uint32(offset<<z.npostfix + x&(1<<z.npostfix-1) + z.ndirect + 1)
	}
	if b.truncated() {
		return z.truncated()
	}
	z.litStale = true
	return nil
}

// readTrees reads n prefix codes over an alphabet of size symbols.
func (z *Reader) readTrees(trees []uint32, n, size int) ([]uint32, error) {
	trees = trees[:0]
	for i := 0; i < n; i++ {
		t, err := z.readPrefixCode(size)
		if err != nil {
			return nil, err
		}
		trees = append(trees, t)
	}
	return trees, nil
}

// contextMap reads a context map of size entries naming ntrees trees.
func (z *Reader) contextMap(cmap []uint8, size, ntrees int) ([]uint8, error) {
	if cap(cmap) < size {
		cmap = make([]uint8, size, max(size, 256))
	}
	cmap = cmap[:size]
	clear(cmap)
	if ntrees < 2 {
		return cmap, nil
	}
	b := &z.br
	b.refill()
	rleMax := uint32(0)
	if b.bits(1) == 1 {
		rleMax = b.bits(4) + 1
	}
	mark := len(z.tables)
	t, err := z.readPrefixCode(ntrees + int(rleMax))
	if err != nil {
		return nil, err
	}
	table := z.tables[t:]
	for i := 0; i < size; {
		s := b.sym(table)
		switch {
		case s == 0:
			i++
		case s <= rleMax:
			b.refill()
			run := 1<<s + int(b.bits(uint(s)))
			if i+run > size {
				return nil, z.fail(wrapf(ErrCorrupt, "context map run past its end"))
			}
			i += run // the map was cleared
		default:
			cmap[i] = uint8(s - rleMax)
			i++
		}
	}
	if b.bits(1) == 1 {
		// Undo the move-to-front transform.
		var mtf [256]uint8
		for i := range mtf {
			mtf[i] = uint8(i)
		}
		for i, v := range cmap {
			x := mtf[v]
			cmap[i] = x
			copy(mtf[1:int(v)+1], mtf[:v])
			mtf[0] = x
		}
	}
	z.tables = z.tables[:mark]
	if b.truncated() {
		return nil, z.truncated()
	}
	return cmap, nil
}

// switchBlock reads a block switch command for category c.
func (z *Reader) switchBlock(c int) {
	bs := &z.blocks[c]
	t := int(z.br.sym(z.tables[bs.typeTree:]))
	switch t {
	case 0:
		t = bs.prev
	case 1:
		t = bs.typ + 1
		if t >= bs.ntypes {
			t = 0
		}
	default:
		t -= 2
	}
	bs.prev, bs.typ = bs.typ, t
	bs.left = z.blockCount(bs.countTree)
}
