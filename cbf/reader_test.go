package cbf

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// randomFrames makes a frame list of the kinds Swift's encoder sees, with
// runs, omissions, near and far addresses and the boundaries of w.
func randomFrames(rng *rand.Rand, w WordSize) []Frame {
	mask := w.mask()
	var fs []Frame
	var last uint64
	for range rng.IntN(60) {
		var f Frame
		switch r := rng.IntN(20); {
		case r < 14:
			f.Kind = Kind(1 + rng.IntN(3))
			switch rng.IntN(6) {
			case 0:
				f.Addr = rng.Uint64()
			case 1:
				f.Addr = []uint64{0, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 1 << 63, ^uint64(0)}[rng.IntN(11)]
			case 2:
				f.Addr = last - uint64(rng.IntN(1<<12))
			default:
				f.Addr = last + uint64(rng.IntN(1<<16))
			}
			f.Addr &= mask
			last = f.Addr
		case r < 16:
			f = Frame{Kind: Omitted, Count: 1 + uint64(rng.IntN(40))}
			if rng.IntN(3) == 0 {
				f.Count = 1 + rng.Uint64N(1<<63-1)
			}
		default:
			if len(fs) == 0 {
				continue
			}
			n := 1 + rng.IntN(3)
			if rng.IntN(4) == 0 {
				n = 9 + rng.IntN(300)
			}
			for range n {
				fs = append(fs, fs[len(fs)-1])
			}
			continue
		}
		fs = append(fs, f)
	}
	if rng.IntN(4) == 0 {
		fs = append(fs, Frame{Kind: Truncated})
	}
	return fs
}

// Property: random frame lists encode, decode back (repeats expanded) and
// re-encode (repeats kept) to the same bytes, in every word size, one
// record after another on one stream.
func TestRoundTripProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, w := range []WordSize{Word16, Word32, Word64} {
		var stream bytes.Buffer
		var want [][]Frame
		wr := openWriter(&stream)
		for range 300 {
			fs := randomFrames(rng, w)
			want = append(want, fs)
			if err := wr.Write(&Record{Word: w, Frames: fs}); err != nil {
				t.Fatal(err)
			}
		}
		if err := wr.Flush(); err != nil {
			t.Fatal(err)
		}
		data := stream.Bytes()
		recs, err := readAll(data, expand)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != len(want) {
			t.Fatalf("%v: %d records, want %d", w, len(recs), len(want))
		}
		var again []byte
		for i, rec := range recs {
			testutil.Diff(t, "frames", want[i], nilIfEmpty(rec.Frames))
		}
		kept, err := readAll(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range kept {
			if again, err = Append(again, rec.Word, rec.Frames); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(again, data) {
			t.Errorf("%v: re-encoded stream differs", w)
		}
	}
}

// The fast operand length agrees with bitfield.SignedLen.
func TestSignedLen(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, w := range []WordSize{Word16, Word32, Word64} {
		signedLen := map[WordSize]func(uint64) int{
			Word16: signedBytes[uint16], Word32: signedBytes[uint32], Word64: signedBytes[uint64]}[w]
		for i := range 100000 {
			v := rng.Uint64() >> uint(rng.IntN(64))
			if i%2 == 0 {
				v = ^v
			}
			v &= w.mask()
			want := signedLenRef(v, w)
			if got := signedLen(v); got != want {
				t.Fatalf("%v: signedLen(%#x) = %d, want %d", w, v, got, want)
			}
		}
	}
}

func TestStreamAPI(t *testing.T) {
	data := unhex(t, "02 22 40 13 79 21 fe ce 00 02 21 10 00 88 09 00 01 10 10 01")
	r := openReader(iotest.OneByteReader(bytes.NewReader(data)))
	r.Strict = true
	// Frame before Next: io.EOF.
	if _, err := r.Frame(); err != io.EOF {
		t.Fatalf("Frame before Next: %v", err)
	}
	w, err := r.Next()
	if err != nil || w != Word64 {
		t.Fatal(w, err)
	}
	f, err := r.Frame()
	if err != nil || f != (Frame{Kind: RA, Addr: 0x401379}) {
		t.Fatal(f, err)
	}
	// Next skips the rest of the record.
	if w, err = r.Next(); err != nil || w != Word64 {
		t.Fatal(w, err)
	}
	var got []string
	for {
		f, err := r.Frame()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, f.String())
	}
	testutil.Diff(t, "record 2", []string{"ra 0x1000", "rep 9"}, got)
	rec, err := r.Read()
	if err != nil || rec.Word != Word32 || rec.Offset != 16 || !rec.Truncated() {
		t.Fatalf("%+v %v", rec, err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("after the last record: %v", err)
	}
	// All, and Reset reuses the reader (and keeps Strict).
	if err := r.Reset(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		n += len(rec.Frames)
	}
	if n != 6 {
		t.Errorf("All: %d frames", n)
	}
	// Errors are sticky.
	r.Reset(bytes.NewReader(unhex(t, "02 90 00 02 00")))
	for range 3 {
		if _, err := r.Read(); !errors.Is(err, ErrOpcode) {
			t.Fatalf("sticky: %v", err)
		}
	}
	// A failing source is reported as itself.
	boom := errors.New("boom")
	r.Reset(io.MultiReader(bytes.NewReader([]byte{2, 0x11}), iotest.ErrReader(boom)))
	if _, err := r.Read(); err != boom {
		t.Errorf("read error: %v", err)
	}
}

func TestAllocs(t *testing.T) {
	data, _, _ := corpus(t, 1<<16)
	r := new(Reader)
	br := bytes.NewReader(data)
	for _, mode := range []struct {
		name  string
		drain func(*Reader) error
	}{{"Read", drainRead}, {"Frame", drainFrames}} {
		run := func() {
			br.Reset(data)
			r.Reset(br)
			if err := mode.drain(r); err != nil {
				t.Fatal(err)
			}
		}
		run()
		if n := testing.AllocsPerRun(20, run); n != 0 {
			t.Errorf("%s: %v allocs per stream", mode.name, n)
		}
	}
	w := openWriter(io.Discard)
	pcs := realStacks()
	rec := &Record{Word: Word64, Frames: FromUintptrs(nil, RA, pcs[0])}
	if n := testing.AllocsPerRun(100, func() { w.Write(rec); w.Flush() }); n != 0 {
		t.Errorf("Writer: %v allocs per record", n)
	}
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { AppendUintptrs(buf[:0], pcs[0]) }); n != 0 {
		t.Errorf("AppendUintptrs: %v allocs per record", n)
	}
}

func TestWriterRefuses(t *testing.T) {
	for _, c := range []struct {
		word   WordSize
		frames []Frame
		err    error
	}{
		{24, nil, ErrWordSize},
		{Word64, []Frame{{Kind: Omitted}}, ErrCount},
		{Word64, []Frame{{Kind: Omitted, Count: 1 << 63}}, ErrOverflow},
		{Word64, []Frame{{Kind: Repeat, Count: 1}}, ErrNoFrame},
		{Word64, []Frame{{Kind: PC}, {Kind: Repeat}}, ErrCount},
		{Word64, []Frame{{Kind: PC}, {Kind: Repeat, Count: 1 << 63}}, ErrOverflow},
		{Word32, []Frame{{Kind: RA, Addr: 1 << 32}}, errAddr},
		{Word16, []Frame{{Kind: Async, Addr: 0x10000}}, errAddr},
		{Word64, []Frame{{Kind: 0}}, errKind},
		{Word64, []Frame{{Kind: 9}}, errKind},
		{Word64, []Frame{{Kind: Truncated}, {Kind: PC}}, errOrder},
	} {
		_, err := Append(nil, c.word, c.frames)
		if !errors.Is(err, ErrInvalid) || !errors.Is(err, c.err) {
			t.Errorf("%v %v: %v, want ErrInvalid and %v", c.word, c.frames, err, c.err)
		}
		// The Writer refuses the same, and the error sticks.
		w := openWriter(io.Discard)
		if err := w.Write(&Record{Word: c.word, Frames: c.frames}); !errors.Is(err, ErrInvalid) || !errors.Is(err, c.err) {
			t.Errorf("Writer %v %v: %v, want ErrInvalid and %v", c.word, c.frames, err, c.err)
		}
		if err2 := w.Flush(); err2 != err {
			t.Errorf("Writer %v %v: not sticky: %v", c.word, c.frames, err2)
		}
	}
	w := openWriter(io.Discard)
	if err := w.WriteFrame(Frame{Kind: PC}); !errors.Is(err, errState) {
		t.Errorf("frame before Begin: %v", err)
	}
	if err := w.Begin(Word64); !errors.Is(err, errState) {
		t.Errorf("sticky: %v", err)
	}
	// Frame by frame equals Append; End after trunc writes nothing.
	var buf bytes.Buffer
	w = openWriter(&buf)
	fs := parseFrames(t, "pc 0x1 x3; omit 40; trunc")
	w.Begin(Word16)
	for _, f := range fs {
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want, _ := Append(nil, Word16, fs)
	testutil.Diff(t, "frame by frame", want, buf.Bytes())
	if err := w.End(); !errors.Is(err, errState) || !errors.Is(err, ErrInvalid) {
		t.Errorf("End with no record: %v", err)
	}
}

func TestTruncations(t *testing.T) {
	var data []byte
	var bounds = map[int]bool{0: true}
	for _, v := range encodeVectors {
		data = append(data, unhex(t, v.hex)...)
		bounds[len(data)] = true
	}
	offset := func(err error) (int64, bool) {
		var fe *FormatError
		if errors.As(err, &fe) {
			return fe.Offset, true
		}
		return 0, false
	}
	testutil.CheckTruncations(t, data, func(r io.Reader) error {
		z := openReader(r)
		z.Strict = true
		for {
			if _, err := z.Read(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}, testutil.TruncOptions{Boundary: func(n int) bool { return bounds[n] }, Offset: offset, OneByte: true})
	// The default mode: a cut record reads as a truncated one, and the
	// next Read reports the cut.
	testutil.CheckTruncations(t, data, func(r io.Reader) error {
		z := openReader(r)
		for {
			if _, err := z.Read(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}, testutil.TruncOptions{Boundary: func(n int) bool { return bounds[n] }, Offset: offset, OneByte: true})

	m := ImageMap{Platform: "macosx", Word: Word64}
	for i, p := range []string{"/usr/lib/libobjc.A.dylib", "/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit", "", "/usr/lib/swift/libswiftCore.dylib"} {
		m.Images = append(m.Images, Image{Base: uint64(i+1) << 20, EndOfText: uint64(i+1)<<20 + 0x100, BuildID: []byte{byte(i)}, Path: p})
	}
	cif, err := AppendImageMap(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckTruncations(t, cif, func(r io.Reader) error {
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		_, _, err = ImageMapDecoder{Strict: true}.Decode(b)
		return err
	}, testutil.TruncOptions{Boundary: func(n int) bool { return n == len(cif) }, Offset: offset})
}

// By default (Swift's decoder) a damaged record ends with a Truncated
// frame, and the stream stops after it with the error that damaged it,
// io.ErrUnexpectedEOF when the data ran out, at the offset Strict reports.
func TestSwiftModeNext(t *testing.T) {
	for _, c := range []struct {
		hex string
		err error
		off int64
	}{
		{"02 10 10 02 10 20 00", ErrOpcode, 3},
		{"02 10 10", io.ErrUnexpectedEOF, 3},
		{"02 11 10 00 61 03", io.ErrUnexpectedEOF, 6},
		{"02 80 00 02 00", ErrNoFrame, 1},
	} {
		r := openReader(bytes.NewReader(unhex(t, c.hex)))
		rec, err := r.Read()
		if err != nil || !rec.Truncated() {
			t.Errorf("%s: %v %v", c.hex, rec, err)
		}
		_, err = r.Next()
		var fe *FormatError
		if !errors.Is(err, c.err) || !errors.As(err, &fe) || fe.Offset != c.off {
			t.Errorf("%s: Next after the damaged record: %v, want %v at %d", c.hex, err, c.err, c.off)
		}
		if _, err2 := r.Read(); err2 != err {
			t.Errorf("%s: not sticky: %v", c.hex, err2)
		}
	}
}

func TestText(t *testing.T) {
	for _, s := range []string{"pc 0x1", "ra 0xffffffffffffffff", "async 0x7f", "omit 5", "rep 9", "trunc"} {
		f, err := ParseFrame(s)
		if err != nil || f.String() != s {
			t.Errorf("%q: %v %v", s, f, err)
		}
	}
	if f, err := ParseFrame("  pc 1234 "); err != nil || f.Addr != 0x1234 {
		t.Errorf("bare hex: %v %v", f, err)
	}
	for _, bad := range []string{"", "pc", "pc 0xg", "omit x", "trunc 1", "end", "Kind(7)"} {
		if _, err := ParseFrame(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if Kind(7).String() != "Kind(7)" || (Frame{Kind: 9}).String() != "Kind(9)" {
		t.Error("unknown kind names")
	}
	if WordSize(32).String() != "32-bit" {
		t.Error("word size name")
	}
	var buf bytes.Buffer
	w := openWriter(io.Discard)
	if err := w.Reset(&buf); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Record{Word: Word32, Frames: FromAddrs(nil, PC, []uint64{1, 2})}); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "reset writer", []byte{1, 0x10, 1, 0x10, 1, 0}, buf.Bytes())
}

// TestNotCBF checks that NewReader refuses a stream whose first byte is no
// info byte Swift writes, Strict or not, with ErrHeader (and the reason)
// in a *FormatError at offset 0, and that Read returns the same error.
// Only 00, 01 and 02 start CBF data, so every foreign input is refused.
func TestNotCBF(t *testing.T) {
	inputs := testutil.Foreign(t)
	for b := range 256 {
		inputs = append(inputs, testutil.Input{Name: "info byte", Data: []byte{byte(b), 0x00}})
	}
	for _, in := range inputs {
		if in.Name == "sample two-backtraces.cbf" {
			continue
		}
		for _, strict := range []bool{false, true} {
			z := &Reader{Strict: strict}
			err := z.Reset(bytes.NewReader(in.Data))
			var fe *FormatError
			if in.Data[0] <= 2 {
				if err != nil {
					t.Errorf("%s % x: %v", in.Name, in.Data[:1], err)
				}
				continue
			}
			if !errors.Is(err, ErrHeader) || !errors.As(err, &fe) || fe.Offset != 0 ||
				!errors.Is(err, ErrVersion) && !errors.Is(err, ErrWordSize) {
				t.Errorf("%s % x: %v, want ErrHeader and its reason in a *FormatError at offset 0", in.Name, in.Data[:1], err)
			}
			if _, rerr := z.Read(); rerr != err {
				t.Errorf("%s: Read = %v, want %v", in.Name, rerr, err)
			}
		}
	}
	if _, err := NewReader(bytes.NewReader(nil)); err != nil {
		t.Errorf("no data: %v; it is a stream of no records", err)
	}
}
