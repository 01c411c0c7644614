package cbf

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// Zero values of every exported type with methods never panic, and the
// Reader's and Writer's methods report ErrNotOpen.
func TestZeroValues(t *testing.T) {
	testutil.CheckZeroValue(t, new(Reader))
	testutil.CheckZeroValue(t, new(Writer))
	testutil.CheckZeroValue(t, new(Record))
	testutil.CheckZeroValue(t, new(Frame))
	testutil.CheckZeroValue(t, new(Kind))
	testutil.CheckZeroValue(t, new(WordSize))
	testutil.CheckZeroValue(t, new(ImageMapDecoder))
	testutil.CheckZeroValue(t, new(ImageMap))
	testutil.CheckZeroValue(t, new(Image))
	// A zero FormatError wraps nothing.
	testutil.CheckZeroValue(t, new(FormatError), "Unwrap")
	// A zero Backtrace is an empty one with no image map: it marshals, and
	// Images rightly returns nil, nil.
	testutil.CheckZeroValue(t, new(Backtrace), "MarshalJSON", "Images")

	var r Reader
	if _, err := r.Read(); err != ErrNotOpen {
		t.Errorf("zero Reader.Read: %v", err)
	}
	if _, err := r.Frame(); err != ErrNotOpen {
		t.Errorf("zero Reader.Frame: %v", err)
	}
	if _, err := NewReader(nil); err != ErrNotOpen {
		t.Errorf("NewReader(nil): %v", err)
	}
	var w Writer
	for name, err := range map[string]error{
		"Write": w.Write(&Record{Word: Word64}), "Begin": w.Begin(Word64), "Flush": w.Flush(), "Close": w.Close(),
	} {
		if err != ErrNotOpen {
			t.Errorf("zero Writer.%s: %v", name, err)
		}
	}
	if _, err := NewWriter(nil); err != ErrNotOpen {
		t.Errorf("NewWriter(nil): %v", err)
	}
	// Usable after Reset, not open again after Reset(nil).
	var buf bytes.Buffer
	if err := w.Reset(&buf); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Record{Word: Word16}); err != nil || w.Flush() != nil || buf.String() != "\x00\x00" {
		t.Errorf("Writer after Reset: %v % x", err, buf.Bytes())
	}
	if err := w.Reset(nil); err != ErrNotOpen {
		t.Errorf("Writer.Reset(nil): %v", err)
	}
	if err := w.Write(&Record{Word: Word16}); err != ErrNotOpen {
		t.Errorf("Write after Reset(nil): %v", err)
	}
	if err := r.Reset(bytes.NewReader([]byte{0, 0})); err != nil {
		t.Fatal(err)
	}
	if rec, err := r.Read(); err != nil || rec.Word != Word16 {
		t.Errorf("Reader after Reset: %v %v", rec, err)
	}
	if err := r.Reset(nil); err != ErrNotOpen {
		t.Errorf("Reader.Reset(nil): %v", err)
	}
	if _, err := r.Read(); err != ErrNotOpen {
		t.Errorf("Read after Reset(nil): %v", err)
	}
}

func TestFormatErrorText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&FormatError{3, ErrOpcode}, "cbf: offset 3: reserved instruction"},
		{&FormatError{9, io.ErrUnexpectedEOF}, "cbf: offset 9: unexpected EOF"},
		{&FormatError{}, "cbf: offset 0: invalid data"},
		{invalidAddr, "cbf: invalid record: address does not fit the word size"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

func TestWriterClose(t *testing.T) {
	var buf bytes.Buffer
	w := openWriter(&buf)
	// Close ends a record left open.
	if err := w.Begin(Word64); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFrame(Frame{Kind: PC, Addr: 0x10}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "closed", []byte{0x02, 0x10, 0x10, 0x00}, buf.Bytes())
	for name, err := range map[string]error{
		"Write": w.Write(&Record{Word: Word64}), "Begin": w.Begin(Word64), "WriteFrame": w.WriteFrame(Frame{Kind: PC}),
		"End": w.End(), "Flush": w.Flush(),
	} {
		if err != ErrClosed {
			t.Errorf("%s after Close: %v", name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// Reset opens it again.
	buf.Reset()
	if err := w.Reset(&buf); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Record{Word: Word32}); err != nil || w.Close() != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "after Reset", []byte{0x01, 0x00}, buf.Bytes())
	if err := openWriter(&buf).Write(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Write(nil): %v", err)
	}
}

// expandRef is what a Reader with Expand yields for frames a Writer was
// given: each Repeat written out as copies of the frame before it.
func expandRef(frames []Frame) []Frame {
	var out []Frame
	var prev Frame
	for _, f := range frames {
		if f.Kind == Repeat {
			for range f.Count {
				out = append(out, prev)
			}
			continue
		}
		out = append(out, f.norm())
		prev = f.norm()
	}
	return out
}

// Writers never lie: records read with repeats kept, then edited the way
// a filter edits them (frames dropped, duplicated, Repeat counts changed,
// frames inserted), write bytes that read back as exactly the edited
// frames, or are refused with ErrInvalid.
func TestWriterKeepsDerivedFields(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, w := range []WordSize{Word16, Word32, Word64} {
		for i := range 2000 {
			src, err := Append(nil, w, randomFrames(rng, w))
			if err != nil {
				t.Fatal(err)
			}
			r := openReader(bytes.NewReader(src))
			r.Strict = true
			rec, err := r.Read()
			if err != nil {
				t.Fatal(err)
			}
			var edited []Frame
			for _, f := range rec.Frames {
				switch rng.IntN(8) {
				case 0: // drop
					continue
				case 1: // twice
					edited = append(edited, f)
				case 2:
					if f.Kind == Repeat {
						f.Count = 1 + rng.Uint64N(20)
					}
				case 3: // an extra repeat of whatever came before
					if f.Kind != Truncated {
						edited = append(edited, Frame{Kind: Repeat, Count: 1 + rng.Uint64N(3)})
					}
				}
				edited = append(edited, f)
			}
			if n := len(edited); n > 1 && edited[n-2].Kind == Truncated {
				edited = edited[:n-1] // a duplicated trunc
			}
			rec.Frames = edited
			var out bytes.Buffer
			wr := openWriter(&out)
			err = wr.Write(rec)
			if err == nil {
				err = wr.Close()
			}
			if err != nil {
				// Only a Repeat with nothing before it is refused here.
				if !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrNoFrame) || edited[0].Kind != Repeat {
					t.Fatalf("%v %d: %v: %v", w, i, edited, err)
				}
				continue
			}
			back := openReader(&out)
			back.Strict, back.Expand, back.MaxFrames = true, true, 1<<24
			got, err := back.Read()
			if err != nil {
				t.Fatalf("%v %d: % x: %v", w, i, out.Bytes(), err)
			}
			testutil.Diff(t, "frames read back", expandRef(edited), nilIfEmpty(got.Frames))
			if _, err := back.Read(); err != io.EOF {
				t.Fatalf("%v %d: after the record: %v", w, i, err)
			}
		}
	}
}

// A framework path whose version is the byte 1 is written as a plain
// path: in the framework form newer Swift would read it as a shallow
// bundle.
func TestImageMapFrameworkVersion1(t *testing.T) {
	for _, v := range []string{"A", "\x01"} {
		m := ImageMap{Platform: "macosx", Word: Word64, Images: []Image{
			{Base: 0x1000, EndOfText: 0x2000, Path: "/System/Library/Frameworks/X.framework/Versions/" + v + "/X"},
		}}
		enc, err := AppendImageMap(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := ImageMapDecoder{Strict: true}.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		testutil.Diff(t, "version "+v, m, back)
	}
}

// Image map writers never lie either: random paths made of the pieces
// the path encoder treats specially (fixed prefixes, separators, the
// framework form and its version byte, long runs) decode back as written.
func TestImageMapPathsProperty(t *testing.T) {
	pieces := []string{"/", "/", `\`, "lib", "usr", "a", "b", "z.1.dylib", ".framework/Versions/", "A", "\x01",
		"/System/Library/Frameworks", "/usr/lib", "/lib", `C:\Program Files`, "AppKit", "/AppKit", strings.Repeat("x", 70)}
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 3000 {
		m := ImageMap{Platform: "test", Word: Word64}
		for j := range 1 + rng.IntN(6) {
			var p strings.Builder
			for range rng.IntN(8) {
				p.WriteString(pieces[rng.IntN(len(pieces))])
			}
			path := p.String()
			if rng.IntN(4) == 0 {
				// /<name>.framework/Versions/<v>/<name> or the shallow
				// /<name>.framework/<name>, as the encoder's framework
				// form wants them.
				name := []string{"AppKit", "a", "X"}[rng.IntN(3)]
				v := []string{"A", "C", "\x01", "1", ""}[rng.IntN(5)]
				if v == "" {
					path += "/" + name + ".framework/" + name
				} else {
					path += "/" + name + ".framework/Versions/" + v + "/" + name
				}
			}
			base := uint64(j+1) << 20
			m.Images = append(m.Images, Image{Base: base, EndOfText: base + 0x1000, Path: path})
		}
		enc, err := ImageMapEncoder{NoShallowFrameworks: i%2 == 1}.Append(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := ImageMapDecoder{Strict: true}.Decode(enc)
		if err != nil {
			t.Fatalf("%d: %q: %v", i, m.Images, err)
		}
		testutil.Diff(t, "paths", m, back)
		if t.Failed() {
			t.Fatalf("%d: % x", i, enc)
		}
	}
}

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, those given a nil pointer or interface
// return an error, and Clone of a nil Record is nil.
func TestNilArguments(t *testing.T) {
	r, err := NewReader(bytes.NewReader([]byte{0x02, 0x18, 0x7f, 0x00}))
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{
			"Addrs": Addrs, "Append": Append, "AppendAddrs": AppendAddrs,
			"AppendImageMap": AppendImageMap, "AppendUintptrs": AppendUintptrs,
			"DecodeImageMap": DecodeImageMap, "FromAddrs": FromAddrs,
			"FromUintptrs": FromUintptrs, "NewReader": NewReader, "NewWriter": NewWriter,
			"ParseFrame": ParseFrame, "Uintptrs": Uintptrs,
		},
		Types: []any{
			new(Backtrace), new(FormatError), new(Frame), new(Image), new(ImageMap),
			new(ImageMapDecoder), new(ImageMapEncoder), new(Kind), new(Reader), new(Record), new(WordSize), new(Writer),
			new(Profile),
		},
		Open:     []any{r, w},
		AllowNil: []string{"FormatError.Unwrap", "Backtrace.MarshalJSON", "Backtrace.Images"},
	})
	if (*Record)(nil).Clone() != nil {
		t.Error("Clone of a nil *Record is not nil")
	}
}
