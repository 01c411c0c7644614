package apitrace

import (
	"errors"
	"io"
)

// Position is a place between two events of a snappy or seekable zstd
// trace where reading can resume, as qapitrace's bookmarks are: the file
// offset of a chunk header (of a zstd frame), the offset in that chunk's
// decompressed bytes, plus the stream offset and the number the next enter
// event gets (call numbers are implicit in the stream).
type Position struct {
	Chunk   int64  // file offset of the chunk header or zstd frame
	InChunk int    // offset in the chunk's decompressed bytes
	Offset  int64  // offset in the decompressed stream
	Call    uint64 // number of the next enter event
}

// ErrSeek reports a Seek the Reader cannot do: a gzip, Brotli or plain zstd
// trace (their streams have no restart points), an input that is no
// io.Seeker, or a position that does not fall in a chunk.
var ErrSeek = errors.New("apitrace: cannot seek")

// Position returns the position of the next event. ok is false unless the
// trace is snappy or seekable zstd: the others cannot be resumed in the
// middle.
func (r *Reader) Position() (p Position, ok bool) {
	rs, ok := r.src.(resumable)
	if !ok {
		return Position{}, false
	}
	off := r.Offset()
	p = Position{Offset: off, Call: r.nextCall}
	if len(r.chunks) == 0 {
		// Nothing read since the header's chunk ran out: the next
		// event starts the next chunk.
		p.Chunk = rs.nextChunk()
		return p, true
	}
	c := r.chunks[0]
	for _, s := range r.chunks[1:] {
		if s.stream > off {
			break
		}
		c = s
	}
	p.Chunk, p.InChunk = c.file, int(off-c.stream)
	return p, true
}

// Seek moves the Reader to p, a position it (or a Reader of the same file)
// returned. The signatures the Reader already knows stay known, and a
// definition met again at its original place is stepped over, so p may lie
// before or after the current position as long as the Reader has read
// every signature defined before p — which is why positions come from a
// Reader that read past them (see CallReader.Index). The input must be an
// io.Seeker; only snappy and seekable zstd traces can seek. A seekable zstd
// trace decodes from the frame holding p, not from the start.
func (r *Reader) Seek(p Position) error {
	if r.src == nil {
		return ErrNotOpen
	}
	s, ok := r.src.(resumable)
	if !ok {
		return ErrSeek
	}
	if p.InChunk < 0 || p.Offset < int64(p.InChunk) {
		return ErrSeek
	}
	if err := s.seekChunk(p.Chunk, p.Offset-int64(p.InChunk)); err != nil {
		return err
	}
	r.emptyWindow()
	r.base = p.Offset - int64(p.InChunk)
	r.chunks = r.chunks[:0]
	r.srcErr = nil
	r.err = nil
	r.nextCall = p.Call
	var err error
	r.buf, err = s.fill(r.buf)
	if len(r.buf) > 0 {
		r.chunks = append(r.chunks, chunkSpan{stream: r.base, file: p.Chunk})
	}
	if err != nil {
		r.srcErr = err
	}
	if p.InChunk > len(r.buf) {
		r.err = &FormatError{Offset: p.Offset, Chunk: p.Chunk, Err: ErrSeek}
		return r.err
	}
	r.pos = p.InChunk
	return nil
}

// Index lists where the frames of a trace start.
type Index struct {
	// Frames[i] is the position of the first event of frame i: the start
	// of the stream for frame 0, else the event after the leave of the
	// call that ended frame i-1 (glXSwapBuffers, eglSwapBuffers, ... see
	// FunctionSig.EndsFrame). A trace that does not end with a frame end
	// has a last, partial frame.
	Frames []Position
	// Calls is the number of calls read.
	Calls uint64
}

// Index reads every remaining call and returns where each frame starts,
// leaving the CallReader at the end of the trace, with every signature
// known, so that SeekFrame can go anywhere. Memory use is that of reading
// plus one Position per frame. It needs a snappy or seekable zstd trace.
func (c *CallReader) Index() (*Index, error) {
	if c.r.src == nil {
		return nil, ErrNotOpen
	}
	p, ok := c.r.Position()
	if !ok {
		return nil, ErrSeek
	}
	idx := &Index{Frames: []Position{p}}
	for {
		call, err := c.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return idx, err
		}
		idx.Calls++
		if call.Sig != nil && call.Sig.EndsFrame() && !call.Incomplete {
			if p, ok := c.r.Position(); ok {
				idx.Frames = append(idx.Frames, p)
			}
		}
	}
	// The last frame end's successor is the end of the stream: not a frame.
	if n := len(idx.Frames); n > 1 && idx.Frames[n-1].Offset >= c.r.Offset() {
		idx.Frames = idx.Frames[:n-1]
	}
	return idx, nil
}

// Seek moves the CallReader to p (see Reader.Seek). Calls pending at the
// old position are forgotten.
func (c *CallReader) Seek(p Position) error {
	c.free = append(c.free, c.pending...)
	if c.last != nil {
		c.free = append(c.free, c.last)
		c.last = nil
	}
	c.pending = c.pending[:0]
	c.err = nil
	c.drained = 0
	return c.r.Seek(p)
}

// SeekFrame moves the CallReader to the start of frame n of idx. Calls of
// other threads that were in flight at the frame boundary (entered before
// it, left after it) are not returned: their enter lies before the seek
// point.
func (c *CallReader) SeekFrame(idx *Index, n int) error {
	if c.r.src == nil {
		return ErrNotOpen
	}
	if idx == nil || n < 0 || n >= len(idx.Frames) {
		return ErrSeek
	}
	return c.Seek(idx.Frames[n])
}
