package zstd

import (
	"encoding/binary"
	"io"
	"math"
)

// DefaultFrameSize is the content of each frame a SeekableWriter writes
// but the last: 2 MiB, what apitrace master writes (and the seekable
// format's documentation recommends).
const DefaultFrameSize = 2 << 20

// MaxFrameSize is the largest FrameSize a SeekableWriter takes: 1 GiB,
// the seekable format library's limit on a frame's content.
const MaxFrameSize = 1 << 30

// A SeekableWriter compresses a stream in the seekable format: frames of
// FrameSize bytes of content each (the last shorter), each one a zstd
// frame on its own, then the seek table in a skippable frame, with no
// checksums, as apitrace master's repack -z writes. Any zstd decoder
// reads the file as one stream; OpenSeekable reads any frame on its own.
//
// Close must be called to write the last frame and the seek table; it
// does not close the underlying writer. Errors are sticky. A zero
// SeekableWriter returns ErrNotOpen until Reset, which gives it the
// default level.
type SeekableWriter struct {
	// FrameSize is the content of each frame but the last; 0 means
	// DefaultFrameSize. Set it before the first Write; at most
	// MaxFrameSize. A Seekable decodes each frame whole, so it reads
	// frames larger than DefaultMaxWindow only with its MaxWindow raised.
	FrameSize int

	w      io.Writer
	enc    Encoder
	buf    []byte // content of the frame being filled
	out    []byte // one compressed frame
	table  []byte // the seek table's entries so far
	frames int
	err    error
	open   bool
	closed bool
}

// NewSeekableWriter returns a SeekableWriter writing to w at level
// (MinLevel..MaxLevel).
func NewSeekableWriter(w io.Writer, level int) (*SeekableWriter, error) {
	p, err := levelParams(level)
	if err != nil {
		return nil, err
	}
	s := &SeekableWriter{enc: Encoder{level: level, p: p}}
	if err := s.Reset(w); err != nil {
		return nil, err
	}
	return s, nil
}

// Reset discards what s holds and makes it write a new stream to w,
// keeping its level, FrameSize and buffers.
func (s *SeekableWriter) Reset(w io.Writer) error {
	if s.enc.p.wlog == 0 {
		s.enc.p, _ = levelParams(DefaultLevel)
		s.enc.level = DefaultLevel
	}
	s.buf, s.table = s.buf[:0], s.table[:0]
	s.frames = 0
	s.err, s.closed, s.open = nil, false, false
	if w == nil {
		return ErrNotOpen
	}
	s.w, s.open = w, true
	return nil
}

// Level returns the compression level.
func (s *SeekableWriter) Level() int { return s.enc.level }

func (s *SeekableWriter) usable() error {
	switch {
	case s.err != nil:
		return s.err
	case !s.open:
		return ErrNotOpen
	case s.closed:
		return ErrClosed
	}
	return nil
}

func (s *SeekableWriter) frameSize() (int, error) {
	switch {
	case s.FrameSize == 0:
		return DefaultFrameSize, nil
	case s.FrameSize < 0 || s.FrameSize > MaxFrameSize:
		return 0, wrapf(ErrInvalid, "frame size %d outside 1..%d", s.FrameSize, MaxFrameSize)
	}
	return s.FrameSize, nil
}

// Write compresses p, writing each frame as it fills.
func (s *SeekableWriter) Write(p []byte) (int, error) {
	if err := s.usable(); err != nil {
		return 0, err
	}
	size, err := s.frameSize()
	if err != nil {
		s.err = err
		return 0, err
	}
	n := len(p)
	for len(p) > 0 {
		if len(s.buf) == 0 && len(p) >= size {
			// A whole frame in p: no copy.
			if err := s.frame(p[:size]); err != nil {
				return n - len(p), err
			}
			p = p[size:]
			continue
		}
		k := min(size-len(s.buf), len(p))
		s.buf = append(s.buf, p[:k]...)
		p = p[k:]
		if len(s.buf) == size {
			if err := s.frame(s.buf); err != nil {
				return n - len(p), err
			}
			s.buf = s.buf[:0]
		}
	}
	return n, nil
}

// Flush ends the current frame, if it holds anything, and writes it: a
// short frame, as apitrace's tracer makes when it flushes.
func (s *SeekableWriter) Flush() error {
	if err := s.usable(); err != nil {
		return err
	}
	if len(s.buf) == 0 {
		return nil
	}
	err := s.frame(s.buf)
	s.buf = s.buf[:0]
	return err
}

// Close writes the last frame and the seek table. An empty stream is one
// empty frame, so that the file starts as a zstd stream does. It does not
// close the underlying writer; closing again returns nil, or the error
// that stopped the writer.
func (s *SeekableWriter) Close() error {
	if s.closed || s.err != nil {
		return s.err
	}
	if !s.open {
		return ErrNotOpen
	}
	if len(s.buf) > 0 || s.frames == 0 {
		if err := s.frame(s.buf); err != nil {
			return err
		}
		s.buf = s.buf[:0]
	}
	s.closed = true
	// The skippable frame: magic, size, entries, then the footer: the
	// number of frames, a descriptor with no checksum flag, the magic.
	t := s.out[:0]
	t = binary.LittleEndian.AppendUint32(t, seekTableMagic)
	t = binary.LittleEndian.AppendUint32(t, uint32(len(s.table)+footerSize))
	t = append(t, s.table...)
	t = binary.LittleEndian.AppendUint32(t, uint32(s.frames))
	t = append(t, 0)
	t = binary.LittleEndian.AppendUint32(t, seekableMagic)
	s.out = t
	if _, err := s.w.Write(t); err != nil {
		s.err = err
		return err
	}
	return nil
}

// frame compresses and writes one frame of content p.
func (s *SeekableWriter) frame(p []byte) error {
	s.out = s.enc.AppendFrame(s.out[:0], p)
	if uint64(len(s.out)) > math.MaxUint32 || s.frames == 1<<27 {
		// The seek table's fields cannot hold it (the format allows
		// 1<<27 frames).
		s.err = wrapf(ErrInvalid, "frame %d does not fit the seek table", s.frames)
		return s.err
	}
	if _, err := s.w.Write(s.out); err != nil {
		s.err = err
		return err
	}
	s.table = binary.LittleEndian.AppendUint32(s.table, uint32(len(s.out)))
	s.table = binary.LittleEndian.AppendUint32(s.table, uint32(len(p)))
	s.frames++
	return nil
}
