package xrayfdr

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/xraytest"
)

func TestZeroValues(t *testing.T) {
	testutil.CheckZeroValue(t, new(Reader))
	testutil.CheckZeroValue(t, new(Writer))
	testutil.CheckZeroValue(t, new(Verifier))
	testutil.CheckZeroValue(t, new(Trace))
	testutil.CheckZeroValue(t, new(Record))
	testutil.CheckZeroValue(t, new(Header))
	testutil.CheckZeroValue(t, new(FormatError), "Unwrap")
	testutil.CheckZeroValue(t, new(SyntaxError), "Unwrap")
	if _, err := new(Reader).Read(); err != ErrNotOpen {
		t.Errorf("zero Reader: Read = %v, want ErrNotOpen", err)
	}
	if err := new(Writer).Write(&Record{}); err != ErrNotOpen {
		t.Errorf("zero Writer: Write = %v, want ErrNotOpen", err)
	}
	// a zero Reader works after Reset
	var rd Reader
	data := testutil.ReadFile(t, "testdata/fdr_simple.xray")
	if err := rd.Reset(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Read(); err != nil {
		t.Fatal(err)
	}
}

// Reset after ResetBytes must not write into the caller's bytes.
func TestResetAfterResetBytes(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/fdr_simple.xray")
	keep := bytes.Clone(data)
	var rd Reader
	if err := rd.ResetBytes(data); err != nil {
		t.Fatal(err)
	}
	other := testutil.ReadFile(t, "testdata/synthetic-v3.xray")
	if err := rd.Reset(bytes.NewReader(other)); err != nil {
		t.Fatal(err)
	}
	for _, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(data, keep) {
		t.Error("Reset wrote into the bytes given to ResetBytes")
	}
}

func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&FormatError{Offset: 4096, Err: ErrMetadataKind}, "xrayfdr: offset 4096: bad metadata record kind"},
		{&FormatError{Offset: 3, Err: io.ErrUnexpectedEOF}, "xrayfdr: offset 3: unexpected EOF"},
		{&SyntaxError{Line: 2, Err: ErrTooLarge}, "xrayfdr: line 2: size beyond limit"},
		{invalid("function id %d does not fit 28 bits", 1<<28),
			"xrayfdr: invalid record: function id 268435456 does not fit 28 bits"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	for _, e := range []error{ErrHeader, ErrVersion, ErrTooLarge, ErrOverflow, ErrInvalid, ErrClosed, ErrNotOpen} {
		if !strings.HasPrefix(e.Error(), "xrayfdr: ") {
			t.Errorf("sentinel %q lacks the package prefix", e)
		}
	}
}

func TestWriterClose(t *testing.T) {
	var out bytes.Buffer
	wr, err := NewWriter(&out, Header{Version: 5, Type: TypeFDR})
	if err != nil {
		t.Fatal(err)
	}
	// llvm-xray convert refuses a log without records: Close writes the
	// header and says so.
	if err := wr.Close(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Close of an empty log: %v", err)
	}
	if out.Len() != HeaderSize {
		t.Errorf("Close wrote %d bytes, want the header", out.Len())
	}
	out.Reset()
	if err := wr.Reset(&out, Header{Version: 5, Type: TypeFDR}); err != nil {
		t.Fatal(err)
	}
	if err := wr.WriteBuffer(validBlock(rand.New(rand.NewSource(1)), 5, 1, 2, 3, 4, 5)); err != nil {
		t.Fatal(err)
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wr.Write(&Record{Kind: KindBufferExtents}); err != ErrClosed {
		t.Errorf("Write after Close: %v", err)
	}
	if err := wr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := wr.Reset(&out, Header{Version: 5, Type: TypeFDR}); err != nil {
		t.Errorf("Reset after Close: %v", err)
	}
}

// editLog rewrites data keeping the records keep accepts, and adding the
// records add returns after each record.
func editLog(t *testing.T, data []byte, keep func(*Record) bool, add func(*Record) []Record) []byte {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	wr, err := NewWriter(&out, rd.Header())
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		if keep != nil && !keep(rec) {
			continue
		}
		if err := wr.Write(rec); err != nil {
			t.Fatal(err)
		}
		if add != nil {
			for _, r := range add(rec) {
				if err := wr.Write(&r); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestWriterKeepsExtents drops and adds records in real logs; every
// buffer's extents must cover exactly its records, so our Verify accepts
// the result, and llvm-xray-14 or -19 (every other edit) reads it as we do
// (with the tools present).
func TestWriterKeepsExtents(t *testing.T) {
	type edit struct {
		name string
		keep func(*Record) bool
		add  func(*Record) []Record
	}
	dropFunc := func(id int32) func(*Record) bool {
		return func(r *Record) bool { return r.Kind != KindFunction || r.FuncID != id }
	}
	edits := []edit{
		{"drop-func-2", dropFunc(2), nil},
		{"drop-func-3", dropFunc(3), nil},
		{"drop-events", func(r *Record) bool { return r.Kind != KindCustomEvent && r.Kind != KindTypedEvent }, nil},
		{"add-calls", nil, func(r *Record) []Record {
			if r.Kind != KindNewCPU {
				return nil
			}
			return []Record{{Kind: KindFunction, Action: Enter, FuncID: 77, Delta: 1},
				{Kind: KindFunction, Action: Exit, FuncID: 77, Delta: 2}}
		}},
	}
	inputs := []string{"testdata/fdr_simple.xray", "testdata/fdr_threads.xray", "testdata/fdr_typed.xray",
		"testdata/synthetic-v3.xray", "testdata/synthetic-v5.xray", "testdata/synthetic-v2.xray"}
	var tools []xraytest.Tool
	if _, err := os.Stat("/usr/bin/llvm-xray-14"); err == nil || testutil.InCI() {
		tools = xraytest.Tools(t)
	}
	dir := t.TempDir()
	n := 0
	for _, in := range inputs {
		data := testutil.ReadFile(t, in)
		// drop-tail drops the log's last function record: its buffer's
		// records still follow each other as read, but end early.
		var lastFunc int64 = -1
		rd, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for rec, err := range rd.All() {
			if err != nil {
				t.Fatal(err)
			}
			if rec.Kind == KindFunction {
				lastFunc = rec.Offset
			}
		}
		dropTail := edit{"drop-tail", func(r *Record) bool { return r.Offset < lastFunc }, nil}
		for _, e := range append(edits, dropTail) {
			name := strings.TrimSuffix(filepath.Base(in), ".xray") + "/" + e.name
			t.Run(name, func(t *testing.T) {
				out := editLog(t, data, e.keep, e.add)
				if err := Verify(out); err != nil {
					t.Fatalf("the edited log does not verify: %v", err)
				}
				checkExtents(t, out)
				if tools == nil {
					return
				}
				tool := tools[n%len(tools)]
				n++
				p := filepath.Join(dir, strings.ReplaceAll(name, "/", "-"))
				if err := os.WriteFile(p, out, 0o644); err != nil {
					t.Fatal(err)
				}
				if _, msg := xraytest.LLVMRun(t, tool.Path, "fdr-dump", "-verify", p); msg != "" {
					t.Errorf("%s fdr-dump -verify refuses the edited log: %s", tool.Name(), msg)
				}
				mustConvert(t, tool, p)
			})
		}
	}
}

// checkExtents checks that every buffer of a version 2+ log holds exactly
// the bytes its BufferExtents record announces.
func checkExtents(t *testing.T, data []byte) {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if rd.Header().Version < 2 {
		return
	}
	var ext, got uint64
	open := false
	check := func() {
		if open && ext != got {
			t.Errorf("buffer announces %d bytes, holds %d", ext, got)
		}
	}
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind == KindBufferExtents {
			check()
			ext, got, open = rec.Extents, 0, true
			continue
		}
		got += uint64(rec.Size(false))
	}
	check()
}

func TestWriterRefusesOutsideBuffers(t *testing.T) {
	wr, _ := NewWriter(io.Discard, Header{Version: 3, Type: TypeFDR})
	if err := wr.Write(&Record{Kind: KindNewBuffer}); !errors.Is(err, ErrInvalid) {
		t.Errorf("record before the first BufferExtents: %v", err)
	}
	// version 1 has no extents: a BufferExtents record (llvm-xray reads
	// and ignores it) is written as given
	var v1 bytes.Buffer
	wr, _ = NewWriter(&v1, Header{Version: 1, Type: TypeFDR})
	wr.Write(&Record{Kind: KindBufferExtents, Extents: 99})
	wr.Write(&Record{Kind: KindNewBuffer, TID: 1})
	wr.Write(&Record{Kind: KindWallTime})
	wr.Write(&Record{Kind: KindNewCPU})
	if err := wr.Close(); err != nil || v1.Bytes()[HeaderSize+1] != 99 {
		t.Errorf("BufferExtents in version 1: %v, % x", err, v1.Bytes())
	}
}

func TestStrict(t *testing.T) {
	var buf bytes.Buffer
	wr, _ := NewWriter(&buf, Header{Version: 2, Type: TypeFDR})
	wr.Write(&Record{Kind: KindBufferExtents})
	wr.Write(&Record{Kind: KindNewBuffer})
	wr.Write(&Record{Kind: KindWallTime})
	wr.Write(&Record{Kind: KindPid, PID: 3}) // llvm-xray reads it; no runtime writes it in v2
	wr.Write(&Record{Kind: KindNewCPU})
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	for _, strict := range []bool{false, true} {
		rd := &Reader{Strict: strict}
		if err := rd.Reset(bytes.NewReader(buf.Bytes())); err != nil {
			t.Fatal(err)
		}
		var err error
		for _, err = range rd.All() {
			if err != nil {
				break
			}
		}
		if strict != errors.Is(err, ErrMetadataKind) {
			t.Errorf("strict %v: %v", strict, err)
		}
	}
}

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, and those given a nil pointer, interface or
// function return an error.
func TestNilArguments(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/fdr_simple.xray")
	rd, err := NewBytesReader(data)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(io.Discard, rd.Header())
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Expand(data, true)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := rd.Read()
	if err != nil {
		t.Fatal(err)
	}
	walk := func(*Event) error { return nil }
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{
			"AppendText": AppendText, "Dump": Dump, "DumpVerify": DumpVerify, "Expand": Expand,
			"Index": Index, "NewBytesReader": NewBytesReader, "NewReader": NewReader,
			"NewWriter": NewWriter, "Verify": Verify, "Walk": Walk, "WriteYAML": WriteYAML,
			"WriteYAMLNames": WriteYAMLNames,
		},
		Types: []any{
			new(Action), new(Block), new(Event), new(EventKind), new(FormatError), new(Group),
			new(Header), new(Kind), new(LLVM), new(Reader), new(Record), new(State), new(SyntaxError),
			new(Trace), new(Verifier), new(Walker), new(Writer),
		},
		Open: []any{rd, w, tr},
		Samples: map[string][]any{
			"AppendText":     {[]byte(nil), rd.Header().Version, rec},
			"Dump":           {io.Discard, bytes.NewReader(data)},
			"DumpVerify":     {io.Discard, data},
			"Walk":           {data, walk},
			"WriteYAML":      {io.Discard, tr},
			"WriteYAMLNames": {io.Discard, tr, func(int32) string { return "" }},
			"Writer.Write":   {rec},
		},
		AllowNil: []string{"FormatError.Unwrap", "SyntaxError.Unwrap"},
		NotOpen:  ErrNotOpen,
	})
}
