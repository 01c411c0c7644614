package zstd

import (
	"encoding/binary"
	"fmt"
	"io"
	"sort"
)

// The seekable format (the zstd project's contrib/seekable_format): the
// content is cut into independent frames, and a skippable frame at the end
// of the file holds the seek table, one entry per frame, ended by a 9-byte
// footer whose last 4 bytes are the seekable magic number.
const (
	seekTableMagic = 0x184D2A5E
	seekableMagic  = 0x8F92EAB1
	footerSize     = 9
)

// SeekableMagic is the file's last 4 bytes when it is in the seekable
// format.
var SeekableMagic = [4]byte{0xb1, 0xea, 0x92, 0x8f}

// Frame is one seek table entry: where a frame lies in the file and in the
// decompressed content.
type Frame struct {
	Offset     int64 // the frame's offset in the file
	Size       int64 // its compressed size
	DataOffset int64 // offset of its content in the decompressed content
	DataSize   int64 // size of its content
	// Checksum is the low 32 bits of the XXH64 of the frame's content,
	// when the seek table stores checksums (HasChecksum).
	Checksum    uint32
	HasChecksum bool
}

// Seekable reads a file in the seekable format: its seek table, and any
// frame on its own. A Seekable is not safe for concurrent use.
type Seekable struct {
	// MaxWindow limits each frame's window as Reader.MaxWindow does, and
	// the content of each frame the seek table lists: a frame is decoded
	// whole (ReadAt keeps the last one), so Reset refuses a seek table
	// entry larger than this with ErrTooLarge. Set it before Reset; it
	// applies to the frames ReadFrame and ReadAt decode after it is set.
	MaxWindow int64

	r      io.ReaderAt
	size   int64
	frames []Frame
	total  int64
	zr     Reader
	sec    io.SectionReader

	// The frame ReadAt decoded last.
	cached int
	cache  []byte
}

// OpenSeekable reads the seek table of the size-byte file r. A file
// without the seekable footer, or whose seek table is malformed or does
// not describe the file (its frames must fill it up to the seek table),
// gives a *FormatError wrapping ErrSeekTable; a frame whose content is
// larger than DefaultMaxWindow, ErrTooLarge.
func OpenSeekable(r io.ReaderAt, size int64) (*Seekable, error) {
	s := new(Seekable)
	if err := s.Reset(r, size); err != nil {
		return nil, err
	}
	return s, nil
}

// Reset makes s read the size-byte file r, keeping s's buffers.
func (s *Seekable) Reset(r io.ReaderAt, size int64) error {
	s.r = nil
	s.frames = s.frames[:0]
	s.total = 0
	s.cached = -1
	if r == nil {
		return ErrNotOpen
	}
	if size < footerSize {
		return formatErr(0, ErrSeekTable, "file of %d bytes has no seek table footer", size)
	}
	var foot [footerSize]byte
	if err := readAt(r, foot[:], size-footerSize); err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(foot[5:]) != seekableMagic {
		return formatErr(size-4, ErrSeekTable, "no seekable magic number at the end of the file")
	}
	maxWindow := s.MaxWindow
	if maxWindow <= 0 {
		maxWindow = DefaultMaxWindow
	}
	desc := foot[4]
	if desc&0x7c != 0 {
		return formatErr(size-5, ErrSeekTable, "reserved bits set in the seek table descriptor")
	}
	sums := desc&0x80 != 0
	entry := int64(8)
	if sums {
		entry = 12
	}
	n := int64(binary.LittleEndian.Uint32(foot[:4]))
	tableSize := n*entry + footerSize
	start := size - 8 - tableSize
	if start < 0 {
		return formatErr(size-footerSize, ErrSeekTable, "seek table of %d frames is larger than the file", n)
	}
	var head [8]byte
	if err := readAt(r, head[:], start); err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(head[:]) != seekTableMagic || int64(binary.LittleEndian.Uint32(head[4:])) != tableSize {
		return formatErr(start, ErrSeekTable, "no seek table frame where the footer puts it")
	}
	var buf [12 * 256]byte
	var off, data int64
	for i := int64(0); i < n; {
		k := min(n-i, int64(len(buf))/entry)
		chunk := buf[:k*entry]
		at := start + 8 + i*entry
		if err := readAt(r, chunk, at); err != nil {
			return err
		}
		for j := int64(0); j < k; j++ {
			e := chunk[j*entry:]
			f := Frame{
				Offset:      off,
				Size:        int64(binary.LittleEndian.Uint32(e)),
				DataOffset:  data,
				DataSize:    int64(binary.LittleEndian.Uint32(e[4:])),
				HasChecksum: sums,
			}
			if sums {
				f.Checksum = binary.LittleEndian.Uint32(e[8:])
			}
			if f.Offset+f.Size > start {
				return formatErr(at+j*entry, ErrSeekTable, "frame %d at offset %d of %d bytes ends past the seek table at offset %d", i+j, f.Offset, f.Size, start)
			}
			// Each frame is decoded whole: one over the window limit is
			// refused from the table, before anything is decoded.
			if f.DataSize > maxWindow {
				return formatErr(at+j*entry, ErrTooLarge, "frame %d of %d bytes of content, limit %d", i+j, f.DataSize, maxWindow)
			}
			s.frames = append(s.frames, f)
			off += f.Size
			data += f.DataSize
		}
		i += k
	}
	if off != start {
		// A table whose frames stop short of it leaves bytes no frame
		// holds: it describes another file.
		return formatErr(start, ErrSeekTable, "the frames of the seek table end at offset %d, the seek table starts at %d", off, start)
	}
	s.r, s.size, s.total = r, size, data
	return nil
}

func readAt(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &FormatError{Offset: off + int64(n), Err: err}
}

// Frames returns the seek table. The slice is owned by s: do not modify
// it; it is valid until the next Reset.
func (s *Seekable) Frames() []Frame { return s.frames }

// Size returns the size of the decompressed content.
func (s *Seekable) Size() int64 { return s.total }

// FrameAt returns the index of the frame holding decompressed offset off,
// or -1 when off is outside the content.
func (s *Seekable) FrameAt(off int64) int {
	if off < 0 || off >= s.total {
		return -1
	}
	// The first frame whose content ends after off; empty frames never
	// qualify.
	return sort.Search(len(s.frames), func(i int) bool {
		f := &s.frames[i]
		return f.DataOffset+f.DataSize > off
	})
}

// ReadFrame decodes frame i on its own and appends its content to dst.
// When dst's spare capacity holds the frame's content, the frame is
// decoded there, without a copy. A frame whose content differs in size
// or checksum from its seek table entry is a *FormatError.
func (s *Seekable) ReadFrame(dst []byte, i int) ([]byte, error) {
	if s.r == nil {
		return dst, ErrNotOpen
	}
	if i < 0 || i >= len(s.frames) {
		return dst, formatErr(0, ErrSeekTable, "no frame %d in a table of %d", i, len(s.frames))
	}
	f := s.frames[i]
	s.sec = *io.NewSectionReader(s.r, f.Offset, f.Size)
	s.zr.MaxWindow = s.MaxWindow
	s.zr.reset(&s.sec)
	base := len(dst)
	var err error
	dst, err = s.zr.appendTo(dst, f.DataSize)
	if err != nil {
		if fe, ok := err.(*FormatError); ok {
			fe.Offset += f.Offset
			if fe.Err == errFrameSize {
				fe.Err = fmt.Errorf("%w: frame %d holds more than the seek table's %d bytes", ErrCorrupt, i, f.DataSize)
			}
		}
		return dst, err
	}
	got := dst[base:]
	if int64(len(got)) != f.DataSize {
		return dst, formatErr(f.Offset, ErrCorrupt, "frame %d holds %d bytes, the seek table says %d", i, len(got), f.DataSize)
	}
	if f.HasChecksum {
		var h xxh64
		h.reset()
		h.write(got)
		if uint32(h.sum()) != f.Checksum {
			return dst, formatErr(f.Offset, ErrChecksum, "frame %d", i)
		}
	}
	return dst, nil
}

// ReadAt reads decompressed content at offset off, decoding the frames
// that hold it (the last one decoded is kept for the next call: the cache
// holds one frame, of at most MaxWindow bytes). It implements io.ReaderAt.
func (s *Seekable) ReadAt(p []byte, off int64) (int, error) {
	if s.r == nil {
		return 0, ErrNotOpen
	}
	n := 0
	for n < len(p) {
		i := s.FrameAt(off)
		if i < 0 {
			return n, io.EOF
		}
		if i != s.cached {
			var err error
			s.cached = -1
			// The cache holds one frame, never much more: a buffer
			// left by a far larger frame goes. It is not sized from the
			// seek table, which only declares the frame's size: the
			// frame is decoded into a buffer that grows as its blocks
			// arrive.
			if want := s.frames[i].DataSize; int64(cap(s.cache)) > 2*want+1<<20 {
				s.cache = nil
			}
			if s.cache, err = s.ReadFrame(s.cache[:0], i); err != nil {
				s.cache = s.cache[:0]
				return n, err
			}
			s.cached = i
		}
		f := &s.frames[i]
		k := copy(p[n:], s.cache[off-f.DataOffset:])
		n += k
		off += int64(k)
	}
	return n, nil
}
