package cbf

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/bitfield"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// The vectors of ../shared/fixtures/cbf/vectors.md (section B), plus
// Swift's own test of every instruction (test/Backtracing/
// CompactBacktraceFormat.swift) with its bytes worked out by hand from the
// encoder's rules, and boundary cases derived the same way.

// encodeVectors: frames (repeats written out as "xN") and the bytes Swift's
// encoder writes for them.
var encodeVectors = []struct {
	id     string
	word   WordSize
	frames string
	hex    string
}{
	{"E01", Word64, "", "02 00"},
	{"E02", Word32, "", "01 00"},
	{"E03", Word16, "", "00 00"},
	{"E04", Word16, "pc 0x1234", "00 11 12 34 00"},
	{"E05", Word16, "pc 0x8000", "00 11 80 00 00"},
	{"E06", Word16, "ra 0xffff", "00 20 ff 00"},
	{"E07", Word32, "ra 0xffffffff", "01 20 ff 00"},
	{"E08", Word32, "ra 0x80000000", "01 23 80 00 00 00 00"},
	{"E09", Word64, "pc 0x7f", "02 10 7f 00"},
	{"E10", Word64, "pc 0x80", "02 11 00 80 00"},
	{"E11", Word64, "pc 0xffffffffffffffff", "02 10 ff 00"},
	{"E12", Word64, "ra 0xffffffff81000000", "02 23 81 00 00 00 00"},
	{"E13", Word64, "ra 0x401379; ra 0x401247", "02 22 40 13 79 21 fe ce 00"},
	{"E14", Word64, "pc 0x7fff12345678; ra 0x10", "02 15 7f ff 12 34 56 78 28 10 00"},
	{"E15", Word32, "ra 0xfffffff0; ra 0x10", "01 20 f0 20 20 00"},
	{"E16", Word64, "pc 0x1000; omit 1; omit 31; omit 32", "02 11 10 00 40 5e 60 20 00"},
	{"E17", Word64, "pc 0x1000; omit 256; omit 1193046", "02 11 10 00 61 01 00 62 12 34 56 00"},
	{"E18", Word64, "ra 0x1000 x3", "02 21 10 00 81 00"},
	{"E19", Word64, "ra 0x1000 x10", "02 21 10 00 88 09 00"},
	{"E20", Word64, "pc 0x10; trunc", "02 10 10 01"},
	{"E21", Word64, "async 0x7fff00002000; async 0x7fff00002010", "02 35 7f ff 00 00 20 00 30 10 00"},
	{"E22", Word64, "ra 0x1000; pc 0x1000", "02 21 10 00 10 00 00"},
	{"E23", Word64, "ra 0x1000 x301", "02 21 10 00 89 01 2c 00"},
	// Swift's testAllInstructions frames; its test checks the decoded
	// frames (19 of them), the bytes follow from the encoder's rules.
	{"S01", Word64, "pc 0x1000; ra 0x1010; ra 0xf10; async 0x7fff00002000; omit 5; omit 1000; ra 0x2020 x2; pc 0x3030 x10; trunc",
		"02 11 10 00 20 10 21 ff 00 35 7f ff 00 00 10 f0 44 61 03 e8 29 20 20 80 11 10 10 88 09 01"},
	{"S02", Word64, "pc 0x9999", "02 12 00 99 99 00"},
	// Sign extension at the boundaries of each word size.
	{"X01", Word16, "pc 0xff80", "00 10 80 00"},
	{"X02", Word16, "pc 0xff7f", "00 11 ff 7f 00"},
	{"X03", Word16, "pc 0x7fff", "00 11 7f ff 00"},
	{"X04", Word16, "ra 0xfff0; ra 0x10", "00 20 f0 20 20 00"},
	{"X05", Word16, "ra 0x10; ra 0xfff0", "00 20 10 20 e0 00"},
	{"X06", Word32, "pc 0x7fffffff", "01 13 7f ff ff ff 00"},
	{"X07", Word32, "pc 0xffffff80", "01 10 80 00"},
	{"X08", Word32, "pc 0xffff7fff", "01 12 ff 7f ff 00"},
	{"X09", Word64, "pc 0x8000000000000000", "02 17 80 00 00 00 00 00 00 00 00"},
	{"X10", Word64, "pc 0x7fffffffffffffff", "02 17 7f ff ff ff ff ff ff ff 00"},
	{"X11", Word64, "pc 0xffffffffffffff80", "02 10 80 00"},
	{"X12", Word64, "pc 0xffffffffffff7fff", "02 12 ff 7f ff 00"},
	// Wrapping deltas: the delta is shorter than the address.
	{"X13", Word64, "ra 0xfffffffffffffff0; ra 0x10", "02 20 f0 20 20 00"},
	{"X14", Word32, "ra 0x7ffffff0; ra 0x80000010", "01 23 7f ff ff f0 20 20 00"},
	// Ties go relative; strictly shorter absolute goes absolute.
	{"X15", Word64, "ra 0x7f0000; ra 0x10", "02 22 7f 00 00 28 10 00"},
	{"X16", Word64, "ra 0x100; ra 0x80", "02 21 01 00 20 80 00"},
	// Omit forms: internal up to 31, then 1 to 8 count bytes.
	{"X17", Word16, "omit 31; omit 32; omit 255; omit 65535; omit 65536", "00 5e 60 20 60 ff 61 ff ff 62 01 00 00 00"},
	{"X18", Word64, "omit 9223372036854775807", "02 67 7f ff ff ff ff ff ff ff 00"},
	{"X19", Word64, "omit 5 x2", "02 44 80 00"},
	// Rep forms: internal 1-8, x=1 with 1 to 3 bytes.
	{"X20", Word64, "ra 0x1 x2", "02 20 01 80 00"},
	{"X21", Word64, "ra 0x1 x9", "02 20 01 87 00"},
	{"X22", Word64, "ra 0x1 x257", "02 20 01 89 01 00 00"},
	{"X23", Word32, "pc 0x1 x65537; trunc", "01 10 01 8a 01 00 00 01"},
	{"X24", Word64, "pc 0x1 x70000", "02 10 01 8a 01 11 6f 00"},
	{"X25", Word64, "pc 0x1 x2; ra 0x1 x2; pc 0x1", "02 10 01 80 20 00 80 10 00 00"},
}

// parseFrames reads "pc 0x1; ra 0x2 x3; omit 5" into frames, writing out
// "xN" repeats.
func parseFrames(t testing.TB, s string) []Frame {
	t.Helper()
	var out []Frame
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n := 1
		if i := strings.LastIndex(part, " x"); i > 0 {
			v, err := strconv.Atoi(part[i+2:])
			if err != nil {
				t.Fatal(err)
			}
			part, n = part[:i], v
		}
		f, err := ParseFrame(part)
		if err != nil {
			t.Fatal(err)
		}
		for range n {
			out = append(out, f)
		}
	}
	return out
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// openReader is NewReader for a non-nil r. A bad first info byte is left
// for Read to report, which returns the same error.
func openReader(r io.Reader) *Reader {
	z, err := NewReader(r)
	if err != nil && !errors.Is(err, ErrHeader) {
		panic(err)
	}
	return z
}

// openWriter is NewWriter for a non-nil w, which never fails.
func openWriter(w io.Writer) *Writer {
	z, err := NewWriter(w)
	if err != nil {
		panic(err)
	}
	return z
}

// readAll decodes every record of data with a Strict Reader, returning
// copies of their frames and the error that stopped the reader (nil at a
// clean end).
func readAll(data []byte, configure func(*Reader)) ([]Record, error) {
	r := openReader(bytes.NewReader(data))
	r.Strict = true
	if configure != nil {
		configure(r)
	}
	var recs []Record
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, *rec.Clone())
	}
}

func expand(r *Reader) { r.Expand = true }

func TestEncodeVectors(t *testing.T) {
	for _, v := range encodeVectors {
		t.Run(v.id, func(t *testing.T) {
			frames := parseFrames(t, v.frames)
			want := unhex(t, v.hex)
			got, err := Append(nil, v.word, frames)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Diff(t, "Append", hex.EncodeToString(want), hex.EncodeToString(got))

			// Through the Writer, record by record, frame by frame.
			var buf bytes.Buffer
			w := openWriter(&buf)
			if err := w.Write(&Record{Word: v.word, Frames: frames}); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			testutil.Diff(t, "Writer", hex.EncodeToString(want), hex.EncodeToString(buf.Bytes()))

			// Decoding with repeats expanded gives the frames back.
			recs, err := readAll(want, expand)
			if err != nil || len(recs) != 1 {
				t.Fatalf("decode: %d records, %v", len(recs), err)
			}
			if recs[0].Word != v.word {
				t.Errorf("word size %v, want %v", recs[0].Word, v.word)
			}
			testutil.Diff(t, "decoded frames", frames, nilIfEmpty(recs[0].Frames))

			// Kept repeats re-encode to the same bytes: Write(Read(x)) == x.
			recs, err = readAll(want, nil)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Append(nil, recs[0].Word, recs[0].Frames)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Diff(t, "re-encoded", hex.EncodeToString(want), hex.EncodeToString(again))
		})
	}
}

func nilIfEmpty(f []Frame) []Frame {
	if len(f) == 0 {
		return nil
	}
	return f
}

// decodeVectors: odd or malformed input (vectors.md B.3 and Swift's repeat
// limit test). want lists each record's frames as "|"-separated text with
// repeats kept; swift is what the default mode (Swift's decoder) yields for the
// first record, repeats expanded; err and off are the strict error.
var decodeVectors = []struct {
	id    string
	hex   string
	want  string // strict records, "|" between records
	err   error
	off   int64
	swift string
}{
	{"D01", "02 18 7f 00", "pc 0x7f", nil, 0, "pc 0x7f"},
	{"D02", "02 10 10", "", io.ErrUnexpectedEOF, 3, "pc 0x10; trunc"},
	{"D03", "02 10 10 02 10 20 00", "", ErrOpcode, 3, "pc 0x10; trunc"},
	{"D04", "02 90 00", "", ErrOpcode, 1, "trunc"},
	{"D05", "02 10 10 00 de ad", "pc 0x10", ErrVersion, 4, "pc 0x10"},
	{"D06", "03 10 10 00", "", ErrWordSize, 0, ""},
	{"D07", "06 10 10 00", "", ErrVersion, 0, ""},
	{"D08", "", "", nil, 0, ""},
	{"D09", "02", "", io.ErrUnexpectedEOF, 1, "trunc"},
	{"D10", "02 13 00 00", "", io.ErrUnexpectedEOF, 4, "trunc"},
	{"D11", "02 80 00", "", ErrNoFrame, 1, "trunc"},
	{"D12", "00 17 00 00 00 00 00 00 12 34 00", "", ErrOperand, 1, "pc 0x1234"},
	{"D13", "02 62 00 00 05 00", "omit 5", nil, 0, "omit 5"},
	{"D14", "02 60 00 00", "omit 0", nil, 0, "omit 0"},
	{"D15", "02 5f 00", "omit 32", nil, 0, "omit 32"},
	{"D16", "02 18 7f 8a 00 00 00 00", "", ErrCount, 3, "pc 0x7f; pc 0x7f"},
	{"D17", "02 11 10 00 61 03", "", io.ErrUnexpectedEOF, 6, "pc 0x1000; trunc"},
	{"D18", "02 18 7f 00 01 18 10 00", "pc 0x7f|pc 0x10", nil, 0, "pc 0x7f"},
	{"D19", "02 08 00", "", ErrOpcode, 1, "trunc"},
	// Swift's testRepeatLimit: one past the limit (no end byte either).
	{"L01", "02 18 7f 8a 10 00 02", "", ErrTooLarge, 3, "pc 0x7f; trunc"},
	// Counts that overflow Swift's Int; 9 count bytes with a non-zero top.
	{"L02", "02 18 7f 8f 80 00 00 00 00 00 00 00 00", "", ErrOverflow, 3, "pc 0x7f; pc 0x7f"},
	{"L03", "02 68 01 00 00 00 00 00 00 00 05 00", "", ErrOverflow, 1, "omit 5"},
	{"L04", "02 68 00 00 00 00 00 00 00 00 05 00", "omit 5", nil, 0, "omit 5"},
	{"L05", "02 ff", "", ErrOpcode, 1, "trunc"},
	{"L06", "01 13 00 00 00 01 17 00 00 00 00 00 00 00 02 00", "", ErrOperand, 6, "pc 0x1; pc 0x3"},
}

func TestDecodeVectors(t *testing.T) {
	for _, v := range decodeVectors {
		t.Run(v.id, func(t *testing.T) {
			data := unhex(t, v.hex)
			recs, err := readAll(data, nil)
			if !errors.Is(err, v.err) {
				t.Fatalf("error %v, want %v", err, v.err)
			}
			if v.err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Offset != v.off {
					t.Errorf("error %v, want offset %d", err, v.off)
				}
			}
			var want []string
			if v.want != "" {
				want = strings.Split(v.want, "|")
			}
			var got []string
			for _, rec := range recs {
				got = append(got, framesText(rec.Frames))
			}
			testutil.Diff(t, "records", want, got)

			// The default mode, first record, repeats expanded: Swift's result.
			r := openReader(bytes.NewReader(data))
			r.Expand = true
			rec, err := r.Read()
			var swift string
			if err == nil {
				swift = framesText(rec.Frames)
			}
			testutil.Diff(t, "Swift's frames (default mode)", v.swift, swift)
		})
	}
}

func framesText(frames []Frame) string {
	var s []string
	for _, f := range frames {
		s = append(s, f.String())
	}
	return strings.Join(s, "; ")
}

// Swift's testRepeatLimit at the limit: 1,048,577 copies after the frame.
func TestRepeatLimit(t *testing.T) {
	data := unhex(t, "02 18 7f 8a 10 00 01 00")
	recs, err := readAll(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "kept", "pc 0x7f; rep 1048577", framesText(recs[0].Frames))
	recs, err = readAll(data, expand)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(recs[0].Frames); n != 1048578 || recs[0].Truncated() {
		t.Errorf("%d frames, truncated %v; Swift yields 1048578, not truncated", n, recs[0].Truncated())
	}
	// A lower limit.
	_, err = readAll(data, func(r *Reader) { r.MaxRepeat = 1000 })
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxRepeat 1000: %v", err)
	}
	_, err = readAll(data, func(r *Reader) { r.Expand, r.MaxFrames = true, 1000 })
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxFrames 1000: %v", err)
	}
	// The writer splits longer runs into reps of MaxRepeatRun.
	frames := []Frame{{Kind: PC, Addr: 0x7f}, {Kind: Repeat, Count: MaxRepeatRun + 5}}
	got, err := Append(nil, Word64, frames)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "split run", "02107f8a10000084"+"00", hex.EncodeToString(got))
}

// signedLenRef is Swift's rule in the shared primitives' terms.
func signedLenRef(v uint64, w WordSize) int {
	return bitfield.SignedLen(bitfield.SignExtend(v, int(w)))
}
