package zstd_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand"
	"os"
	"runtime"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// seekableInput is an apitrace-sized stream: the corpus repeated past a
// few 2 MiB frames.
func seekableInput(t *testing.T) []byte {
	var data []byte
	for len(data) < 5<<20 {
		for _, f := range corpus(t) {
			data = append(data, f.data...)
		}
	}
	return data[:5<<20+12345]
}

func TestSeekable(t *testing.T) {
	data := seekableInput(t)
	const frameSize = 2 << 20
	for _, sums := range []bool{false, true} {
		file := seekableFile(t, data, frameSize, sums, "-3")
		if !bytes.HasSuffix(file, zstd.SeekableMagic[:]) {
			t.Fatal("no seekable magic at the end")
		}
		s, err := zstd.OpenSeekable(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			t.Fatal(err)
		}
		frames := s.Frames()
		if len(frames) != 3 || s.Size() != int64(len(data)) {
			t.Fatalf("%d frames, size %d; want 3 frames, %d bytes", len(frames), s.Size(), len(data))
		}
		var off int64
		for i, f := range frames {
			if f.Offset != off || f.DataOffset != int64(i*frameSize) || f.HasChecksum != sums {
				t.Errorf("frame %d: %+v", i, f)
			}
			off += f.Size
			// Decode the frames out of order, each on its own.
			j := len(frames) - 1 - i
			got, err := s.ReadFrame(nil, j)
			want := data[j*frameSize : min((j+1)*frameSize, len(data))]
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("frame %d: %v", j, err)
			}
		}
		// Frames decode after what dst holds: into its spare capacity
		// when the frame fits there (exactly or with room to spare),
		// else through the decoder's own buffer.
		for j := range frames {
			want := data[j*frameSize : min((j+1)*frameSize, len(data))]
			for _, spare := range []int{len(want), len(want) + 1, len(want) + 100, len(want) - 1, 0} {
				prefix := []byte("prefix")
				dst := append(make([]byte, 0, len(prefix)+spare), prefix...)
				got, err := s.ReadFrame(dst, j)
				if err != nil || !bytes.Equal(got[:len(prefix)], prefix) || !bytes.Equal(got[len(prefix):], want) {
					t.Errorf("frame %d into %d spare bytes: %v", j, spare, err)
				}
			}
		}
		// Decoding a frame into a buffer with room for it allocates
		// nothing once the decoder's own buffers have grown.
		dst := make([]byte, 0, frameSize)
		allocs := testing.AllocsPerRun(3, func() {
			if _, err := s.ReadFrame(dst[:0], 0); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("ReadFrame: %v allocations", allocs)
		}
		for _, o := range []int64{0, 1, frameSize - 1, frameSize, int64(len(data)) - 1} {
			if i := s.FrameAt(o); i != int(o/frameSize) {
				t.Errorf("FrameAt(%d) = %d", o, i)
			}
		}
		if s.FrameAt(-1) != -1 || s.FrameAt(int64(len(data))) != -1 {
			t.Error("FrameAt outside the content")
		}
		rnd := rand.New(rand.NewSource(2))
		for k := 0; k < 20; k++ {
			o := rnd.Int63n(int64(len(data)))
			p := make([]byte, rnd.Intn(3<<20))
			n, err := s.ReadAt(p, o)
			want := data[o:min(o+int64(len(p)), int64(len(data)))]
			if !bytes.Equal(p[:n], want) || (n < len(p) && err != io.EOF) || (n == len(p) && err != nil) {
				t.Fatalf("ReadAt(%d bytes, %d) = %d, %v", len(p), o, n, err)
			}
		}
		// The whole file is also a plain zstd stream.
		checkDecode(t, "seekable file as a stream", file, data)
	}
}

func TestSeekableErrors(t *testing.T) {
	data := seekableInput(t)[:300000]
	file := seekableFile(t, data, 100000, true, "-1")
	open := func(b []byte) error {
		s, err := zstd.OpenSeekable(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return err
		}
		for i := range s.Frames() {
			if _, err := s.ReadFrame(nil, i); err != nil {
				return err
			}
		}
		return nil
	}
	if err := open(file); err != nil {
		t.Fatal(err)
	}
	tableStart := len(file) - 8 - 3*12 - 9

	// A frame's compressed size pointing past the seek table: the error
	// names the entry's offset.
	bad := bytes.Clone(file)
	binary.LittleEndian.PutUint32(bad[tableStart+8+12:], 1<<30)
	fe := formatError(t, open(bad), zstd.ErrSeekTable)
	if fe.Offset != int64(tableStart+8+12) {
		t.Errorf("offset %d, want %d", fe.Offset, tableStart+8+12)
	}

	// A frame count larger than the file.
	bad = bytes.Clone(file)
	binary.LittleEndian.PutUint32(bad[len(bad)-9:], 1<<31)
	formatError(t, open(bad), zstd.ErrSeekTable)

	// No footer.
	formatError(t, open(file[:len(file)-1]), zstd.ErrSeekTable)

	// A checksum that does not match.
	bad = bytes.Clone(file)
	bad[tableStart+8+12+8] ^= 1
	formatError(t, open(bad), zstd.ErrChecksum)

	// A decompressed size that disagrees with the frame.
	bad = bytes.Clone(file)
	binary.LittleEndian.PutUint32(bad[tableStart+8+4:], 99999)
	formatError(t, open(bad), zstd.ErrCorrupt)

	// The file cut short: every cut fails with an error, never a panic.
	for n := 0; n < len(file); n += 1 + n/50 {
		if err := open(file[:n]); err == nil {
			t.Errorf("cut at %d: no error", n)
		}
	}
}

func FuzzSeekable(f *testing.F) {
	data := []byte("hello, seekable world; hello, seekable world, once more")
	for _, sums := range []bool{false, true} {
		f.Add(seekableFile(f, data, 16, sums, "-1"))
		f.Add(seekableFile(f, bytes.Repeat(data, 20), 300, sums, "-19"))
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		s := &zstd.Seekable{MaxWindow: 1 << 20}
		if err := s.Reset(bytes.NewReader(file), int64(len(file))); err != nil {
			var fe *zstd.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is no *FormatError", err)
			}
			return
		}
		var buf []byte
		for i, fr := range s.Frames() {
			if fr.Offset+fr.Size > int64(len(file)) {
				t.Fatalf("frame %d past the file", i)
			}
			buf, _ = s.ReadFrame(buf[:0], i)
			// Decoding in place, in a buffer with room for the frame,
			// gives what decoding through the decoder's buffer gives.
			if fr.DataSize <= 1<<20 {
				want, err := s.ReadFrame(nil, i)
				got, err2 := s.ReadFrame(make([]byte, 0, fr.DataSize), i)
				if (err == nil) != (err2 == nil) || err == nil && !bytes.Equal(got, want) {
					t.Fatalf("frame %d in place: %v, %d bytes; else %v, %d bytes", i, err2, len(got), err, len(want))
				}
			}
		}
		p := make([]byte, 100)
		s.ReadAt(p, s.Size()/2)
	})
}

// hostile reads a file of apitrace's hostile test data.
func hostile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/hostile/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSeekTableFrameTooLarge opens seekable files whose seek table lists a
// frame of 1 GiB (a real frame of 8192 RLE blocks, 32 KiB) and one of
// 2^32-1 bytes: each is refused from the table with ErrTooLarge, before
// anything is decoded (ReadAt cached the 1 GiB frame whole: 4.8 GB).
func TestSeekTableFrameTooLarge(t *testing.T) {
	for _, name := range []string{"frame-1g.zst", "frame-4g.zst"} {
		file := hostile(t, name)
		var err error
		total := allocatedBy(func() { _, err = zstd.OpenSeekable(bytes.NewReader(file), int64(len(file))) })
		formatError(t, err, zstd.ErrTooLarge)
		if total > 1<<20 {
			t.Errorf("%s: %d KiB allocated to refuse it", name, total>>10)
		}
	}
	// With the limit raised it opens.
	file := hostile(t, "frame-1g.zst")
	s := &zstd.Seekable{MaxWindow: 1 << 30}
	if err := s.Reset(bytes.NewReader(file), int64(len(file))); err != nil {
		t.Fatal(err)
	}
}

// TestSeekTableDescribesFile opens a file whose seek table lists 1000
// empty frames in front of a real one: the table does not describe the
// file, and is refused.
func TestSeekTableDescribesFile(t *testing.T) {
	file := hostile(t, "seektable-empty.trace")
	_, err := zstd.OpenSeekable(bytes.NewReader(file), int64(len(file)))
	formatError(t, err, zstd.ErrSeekTable)
}

// TestWindowMemory decodes a frame with a 16 MiB window and 48 MiB of
// content: the Reader allocates at most what the package documents,
// twice the window and a block, and a third more in the buffers outgrown
// on the way: about 2.7 times the window (64 MiB while the buffer grew by
// doubling).
func TestWindowMemory(t *testing.T) {
	file := hostile(t, "window-16m.zst")
	const window = 16 << 20
	var n int64
	var err error
	total := allocatedBy(func() {
		zr, err2 := zstd.NewReader(bytes.NewReader(file))
		if err2 != nil {
			err = err2
			return
		}
		n, err = zr.WriteTo(io.Discard)
	})
	if err != nil || n != 48<<20 {
		t.Fatalf("%d bytes, %v", n, err)
	}
	t.Logf("%d MiB allocated", total>>20)
	if bound := int64(4*(2*window+128<<10+64<<10)/3 + 1<<20); int64(total) > bound {
		t.Errorf("%d MiB allocated for a %d MiB window, documented bound %d MiB", total>>20, window>>20, bound>>20)
	}
}

// allocatedBy returns the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestSeekableReadAtGrowsWithContent reads a 35-byte seekable file whose
// seek table gives its one frame (128 KiB of content) 127 MiB, under the
// window limit: ReadAt fails on the size mismatch having allocated about
// what the frame holds, not what the table declares (it allocated the
// 127 MiB up front).
func TestSeekableReadAtGrowsWithContent(t *testing.T) {
	file := hostile(t, "frame-4g.zst")
	// The frame-4g.zst table entry says 2^32-1; make it 127 MiB.
	i := bytes.Index(file, []byte{0xff, 0xff, 0xff, 0xff})
	if i < 0 {
		t.Fatal("no 2^32-1 entry in frame-4g.zst")
	}
	file = bytes.Clone(file)
	binary.LittleEndian.PutUint32(file[i:], 127<<20)
	s, err := zstd.OpenSeekable(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	var p [16]byte
	total := allocatedBy(func() { _, err = s.ReadAt(p[:], 0) })
	formatError(t, err, zstd.ErrCorrupt)
	if total > 4<<20 {
		t.Errorf("ReadAt allocated %d KiB for a frame of 128 KiB", total>>10)
	}
}
