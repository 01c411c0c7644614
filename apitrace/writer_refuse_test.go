package apitrace

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// nested returns n arrays, one inside the other, around an integer.
func nested(n int) Value {
	v := Uint(1)
	for range n {
		v = Array(v)
	}
	return v
}

// TestWriterRefusesWhatApitraceMisreads writes, for each rule, an event
// that breaks it after a valid call, and checks that Write refuses it with
// ErrInvalid and a message naming the rule, that Check said so first, and
// that the trace still holds the valid call.
func TestWriterRefusesWhatApitraceMisreads(t *testing.T) {
	f := &FunctionSig{ID: 10, Name: "glFoo", ArgNames: []string{"x"}}
	getError := &FunctionSig{ID: 11, Name: "glGetError"}
	anon := &StructSig{ID: 2, Name: "S", Members: []string{"a", ""}}
	guid := &StructSig{ID: 3, Name: "GUID", Members: []string{"Data1", "Data2", "Data3", "Data4"}}
	arg := func(v Value) []Arg { return []Arg{{Index: 0, Value: v}} }
	for _, c := range []struct {
		name, rule string
		ev         Event
	}{
		{"argument index beyond the names", "argument index 1 of call 7, whose signature has 1 argument names",
			Event{Kind: Enter, Call: 7, Sig: f, Args: []Arg{{Index: 1, Value: Uint(1)}}}},
		{"argument index given twice", "argument index 0 given twice in one event of call 7",
			Event{Kind: Enter, Call: 7, Sig: f, Args: []Arg{{Index: 0, Value: Uint(1)}, {Index: 0, Value: Uint(2)}}}},
		{"wide string holding a string", "wide string code unit 0 is a string",
			Event{Kind: Enter, Sig: f, Args: arg(WString(String([]byte("a"))))}},
		{"wide string code unit 0", "wide string code unit 1 is a uint of 0x0",
			Event{Kind: Enter, Sig: f, Args: arg(WString(Uint('a'), Uint(0)))}},
		{"wide string code unit of 33 bits", "is a uint of 0x100000041",
			Event{Kind: Enter, Sig: f, Args: arg(WString(Uint(1<<32 + 'A')))}},
		{"arrays nested 100 deep", "nested deeper than 64",
			Event{Kind: Enter, Sig: f, Args: arg(nested(100))}},
		{"arrays nested 65 deep", "nested deeper than 64",
			Event{Kind: Enter, Sig: f, Args: arg(nested(65))}},
		{"glGetError returning a string", "glGetError returning a string",
			Event{Kind: Enter, Sig: getError, Ret: String([]byte("x"))}},
		{"glGetError returning 2^63", "glGetError returning a uint",
			Event{Kind: Enter, Sig: getError, Ret: Uint(1 << 63)}},
		{"anonymous member holding an integer", "anonymous member 1 of struct S holds a uint",
			Event{Kind: Enter, Sig: f, Args: arg(Struct(anon, Uint(1), Uint(2)))}},
		{"GUID without its array", "struct GUID",
			Event{Kind: Enter, Sig: f, Args: arg(Struct(guid, Uint(1), Uint(2), Uint(3), Uint(4)))}},
		{"GUID with a negative member", "struct GUID",
			Event{Kind: Enter, Sig: f, Args: arg(Struct(guid, Int(-1), Uint(2), Uint(3), nested(1)))}},
		{"bitmask with a zero flag not first", "zero flag NONE at place 1",
			Event{Kind: Enter, Sig: f, Args: arg(Bitmask(&BitmaskSig{ID: 4, Flags: []BitmaskFlag{{"A", 1}, {"NONE", 0}}}, 0))}},
		{"thread above 32 bits", "thread 4294967296 above 2^32-1",
			Event{Kind: Enter, Sig: f, Thread: 1 << 32}},
		{"frame line above 2^31-1", "frame line 2147483648",
			Event{Kind: Enter, Sig: f, Backtrace: []*Frame{{ID: 1, Has: HasLine, Line: 1 << 31}}}},
		{"frame offset above 2^63-1", "frame offset 0x8000000000000000",
			Event{Kind: Enter, Sig: f, Backtrace: []*Frame{{ID: 1, Has: HasOffset, Offset: 1 << 63}}}},
		{"frame detail unknown", "frame details 0x20",
			Event{Kind: Enter, Sig: f, Backtrace: []*Frame{{ID: 1, Has: 1 << 5}}}},
		// apitrace keeps names as C strings: "glXSwapBuffers\x00x" is
		// glXSwapBuffers to it, which ends a frame.
		{"function name with a NUL", `function name "glXSwapBuffers\x00x" holds a NUL: apitrace reads names as C strings, so it would read "glXSwapBuffers"`,
			Event{Kind: Enter, Sig: &FunctionSig{ID: 20, Name: "glXSwapBuffers\x00x"}}},
		{"argument name with a NUL", `argument name "a\x00b" holds a NUL`,
			Event{Kind: Enter, Sig: &FunctionSig{ID: 20, Name: "glBar", ArgNames: []string{"a\x00b"}}}},
		{"struct member name with a NUL", `struct member name "a\x00b" holds a NUL`,
			Event{Kind: Enter, Sig: f, Args: arg(Struct(&StructSig{ID: 5, Name: "S", Members: []string{"a\x00b"}}, Uint(1)))}},
		{"enum value name with a NUL", `enum value name "GL_A\x00" holds a NUL`,
			Event{Kind: Enter, Sig: f, Args: arg(Enum(&EnumSig{ID: 5, Values: []EnumValue{{"GL_A\x00", 1}}}, 1))}},
		{"bitmask flag name with a NUL", `bitmask flag name "A\x00B" holds a NUL`,
			Event{Kind: Enter, Sig: f, Args: arg(Bitmask(&BitmaskSig{ID: 5, Flags: []BitmaskFlag{{"A\x00B", 1}}}, 1))}},
		{"frame function with a NUL", `frame function "main\x00" holds a NUL`,
			Event{Kind: Enter, Sig: f, Backtrace: []*Frame{{ID: 1, Has: HasFunction, Function: "main\x00"}}}},
		{"string over the Reader's limit", "a string of 268435457 bytes",
			Event{Kind: Enter, Sig: f, Args: arg(String(make([]byte, DefaultMaxDataLen+1)))}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(&Event{Kind: Enter, Call: 1, Sig: f, Args: arg(Uint(5))}); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(&Event{Kind: Leave, Call: 1}); err != nil {
				t.Fatal(err)
			}
			cerr := w.Check(&c.ev)
			err = w.Write(&c.ev)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.rule) {
				t.Fatalf("Write: %v, want ErrInvalid saying %q", err, c.rule)
			}
			if cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("Check said %v before Write said %v", cerr, err)
			}
			if cerr := w.Close(); cerr != err {
				t.Errorf("Close: %v, want the refusal", cerr)
			}
			checkKept(t, buf.Bytes(), []string{"glFoo(x = 5)"})
		})
	}
}

// TestWriterArgumentIndexes checks the duplicate-index rule past the
// first 64 indexes, and that an index an enter event gave may come again
// in the leave event (an output argument), which apitrace merges.
func TestWriterArgumentIndexes(t *testing.T) {
	names := make([]string, 70)
	for i := range names {
		names[i] = "a" + string(rune('0'+i/10)) + string(rune('0'+i%10))
	}
	f := &FunctionSig{ID: 10, Name: "glMany", ArgNames: names}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	enter := Event{Kind: Enter, Call: 1, Sig: f, Args: []Arg{{Index: 65, Value: Uint(1)}, {Index: 1, Value: Uint(2)}, {Index: 69, Value: Uint(3)}}}
	if err := w.Write(&enter); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Event{Kind: Leave, Call: 1, Args: []Arg{{Index: 65, Value: Uint(4)}}}); err != nil {
		t.Fatal(err)
	}
	twice := Event{Kind: Enter, Call: 2, Sig: f, Args: []Arg{{Index: 65, Value: Uint(1)}, {Index: 69, Value: Uint(2)}, {Index: 65, Value: Uint(3)}}}
	if err := w.Write(&twice); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "argument index 65 given twice") {
		t.Fatalf("Write: %v, want index 65 refused", err)
	}
	w.Close()
	cr, err := NewCallReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for c, err := range cr.All() {
		if err != nil {
			t.Fatal(err)
		}
		n++
		// the leave's value of argument 65 replaces the enter's
		for i, want := range map[int]uint64{1: 2, 65: 4, 69: 3} {
			if v := c.Args[i]; v.Kind() != KindUInt || v.Bits() != want {
				t.Errorf("call %d: argument %d read back as %v %d, want %d", c.No, i, v.Kind(), v.Bits(), want)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d calls read back, want 1", n)
	}
}

// checkKept reads a trace back and checks it holds exactly the calls
// given (in apitrace dump's flat form, without numbers), and that the real
// apitrace dump prints it without an error.
func checkKept(t *testing.T, data []byte, want []string) {
	t.Helper()
	var got []string
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	d := NewDumper(io.Discard, DumpOptions{NoCallNos: true, NoMultiline: true, Verbose: true})
	for c, err := range cr.All() {
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		got = append(got, string(d.AppendCall(nil, c)))
	}
	testutil.Diff(t, "calls read back", want, got)
	t.Run("apitrace dump", func(t *testing.T) {
		tool := testutil.Tool(t, "apitrace")
		path := filepath.Join(t.TempDir(), "kept.trace")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(tool, "dump", "--color=never", "--call-nos=no", "--multiline=no", "-v", path).CombinedOutput()
		if err != nil {
			t.Fatalf("apitrace dump: %v\n%s", err, out)
		}
		testutil.DiffText(t, "apitrace dump", []byte(strings.Join(want, "\n")+"\n"), out)
	})
}

// TestWriterNesting64 writes arrays nested exactly as deep as our Reader
// reads, and checks both apitrace and the Reader read them back.
func TestWriterNesting64(t *testing.T) {
	f := &FunctionSig{ID: 10, Name: "glFoo", ArgNames: []string{"x"}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Event{Kind: Enter, Sig: f, Args: []Arg{{Value: nested(DefaultMaxDepth)}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Event{Kind: Leave}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkKept(t, buf.Bytes(), []string{"glFoo(x = " + strings.Repeat("&", DefaultMaxDepth) + "1)"})
}

// TestWriterRefusesHeader checks the header rules: a property list apitrace
// would end early or merge is refused before anything is written.
func TestWriterRefusesHeader(t *testing.T) {
	for _, c := range []struct {
		name, rule string
		props      []Property
	}{
		{"name starting with NUL", "starting with NUL", []Property{{"a", "1"}, {"\x00b", "2"}}},
		{"name twice", `property "a" twice`, []Property{{"a", "1"}, {"a", "2"}}},
		{"names equal up to a NUL", `property "a\x00b" = "2" holds a NUL`, []Property{{"a", "1"}, {"a\x00b", "2"}}},
		{"name holding a NUL", `property "b\x00c" = "2" holds a NUL`, []Property{{"a", "1"}, {"b\x00c", "2"}}},
		{"value holding a NUL", `property "b" = "x\x00y" holds a NUL: apitrace reads properties as C strings, so it would read "b" = "x"`, []Property{{"b", "x\x00y"}}},
	} {
		var buf bytes.Buffer
		_, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6, Properties: c.props})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.rule) {
			t.Errorf("%s: %v, want ErrInvalid saying %q", c.name, err, c.rule)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: %d bytes written before the refusal", c.name, buf.Len())
		}
	}
}

// TestWriterRefusalKeepsAccepted checks, for both writers and both
// containers, that a refusal leaves every call accepted before it in the
// trace Close finishes, complete, and that Check changes nothing.
func TestWriterRefusalKeepsAccepted(t *testing.T) {
	f := &FunctionSig{ID: 10, Name: "glFoo", ArgNames: []string{"x"}}
	getError := &FunctionSig{ID: 11, Name: "glGetError"}
	bad := &Call{Sig: getError, Ret: String([]byte("no"))}
	for _, c := range []Container{Snappy, Gzip} {
		t.Run("Writer/"+c.String(), func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6, Container: c})
			if err != nil {
				t.Fatal(err)
			}
			for i := range uint64(3) {
				ev := &Event{Kind: Enter, Call: i, Sig: f, Args: []Arg{{Value: Uint(i)}}}
				if err := w.Check(&Event{Kind: Enter, Call: i, Sig: f, Args: []Arg{{Index: 3}}}); !errors.Is(err, ErrInvalid) {
					t.Fatalf("Check: %v", err)
				}
				if err := w.Check(ev); err != nil {
					t.Fatalf("Check: %v", err)
				}
				if err := w.Write(ev); err != nil {
					t.Fatal(err)
				}
				if err := w.Write(&Event{Kind: Leave, Call: i}); err != nil {
					t.Fatal(err)
				}
			}
			// An enter accepted, then its leave refused: the call stays
			// (incomplete, as written), the leave is not half written.
			if err := w.Write(&Event{Kind: Enter, Call: 9, Sig: getError}); err != nil {
				t.Fatal(err)
			}
			refusal := w.Write(&Event{Kind: Leave, Call: 9, Ret: bad.Ret})
			if !errors.Is(refusal, ErrInvalid) {
				t.Fatalf("Write: %v", refusal)
			}
			if err := w.Write(&Event{Kind: Enter, Call: 4, Sig: f}); err != refusal {
				t.Errorf("Write after the refusal: %v, want it again", err)
			}
			if err := w.Flush(); err != refusal {
				t.Errorf("Flush: %v, want the refusal", err)
			}
			if err := w.Close(); err != refusal {
				t.Errorf("Close: %v, want the refusal", err)
			}
			checkKept(t, buf.Bytes(), []string{"glFoo(x = 0)", "glFoo(x = 1)", "glFoo(x = 2)", "glGetError() // incomplete"})
		})
		t.Run("CallWriter/"+c.String(), func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewCallWriter(&buf, Header{Version: 6, SemanticVersion: 6, Container: c})
			if err != nil {
				t.Fatal(err)
			}
			for i := range uint64(2) {
				if err := w.Write(&Call{Sig: f, Args: []Value{Uint(i)}}); err != nil {
					t.Fatal(err)
				}
			}
			// The enter part is fine, the leave part is not: neither is
			// written.
			if err := w.Check(bad); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Check: %v", err)
			}
			if err := w.Write(&Call{Sig: f, Args: []Value{Uint(2)}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(bad); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Write: %v", err)
			}
			if w.Calls() != 3 {
				t.Errorf("%d calls counted, want 3", w.Calls())
			}
			if err := w.Close(); !errors.Is(err, ErrInvalid) {
				t.Errorf("Close: %v, want the refusal", err)
			}
			checkKept(t, buf.Bytes(), []string{"glFoo(x = 0)", "glFoo(x = 1)", "glFoo(x = 2)"})
		})
	}
}

// TestWriterBigIDs checks that signatures and frames whose ids apitrace
// could not hold a table for are written under free ids.
func TestWriterBigIDs(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	big := &FunctionSig{ID: math.MaxUint64, Name: "glBig", ArgNames: []string{"e"}}
	en := &EnumSig{ID: 1 << 40, Values: []EnumValue{{"GL_ONE", 1}}}
	fr := &Frame{ID: MaxWriteID + 1, Has: HasFunction, Function: "main"}
	for i := range uint64(2) {
		if err := w.Write(&Event{Kind: Enter, Call: i, Sig: big, Backtrace: []*Frame{fr}, Args: []Arg{{Value: Enum(en, 1)}}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Event{Kind: Leave, Call: i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == Enter && (ev.Sig.ID > MaxWriteID || ev.Backtrace[0].ID > MaxWriteID || ev.Args[0].Value.Enum().ID > MaxWriteID) {
			t.Errorf("ids %d, %d, %d written", ev.Sig.ID, ev.Backtrace[0].ID, ev.Args[0].Value.Enum().ID)
		}
	}
	checkKept(t, buf.Bytes(), []string{"glBig(e = GL_ONE)", "glBig(e = GL_ONE)"})
}
