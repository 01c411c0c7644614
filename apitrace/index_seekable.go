package apitrace

import "io"

// resumable is a source whose stream can resume at the start of a chunk:
// snappy's chunks and seekable zstd's frames.
type resumable interface {
	source
	// nextChunk returns the file offset of the chunk the next fill reads.
	nextChunk() int64
	// seekChunk makes the next fill read the chunk at file offset off,
	// whose bytes start at offset stream of the decompressed stream.
	seekChunk(off, stream int64) error
}

func (s *snappySource) nextChunk() int64 { return s.off }

func (s *snappySource) seekChunk(off, _ int64) error {
	sk, ok := s.r.(io.Seeker)
	if !ok || off < 2 {
		return ErrSeek
	}
	if _, err := sk.Seek(off, io.SeekStart); err != nil {
		return err
	}
	s.off, s.last, s.done = off, off, false
	return nil
}
