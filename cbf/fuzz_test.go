package cbf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

func addSeeds(f *testing.F) {
	for _, v := range encodeVectors {
		f.Add(unhex(f, v.hex))
	}
	for _, v := range decodeVectors {
		f.Add(unhex(f, v.hex))
	}
}

// FuzzReader: no panic or hang in any mode; errors carry offsets within
// the input; whatever decodes re-encodes to bytes that decode to the same
// frames; the default mode ends a damaged record with Truncated.
func FuzzReader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mode := range []struct{ strict, expand bool }{{true, false}, {false, false}, {true, true}, {false, true}} {
			r := openReader(bytes.NewReader(data))
			r.Strict, r.Expand, r.MaxFrames, r.MaxRepeat = mode.strict, mode.expand, 1<<16, 1<<12
			// A second reader goes frame by frame, fed a byte at a time,
			// and must agree.
			fr := openReader(iotest.OneByteReader(bytes.NewReader(data)))
			fr.Strict, fr.Expand, fr.MaxRepeat = mode.strict, mode.expand, 1<<12
			for {
				rec, err := r.Read()
				if err == nil || err == io.EOF {
					ferr := framesAgree(fr, rec, err)
					if ferr != "" {
						t.Fatalf("strict %v expand %v: %s", mode.strict, mode.expand, ferr)
					}
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					var fe *FormatError
					if errors.As(err, &fe) && (fe.Offset < 0 || fe.Offset > int64(len(data))) {
						t.Fatalf("offset %d outside %d bytes", fe.Offset, len(data))
					}
					break
				}
				for i, fr := range rec.Frames {
					if fr.Kind == Truncated && i != len(rec.Frames)-1 {
						t.Fatal("Truncated before the last frame")
					}
					if fr.Kind.HasAddr() && fr.Addr > rec.Word.mask() {
						t.Fatalf("address %#x in %v", fr.Addr, rec.Word)
					}
				}
				enc, err := Append(nil, rec.Word, rec.Frames)
				if err != nil {
					// Only hand-made data the encoder cannot write: omit 0
					// or counts beyond Swift's Int in the default mode.
					if !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrCount) && !errors.Is(err, ErrOverflow) {
						t.Fatalf("re-encoding %v: %v", rec.Frames, err)
					}
					continue
				}
				back, err := openReader(bytes.NewReader(enc)).Read()
				if err != nil {
					t.Fatalf("re-decoding % x: %v", enc, err)
				}
				if !mode.expand {
					// Kept repeats may merge with equal frames around them.
					continue
				}
				// slices.Equal first: go-cmp on 65,536 addresses is slow
				// enough to hold the fuzzer up.
				if want, got := Addrs(nil, rec.Frames), Addrs(nil, back.Frames); !slices.Equal(want, got) {
					testutil.Diff(t, "re-decoded", want, got)
				}
			}
		}
	})
}

// FuzzImageMap: no panic, offsets within the input, and maps that decode
// re-encode to bytes that decode to the same map.
func FuzzImageMap(f *testing.F) {
	f.Add(unhex(f, "02 00 01 00 00 10 00 81 10"+hexOf("/libobjc.A.dylib")+"00"))
	f.Add(unhex(f, cif("test", 2, image2(false, 0x1000, 0x100, str("/swift/linux/x86_64/libfoo.so")+" 00"),
		image2(true, 0x100, 0x100, "a1 "+str("/libbar.so")+" 00"))))
	f.Add(unhex(f, cif("test", 1, image2(false, 0x1000, 0x100, "84 45 43 "+hexOf("AppKit")))))
	f.Add(unhex(f, cif("test", 1, image2(false, 0x1000, 0x100, "c0 00 00"))))
	f.Add(unhex(f, cif("ios", 1, image2(false, 0x1000, 0x100, "85 48 01 "+hexOf("IOSurface")))))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, strict := range []bool{true, false} {
			m, n, err := ImageMapDecoder{Strict: strict, MaxImages: 1 << 12}.Decode(data)
			if err != nil {
				var fe *FormatError
				if errors.As(err, &fe) && (fe.Offset < 0 || fe.Offset > int64(len(data))) {
					t.Fatalf("offset %d outside %d bytes", fe.Offset, len(data))
				}
				continue
			}
			if n > len(data) {
				t.Fatalf("took %d of %d bytes", n, len(data))
			}
			if strict {
				sorted := true
				for i := 1; i < len(m.Images); i++ {
					sorted = sorted && m.Images[i-1].Base <= m.Images[i].Base
				}
				for _, e := range []ImageMapEncoder{{}, {NoShallowFrameworks: true}} {
					enc, err := e.Append(nil, m)
					if err != nil {
						t.Fatalf("re-encoding: %v", err)
					}
					back, err := DecodeImageMap(enc)
					if err != nil {
						t.Fatalf("re-decoding: %v", err)
					}
					testutil.Diff(t, "re-decoded", m, back)
				}
				_ = sorted
			}
		}
	})
}

// FuzzRoundTrip turns the input into frames (9 bytes a frame: a kind and
// a value) and checks encode, decode, re-encode in every word size.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0x10, 0, 2, 0, 0, 0, 0, 0, 0, 0x10, 0, 2, 0, 0, 0, 0, 0, 0, 0x10, 0})
	f.Add(bytes.Repeat([]byte{4, 0, 0, 0, 0, 0, 0, 0, 40}, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, w := range []WordSize{Word16, Word32, Word64} {
			var fs []Frame
			for b := data; len(b) >= 9; b = b[9:] {
				v := binary.BigEndian.Uint64(b[1:9])
				switch k := Kind(b[0] % 6); k {
				case PC, RA, Async:
					fs = append(fs, Frame{Kind: k, Addr: v & w.mask()})
				case Omitted:
					fs = append(fs, Frame{Kind: k, Count: 1 + v>>2})
				case Repeat:
					if len(fs) > 0 {
						fs = append(fs, Frame{Kind: k, Count: 1 + v%1000})
					}
				default:
					fs = append(fs, fs...) // runs and repeated sequences
				}
				if len(fs) > 1000 {
					break
				}
			}
			enc, err := Append(nil, w, fs)
			if err != nil {
				t.Fatal(err)
			}
			// Writer.Write (twice, the second after buffered output) and
			// WriteFrame write the same bytes.
			var buf bytes.Buffer
			wr := openWriter(&buf)
			for range 2 {
				if err := wr.Write(&Record{Word: w, Frames: fs}); err != nil {
					t.Fatal(err)
				}
			}
			wr.Begin(w)
			for _, f := range fs {
				wr.WriteFrame(f)
			}
			if err := wr.End(); err != nil || wr.Flush() != nil {
				t.Fatal(err)
			}
			if want := bytes.Repeat(enc, 3); !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("Writer wrote % x, Append % x", buf.Bytes(), want)
			}
			rec, err := openReader(bytes.NewReader(enc)).Read()
			if err != nil {
				t.Fatalf("% x: %v", enc, err)
			}
			testutil.Diff(t, "addresses", Addrs(nil, fs), Addrs(nil, rec.Frames))
			again, err := Append(nil, w, rec.Frames)
			if err != nil || !bytes.Equal(again, enc) {
				t.Fatalf("re-encoded % x, first % x (%v)", again, enc, err)
			}
		}
	})
}

// framesAgree reads the next record from fr with Next and Frame and
// compares it with what Read returned.
func framesAgree(fr *Reader, rec *Record, err error) string {
	w, ferr := fr.Next()
	if err == io.EOF || ferr != nil {
		if ferr != err {
			return "Next: " + errString(ferr) + ", Read: " + errString(err)
		}
		return ""
	}
	if w != rec.Word {
		return "word sizes differ"
	}
	for i := 0; ; i++ {
		f, ferr := fr.Frame()
		if ferr == io.EOF {
			if i != len(rec.Frames) {
				return "Frame ended early"
			}
			return ""
		}
		if ferr != nil {
			return "Frame: " + ferr.Error()
		}
		if i >= len(rec.Frames) || f != rec.Frames[i] {
			return "frame " + f.String() + " differs"
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
