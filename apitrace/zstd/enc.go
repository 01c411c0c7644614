package zstd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Compression levels, as the zstd command numbers them.
const (
	MinLevel     = 1
	DefaultLevel = 3 // the zstd command's default, and apitrace's
	MaxLevel     = 22
)

// ErrInvalid reports an argument an encoder or writer refuses: a level
// outside MinLevel..MaxLevel, or a frame size it cannot record.
var ErrInvalid = errors.New("zstd: invalid argument")

// ErrClosed is returned by a SeekableWriter's methods after Close.
var ErrClosed = errors.New("zstd: writer closed")

// An Encoder compresses data into zstd frames (RFC 8878): compressed
// blocks, their literals Huffman-coded and their sequences FSE-coded with
// the table modes that cost the fewest bytes, or raw and RLE blocks when
// those are smaller. It keeps its buffers and tables from frame to frame.
// A zero Encoder compresses at DefaultLevel. An Encoder is not safe for
// concurrent use.
type Encoder struct {
	level int
	p     params

	// Match finder state, reset per frame.
	tabA, tabB []int32   // fast: A; dfast: long and short; lazy and opt: chain heads and links
	rep        [3]uint32 // the repeat offsets, as the decoder will have them
	next       int       // lazy and opt: the first position not in the chains

	// The optimal parser's state.
	prices optPrices
	nodes  []optNode
	steps  [][2]int32
	saveA  []int32 // the tables before a first pass
	saveB  []int32
	tabC   []int32 // the optimal parser's chains of 8-byte prefixes
	tabD   []int32
	cands  [][2]int32 // offset and length of a position's match candidates

	// The block being built.
	seqs     []seq
	lits     []byte
	llc, mlc []uint8
	ofc      []uint8

	// Entropy state carried from block to block of a frame, for the
	// repeat modes.
	huf, hufNew hufEnc
	hufValid    bool
	seqPrev     [3]prevTable
	seqOwn      [3]fseEnc
	weightEnc   fseEnc
	scratch     [512]fseEntry
	pad         [8]byte
	tmp         []byte
	tmpDesc     []byte
}

// seq is one sequence: literal length, match length and the offset as
// written (1-3 a repeat offset, else the offset plus 3).
type seq struct {
	ll, ml, off uint32
}

// prevTable is what a block's sequence table was, for the next block's
// repeat mode: valid when the block described its own table.
type prevTable struct {
	norm  [64]int16
	nsym  int
	acc   int
	valid bool
}

// NewEncoder returns an Encoder at level (MinLevel..MaxLevel; levels above
// 15 search as hard as 15 and differ only in their window).
func NewEncoder(level int) (*Encoder, error) {
	p, err := levelParams(level)
	if err != nil {
		return nil, err
	}
	return &Encoder{level: level, p: p}, nil
}

// Reset sets the Encoder's level, keeping its buffers.
func (e *Encoder) Reset(level int) error {
	p, err := levelParams(level)
	if err != nil {
		return err
	}
	e.level, e.p = level, p
	return nil
}

// Level returns the Encoder's level.
func (e *Encoder) Level() int { return e.level }

// WindowSize returns the window the frames declare: matches reach no
// further back, and a decoder needs that much memory.
func (e *Encoder) WindowSize() int { return 1 << e.p.wlog }

// AppendFrame compresses src into one frame, without a content size or
// checksum (as apitrace's seekable frames are), appends it to dst and
// returns the result.
func (e *Encoder) AppendFrame(dst, src []byte) []byte {
	if e.p.wlog == 0 {
		e.p, _ = levelParams(DefaultLevel)
		e.level = DefaultLevel
	}
	dst = binary.LittleEndian.AppendUint32(dst, frameMagic)
	dst = append(dst, 0, (e.p.wlog-10)<<3)
	e.startFrame(len(src))
	if len(src) == 0 {
		return append(dst, 1, 0, 0) // an empty raw block, the last
	}
	blockMax := min(maxBlockSize, 1<<e.p.wlog)
	for bs := 0; bs < len(src); bs += blockMax {
		be := min(bs+blockMax, len(src))
		dst = e.block(dst, src, bs, be, be == len(src))
	}
	return dst
}

func (e *Encoder) startFrame(n int) {
	e.rep = [3]uint32{1, 4, 8}
	e.hufValid = false
	for k := range e.seqPrev {
		e.seqPrev[k].valid = false
	}
	e.resetMatcher(n)
}

// block appends the block src[bs:be], compressed when that is smaller.
func (e *Encoder) block(dst, src []byte, bs, be int, last bool) []byte {
	b := src[bs:be]
	lastBit := uint32(0)
	if last {
		lastBit = 1
	}
	if isRun(b) && len(b) > 4 {
		h := lastBit | 1<<1 | uint32(len(b))<<3
		dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
		return append(dst, b[0])
	}
	saved := e.rep
	e.seqs, e.lits = e.seqs[:0], e.lits[:0]
	e.findMatches(src, bs, be)
	mark := len(dst)
	dst = append(dst, 0, 0, 0)
	dst = e.appendLiterals(dst)
	dst = e.appendSequences(dst)
	size := len(dst) - mark - 3
	if size >= len(b) {
		// Raw is smaller: the decoder sees none of this block's tables
		// or offsets.
		e.rep = saved
		e.hufValid = false
		for k := range e.seqPrev {
			e.seqPrev[k].valid = false
		}
		dst = dst[:mark]
		h := lastBit | uint32(len(b))<<3
		dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
		return append(dst, b...)
	}
	h := lastBit | 2<<1 | uint32(size)<<3
	dst[mark], dst[mark+1], dst[mark+2] = byte(h), byte(h>>8), byte(h>>16)
	return dst
}

// isRun reports whether b is one byte repeated.
func isRun(b []byte) bool {
	if len(b) == 0 || b[0] != b[len(b)-1] {
		return false
	}
	for _, c := range b {
		if c != b[0] {
			return false
		}
	}
	return true
}

// emit adds the sequence of the literals src[anchor:start] and a match of
// ml bytes at offset off, and returns where the match ends.
func (e *Encoder) emit(src []byte, anchor, start, ml, off int) int {
	ll := start - anchor
	e.lits = append(e.lits, src[anchor:start]...)
	e.seqs = append(e.seqs, seq{uint32(ll), uint32(ml), e.offCode(uint32(off), ll)})
	return start + ml
}

// offCode returns the offset as written for a match at offset off after
// ll literals, and updates the repeat offsets as the decoder will (RFC
// 8878 3.1.1.5): with no literals, the codes name the second and third
// repeat offsets and the first minus one.
func (e *Encoder) offCode(off uint32, ll int) uint32 {
	return repCode(&e.rep, off, ll)
}

// repCode is offCode on the repeat offsets r.
func repCode(r *[3]uint32, off uint32, ll int) uint32 {
	if ll > 0 {
		switch off {
		case r[0]:
			return 1
		case r[1]:
			r[0], r[1] = r[1], r[0]
			return 2
		case r[2]:
			r[0], r[1], r[2] = r[2], r[0], r[1]
			return 3
		}
	} else {
		switch off {
		case r[1]:
			r[0], r[1] = r[1], r[0]
			return 1
		case r[2]:
			r[0], r[1], r[2] = r[2], r[0], r[1]
			return 2
		case r[0] - 1:
			r[0], r[1], r[2] = off, r[0], r[1]
			return 3
		}
	}
	r[0], r[1], r[2] = off, r[0], r[1]
	return off + 3
}

// Literals section (RFC 8878 3.1.1.3.1).

// appendLiterals appends the block's literals: raw, RLE, or Huffman-coded
// with a new table or the previous block's, whichever is smallest.
func (e *Encoder) appendLiterals(dst []byte) []byte {
	lits := e.lits
	n := len(lits)
	var count [256]uint32
	for _, c := range lits {
		count[c]++
	}
	maxSym, distinct := 0, 0
	for s, c := range count {
		if c > 0 {
			maxSym = s
			distinct++
		}
	}
	if distinct == 1 && n > 2 {
		return append(appendLitHeader(dst, 1, n), lits[0])
	}
	// Too few literals to pay for a table.
	if n < 64 || distinct == 0 {
		return appendRawLits(dst, lits)
	}
	hs := 3 // header size
	switch {
	case n >= 16<<10:
		hs = 5
	case n >= 1<<10:
		hs = 4
	}
	single := n < 256
	jump := 6
	if single {
		jump = 0
	}
	minGain := n>>6 + 2
	// The new table's size with its description, against the previous
	// table's, whose description the decoder has.
	e.hufNew.build(&count, maxSym)
	if e.tmp == nil {
		e.tmp = make([]byte, 0, 512)
	}
	desc, ok := e.hufNew.appendTable(e.tmpDesc[:0], &e.weightEnc, &e.scratch, &e.pad, e.tmp)
	e.tmpDesc = desc
	est := -1
	if ok {
		est = len(desc) + (e.hufNew.cost(&count, maxSym)+7)/8
	}
	useRep := false
	if e.hufValid {
		if rb := e.huf.cost(&count, maxSym); rb >= 0 && (est < 0 || (rb+7)/8 <= est) {
			useRep, est = true, (rb+7)/8
		}
	}
	if est < 0 || est+jump+hs >= n-minGain {
		return appendRawLits(dst, lits)
	}
	mark := len(dst)
	dst = append(dst, make([]byte, hs)...)
	typ := 3
	h := &e.huf
	if !useRep {
		dst = append(dst, desc...)
		typ = 2
		h = &e.hufNew
	}
	if single {
		dst = h.appendStream(dst, lits)
	} else {
		jt := len(dst)
		dst = append(dst, 0, 0, 0, 0, 0, 0)
		seg := (n + 3) / 4
		for i := 0; i < 4; i++ {
			s := len(dst)
			dst = h.appendStream(dst, lits[min(i*seg, n):min((i+1)*seg, n)])
			if i < 3 {
				if len(dst)-s > 0xffff {
					return appendRawLits(dst[:mark], lits)
				}
				binary.LittleEndian.PutUint16(dst[jt+2*i:], uint16(len(dst)-s))
			}
		}
	}
	comp := len(dst) - mark - hs
	if comp+hs >= n-minGain || (single && comp >= 1<<10) {
		return appendRawLits(dst[:mark], lits)
	}
	sf := uint64(hs - 2)
	width := [6]uint{3: 10, 4: 14, 5: 18}[hs]
	if single {
		sf = 0
	}
	v := uint64(typ) | sf<<2 | uint64(n)<<4 | uint64(comp)<<(4+width)
	for i := 0; i < hs; i++ {
		dst[mark+i] = byte(v >> (8 * i))
	}
	if typ == 2 {
		e.huf, e.hufNew = e.hufNew, e.huf
		e.hufValid = true
	}
	return dst
}

// appendLitHeader appends the header of raw (typ 0) or RLE (typ 1)
// literals of size n.
func appendLitHeader(dst []byte, typ byte, n int) []byte {
	switch {
	case n < 32:
		return append(dst, typ|byte(n)<<3)
	case n < 4096:
		return append(dst, typ|1<<2|byte(n&15)<<4, byte(n>>4))
	}
	return append(dst, typ|3<<2|byte(n&15)<<4, byte(n>>4), byte(n>>12))
}

func appendRawLits(dst, lits []byte) []byte {
	return append(appendLitHeader(dst, 0, len(lits)), lits...)
}

// appendStream appends src Huffman-coded as one stream: the last byte
// first, since the decoder reads the stream backward.
func (h *hufEnc) appendStream(dst, src []byte) []byte {
	need := len(src)*maxHuffBits/8 + 16
	dst = grow(dst, need)
	var w bitWriter
	w.reset(dst[len(dst) : len(dst)+need])
	var ce [256]uint32
	for s := 0; s <= h.maxSym; s++ {
		ce[s] = uint32(h.code[s]) | uint32(h.nbits[s])<<16
	}
	i := len(src)
	for ; i&3 != 0; i-- {
		x := ce[src[i-1]]
		w.add(uint64(x&0xffff), uint(x>>16))
	}
	w.flush()
	c, n := w.c, w.n
	for i > 0 {
		i -= 4
		s := src[i : i+4]
		x := ce[s[3]]
		c |= uint64(x&0xffff) << (n & 63)
		n += uint(x >> 16)
		x = ce[s[2]]
		c |= uint64(x&0xffff) << (n & 63)
		n += uint(x >> 16)
		x = ce[s[1]]
		c |= uint64(x&0xffff) << (n & 63)
		n += uint(x >> 16)
		x = ce[s[0]]
		c |= uint64(x&0xffff) << (n & 63)
		n += uint(x >> 16)
		binary.LittleEndian.PutUint64(w.out[w.i:], c)
		w.i += int(n >> 3)
		c >>= n &^ 7
		n &= 7
	}
	w.c, w.n = c, n
	return dst[:len(dst)+len(w.close())]
}

// grow returns dst with room for n more bytes.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		d := make([]byte, len(dst), 2*cap(dst)+n)
		copy(d, dst)
		dst = d
	}
	return dst
}

// Sequences section (RFC 8878 3.1.1.3.2).

// llCodes and mlCodes give the code of small literal lengths and match
// lengths minus 3; larger ones follow from their highest bit.
var llCodes, mlCodes = func() (ll [64]uint8, ml [128]uint8) {
	for c := 0; c < len(llBase); c++ {
		for v := int(llBase[c]); v < 64 && (c+1 == len(llBase) || v < int(llBase[c+1])); v++ {
			ll[v] = uint8(c)
		}
	}
	for c := 0; c < len(mlBase); c++ {
		for v := int(mlBase[c]) - 3; v < 128 && (c+1 == len(mlBase) || v < int(mlBase[c+1])-3); v++ {
			ml[v] = uint8(c)
		}
	}
	return
}()

func llCode(ll uint32) uint8 {
	if ll < 64 {
		return llCodes[ll]
	}
	return uint8(bits.Len32(ll) - 1 + 19)
}

func mlCode(mlv uint32) uint8 {
	if mlv < 128 {
		return mlCodes[mlv]
	}
	return uint8(bits.Len32(mlv) - 1 + 36)
}

// predefEnc are the encoding tables of the predefined distributions.
var predefEnc = func() (t [3]fseEnc) {
	var scratch [512]fseEntry
	for k, d := range [][]int16{llDefault, ofDefault, mlDefault} {
		log := 6
		if seqKind(k) == kindOF {
			log = 5
		}
		if err := t[k].build(d, log, &scratch); err != nil {
			panic("zstd: predefined table: " + err.Error())
		}
	}
	return
}()

// Table modes of the sequences section.
const (
	modePredefined = iota
	modeRLE
	modeFSE
	modeRepeat
)

// appendSequences appends the block's sequences.
func (e *Encoder) appendSequences(dst []byte) []byte {
	seqs := e.seqs
	n := len(seqs)
	switch {
	case n < 128:
		dst = append(dst, byte(n))
	case n < 0x7f00:
		dst = append(dst, byte(n>>8)+128, byte(n))
	default:
		dst = append(dst, 255, byte(n-0x7f00), byte((n-0x7f00)>>8))
	}
	if n == 0 {
		return dst
	}
	if cap(e.llc) < n {
		e.llc = make([]uint8, n, n+n/4)
		e.mlc = make([]uint8, n, n+n/4)
		e.ofc = make([]uint8, n, n+n/4)
	}
	llc, mlc, ofc := e.llc[:n], e.mlc[:n], e.ofc[:n]
	var hist [3][64]uint32
	for i, s := range seqs {
		l, m, o := llCode(s.ll), mlCode(s.ml-3), uint8(bits.Len32(s.off)-1)
		llc[i], mlc[i], ofc[i] = l, m, o
		hist[kindLL][l]++
		hist[kindML][m]++
		hist[kindOF][o&63]++
	}
	modePos := len(dst)
	dst = append(dst, 0)
	var tabs [3]*fseEnc
	var modes byte
	for _, k := range [3]seqKind{kindLL, kindOF, kindML} {
		var mode int
		dst, mode = e.chooseTable(dst, k, &hist[k], n)
		modes |= byte(mode) << (6 - 2*uint(k))
		switch mode {
		case modePredefined:
			tabs[k] = &predefEnc[k]
		case modeRLE:
			tabs[k] = &rleEnc
		default:
			tabs[k] = &e.seqOwn[k]
		}
	}
	dst[modePos] = modes
	return appendSeqStream(dst, seqs, llc, mlc, ofc, tabs)
}

// rleEnc is the encoding table of RLE mode: one state, no bits.
var rleEnc fseEnc

// chooseTable picks kind k's table mode for the block's histogram hist of
// n codes by estimated size, appends the table's description, and leaves
// a new or repeated table in e.seqOwn[k].
func (e *Encoder) chooseTable(dst []byte, k seqKind, hist *[64]uint32, n int) ([]byte, int) {
	maxSym, distinct := 0, 0
	for s, c := range hist {
		if c > 0 {
			maxSym = s
			distinct++
		}
	}
	prev := &e.seqPrev[k]
	if distinct == 1 && n > 2 {
		prev.valid = false
		return append(dst, uint8(maxSym)), modeRLE
	}
	// Costs in 1/256 bits; extra bits are the same in every mode.
	const unusable = int64(1) << 62
	def := [3][]int16{llDefault, ofDefault, mlDefault}[k]
	defLog := [3]int{6, 5, 6}[k]
	predef := int64(0)
	if maxSym >= len(def) {
		predef = unusable
	}
	repeat := unusable
	if prev.valid && maxSym < prev.nsym {
		repeat = 0
	}
	for s, c := range hist[:maxSym+1] {
		if c == 0 {
			continue
		}
		if predef < unusable {
			predef += int64(c) * int64(probCost(def[s], defLog))
		}
		if repeat < unusable {
			if prev.norm[s] == 0 {
				repeat = unusable
			} else {
				repeat += int64(c) * int64(probCost(prev.norm[s], prev.acc))
			}
		}
	}
	acc := optimalLog(k.maxLog(), n, maxSym)
	var norm [64]int16
	normalize(norm[:maxSym+1], hist[:maxSym+1], n, acc)
	mark := len(dst)
	dst = appendProbs(dst, norm[:maxSym+1], acc)
	fresh := int64(len(dst)-mark) * 8 * 256
	for s, c := range hist[:maxSym+1] {
		if c > 0 {
			fresh += int64(c) * int64(probCost(norm[s], acc))
		}
	}
	if n <= 2 && distinct == 1 {
		fresh = unusable // RLE's case, too short for it
	}
	switch {
	case repeat <= predef && repeat <= fresh:
		return dst[:mark], modeRepeat
	case predef <= fresh:
		prev.valid = false
		return dst[:mark], modePredefined
	}
	if err := e.seqOwn[k].build(norm[:maxSym+1], acc, &e.scratch); err != nil {
		panic(fmt.Sprintf("zstd: building a table the encoder normalized: %v", err))
	}
	*prev = prevTable{norm: norm, nsym: maxSym + 1, acc: acc, valid: true}
	return dst, modeFSE
}

// appendSeqStream appends the sequences' bit stream: the last sequence
// first, each sequence's state updates before its extra bits, as the
// decoder reads them backward.
func appendSeqStream(dst []byte, seqs []seq, llc, mlc, ofc []uint8, tabs [3]*fseEnc) []byte {
	n := len(seqs)
	need := n*12 + 16
	dst = grow(dst, need)
	var w bitWriter
	w.reset(dst[len(dst) : len(dst)+need])
	tl, tm, to := tabs[kindLL], tabs[kindML], tabs[kindOF]
	last := n - 1
	sl := uint32(tl.first[llc[last]&63])
	sm := uint32(tm.first[mlc[last]&63])
	so := uint32(to.first[ofc[last]&63])
	extras := func(s seq, l, m, o uint8) {
		w.add(uint64(s.ll-llBase[l]), uint(llExtra[l]))
		w.flush()
		w.add(uint64(s.ml-mlBase[m]), uint(mlExtra[m]))
		w.add(uint64(s.off), uint(o)) // the bits below the top one
		w.flush()
	}
	extras(seqs[last], llc[last]&63, mlc[last]&63, ofc[last])
	for i := last - 1; i >= 0; i-- {
		l, m, o := llc[i]&63, mlc[i]&63, ofc[i]
		so = to.encode(&w, so, o)
		sm = tm.encode(&w, sm, m)
		sl = tl.encode(&w, sl, l)
		extras(seqs[i], l, m, o)
	}
	w.add(uint64(sm), uint(tm.log))
	w.add(uint64(so), uint(to.log))
	w.add(uint64(sl), uint(tl.log))
	return dst[:len(dst)+len(w.close())]
}
