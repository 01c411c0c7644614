package apitrace

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"slices"

	"github.com/tracefmt/tracefmt/apitrace/snappy"
)

var (
	magicSnappy = []byte("at")
	magicGzip   = []byte{0x1f, 0x8b}
	magicZstd   = []byte{0x28, 0xb5, 0x2f, 0xfd}
	// magicSkippable is the last 3 bytes of a zstd skippable frame's
	// magic, whose first byte is 0x50 to 0x5f.
	magicSkippable = []byte{0x2a, 0x4d, 0x18}
)

// Detect tells the container from the first bytes of a file, as apitrace
// does: "at" is snappy, 1f 8b gzip, 28 b5 2f fd zstd, and anything else
// Brotli (which has no magic). A zstd skippable frame (5X 2a 4d 18), which
// a zstd stream may start with, is zstd too. ok is false when head is too
// short to decide (fewer than 2 bytes, or a possible zstd magic cut short).
func Detect(head []byte) (c Container, ok bool) {
	skippable := len(head) > 0 && head[0]&0xf0 == 0x50
	switch {
	case bytes.HasPrefix(head, magicSnappy):
		return Snappy, true
	case bytes.HasPrefix(head, magicGzip):
		return Gzip, true
	case bytes.HasPrefix(head, magicZstd):
		return Zstd, true
	case skippable && len(head) >= 4 && bytes.Equal(head[1:4], magicSkippable):
		return Zstd, true
	case len(head) < 4 && bytes.HasPrefix(magicZstd, head),
		len(head) < 4 && skippable && bytes.HasPrefix(magicSkippable, head[1:]):
		return 0, false
	case len(head) < 2:
		return 0, false
	}
	return Brotli, true
}

// source yields the decompressed stream piece by piece.
type source interface {
	// fill appends the next piece of the stream to dst. Bytes appended are
	// valid even when err is not nil. err is io.EOF at a clean end.
	fill(dst []byte) ([]byte, error)
	// chunk is the file offset of the chunk header the last fill read, or
	// -1 when the container has no chunks.
	chunk() int64
}

// readGrow appends n bytes from r to dst, growing dst as the bytes arrive
// rather than trusting n up front. It returns what it read and
// io.ErrUnexpectedEOF when the input ends first.
func readGrow(r io.Reader, dst []byte, n int) ([]byte, error) {
	const step = 1 << 20
	for n > 0 {
		k := min(n, step)
		dst = slices.Grow(dst, k)
		m, err := io.ReadFull(r, dst[len(dst):len(dst)+k])
		dst = dst[:len(dst)+m]
		n -= m
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return dst, err
		}
	}
	return dst, nil
}

// snappySource reads apitrace's snappy container after its "at" magic.
type snappySource struct {
	r        io.Reader
	off      int64 // file offset of the next chunk header
	last     int64 // file offset of the last chunk header read
	maxChunk int
	comp     []byte
	done     bool
	piece    int // room for a chunk of the size of the last one, and an eighth
}

// nextPiece returns the room the next chunk is likely to take: apitrace
// writes chunks of one size but the last.
func (s *snappySource) nextPiece() int { return s.piece }

func (s *snappySource) chunk() int64 { return s.last }

func (s *snappySource) fill(dst []byte) ([]byte, error) {
	if s.done {
		return dst, io.EOF
	}
	var hdr [4]byte
	s.last = s.off
	n, err := io.ReadFull(s.r, hdr[:])
	if err != nil {
		s.done = true
		if n == 0 && err == io.EOF {
			return dst, io.EOF
		}
		if errors.Is(err, io.EOF) {
			// apitrace takes fewer than 4 bytes for the end of the file;
			// they can only come from a file cut short.
			return dst, io.ErrUnexpectedEOF
		}
		return dst, err
	}
	size := binary.LittleEndian.Uint32(hdr[:])
	if size == 0 {
		// apitrace's reader stops at a zero length and ignores the rest.
		s.done = true
		return dst, io.EOF
	}
	if uint64(size) > uint64(snappy.MaxEncodedLen(s.maxChunk)) {
		s.done = true
		return dst, wrapf(ErrTooLarge, "snappy chunk of %d compressed bytes", size)
	}
	s.comp, err = readGrow(s.r, s.comp[:0], int(size))
	s.off += 4 + int64(len(s.comp))
	if err != nil {
		s.done = true
		// Keep what the cut chunk holds, as apitrace does.
		return snappy.DecodePrefix(dst, s.comp, s.maxChunk), err
	}
	want, _, err := snappy.DecodedLen(s.comp)
	if err != nil {
		s.done = true
		return dst, ErrCorrupt
	}
	if want > s.maxChunk {
		s.done = true
		return dst, wrapf(ErrTooLarge, "snappy chunk of %d decompressed bytes", want)
	}
	// No snappy element yields more than 64 bytes per byte it takes: a
	// larger preamble is a lie, found before room is made for it.
	if uint64(want) > 64*uint64(len(s.comp)) {
		s.done = true
		return dst, ErrCorrupt
	}
	s.piece = want + want/8
	if cap(dst)-len(dst) < want {
		// Room for an eighth more, so that the next chunk still fits
		// after the few bytes of an event cut by this one's end: the
		// window is then allocated once, not again at the next chunk.
		dst = slices.Grow(dst, s.piece)
	}
	out, err := snappy.Decode(dst[len(dst):cap(dst)], s.comp, s.maxChunk)
	if err != nil {
		s.done = true
		return dst, ErrCorrupt
	}
	return dst[:len(dst)+len(out)], nil
}

// gzipSource reads a gzip container.
type gzipSource struct {
	zr    *gzip.Reader
	piece int
}

func (g *gzipSource) chunk() int64 { return -1 }

// fillFrom appends up to piece bytes read from a decompressor to dst. A
// short read at the stream's end is a clean end: the next call says how
// it ended (io.EOF, or the decompressor's error).
func fillFrom(r io.Reader, dst []byte, piece int) ([]byte, error) {
	dst = slices.Grow(dst, piece)
	n, err := io.ReadFull(r, dst[len(dst):len(dst)+piece])
	dst = dst[:len(dst)+n]
	switch {
	case err == io.ErrUnexpectedEOF && n > 0:
		// The stream ended inside this piece: the next call says how.
		return dst, nil
	case err == io.EOF && n == 0:
		return dst, io.EOF
	}
	return dst, err
}

func (g *gzipSource) fill(dst []byte) ([]byte, error) { return fillFrom(g.zr, dst, g.piece) }

// openContainer detects the container of r and returns the source of its
// decompressed stream.
func openContainer(r io.Reader, old source, maxChunk int) (source, Container, error) {
	var head [4]byte
	n, err := io.ReadFull(r, head[:2])
	if err != nil {
		if n == 0 && err == io.EOF {
			return nil, 0, io.ErrUnexpectedEOF
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, err
	}
	read := 2
	c, ok := Detect(head[:2])
	if !ok || c == Zstd {
		m, _ := io.ReadFull(r, head[2:4])
		read += m
		c, ok = Detect(head[:read])
		if !ok {
			return nil, 0, io.ErrUnexpectedEOF
		}
	}
	switch c {
	case Snappy:
		s, _ := old.(*snappySource)
		if s == nil {
			s = new(snappySource)
		}
		*s = snappySource{r: r, off: 2, maxChunk: maxChunk, comp: s.comp[:0]}
		return s, c, nil
	case Gzip:
		in := io.MultiReader(bytes.NewReader(head[:2]), r)
		g, _ := old.(*gzipSource)
		var err error
		if g != nil {
			err = g.zr.Reset(in)
		} else {
			g = &gzipSource{piece: 256 << 10}
			g.zr, err = gzip.NewReader(in)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, c, err
		}
		return g, c, nil
	}
	if c == Zstd {
		return openZstd(r, head[:read], old, maxChunk)
	}
	src, err := openBrotli(r, head[:read], old)
	return src, c, err
}
