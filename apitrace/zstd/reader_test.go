package zstd_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

func decodeAll(data []byte) ([]byte, error) {
	zr, err := zstd.NewReader(bytes.NewReader(data))
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

func checkDecode(t *testing.T, name string, comp, want []byte) {
	t.Helper()
	got, err := decodeAll(comp)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: decoded %d bytes differ from the %d original ones", name, len(got), len(want))
	}
}

// TestSmallWindowBlock reads a compressed block larger than its frame's
// window (a single-segment frame of content size 0, so a window of 0
// bytes) as the zstd command does (a fuzzer's find: klauspost's decoder
// and the zstd command read it; it once failed here).
func TestSmallWindowBlock(t *testing.T) {
	frame := []byte("(\xb5/\xfd0\x00\x15\x00\x00\x00\x00")
	checkDecode(t, "compressed block over a 0-byte window", frame, zstdCmd(t, frame, "-d"))
}

// TestZstdCommandLevels decodes what the zstd command writes at every
// level, with and without checksums, from a file (content size in the
// header) and from a pipe (no content size).
func TestZstdCommandLevels(t *testing.T) {
	for _, f := range corpus(t) {
		for level := 1; level <= 19; level++ {
			if level > 12 && len(f.data) > 256<<10 && level%3 != 0 && level != 19 {
				continue // keep the slow levels few on the larger files
			}
			check := "--check"
			if level%2 == 0 {
				check = "--no-check"
			}
			args := []string{fmt.Sprintf("-%d", level), check}
			checkDecode(t, fmt.Sprintf("%s %v file", f.name, args), zstdFile(t, f.data, args...), f.data)
			if level%4 == 1 {
				checkDecode(t, fmt.Sprintf("%s %v pipe", f.name, args), zstdCmd(t, f.data, args...), f.data)
			}
		}
	}
}

// TestZstdCommandLarge covers --ultra -22, --long and small windows, where
// the output is longer than the window and the Reader slides it.
func TestZstdCommandLarge(t *testing.T) {
	var big []byte
	for _, f := range corpus(t) {
		big = append(big, f.data...)
	}
	// Repeat with a gap longer than level 3's window, so that --long finds
	// far matches.
	big = big[:min(len(big), 5<<19)]
	big = append(big, big...)
	for _, args := range [][]string{
		{"--ultra", "-22", "--check"},
		{"--long", "-3"},
		{"--long", "-17", "--no-check"},
		{"-3", "--zstd=wlog=10"},
		{"-9", "--zstd=wlog=15"},
		{"-1", "--no-check", "-B4096"},
	} {
		checkDecode(t, fmt.Sprintf("%v file", args), zstdFile(t, big, args...), big)
		if args[0] != "--ultra" {
			checkDecode(t, fmt.Sprintf("%v pipe", args), zstdCmd(t, big, args...), big)
		}
	}
}

// TestFramesAndSkippable decodes concatenated frames with skippable frames
// between and around them, as one stream.
func TestFramesAndSkippable(t *testing.T) {
	c := corpus(t)
	skip := func(magicLow byte, n int) []byte {
		b := binary.LittleEndian.AppendUint32(nil, 0x184D2A50|uint32(magicLow))
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
		return append(b, bytes.Repeat([]byte{0xee}, n)...)
	}
	var comp, want []byte
	comp = append(comp, skip(0, 10)...)
	for i, f := range c {
		comp = append(comp, zstdFile(t, f.data, fmt.Sprintf("-%d", 1+i*3))...)
		comp = append(comp, skip(byte(i), i*100)...)
		want = append(want, f.data...)
	}
	checkDecode(t, "concatenated", comp, want)
	zr, err := zstd.NewReader(iotest.OneByteReader(bytes.NewReader(comp)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(iotest.OneByteReader(zr))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("one byte at a time: %v", err)
	}
	if _, err := zstd.NewReader(bytes.NewReader(skip(3, 5))); err != io.EOF {
		t.Errorf("only a skippable frame: %v, want io.EOF", err)
	}
}

func formatError(t *testing.T, err error, sentinel error) *zstd.FormatError {
	t.Helper()
	var fe *zstd.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, sentinel) {
		t.Fatalf("error %v, want a *FormatError wrapping %v", err, sentinel)
	}
	return fe
}

func TestErrors(t *testing.T) {
	data := corpus(t)[0].data[:20000]
	comp := zstdFile(t, data, "-19", "--check")

	// A bad checksum, at the end of the frame.
	bad := bytes.Clone(comp)
	bad[len(bad)-1] ^= 1
	_, err := decodeAll(bad)
	if fe := formatError(t, err, zstd.ErrChecksum); fe.Offset != int64(len(bad)-4) {
		t.Errorf("checksum error at offset %d, want %d", fe.Offset, len(bad)-4)
	}

	// Not zstd.
	_, err = decodeAll([]byte("hello, world"))
	formatError(t, err, zstd.ErrHeader)

	// A frame with a dictionary id: descriptor with a 1-byte id.
	dict := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x01, 0x00, 0x2a, 0x01, 0x00, 0x00}
	_, err = decodeAll(dict)
	formatError(t, err, zstd.ErrDictionary)

	// A window over the limit: checked before any block is read.
	zr := &zstd.Reader{MaxWindow: 1 << 10}
	err = zr.Reset(bytes.NewReader(comp))
	formatError(t, err, zstd.ErrTooLarge)
	huge := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xf8} // window 2^41
	_, err = decodeAll(huge)
	formatError(t, err, zstd.ErrTooLarge)
	if _, err := zr.Read(make([]byte, 10)); !errors.Is(err, zstd.ErrTooLarge) {
		t.Errorf("error not sticky: %v", err)
	}

	// A reserved block type.
	rsv := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 0x07, 0x00, 0x00}
	_, err = decodeAll(rsv)
	formatError(t, err, zstd.ErrCorrupt)

	// A compressed block whose Huffman table is garbage.
	huf := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x40, 0x25, 0x00, 0x00, 0x02, 0x00, 0x10, 0x7f, 0xff}
	_, err = decodeAll(huf)
	var fe *zstd.FormatError
	if !errors.As(err, &fe) {
		t.Errorf("garbage block: %v", err)
	}

	// Messages name the package once.
	if msg := (&zstd.FormatError{Offset: 3, Err: zstd.ErrTable}).Error(); msg != "zstd: offset 3: bad FSE or Huffman table" {
		t.Errorf("message %q", msg)
	}
}

// TestTruncation cuts a small frame (Huffman literals, FSE tables and a
// checksum) at every byte.
func TestTruncation(t *testing.T) {
	data := corpus(t)[0].data[:6000]
	for _, args := range [][]string{{"-19", "--check"}, {"-1", "--no-check"}} {
		comp := zstdFile(t, data, args...)
		testutil.CheckTruncations(t, comp, func(r io.Reader) error {
			zr, err := zstd.NewReader(r)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, zr)
			return err
		}, testutil.TruncOptions{
			Boundary: func(n int) bool { return n == 0 || n == len(comp) },
			Offset: func(err error) (int64, bool) {
				var fe *zstd.FormatError
				if errors.As(err, &fe) {
					return fe.Offset, true
				}
				return 0, false
			},
			OneByte: true,
		})
	}
}

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, and a nil input is an error.
func TestNilArguments(t *testing.T) {
	testutil.CheckNilArgs(t, testutil.API{
		Funcs:    map[string]any{"NewReader": zstd.NewReader, "OpenSeekable": zstd.OpenSeekable, "NewEncoder": zstd.NewEncoder, "NewSeekableWriter": zstd.NewSeekableWriter},
		Types:    []any{new(zstd.FormatError), new(zstd.Frame), new(zstd.Reader), new(zstd.Seekable), new(zstd.Encoder), new(zstd.SeekableWriter)},
		AllowNil: []string{"FormatError.Unwrap"},
	})
}

func TestZeroValue(t *testing.T) {
	testutil.CheckZeroValue(t, new(zstd.Reader))
	testutil.CheckZeroValue(t, new(zstd.Seekable))
	testutil.CheckZeroValue(t, new(zstd.FormatError), "Unwrap")
	var zr zstd.Reader
	if _, err := zr.Read(make([]byte, 1)); err != zstd.ErrNotOpen {
		t.Errorf("zero Reader: %v", err)
	}
}

// TestReadAllocs checks that reading a stream again after Reset allocates
// nothing.
func TestReadAllocs(t *testing.T) {
	data := corpus(t)[0].data
	comp := zstdFile(t, data, "-19", "--check")
	var zr zstd.Reader
	br := bytes.NewReader(comp)
	buf := make([]byte, 32<<10)
	read := func() {
		br.Reset(comp)
		if err := zr.Reset(br); err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			k, err := zr.Read(buf)
			n += k
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if n != len(data) {
			t.Fatalf("read %d of %d bytes", n, len(data))
		}
	}
	read()
	if a := testing.AllocsPerRun(5, read); a != 0 {
		t.Errorf("%v allocations per stream", a)
	}
}
