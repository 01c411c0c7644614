package leaktext

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestWriterRefusesWhatReadsBackOtherwise writes, for each rule, a record
// that breaks it after a valid one, and checks that Write refuses it with
// a message naming the rule, that Check said so first, and that Close
// still writes the valid record.
func TestWriterRefusesWhatReadsBackOtherwise(t *testing.T) {
	call := func(c Call) *Record { return &Record{Kind: KindCall, Call: c} }
	f := []byte("malloc")
	for _, c := range []struct {
		name, rule string
		rec        *Record
	}{
		{"free with a size", "free of size 64", call(Call{Index: 2, Func: []byte("free"), Free: true, Size: 64, ID: 0x10})},
		{"time without a timestamp", "time 5 ms without HasTime", call(Call{Index: 2, Func: f, Time: 5, Size: 1, ID: 1})},
		{"call line that is no call", "does not read as a call", call(Call{Index: 2, Func: f, Verbatim: []byte("hello")})},
		{"call line beyond 32 bits", "keeps 32 bits", call(Call{Index: 1 << 32, Func: f, Size: 1, ID: 1, Verbatim: []byte("4294967296. malloc(1) = 0x1")})},
		{"stale call line", "does not hold the call's fields", call(Call{Index: 3, Func: f, Size: 1, ID: 1, Verbatim: []byte("2. malloc(1) = 0x01")})},
		{"frame line that is no frame", "does not read as a frame", call(Call{Index: 2, Func: f, Frames: []Frame{{Verbatim: []byte("main")}}})},
		{"stale frame line", "does not hold the frame's fields", call(Call{Index: 2, Func: f, Frames: []Frame{{Addr: 2, Verbatim: []byte("0x01")}}})},
		{"argument name with a line end", "argument", call(Call{Index: 2, Func: f, Args: []Arg{{Name: []byte("a\nb"), Value: []byte("1")}}})},
		{"memory map path with a line end", "memory map path", &Record{Kind: KindMemoryMap, Map: MemoryMap{Path: []byte("/lib\n: x"), Start: 1, End: 2}}},
		{"attachment name with a line end", "attachment", &Record{Kind: KindAttachment, Attachment: Attachment{Name: []byte("a\nb"), Path: []byte("p")}}},
		{"resource type with a line end", "resource", &Record{Kind: KindResource, Resource: Resource{ID: 1, Type: []byte("a\nb"), Desc: []byte("d")}}},
		// What sp-rtrace's reader (C strings, fixed buffers, lines read
		// through a 4096-byte fgets) would cut short, split or overflow.
		{"NUL in a function name", "NUL", call(Call{Index: 2, Func: []byte("mal\x00loc"), Size: 1, ID: 1})},
		{"NUL in an argument value", "NUL", call(Call{Index: 2, Func: f, Size: 1, ID: 1, Args: []Arg{{Name: []byte("a"), Value: []byte("x\x00y")}}})},
		{"NUL in a comment", "NUL", &Record{Kind: KindComment, Text: []byte("# a\x00b")}},
		{"frame line of 4096 bytes", "4096 bytes", call(Call{Index: 2, Func: f, Size: 1, ID: 1, Frames: []Frame{{Addr: 1, Resolved: bytes.Repeat([]byte("a"), 4096-len("\t0x1 \n"))}}})},
		{"comment of 1 MiB", "1048577 bytes", &Record{Kind: KindComment, Text: bytes.Repeat([]byte("#"), 1<<20)}},
		{"function name of 512 bytes", "function name of 512 bytes", call(Call{Index: 2, Func: bytes.Repeat([]byte("a"), 512), Size: 1, ID: 1})},
		{"resource type of 512 bytes in a call", "resource type of 512 bytes", call(Call{Index: 2, Func: f, Type: bytes.Repeat([]byte("a"), 512), Size: 1, ID: 1})},
		{"argument name of 128 bytes", "argument name of 128 bytes", call(Call{Index: 2, Func: f, Size: 1, ID: 1, Args: []Arg{{Name: bytes.Repeat([]byte("a"), 128), Value: []byte("1")}}})},
		{"context name of 512 bytes", "context name of 512 bytes", &Record{Kind: KindContext, Context: Context{ID: 1, Name: bytes.Repeat([]byte("a"), 512)}}},
		{"resource description of 512 bytes", "resource description of 512 bytes", &Record{Kind: KindResource, Resource: Resource{ID: 1, Type: []byte("t"), Desc: bytes.Repeat([]byte("d"), 512)}}},
		{"attachment name of 512 bytes", "attachment name of 512 bytes", &Record{Kind: KindAttachment, Attachment: Attachment{Name: bytes.Repeat([]byte("a"), 512), Path: []byte("p")}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, Header{Fields: []Field{{Key: KeyVersion, Value: "2.0"}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(call(Call{Index: 1, Func: f, Size: 8, ID: 0x10})); err != nil {
				t.Fatal(err)
			}
			cerr := w.Check(c.rec)
			err = w.Write(c.rec)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.rule) {
				t.Fatalf("Write: %v, want ErrInvalid saying %q", err, c.rule)
			}
			if cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("Check said %v before Write said %v", cerr, err)
			}
			if err2 := w.Write(&Record{Kind: KindBlank}); err2 != err {
				t.Errorf("Write after the refusal: %v", err2)
			}
			if err2 := w.Close(); err2 != err {
				t.Errorf("Close: %v, want the refusal", err2)
			}
			testutil.DiffText(t, "report", []byte("version=2.0, \n1. malloc(8) = 0x10\n"), buf.Bytes())
		})
	}
}

// TestWriterRefusesHeaders checks the header rules: nothing is written for
// a header the Reader would not take as a report's, or whose verbatim line
// says other than its fields.
func TestWriterRefusesHeaders(t *testing.T) {
	for _, c := range []struct {
		name, rule string
		h          Header
	}{
		{"no version", "does not start as a report's", Header{Fields: []Field{{Key: "pid", Value: "1"}}}},
		{"version not first", "does not start as a report's", Header{Fields: []Field{{Key: "arch", Value: "x"}, {Key: KeyVersion, Value: "2.0"}}}},
		{"line that is no header", "does not start as a report's", Header{Verbatim: []byte("package main")}},
		{"stale line", "does not hold the header's fields", Header{Verbatim: []byte("version=2.0, pid=1"), Fields: []Field{{Key: KeyVersion, Value: "2.0"}, {Key: KeyPID, Value: "2"}}}},
		{"NUL in a value", "NUL", Header{Fields: []Field{{Key: KeyVersion, Value: "2.0"}, {Key: KeyProcess, Value: "a\x00b"}}}},
		{"key of 256 bytes", "header key of 256 bytes", Header{Fields: []Field{{Key: KeyVersion, Value: "2.0"}, {Key: strings.Repeat("k", 256), Value: "1"}}}},
		{"line of 4120 bytes", "4120 bytes with its line end", Header{Fields: []Field{{Key: KeyVersion, Value: "2.0"}, {Key: KeyProcess, Value: strings.Repeat("p", 4096)}}}},
	} {
		var buf bytes.Buffer
		_, err := NewWriter(&buf, c.h)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.rule) {
			t.Errorf("%s: %v, want ErrInvalid saying %q", c.name, err, c.rule)
		}
		if buf.Len() > 0 {
			t.Errorf("%s: %q written", c.name, buf.Bytes())
		}
	}
	// A verbatim line without fields is taken, and its backtrace depth
	// applies.
	w, err := NewWriter(io.Discard, Header{Verbatim: []byte("version=2.0, backtrace depth=1,x")})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Record{Kind: KindCall, Call: Call{Index: 1, Func: []byte("f"), Frames: make([]Frame, 2)}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("2 frames under a verbatim depth of 1: %v", err)
	}
}

// TestWriterRefusalKeepsBuffered checks that a refusal after more records
// than the Writer flushes at once loses none of them.
func TestWriterRefusalKeepsBuffered(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Fields: []Field{{Key: KeyVersion, Value: "2.0"}}})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteString("version=2.0, \n")
	for i := range int64(5000) {
		c := Call{Index: i + 1, Func: []byte("malloc"), Size: 8, ID: uint64(i)}
		if err := w.Write(&Record{Kind: KindCall, Call: c}); err != nil {
			t.Fatal(err)
		}
		want.Write(AppendCall(nil, c))
		want.WriteString("\n")
	}
	if err := w.Write(&Record{Kind: KindCall, Call: Call{Free: true, Size: 1}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Write: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Flush: %v, want the refusal", err)
	}
	if err := w.Close(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Close: %v, want the refusal", err)
	}
	testutil.DiffText(t, "report", []byte(want.String()), buf.Bytes())
}

// TestWriterRealReaderBounds checks that what fits the real reader's
// bounds exactly is written: a line of 4095 bytes with its line end (in
// both line endings), a function name and resource type of 511 bytes, an
// argument name of 127, and that each reads back whole.
func TestWriterRealReaderBounds(t *testing.T) {
	for _, crlf := range []bool{false, true} {
		eol := 1
		if crlf {
			eol = 2
		}
		frame := Frame{Addr: 1, Resolved: bytes.Repeat([]byte("r"), realMaxLine-len("\t0x1 ")-eol)}
		c := Call{Index: 1, Func: bytes.Repeat([]byte("f"), realMaxName), Type: bytes.Repeat([]byte("t"), realMaxName), Size: 1, ID: 1,
			Args: []Arg{{Name: bytes.Repeat([]byte("a"), realMaxArg), Value: []byte("1")}}, Frames: []Frame{frame}}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, Header{Fields: []Field{{Key: KeyVersion, Value: "2.0"}}, CRLF: crlf})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Record{Kind: KindCall, Call: c}); err != nil {
			t.Fatalf("crlf %v: %v", crlf, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := rd.Read()
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Call; !sameCall(&got, &c) || len(got.Frames) != 1 || !bytes.Equal(got.Frames[0].Resolved, frame.Resolved) || !bytes.Equal(got.Args[0].Name, c.Args[0].Name) {
			t.Errorf("crlf %v: read back %+v", crlf, got)
		}
	}
}
