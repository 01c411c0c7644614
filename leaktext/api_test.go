package leaktext

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestZeroValues calls every exported method of every zero value: none
// panics, and every error result is an error.
func TestZeroValues(t *testing.T) {
	testutil.CheckZeroValue(t, new(Reader))
	testutil.CheckZeroValue(t, new(Writer))
	testutil.CheckZeroValue(t, new(Record))
	testutil.CheckZeroValue(t, new(Call))
	testutil.CheckZeroValue(t, new(Header))
	testutil.CheckZeroValue(t, new(Resource))
	testutil.CheckZeroValue(t, new(Kind))
	testutil.CheckZeroValue(t, new(Report))
	testutil.CheckZeroValue(t, new(AddressMap))
	testutil.CheckZeroValue(t, new(SyntaxError), "Unwrap")

	var rd Reader
	if _, err := rd.Read(); err != ErrNotOpen {
		t.Errorf("zero Reader: Read: %v", err)
	}
	if err := rd.Reset(strings.NewReader("version=2.0, \n## x\n")); err != nil {
		t.Fatal(err)
	}
	if rec, err := rd.Read(); err != nil || string(rec.Text) != "## x" {
		t.Errorf("zero Reader after Reset: %v %v", rec, err)
	}
	var w Writer
	if err := w.Write(&Record{Kind: KindBlank}); err != ErrNotOpen {
		t.Errorf("zero Writer: Write: %v", err)
	}
	var out bytes.Buffer
	if err := w.Reset(&out, Header{Fields: []Field{{Key: "version", Value: "2.0"}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Record{Kind: KindBlank}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil || out.String() != "version=2.0, \n\n" {
		t.Errorf("zero Writer after Reset: %q %v", out.String(), err)
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	rd, err := NewReader(strings.NewReader("version=2.0, \n" + strings.Repeat("x", 20) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	rd.MaxLineLen = 10
	_, err = rd.Read()
	testutil.Diff(t, "message", "leaktext: line 2: too large: a line longer than MaxLineLen (10 bytes)", err.Error())
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("%v is not ErrTooLarge", err)
	}
	_, err = NewReader(strings.NewReader("version=2.0, "))
	testutil.Diff(t, "cut", "leaktext: line 1: unexpected EOF", err.Error())
}

// TestRecordOwnership: Read returns the Reader's record, reused; Clone
// keeps one.
func TestRecordOwnership(t *testing.T) {
	rd, err := NewReader(strings.NewReader("version=2.0, \n1. malloc(1) = 0x1\n\t0x10\n\n2. free(0x1)\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := rd.Read()
	kept := first.Clone()
	second, _ := rd.Read()
	if first != second {
		t.Error("Read returns a new record each time")
	}
	if kept.Kind != KindCall || kept.Call.Index != 1 || len(kept.Call.Frames) != 1 || kept.Call.Frames[0].Addr != 0x10 {
		t.Errorf("clone changed: %+v", kept)
	}
	if second.Kind != KindBlank || second.Call.Index != 0 || second.Call.Frames != nil {
		t.Errorf("a blank keeps the call's fields: %+v", second)
	}
}

func TestWriterClose(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(&out, Header{Fields: []Field{{Key: "version", Value: "2.0"}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Error("NewWriter wrote before Flush")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Record{Kind: KindBlank}); err != ErrClosed {
		t.Errorf("Write after Close: %v", err)
	}
	if err := w.Flush(); err != ErrClosed {
		t.Errorf("Flush after Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if out.String() != "version=2.0, \n" {
		t.Errorf("wrote %q", out.String())
	}
	if err := w.Reset(nil, Header{}); err != ErrNotOpen {
		t.Errorf("Reset(nil): %v", err)
	}
}

// TestWriterRefuses: records whose lines would read back as something
// else, or that the real reader would misread, are ErrInvalid, and the
// refusal sticks.
func TestWriterRefuses(t *testing.T) {
	call := func(c Call) *Record { return &Record{Kind: KindCall, Call: c} }
	frames := func(n int) []Frame { return make([]Frame, n) }
	depth3 := Header{Fields: []Field{{Key: "version", Value: "2.0"}, {Key: KeyBacktraceDepth, Value: "3"}}}
	for _, tc := range []struct {
		name string
		h    Header
		recs []*Record
	}{
		{"index beyond 32 bits", depth3, []*Record{call(Call{Index: 1 << 31, Func: []byte("f")})}},
		{"negative index", depth3, []*Record{call(Call{Index: -1, Func: []byte("f")})}},
		{"size beyond 32 bits", depth3, []*Record{call(Call{Index: 1, Size: 1 << 31, Func: []byte("f")})}},
		{"time beyond 32 bits", depth3, []*Record{call(Call{Index: 1, HasTime: true, Time: 1 << 31, Func: []byte("f")})}},
		{"deeper than the header", depth3, []*Record{call(Call{Index: 1, Func: []byte("f"), Frames: frames(4)})}},
		{"trace deeper than the header", depth3, []*Record{{Kind: KindTrace, Call: Call{Frames: frames(4)}}}},
		{"trace joining a call", depth3, []*Record{call(Call{Index: 1, Func: []byte("f")}), {Kind: KindTrace, Call: Call{Frames: frames(1)}}}},
		{"frames joining a call's", depth3, []*Record{call(Call{Index: 1, Func: []byte("f"), Frames: frames(1)}), {Kind: KindTrace, Call: Call{Frames: frames(1)}}}},
		{"comment reading as a call", depth3, []*Record{{Kind: KindComment, Text: []byte("1. malloc(1) = 0x1")}}},
		{"comment reading as a frame", depth3, []*Record{{Kind: KindComment, Text: []byte("\t0x1")}}},
		{"comment reading as a resource", depth3, []*Record{{Kind: KindComment, Text: []byte("<1> : a (b)")}}},
		{"empty comment", depth3, []*Record{{Kind: KindComment}}},
		{"resource flags with a bracket", depth3, []*Record{{Kind: KindResource, Resource: Resource{ID: 1, Type: []byte("a"), Desc: []byte("b"), Flags: []byte("x]")}}}},
		{"resource without description", depth3, []*Record{{Kind: KindResource, Resource: Resource{ID: 1, Type: []byte("a")}}}},
		{"attachment without path", depth3, []*Record{{Kind: KindAttachment, Attachment: Attachment{Name: []byte("a"), Path: []byte(" ")}}}},
		{"memory map path with a space", depth3, []*Record{{Kind: KindMemoryMap, Map: MemoryMap{Path: []byte("/a b")}}}},
		{"argument name with a space", depth3, []*Record{call(Call{Index: 1, Func: []byte("f"), Args: []Arg{{Name: []byte("a b")}}})}},
		{"nil record", depth3, []*Record{nil}},
		{"unknown kind", depth3, []*Record{{Kind: 99}}},
	} {
		w, err := NewWriter(io.Discard, tc.h)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tc.recs {
			if err = w.Write(r); err != nil {
				break
			}
		}
		if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "leaktext: invalid record: ") {
			t.Errorf("%s: %v", tc.name, err)
		}
		if err2 := w.Write(&Record{Kind: KindBlank}); err2 != err {
			t.Errorf("%s: refusal does not stick: %v", tc.name, err2)
		}
	}
	for _, h := range []Header{
		{Fields: []Field{{Key: "process", Value: ""}, {Key: "pid", Value: "1"}}},
		{Fields: []Field{{Key: "a,b", Value: "1"}}},
		{Fields: []Field{{Key: "a", Value: "1,2"}}},
		{Fields: []Field{{Key: " a", Value: "1"}}},
		{Verbatim: []byte("version=2.0, \r")},
		{Verbatim: []byte("\xf0")},
	} {
		if _, err := NewWriter(io.Discard, h); !errors.Is(err, ErrInvalid) {
			t.Errorf("header %+v: %v", h, err)
		}
	}
	// what the formatter writes is taken: an empty last value, arguments
	// after frames in a trace, an empty argument value
	h := Header{Fields: []Field{{Key: "version", Value: "2.0"}, {Key: "process", Value: ""}}}
	recs := []*Record{
		call(Call{Index: 1, Func: []byte("accept"), Type: []byte("fd"), Size: 1, ID: 3, Args: []Arg{{Name: []byte("path"), Value: []byte{}}}, Frames: frames(1)}),
		{Kind: KindTrace, Call: Call{Args: []Arg{{Name: []byte("x"), Value: []byte("fe80::1 port 80")}}}},
		{Kind: KindBlank},
	}
	got := writeAll(t, h, recs)
	testutil.DiffText(t, "written", []byte("version=2.0, process=, \n1. accept<fd>(1) = 0x3\n\t$path = \n\t0x0\n\t$x = fe80::1 port 80\n\n"), got)
	_, back := readAll(t, got, true)
	if len(back) != 3 || back[0].Call.Args[0].Value == nil || len(back[1].Call.Args) != 1 {
		t.Errorf("read back %+v", back)
	}
}

// TestLineForms: lines the formatter writes that an older version of this
// package misread.
func TestLineForms(t *testing.T) {
	in := "version=2.0, process=, pid=12, backtrace depth=2, \n" +
		"<1> : memory (memory (heap) allocation) [refcount]\n" +
		"<2> : fd (file descriptor (see open(2)))\n" +
		"<4> : gl (x) [y)\n" +
		"& maps : /tmp/my maps\n" +
		"1. malloc<memory>(8) = 0x10\n" +
		"\t$where = fe80::1%eth0 port 22\n" +
		"\t$path = \n" +
		"\t$blank =   \n" +
		"\t0x401000\n" +
		"\n"
	h, recs := readAll(t, []byte(in), true)
	if v, _ := h.Get(KeyPID); v != "12" || h.depth() != 2 {
		t.Errorf("header after an empty value: pid %q depth %d", v, h.depth())
	}
	if h.Verbatim == nil {
		t.Error("a header with an empty value inside is not kept verbatim")
	}
	want := []Resource{
		{ID: 1, Type: []byte("memory"), Desc: []byte("memory (heap) allocation"), Flags: []byte("refcount")},
		{ID: 2, Type: []byte("fd"), Desc: []byte("file descriptor (see open(2))")},
		{ID: 4, Type: []byte("gl"), Desc: []byte("x) [y")},
	}
	for i, w := range want {
		if recs[i].Kind != KindResource {
			t.Fatalf("line %d: %v", recs[i].Line, recs[i].Kind)
		}
		testutil.Diff(t, "resource", w, recs[i].Resource)
	}
	if recs[3].Kind != KindAttachment || string(recs[3].Attachment.Path) != "/tmp/my maps" {
		t.Errorf("attachment: %+v", recs[3])
	}
	c := recs[4].Call
	testutil.Diff(t, "args", []Arg{
		{Name: []byte("where"), Value: []byte("fe80::1%eth0 port 22")},
		{Name: []byte("path"), Value: []byte{}},
		{Name: []byte("blank"), Value: []byte("  ")},
	}, c.Args)
	if len(c.Frames) != 1 {
		t.Errorf("frames %+v", c.Frames)
	}
	testutil.DiffText(t, "round trip", []byte(in), writeAll(t, h, recs))

	rep, err := ReadReport(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Events) != 1 || rep.Events[0].Res != 0 || len(rep.Resources) != 3 || len(rep.Events[0].Trace.Frames) != 1 {
		t.Errorf("report: %d events, type %d, %d resources", len(rep.Events), rep.Events[0].Res, len(rep.Resources))
	}
}

// TestFormatterReports reads the reports made with the formatter's own
// printf formats (testdata/formatter, see its README) in Strict mode:
// every line is the record the formatter meant, every report writes back
// byte for byte, and line by line we read what sp-rtrace's parser reads
// (NAME.real, made by probe.c with its sscanf formats) but where the
// package doc says we differ: the parser keeps the first word of an
// argument value or attachment path, cuts a resource description at its
// first ")" and then loses the flags, takes a line with an empty argument
// value for a comment, and stops reading the header at an empty value.
func TestFormatterReports(t *testing.T) {
	names, _ := filepath.Glob("testdata/formatter/*.txt")
	if len(names) == 0 {
		t.Fatal("no reports in testdata/formatter")
	}
	for _, name := range names {
		data := testutil.ReadFile(t, name)
		h, recs := readAll(t, data, true)
		testutil.DiffText(t, name, data, writeAll(t, h, recs))

		real := strings.Split(strings.TrimSuffix(string(testutil.ReadFile(t, strings.TrimSuffix(name, ".txt")+".real")), "\n"), "\n")
		var ours []string // one line per input line: kind, then the fields the parser keeps
		var hf []string
		for _, f := range h.Fields {
			if f.Value == "" {
				break
			}
			hf = append(hf, "["+f.Key+"]=["+f.Value+"]")
		}
		ours = append(ours, strings.Join(append([]string{"HEADER"}, hf...), " "))
		firstWord := func(b []byte) string { return strings.Fields(string(b) + " ")[0] }
		for _, r := range recs {
			switch r.Kind {
			case KindMemoryMap:
				ours = append(ours, fmt.Sprintf("MMAP [%s]", r.Map.Path))
			case KindContext:
				ours = append(ours, fmt.Sprintf("CONTEXT %x [%s]", r.Context.ID, r.Context.Name))
			case KindResource:
				desc, _, _ := bytes.Cut(r.Resource.Desc, []byte(")"))
				flags := r.Resource.Flags
				if !bytes.Equal(desc, r.Resource.Desc) {
					flags = nil
				}
				ours = append(ours, fmt.Sprintf("RESOURCE %x [%s] [%s] flags[%s]", r.Resource.ID, r.Resource.Type, desc, flags))
			case KindAttachment:
				ours = append(ours, fmt.Sprintf("ATTACH [%s] [%s]", r.Attachment.Name, firstWord(r.Attachment.Path)))
			case KindComment:
				ours = append(ours, fmt.Sprintf("COMMENT [%s]", r.Text))
			case KindBlank:
				ours = append(ours, "EMPTY")
			case KindCall, KindTrace:
				if r.Kind == KindCall {
					ours = append(ours, fmt.Sprintf("CALL %d", r.Call.Index))
				}
				for _, a := range r.Call.Args {
					if blank(a.Value) {
						ours = append(ours, fmt.Sprintf("COMMENT [\t$%s = %s]", a.Name, a.Value))
						continue
					}
					ours = append(ours, fmt.Sprintf("ARG [%s]=[%s]", a.Name, firstWord(a.Value)))
				}
				for _, f := range r.Call.Frames {
					ours = append(ours, fmt.Sprintf("FRAME %x [%s]", f.Addr, f.Resolved))
				}
			}
		}
		testutil.Diff(t, name+": the real parser's reading", real, ours)
	}
}

// TestExternalReports reads the real reports of sp-rtrace's history
// (../shared/external/leaktext/real: 315 reports and their INDEX.tsv) in
// the default and Strict modes and writes each back byte for byte.
func TestExternalReports(t *testing.T) {
	dir := filepath.Join(testutil.ModuleRoot(t), "..", "shared", "external", "leaktext", "real")
	names, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(names) == 0 {
		msg := "the external reports are absent (" + dir + ")"
		if testutil.InCI() {
			t.Fatal(msg)
		}
		t.Skip("skipped outside CI: " + msg)
	}
	// every report the index lists as not among the fixtures is there
	index := testutil.ReadFile(t, filepath.Join(dir, "INDEX.tsv"))
	listed := 0
	for _, row := range strings.Split(strings.TrimSpace(string(index)), "\n")[1:] {
		if f := strings.Split(row, "\t"); len(f) > 5 && f[5] == "no" {
			listed++
			if _, err := os.Stat(filepath.Join(dir, f[1][:12]+".txt")); err != nil {
				t.Error(err)
			}
		}
	}
	if listed != len(names) || listed < 300 {
		t.Errorf("%d reports, %d listed in INDEX.tsv", len(names), listed)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, strict := range []bool{false, true} {
			h, recs := readAll(t, data, strict)
			if !bytes.Equal(data, writeAll(t, h, recs)) {
				t.Errorf("%s (strict %v): round trip differs", filepath.Base(name), strict)
			}
		}
	}
}

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, and those given a nil pointer, interface or
// function return an error.
func TestNilArguments(t *testing.T) {
	data := testutil.ReadFile(t, filepath.Join("testdata", "upstream-v2.0", "context.txt"))
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(io.Discard, rd.Header())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ReadReport(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var lc LeakCounter
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{
			"AppendArg":       AppendArg,
			"AppendCall":      AppendCall,
			"AppendContext":   AppendContext,
			"AppendFrame":     AppendFrame,
			"AppendMemoryMap": AppendMemoryMap,
			"AppendResource":  AppendResource,
			"NewAddressMap":   NewAddressMap,
			"NewReader":       NewReader,
			"NewWriter":       NewWriter,
			"ParseResolved":   ParseResolved,
			"ParseSortOrder":  ParseSortOrder,
			"PostProcess":     PostProcess,
			"ReadReport":      ReadReport,
		},
		Types: []any{
			new(AddressMap), new(Arg), new(Attachment), new(Call), new(Comment), new(Context),
			new(Event), new(Field), new(Frame), new(Group), new(Header), new(Kind),
			new(LeakCounter), new(LeakSum), new(MemoryMap), new(Options), new(Reader),
			new(Record), new(Report), new(Resource), new(SortOrder), new(Symbol),
			new(SyntaxError), new(Trace), new(Writer), new(Profile),
		},
		Open: []any{rd, w, rep, &lc, NewAddressMap(rep.Maps)},
		Samples: map[string][]any{
			"PostProcess":     {io.Discard, rep, Options{}},
			"LeakCounter.Add": {&Record{}},
		},
		AllowNil: []string{"SyntaxError.Unwrap"},
	})
}
