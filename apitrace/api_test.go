package apitrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestZeroValues calls every exported method of every exported type's zero
// value: none panics, and those that return an error return one.
func TestZeroValues(t *testing.T) {
	testutil.CheckZeroValue(t, new(Reader))
	testutil.CheckZeroValue(t, new(CallReader))
	testutil.CheckZeroValue(t, new(Writer))
	testutil.CheckZeroValue(t, new(CallWriter))
	testutil.CheckZeroValue(t, new(Dumper))
	testutil.CheckZeroValue(t, new(Event))
	testutil.CheckZeroValue(t, new(Call))
	testutil.CheckZeroValue(t, new(Value))
	testutil.CheckZeroValue(t, new(FunctionSig))
	testutil.CheckZeroValue(t, new(Info))
	// Merging an empty set is no error; Unwrap of a zero FormatError has
	// nothing to unwrap.
	testutil.CheckZeroValue(t, new(CallSet), "Merge")
	testutil.CheckZeroValue(t, new(FormatError), "Unwrap")
	testutil.CheckZeroValue(t, new(Container))
	testutil.CheckZeroValue(t, new(Kind))
	testutil.CheckZeroValue(t, new(ValueKind))

	var r Reader
	if _, err := r.Read(); err != ErrNotOpen {
		t.Errorf("zero Reader: Read = %v, want ErrNotOpen", err)
	}
	var w Writer
	if err := w.Write(&Event{}); err != ErrNotOpen {
		t.Errorf("zero Writer: Write = %v, want ErrNotOpen", err)
	}
}

// TestWriterClosed checks the states of a Writer around Close.
func TestWriterClosed(t *testing.T) {
	w, err := NewWriter(io.Discard, Header{Version: 6})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	sig := &FunctionSig{Name: "f"}
	if err := w.Write(&Event{Kind: Enter, Sig: sig}); err != ErrClosed {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
	if err := w.Flush(); err != ErrClosed {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	// Reset makes it usable again.
	var buf bytes.Buffer
	if err := w.Reset(&buf, Header{Version: 6}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Event{Kind: Enter, Sig: sig}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cr, err := NewCallReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := cr.Read(); err != nil || c.Name() != "f" || !c.Incomplete {
		t.Fatalf("read back %+v, %v", c, err)
	}
}

// TestFormatErrorPrefix checks that an error prints the package name once.
func TestFormatErrorPrefix(t *testing.T) {
	data := container([]byte{6, 6, 0, 7}) // event byte 7
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Read()
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrBadEvent) {
		t.Fatalf("error %v", err)
	}
	if msg := err.Error(); strings.Count(msg, "apitrace") != 1 || !strings.HasPrefix(msg, "apitrace: offset 3") {
		t.Errorf("message %q", msg)
	}
	for _, e := range []error{ErrHeader, ErrContainer, ErrVersion, ErrBadEvent, ErrBadDetail, ErrBadValue, ErrTooLarge,
		ErrOverflow, ErrNonMinimal, ErrCorrupt, ErrInvalid, ErrClosed, ErrNotOpen, ErrSeek, ErrDumpOption} {
		if !strings.HasPrefix(e.Error(), "apitrace: ") {
			t.Errorf("sentinel %q lacks the package name", e)
		}
	}
}

// callTexts returns the text of every call of a trace, without its
// number, as the Dumper prints it, and the numbers.
func callTexts(t *testing.T, data []byte) (texts []string, nos []uint64, incomplete int) {
	t.Helper()
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDumper(io.Discard, DumpOptions{NoCallNos: true})
	for c, err := range cr.All() {
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatal(err)
		}
		if err != nil {
			break
		}
		texts = append(texts, string(d.AppendCall(nil, c)))
		nos = append(nos, c.No)
		if c.Incomplete {
			incomplete++
		}
	}
	return texts, nos, incomplete
}

// keepCall is the filter the writer tests apply: drop every glXQuery* and
// every third call.
func keepCall(no uint64, name string) bool {
	return !strings.HasPrefix(name, "glXQuery") && no%3 != 1
}

// TestWriterDropsCalls drops enter events with the event Writer, leaving
// their leave events in: the copy holds exactly the calls kept, numbered
// densely, none incomplete that was not.
func TestWriterDropsCalls(t *testing.T) {
	for _, name := range []string{"glxsimple.trace", "threads.trace", "glxinfo-brief-backtrace.trace", "incomplete-call.trace", "tri.trace"} {
		t.Run(name, func(t *testing.T) {
			data := testutil.ReadFile(t, filepath.Join("testdata", name))
			texts, nos, _ := callTexts(t, data)
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			w, err := NewWriter(&buf, r.Header())
			if err != nil {
				t.Fatal(err)
			}
			for ev, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				if ev.Kind == Enter && !keepCall(ev.Call, ev.Sig.Name) {
					continue
				}
				if err := w.Write(ev); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			var want []string
			for i, text := range texts {
				if keepCall(nos[i], callName(text)) {
					want = append(want, text)
				}
			}
			got, gotNos, _ := callTexts(t, buf.Bytes())
			testutil.Diff(t, name, strings.Join(want, ""), strings.Join(got, ""))
			checkDense(t, gotNos)
		})
	}
}

// callName returns the function name of a call's text.
func callName(text string) string {
	name, _, _ := strings.Cut(text, "(")
	return name
}

// checkDense checks that the calls of a copy are numbered 0 to n-1.
func checkDense(t *testing.T, nos []uint64) {
	t.Helper()
	seen := make(map[uint64]bool)
	for _, no := range nos {
		if no >= uint64(len(nos)) || seen[no] {
			t.Fatalf("call numbers %v are not 0 to %d", nos, len(nos)-1)
		}
		seen[no] = true
	}
}

// TestCallWriter keeps some calls of each trace with the CallWriter: the
// copy holds exactly those calls, in the same order, numbered 0, 1, 2...
func TestCallWriter(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.trace"))
	for _, path := range names {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data := testutil.ReadFile(t, path)
			texts, _, incomplete := callTexts(t, data)
			cr, err := NewCallReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			w, err := NewCallWriter(&buf, cr.Header())
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			wantIncomplete := 0
			k := 0
			for c, err := range cr.All() {
				if err != nil {
					break // a cut trace: what was read is written
				}
				if !keepCall(c.No, c.Name()) {
					k++
					continue
				}
				if err := w.Write(c); err != nil {
					t.Fatal(err)
				}
				want = append(want, texts[k])
				if c.Incomplete {
					wantIncomplete++
				}
				k++
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if k != len(texts) || w.Calls() != uint64(len(want)) {
				t.Fatalf("read %d of %d calls, wrote %d of %d", k, len(texts), w.Calls(), len(want))
			}
			got, gotNos, gotIncomplete := callTexts(t, buf.Bytes())
			testutil.Diff(t, name, strings.Join(want, ""), strings.Join(got, ""))
			for i, no := range gotNos {
				if no != uint64(i) {
					t.Fatalf("call %d of the copy is numbered %d", i, no)
				}
			}
			if gotIncomplete != wantIncomplete || incomplete < wantIncomplete {
				t.Errorf("%d incomplete calls, want %d", gotIncomplete, wantIncomplete)
			}
		})
	}
}

// TestWriterSignatures checks that a signature id names one signature in
// the written stream: signatures that differ under the same id (from two
// traces, or built by hand) are given ids of their own.
func TestWriterSignatures(t *testing.T) {
	f1 := &FunctionSig{ID: 7, Name: "glFlush", ArgNames: []string{"e"}}
	f1again := &FunctionSig{ID: 7, Name: "glFlush", ArgNames: []string{"e"}}
	f2 := &FunctionSig{ID: 7, Name: "glFinish", ArgNames: []string{"x"}}
	f3 := &FunctionSig{ID: 8, Name: "glBar", ArgNames: []string{"e"}}
	e1 := &EnumSig{ID: 1, Values: []EnumValue{{"A", 1}}}
	e2 := &EnumSig{ID: 1, Values: []EnumValue{{"B", 1}}}
	fr1 := &Frame{ID: 3, Has: HasFunction, Function: "main"}
	fr2 := &Frame{ID: 3, Has: HasFunction, Function: "other"}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		sig   *FunctionSig
		enum  *EnumSig
		frame *Frame
	}{{f1, e1, fr1}, {f1again, e2, fr2}, {f2, e2, fr1}, {f3, e1, fr2}, {f2, e1, fr1}}
	for i, c := range calls {
		arg := Arg{0, Enum(c.enum, 1)}
		if err := w.Write(&Event{Kind: Enter, Call: uint64(i), Sig: c.sig, Args: []Arg{arg}, Backtrace: []*Frame{c.frame}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Event{Kind: Leave, Call: uint64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cr, err := NewCallReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for c, err := range cr.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s%v %d %s %d %s", c.Sig.ID, c.Sig.Name, c.Sig.ArgNames,
			c.Args[0].Enum().ID, c.Args[0].Enum().Values[0].Name, c.Backtrace[0].ID, c.Backtrace[0].Function))
	}
	want := []string{
		"7 glFlush[e] 1 A 3 main",
		"7 glFlush[e] 2 B 4 other",
		"8 glFinish[x] 2 B 3 main",
		"9 glBar[e] 1 A 4 other",
		"8 glFinish[x] 1 A 3 main",
	}
	testutil.Diff(t, "calls", want, got)
}

// TestWriterPairsLeaves writes interleaved and nested calls under the
// caller's own numbers and checks the pairing apitrace reads back.
func TestWriterPairsLeaves(t *testing.T) {
	sig := func(name string) *FunctionSig { return &FunctionSig{ID: uint64(len(name)), Name: name} }
	a, bb, ccc := sig("a"), sig("bb"), sig("ccc")
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	evs := []Event{
		{Kind: Enter, Call: 100, Sig: a},
		{Kind: Enter, Call: 50, Sig: bb, Thread: 1},
		{Kind: Leave, Call: 7}, // never entered: dropped
		{Kind: Leave, Call: 100, Ret: Uint(1)},
		{Kind: Enter, Call: 100, Sig: ccc}, // a number may be used again once left
		{Kind: Leave, Call: 100, Ret: Uint(3)},
		{Kind: Leave, Call: 50, Ret: Uint(2)},
		{Kind: Leave, Call: 50}, // left already: dropped
	}
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	cr, err := NewCallReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for c, err := range cr.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(NewDumper(io.Discard, DumpOptions{}).AppendCall(nil, c)))
	}
	want := []string{"0 a() = 1\n", "2 ccc() = 3\n", "1 bb() = 2\n"}
	testutil.Diff(t, "calls", want, got)

	w, _ = NewWriter(io.Discard, Header{Version: 6})
	w.Write(&Event{Kind: Enter, Call: 4, Sig: a})
	w.Write(&Event{Kind: Enter, Call: 5, Sig: a})
	if err := w.Write(&Event{Kind: Enter, Call: 4, Sig: a}); !errors.Is(err, ErrInvalid) {
		t.Errorf("call 4 entered twice: %v, want ErrInvalid", err)
	}
}

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, and those given a nil pointer, interface or
// function return an error.
func TestNilArguments(t *testing.T) {
	data := testutil.ReadFile(t, filepath.Join("testdata", "glxsimple.trace"))
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(io.Discard, r.Header())
	if err != nil {
		t.Fatal(err)
	}
	cw, err := NewCallWriter(io.Discard, r.Header())
	if err != nil {
		t.Fatal(err)
	}
	d := NewDumper(io.Discard, DumpOptions{})
	set, err := ParseCallSet("1-10")
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{
			"Blob": Blob, "Bool": Bool, "Detect": Detect, "Float32": Float32, "Float64": Float64,
			"Int": Int, "LookupNameFlags": LookupNameFlags, "NewCallReader": NewCallReader,
			"NewCallWriter": NewCallWriter, "NewDumper": NewDumper, "NewReader": NewReader,
			"NewWriter": NewWriter, "Null": Null, "ParseCallSet": ParseCallSet,
			"ParseDumpArgs": ParseDumpArgs, "ParseDumpVersion": ParseDumpVersion, "Pointer": Pointer, "ReadInfo": ReadInfo,
			"ReadInfoFile": ReadInfoFile, "String": String, "Uint": Uint, "Scalar": Scalar,
			"Enum": Enum, "Bitmask": Bitmask, "Array": Array, "WString": WString, "Struct": Struct,
			"Repr": Repr,
		},
		Types: []any{
			new(Arg), new(BitmaskFlag), new(BitmaskSig), new(Call), new(CallFlags),
			new(CallReader), new(CallSet), new(CallWriter), new(Container), new(DumpOptions),
			new(Dumper), new(EnumSig), new(EnumValue), new(Event), new(FormatError), new(Frame),
			new(FrameDetails), new(FrameInfo), new(FunctionSig), new(Header), new(Index),
			new(Info), new(Kind), new(NameFlags), new(Position), new(Property), new(Reader),
			new(StructSig), new(Value), new(ValueKind), new(Writer), new(DumpVersion),
			new(DumpArgs), new(Profile),
		},
		Open: []any{r, cr, w, cw, d, NewDumper(nil, DumpOptions{}), &set},
		Samples: map[string][]any{
			"ReadInfo":  {bytes.NewReader(data), false},
			"NewDumper": {io.Discard, DumpOptions{}},
		},
		// Merging an empty set, parsing an empty command line and
		// unwrapping a zero FormatError are no errors.
		AllowNil: []string{"CallSet.Merge", "ParseDumpArgs", "FormatError.Unwrap"},
	})
}
