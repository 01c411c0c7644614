package zstd

import (
	"encoding/binary"
	"errors"
	"io"
)

const (
	// DefaultMaxWindow is the window limit of a Reader whose MaxWindow is
	// 0: 128 MiB, the zstd command's own default limit, which reads what
	// `zstd --long` and `zstd --ultra -22` write.
	DefaultMaxWindow = 1 << 27

	frameMagic     = 0xFD2FB528
	skippableMagic = 0x184D2A50 // low 4 bits free
	maxBlockSize   = 128 << 10
	copySlack      = 32 // room past the output and literals for 16-byte copies
	// minSlide is the least output kept past the window before the
	// window is moved back to the buffer's start: the move copies the
	// window, so it should be rare.
	minSlide     = 8 << 20
	initialInput = 64 << 10
)

// Reader decompresses a zstd stream: one or more frames, with skippable
// frames skipped. NewReader uses the default limit; for another, set
// MaxWindow on a zero Reader, then call Reset.
type Reader struct {
	// MaxWindow is the largest window a frame may ask for, in bytes
	// (0 = DefaultMaxWindow). For a single-segment frame the window is its
	// content size. A larger frame fails with ErrTooLarge before anything
	// is allocated for it.
	MaxWindow int64

	src    io.Reader
	opened bool
	err    error

	// Input: in[ip:iend] holds read but unconsumed bytes; inOff is the
	// stream offset of in[0].
	in       []byte
	ip, iend int
	inOff    int64

	// Output: hist[:hlen] is the frame's latest output (at least the
	// window when there is that much); hist[rp:hlen] is not yet returned.
	hist     []byte
	hlen, rp int
	outMax   int  // the output the current block may produce
	direct   bool // hist is the caller's buffer: it does not slide
	inFrame  bool
	window   int
	blockMax int
	fcs      int64 // frame content size, -1 when unknown
	produced int64
	hasSum   bool
	sum      xxh64

	huf     hufTable
	seq     [3]seqTable
	rep     [4]int // the repeat offsets, then the first minus 1
	lits    []byte
	scratch [512]fseEntry
	pads    [5][8]byte // short bit streams, zero-padded
	sst     seqState
	batch   [seqBatch]seqVal
	lens    uint64 // the batch's total literal | match lengths << 32
}

// NewReader returns a Reader reading the zstd stream r. It reads up to the
// end of the first frame header, so input that is no zstd stream fails
// here with ErrHeader; input with no frame at all gives io.EOF.
func NewReader(r io.Reader) (*Reader, error) {
	z := new(Reader)
	if err := z.Reset(r); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z read r from its start, keeping z's buffers and MaxWindow.
// Like NewReader, it reads the first frame header.
func (z *Reader) Reset(r io.Reader) error {
	if r == nil {
		return errors.New("zstd: Reset with a nil io.Reader")
	}
	z.reset(r)
	if err := z.nextFrame(); err != nil {
		z.err = err
		return err
	}
	return nil
}

func (z *Reader) reset(r io.Reader) {
	z.src = r
	z.opened = true
	z.err = nil
	z.ip, z.iend, z.inOff = 0, 0, 0
	z.hlen, z.rp = 0, 0
	z.inFrame = false
}

// Read reads decompressed bytes into p. It returns io.EOF at the end of
// the last frame, and a *FormatError for bad or cut-short input.
func (z *Reader) Read(p []byte) (int, error) {
	if !z.opened {
		return 0, ErrNotOpen
	}
	if len(p) == 0 {
		return 0, nil
	}
	for z.rp == z.hlen {
		if z.err != nil {
			return 0, z.err
		}
		if err := z.step(); err != nil {
			z.err = err
		}
	}
	n := copy(p, z.hist[z.rp:z.hlen])
	z.rp += n
	return n, nil
}

// WriteTo writes the rest of the decompressed stream to w, without the
// copy Read makes.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	if !z.opened {
		return 0, ErrNotOpen
	}
	var total int64
	for {
		if z.rp < z.hlen {
			n, err := w.Write(z.hist[z.rp:z.hlen])
			z.rp += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			continue
		}
		if z.err != nil {
			if z.err == io.EOF {
				return total, nil
			}
			return total, z.err
		}
		if err := z.step(); err != nil {
			z.err = err
		}
	}
}

// errFrameSize marks output beyond appendTo's limit.
var errFrameSize = errors.New("zstd: content larger than expected")

// appendTo appends the rest of the stream to dst, failing when it holds
// more than limit bytes. A first frame whose header gives a size within
// limit is decoded straight into dst when its spare capacity holds it,
// or when dst is empty (the buffer then grows as blocks arrive, never to
// more than the frame holds, and becomes dst); the rest of the output is
// copied block by block, while it is still in the cache.
func (z *Reader) appendTo(dst []byte, limit int64) ([]byte, error) {
	base := len(dst)
	if z.err == nil && !z.inFrame && z.rp == z.hlen {
		if err := z.nextFrame(); err != nil {
			z.err = err
		} else if z.fcs > 0 && z.fcs <= limit && (z.fcs <= int64(cap(dst)-len(dst)) || len(dst) == 0) {
			dst = z.frameInto(dst)
		}
	}
	for {
		if z.rp < z.hlen {
			if int64(len(dst)-base+z.hlen-z.rp) > limit {
				z.err = &FormatError{Offset: z.offset(), Err: errFrameSize}
				return dst, z.err
			}
			dst = append(dst, z.hist[z.rp:z.hlen]...)
			z.rp = z.hlen
		}
		if z.err != nil {
			if z.err == io.EOF {
				return dst, nil
			}
			return dst, z.err
		}
		if err := z.step(); err != nil {
			z.err = err
		}
	}
}

// frameInto decodes the frame whose header was just read straight into
// dst's spare capacity and returns dst extended by its content. An empty
// dst too small for the frame is replaced by the buffer grown to hold it.
func (z *Reader) frameInto(dst []byte) []byte {
	own := z.hist
	spare := dst[len(dst):cap(dst)]
	z.hist, z.direct = spare, true
	for z.inFrame {
		if err := z.step(); err != nil {
			z.err = err
			break
		}
	}
	// Output in place, unless the buffer grew: a frame larger than its
	// header said, or an empty dst, whose grown buffer is the output.
	switch {
	case z.hlen == 0:
	case len(spare) > 0 && &z.hist[0] == &spare[0]:
		dst = dst[:len(dst)+z.hlen]
	case len(dst) == 0:
		dst = z.hist[:z.hlen]
	default:
		dst = append(dst, z.hist[:z.hlen]...)
	}
	z.hist, z.direct = own, false
	z.hlen, z.rp = 0, 0
	return dst
}

// offset is the stream offset of the next unconsumed input byte.
func (z *Reader) offset() int64 { return z.inOff + int64(z.ip) }

// need makes n bytes available at in[ip:]. It returns io.EOF when the
// input ends with no byte left, io.ErrUnexpectedEOF when it ends with
// fewer than n, or the reader's error.
func (z *Reader) need(n int) error {
	if z.iend-z.ip >= n {
		return nil
	}
	if z.ip > 0 {
		copy(z.in, z.in[z.ip:z.iend])
		z.inOff += int64(z.ip)
		z.iend -= z.ip
		z.ip = 0
	}
	empty := 0
	for z.iend < n {
		if z.iend == len(z.in) {
			// Grow only once the buffer is full of input actually read.
			grown := make([]byte, max(2*len(z.in), initialInput))
			copy(grown, z.in[:z.iend])
			z.in = grown
		}
		m, err := z.src.Read(z.in[z.iend:])
		z.iend += m
		if z.iend >= n {
			return nil
		}
		if err != nil {
			if err == io.EOF {
				if z.iend == 0 {
					return io.EOF
				}
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if m == 0 {
			if empty++; empty > 100 {
				return io.ErrNoProgress
			}
		}
	}
	return nil
}

// needAt is need for a structure starting at off: running out of input
// is a *FormatError wrapping io.ErrUnexpectedEOF.
func (z *Reader) needAt(n int, off int64) error {
	err := z.need(n)
	switch err {
	case nil:
		return nil
	case io.EOF, io.ErrUnexpectedEOF:
		return &FormatError{Offset: off, Err: io.ErrUnexpectedEOF}
	}
	return err
}

// skip discards n input bytes.
func (z *Reader) skip(n int64, off int64) error {
	for {
		avail := int64(z.iend - z.ip)
		if avail >= n {
			z.ip += int(n)
			return nil
		}
		n -= avail
		z.ip = z.iend
		if err := z.needAt(1, off); err != nil {
			return err
		}
	}
}

func (z *Reader) maxWindow() int64 {
	if z.MaxWindow <= 0 {
		return DefaultMaxWindow
	}
	return z.MaxWindow
}

// nextFrame reads the next frame header, skipping skippable frames. It
// returns io.EOF when the input ends cleanly before a frame.
func (z *Reader) nextFrame() error {
	for {
		off := z.offset()
		if err := z.need(4); err != nil {
			if err == io.EOF {
				return io.EOF
			}
			if err == io.ErrUnexpectedEOF {
				return &FormatError{Offset: off, Err: io.ErrUnexpectedEOF}
			}
			return err
		}
		magic := binary.LittleEndian.Uint32(z.in[z.ip:])
		if magic&^15 == skippableMagic {
			if err := z.needAt(8, off); err != nil {
				return err
			}
			size := binary.LittleEndian.Uint32(z.in[z.ip+4:])
			z.ip += 8
			if err := z.skip(int64(size), off); err != nil {
				return err
			}
			continue
		}
		if magic != frameMagic {
			return formatErr(off, ErrHeader, "magic number %08x", magic)
		}
		return z.frameHeader(off)
	}
}

// frameHeader reads the header of the frame at off (RFC 8878 3.1.1.1).
func (z *Reader) frameHeader(off int64) error {
	if err := z.needAt(5, off); err != nil {
		return err
	}
	desc := z.in[z.ip+4]
	fcsFlag := desc >> 6
	single := desc&0x20 != 0
	if desc&0x08 != 0 {
		return formatErr(off, ErrHeader, "reserved bit set in the frame header")
	}
	didSize := [4]int{0, 1, 2, 4}[desc&3]
	fcsSize := [4]int{0, 2, 4, 8}[fcsFlag]
	if single && fcsFlag == 0 {
		fcsSize = 1
	}
	size := 5 + didSize + fcsSize
	if !single {
		size++
	}
	if err := z.needAt(size, off); err != nil {
		return err
	}
	h := z.in[z.ip+5 : z.ip+size]
	var window uint64
	if !single {
		wd := h[0]
		h = h[1:]
		log := 10 + uint(wd>>3)
		window = 1<<log + (1<<log)/8*uint64(wd&7)
	}
	var did uint32
	switch didSize {
	case 1:
		did = uint32(h[0])
	case 2:
		did = uint32(binary.LittleEndian.Uint16(h))
	case 4:
		did = binary.LittleEndian.Uint32(h)
	}
	h = h[didSize:]
	if did != 0 {
		return formatErr(off, ErrDictionary, "dictionary id %d", did)
	}
	fcs := int64(-1)
	switch fcsSize {
	case 1:
		fcs = int64(h[0])
	case 2:
		fcs = int64(binary.LittleEndian.Uint16(h)) + 256
	case 4:
		fcs = int64(binary.LittleEndian.Uint32(h))
	case 8:
		v := binary.LittleEndian.Uint64(h)
		if v > 1<<62 {
			return formatErr(off, ErrTooLarge, "frame content size %d", v)
		}
		fcs = int64(v)
	}
	if single {
		window = uint64(fcs)
	}
	if window > uint64(z.maxWindow()) {
		return formatErr(off, ErrTooLarge, "window of %d bytes, limit %d", window, z.maxWindow())
	}
	z.ip += size
	z.inFrame = true
	z.window = int(window)
	z.blockMax = min(z.window, maxBlockSize)
	z.fcs = fcs
	z.produced = 0
	z.hasSum = desc&0x04 != 0
	if z.hasSum {
		z.sum.reset()
	}
	z.hlen, z.rp = 0, 0
	z.huf.valid = false
	z.seq[0].valid, z.seq[1].valid, z.seq[2].valid = false, false, false
	z.rep = [4]int{1, 4, 8, 0}
	return nil
}

// room makes space for n more bytes of output plus copy slack after
// hist[:hlen], dropping output older than the window once it was read.
// A caller's buffer (direct) gets no slack and never slides; it is
// replaced by a grown copy only if the frame holds more than its header
// said.
func (z *Reader) room(n int) {
	slide := max(z.window, minSlide)
	if z.hlen+n > z.window+slide && z.hlen > z.window && !z.direct {
		copy(z.hist, z.hist[z.hlen-z.window:z.hlen])
		z.hlen = z.window
		z.rp = z.hlen
	}
	need := z.hlen + n + copySlack
	if z.direct {
		need -= copySlack
	}
	if need <= len(z.hist) {
		return
	}
	// Grow at most fourfold, as output arrives, by steps that end on
	// the largest size the frame can need (its window, the slide and a
	// block): the buffer outgrown at the last step is then a quarter of
	// it, where doubling from anywhere left one of up to half of it, and
	// garbage of as much again, alive at once.
	size := z.window + slide + z.blockMax + copySlack
	for size > 4*len(z.hist) && size/4 >= need {
		size /= 4
	}
	size = max(size, need)
	if z.direct && z.fcs >= int64(need) {
		// The frame's content never exceeds its header's size.
		size = min(size, int(z.fcs))
	}
	grown := make([]byte, size)
	copy(grown, z.hist[:z.hlen])
	z.hist = grown
}

// step decodes the next block, reading the next frame header first when
// the last frame ended. It returns io.EOF at the clean end of the input.
func (z *Reader) step() error {
	if !z.inFrame {
		if err := z.nextFrame(); err != nil {
			return err
		}
	}
	off := z.offset()
	if err := z.needAt(3, off); err != nil {
		return err
	}
	hdr := uint32(z.in[z.ip]) | uint32(z.in[z.ip+1])<<8 | uint32(z.in[z.ip+2])<<16
	last := hdr&1 != 0
	typ := (hdr >> 1) & 3
	size := int(hdr >> 3)
	// The size of a raw or RLE block is its output, bounded by the window;
	// a compressed block's is its input, which the zstd command (1.5.4)
	// bounds by 128 KiB only, even in a smaller window (its output is
	// bounded by the window).
	limit := z.blockMax
	if typ == 2 {
		limit = maxBlockSize
	}
	if size > limit {
		return formatErr(off, ErrTooLarge, "block of %d bytes, limit %d", size, limit)
	}
	var start int
	switch typ {
	case 0: // raw
		if err := z.needAt(3+size, off); err != nil {
			return err
		}
		z.room(size)
		start = z.hlen
		copy(z.hist[z.hlen:], z.in[z.ip+3:z.ip+3+size])
		z.hlen += size
		z.ip += 3 + size
	case 1: // RLE
		if err := z.needAt(4, off); err != nil {
			return err
		}
		z.room(size)
		start = z.hlen
		b := z.in[z.ip+3]
		out := z.hist[z.hlen : z.hlen+size]
		for i := range out {
			out[i] = b
		}
		z.hlen += size
		z.ip += 4
	case 2: // compressed
		if err := z.needAt(3+size, off); err != nil {
			return err
		}
		// A block produces at most what remains of the frame's size.
		z.outMax = z.blockMax
		if z.fcs >= 0 && z.fcs-z.produced < int64(z.outMax) {
			z.outMax = int(z.fcs - z.produced)
		}
		z.room(z.outMax)
		start = z.hlen
		if err := z.block(z.in[z.ip+3:z.ip+3+size], z.in[z.ip+3:]); err != nil {
			return &FormatError{Offset: off, Err: err}
		}
		z.ip += 3 + size
	default:
		return formatErr(off, ErrCorrupt, "reserved block type")
	}
	z.produced += int64(z.hlen - start)
	if z.hasSum {
		z.sum.write(z.hist[start:z.hlen])
	}
	if z.fcs >= 0 && z.produced > z.fcs {
		return formatErr(off, ErrCorrupt, "frame content larger than its header's %d bytes", z.fcs)
	}
	if !last {
		return nil
	}
	z.inFrame = false
	end := z.offset()
	if z.fcs >= 0 && z.produced != z.fcs {
		return formatErr(end, ErrCorrupt, "frame content of %d bytes, header says %d", z.produced, z.fcs)
	}
	if z.hasSum {
		if err := z.needAt(4, end); err != nil {
			return err
		}
		want := binary.LittleEndian.Uint32(z.in[z.ip:])
		z.ip += 4
		if got := uint32(z.sum.sum()); got != want {
			return formatErr(end, ErrChecksum, "content checksum %08x, frame says %08x", got, want)
		}
	}
	return nil
}
