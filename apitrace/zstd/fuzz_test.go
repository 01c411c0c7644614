package zstd_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// FuzzReader feeds arbitrary input to the Reader, seeded with real frames
// of the zstd command: it must never panic or hang, and every failure is a
// *FormatError.
func FuzzReader(f *testing.F) {
	// Seeds cheap to make: each fuzz worker makes them again.
	src, err := os.ReadFile("doc.go")
	if err != nil {
		f.Fatal(err)
	}
	for _, args := range [][]string{{"-1"}, {"-19", "--no-check"}} {
		f.Add(zstdFile(f, src, args...))
		f.Add(zstdCmd(f, src[:300], args...))
	}
	f.Add(zstdCmd(f, make([]byte, 1000), "-3"))
	f.Fuzz(func(t *testing.T, data []byte) {
		zr := &zstd.Reader{MaxWindow: 1 << 20}
		err := zr.Reset(bytes.NewReader(data))
		if err == nil {
			// RLE blocks expand 32768 times: stop after a bound.
			_, err = io.CopyN(io.Discard, zr, 64<<20)
		}
		var fe *zstd.FormatError
		if err != nil && err != io.EOF && !errors.As(err, &fe) {
			t.Fatalf("error %v is no *FormatError", err)
		}
	})
}

// FuzzEncode compresses arbitrary input at any level, in frames of any
// size, through a SeekableWriter, and decodes it with our Reader and,
// frame by frame, with Seekable: both must give the input back. Seeds are
// pieces of real files (an apitrace stream, Go sources, a binary).
func FuzzEncode(f *testing.F) {
	for i, c := range corpus(f) {
		for _, n := range []int{100, 5000, 40000} {
			f.Add(c.data[:min(n, len(c.data))], uint8(i*5), uint16(n/3))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, level uint8, frame uint16) {
		lvl := zstd.MinLevel + int(level)%zstd.MaxLevel
		var buf bytes.Buffer
		w, err := zstd.NewSeekableWriter(&buf, lvl)
		if err != nil {
			t.Fatal(err)
		}
		w.FrameSize = int(frame) + 1
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		file := buf.Bytes()
		got, err := decodeAll(file)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("level %d frames of %d: decoded %d of %d bytes: %v", lvl, w.FrameSize, len(got), len(data), err)
		}
		s, err := zstd.OpenSeekable(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			t.Fatal(err)
		}
		for i := len(s.Frames()) - 1; i >= 0; i-- {
			fr := s.Frames()[i]
			p, err := s.ReadFrame(nil, i)
			if err != nil || !bytes.Equal(p, data[fr.DataOffset:fr.DataOffset+fr.DataSize]) {
				t.Fatalf("frame %d: %v", i, err)
			}
		}
	})
}
