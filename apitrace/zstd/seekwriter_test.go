package zstd_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// writeSeekable writes data through a SeekableWriter of frameSize in
// pieces of irregular sizes and closes it.
func writeSeekable(t testing.TB, data []byte, level, frameSize int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewSeekableWriter(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	w.FrameSize = frameSize
	if frameSize == 0 {
		frameSize = zstd.DefaultFrameSize
	}
	rnd := rand.New(rand.NewSource(int64(len(data))))
	for rest := data; len(rest) > 0; {
		k := min(len(rest), 1+rnd.Intn(3*frameSize))
		if n, err := w.Write(rest[:k]); n != k || err != nil {
			t.Fatalf("Write: %d of %d, %v", n, k, err)
		}
		rest = rest[k:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSeekableWriter writes real streams in small frames and reads them
// back: the seek table lists frames of FrameSize bytes, each frame decodes
// on its own, ReadAt reads any range, the zstd command and our Reader read
// the file as one stream.
func TestSeekableWriter(t *testing.T) {
	for _, f := range corpus(t) {
		const frameSize = 64 << 10
		file := writeSeekable(t, f.data, 3, frameSize)
		checkRoundTrip(t, f.name, file, f.data, true)
		s, err := zstd.OpenSeekable(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		frames := s.Frames()
		if want := max(1, (len(f.data)+frameSize-1)/frameSize); len(frames) != want || s.Size() != int64(len(f.data)) {
			t.Fatalf("%s: %d frames of %d bytes, want %d of %d", f.name, len(frames), s.Size(), want, len(f.data))
		}
		// Last frame first: each decodes without the ones before it.
		for i := len(frames) - 1; i >= 0; i-- {
			fr := frames[i]
			if fr.HasChecksum || fr.DataOffset != int64(i*frameSize) || (i < len(frames)-1 && fr.DataSize != frameSize) {
				t.Fatalf("%s: frame %d: %+v", f.name, i, fr)
			}
			got, err := s.ReadFrame(nil, i)
			if err != nil || !bytes.Equal(got, f.data[fr.DataOffset:fr.DataOffset+fr.DataSize]) {
				t.Fatalf("%s: frame %d: %d bytes, %v", f.name, i, len(got), err)
			}
		}
		rnd := rand.New(rand.NewSource(2))
		for range 20 {
			if len(f.data) == 0 {
				break
			}
			off := rnd.Intn(len(f.data))
			p := make([]byte, rnd.Intn(len(f.data)-off)+1)
			if n, err := s.ReadAt(p, int64(off)); n != len(p) || err != nil && err != io.EOF || !bytes.Equal(p, f.data[off:off+n]) {
				t.Fatalf("%s: ReadAt(%d, %d): %d, %v", f.name, len(p), off, n, err)
			}
		}
	}
}

// TestSeekableWriterLayout compares our seekable file with master's
// layout: frames of 2 MiB of content, the seek table after them, no
// checksums.
func TestSeekableWriterLayout(t *testing.T) {
	theirs := testutil.ReadFile(t, testutil.SharedFixture(t, "apitrace/v13/glxgears-20s.zstd3.trace"))
	stream := mustDecode(t, theirs)
	ours := writeSeekable(t, stream, 3, 0)
	a, err := zstd.OpenSeekable(bytes.NewReader(ours), int64(len(ours)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := zstd.OpenSeekable(bytes.NewReader(theirs), int64(len(theirs)))
	if err != nil {
		t.Fatal(err)
	}
	fa, fb := a.Frames(), b.Frames()
	if len(fa) != len(fb) {
		t.Fatalf("%d frames, master %d", len(fa), len(fb))
	}
	for i := range fa {
		if fa[i].DataSize != fb[i].DataSize || fa[i].HasChecksum != fb[i].HasChecksum {
			t.Errorf("frame %d: %+v, master's %+v", i, fa[i], fb[i])
		}
	}
	end := fa[len(fa)-1].Offset + fa[len(fa)-1].Size
	if got, want := int64(len(ours))-end, 8+int64(8*len(fa))+9; got != want {
		t.Errorf("seek table of %d bytes, want %d", got, want)
	}
}

// TestSeekableWriterFlushAndEmpty: Flush ends a short frame (nothing when
// nothing is buffered); an empty stream is one empty frame.
func TestSeekableWriterFlushAndEmpty(t *testing.T) {
	var buf bytes.Buffer
	w, _ := zstd.NewSeekableWriter(&buf, 1)
	w.Write([]byte("first"))
	w.Flush()
	w.Flush()
	w.Write([]byte("second"))
	w.Close()
	s, err := zstd.OpenSeekable(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if fr := s.Frames(); len(fr) != 2 || fr[0].DataSize != 5 || fr[1].DataSize != 6 {
		t.Errorf("frames %+v", fr)
	}
	checkRoundTrip(t, "flushed", buf.Bytes(), []byte("firstsecond"), true)

	buf.Reset()
	w.Reset(&buf)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = zstd.OpenSeekable(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil || len(s.Frames()) != 1 || s.Size() != 0 {
		t.Fatalf("empty: %v", err)
	}
	checkRoundTrip(t, "empty", buf.Bytes(), nil, true)
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n--; f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestSeekableWriterStates: the zero value, Close twice, Write after
// Close, a bad FrameSize and a failing writer, each sticky.
func TestSeekableWriterStates(t *testing.T) {
	var z zstd.SeekableWriter
	if _, err := z.Write([]byte("x")); err != zstd.ErrNotOpen {
		t.Errorf("zero Write: %v", err)
	}
	if z.Flush() != zstd.ErrNotOpen || z.Close() != zstd.ErrNotOpen {
		t.Errorf("zero Flush or Close")
	}
	if err := z.Reset(io.Discard); err != nil || z.Level() != zstd.DefaultLevel {
		t.Fatalf("Reset: %v, level %d", err, z.Level())
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := z.Write([]byte("x")); err != zstd.ErrClosed {
		t.Errorf("Write after Close: %v", err)
	}

	w, _ := zstd.NewSeekableWriter(io.Discard, 3)
	w.FrameSize = zstd.MaxFrameSize + 1
	if _, err := w.Write([]byte("x")); !errors.Is(err, zstd.ErrInvalid) {
		t.Errorf("frame size over the limit: %v", err)
	}
	if err := w.Close(); !errors.Is(err, zstd.ErrInvalid) {
		t.Errorf("Close after a refusal: %v", err)
	}

	w, _ = zstd.NewSeekableWriter(&failWriter{1}, 3)
	w.FrameSize = 10
	if _, err := w.Write(make([]byte, 25)); err == nil {
		t.Error("failing writer: no error")
	}
	if err := w.Close(); err == nil || err.Error() != "disk full" {
		t.Errorf("Close after a write error: %v", err)
	}
}

func TestWriterZeroValues(t *testing.T) {
	testutil.CheckZeroValue(t, new(zstd.SeekableWriter))
	testutil.CheckZeroValue(t, new(zstd.Encoder))
}
