package apitrace

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"sort"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// zstdSource reads a zstd trace from start to end: a plain zstd stream, or
// a seekable one read through an input that cannot seek (its seek table
// is a skippable frame, which the decoder steps over).
type zstdSource struct {
	zr    zstd.Reader
	piece int
}

func (z *zstdSource) chunk() int64 { return -1 }

func (z *zstdSource) fill(dst []byte) ([]byte, error) {
	return fillFrom(&z.zr, dst, z.piece)
}

// seekableSource reads a seekable zstd trace frame by frame. Its frames
// play the part of snappy's chunks: a Position names the file offset of a
// frame and an offset in its content, and Seek decodes from that frame on.
type seekableSource struct {
	s        zstd.Seekable
	frames   []zstd.Frame
	size     int64 // of the file, seek table included
	next     int   // the frame the next fill decodes
	last     int64 // file offset of the frame decoded last
	maxChunk int
}

func (z *seekableSource) chunk() int64 { return z.last }

func (z *seekableSource) fill(dst []byte) ([]byte, error) {
	for z.next < len(z.frames) {
		i := z.next
		f := &z.frames[i]
		z.next++
		z.last = f.Offset
		if f.DataSize > int64(z.maxChunk) {
			z.next = len(z.frames)
			return dst, wrapf(ErrTooLarge, "zstd frame %d of %d decompressed bytes", i, f.DataSize)
		}
		if f.DataSize == 0 {
			continue
		}
		if room := min(f.DataSize, trustedFrame); int64(cap(dst)-len(dst)) < room {
			// Room for the whole frame, made at once (the Reader's
			// window keeps room for nextPiece, so this is for other
			// callers): the decoder would otherwise append it block by
			// block, each growing dst by append's small steps.
			dst = slices.Grow(dst, int(room))
		}
		dst, err := z.s.ReadFrame(dst, i)
		if err != nil {
			z.next = len(z.frames)
		}
		return dst, err
	}
	return dst, io.EOF
}

// trustedFrame bounds the room made ahead for a frame from the size its
// seek table gives, which costs nothing to inflate: apitrace writes frames
// of 2 MiB, and a larger one grows as its content arrives.
const trustedFrame = 2 * zstd.DefaultFrameSize

// nextPiece returns the size of the next frame's content, which fill
// appends whole, up to trustedFrame.
func (z *seekableSource) nextPiece() int {
	for i := z.next; i < len(z.frames); i++ {
		if n := z.frames[i].DataSize; n > 0 {
			return int(min(n, trustedFrame))
		}
	}
	return 0
}

// nextChunk returns the file offset of the frame the next fill decodes.
func (z *seekableSource) nextChunk() int64 { return z.nextChunkAt(z.next) }

// nextChunkAt returns the file offset of frame i, or of the end of the
// frames when there is no frame i.
func (z *seekableSource) nextChunkAt(i int) int64 {
	if i < len(z.frames) {
		return z.frames[i].Offset
	}
	if n := len(z.frames); n > 0 {
		return z.frames[n-1].Offset + z.frames[n-1].Size
	}
	return 0
}

// seekChunk makes the next fill decode the frame at file offset off, whose
// content must start at stream offset stream.
func (z *seekableSource) seekChunk(off, stream int64) error {
	i := sort.Search(len(z.frames), func(i int) bool { return z.frames[i].Offset >= off })
	// Empty frames share their offset with the next one: take the frame
	// whose content starts there.
	for i < len(z.frames) && z.frames[i].Offset == off && z.frames[i].DataSize == 0 {
		i++
	}
	if i == len(z.frames) && off == z.nextChunkAt(i) && stream == z.s.Size() {
		// The end of the stream, as Position gives it after the last
		// event.
		z.next, z.last = i, off
		return nil
	}
	if i >= len(z.frames) || z.frames[i].Offset != off || z.frames[i].DataOffset != stream {
		return ErrSeek
	}
	z.next, z.last = i, off
	return nil
}

// openZstd opens a zstd trace whose 4-byte magic, already read from r, is
// head. When r can seek and read at offsets (a file) and ends with the
// seekable magic, the trace is read frame by frame through its seek table;
// otherwise as one stream.
func openZstd(r io.Reader, head []byte, old source, maxChunk int) (source, Container, error) {
	if s, ok := openSeekable(r, int64(len(head)), old, maxChunk); ok {
		return s.src, ZstdSeekable, s.err
	}
	z, _ := old.(*zstdSource)
	if z == nil {
		z = &zstdSource{piece: 256 << 10}
	}
	err := z.zr.Reset(io.MultiReader(bytes.NewReader(head), r))
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, Zstd, err
	}
	return z, Zstd, nil
}

type seekableOpen struct {
	src source
	err error
}

// openSeekable tries r as a seekable zstd file of which read bytes were
// already taken. ok is false when r cannot seek, has no seekable magic at
// its end, or a seek table that does not describe it; r is then left where
// it was.
func openSeekable(r io.Reader, read int64, old source, maxChunk int) (o seekableOpen, ok bool) {
	ra, isAt := r.(io.ReaderAt)
	sk, isSeeker := r.(io.Seeker)
	if !isAt || !isSeeker {
		return o, false
	}
	cur, err := sk.Seek(0, io.SeekCurrent)
	if err != nil || cur < read {
		return o, false
	}
	end, err := sk.Seek(0, io.SeekEnd)
	if _, err2 := sk.Seek(cur, io.SeekStart); err != nil || err2 != nil {
		return o, false
	}
	start := cur - read
	size := end - start
	var tail [4]byte
	if size < 4 {
		return o, false
	}
	if n, _ := ra.ReadAt(tail[:], end-4); n != 4 || tail != zstd.SeekableMagic {
		return o, false
	}
	z, _ := old.(*seekableSource)
	if z == nil {
		z = new(seekableSource)
	}
	if err := z.s.Reset(io.NewSectionReader(ra, start, size), size); err != nil {
		if errors.Is(err, zstd.ErrSeekTable) || errors.Is(err, zstd.ErrTooLarge) {
			// A seek table that does not describe the file, or lists a
			// frame too large to decode whole, is no help: the frames
			// are read one after the other, as through an input that
			// cannot seek.
			return o, false
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return seekableOpen{err: err}, true
	}
	z.frames, z.size = z.s.Frames(), size
	z.next, z.last, z.maxChunk = 0, 0, maxChunk
	return seekableOpen{src: z}, true
}
