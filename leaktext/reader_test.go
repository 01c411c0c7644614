package leaktext

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// fixtures returns every committed report.
func fixtures(t testing.TB) []string {
	t.Helper()
	names, err := globFixtures()
	if err != nil || len(names) < 20 {
		t.Fatalf("fixtures: %d found, %v", len(names), err)
	}
	return names
}

func readAll(t testing.TB, data []byte, strict bool) (Header, []*Record) {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	rd.Strict = strict
	var recs []*Record
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec.Clone())
	}
	return rd.Header(), recs
}

func writeAll(t testing.TB, h Header, recs []*Record) []byte {
	t.Helper()
	b, err := writeRecords(h, recs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeRecords(h Header, recs []*Record) ([]byte, error) {
	var out bytes.Buffer
	w, err := NewWriter(&out, h)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// TestRoundTrip checks Write(Read(x)) == x on every real report, in
// strict mode, and that the real files need no verbatim lines: every line
// is rebuilt from the parsed fields.
func TestRoundTrip(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			h, recs := readAll(t, data, true)
			if h.Verbatim != nil && !emptyInside(h) {
				t.Errorf("header kept verbatim: %q", h.Verbatim)
			}
			for _, r := range recs {
				if r.Call.Verbatim != nil {
					t.Errorf("line %d kept verbatim: %q", r.Line, r.Call.Verbatim)
				}
				for _, f := range r.Call.Frames {
					if f.Verbatim != nil {
						t.Errorf("frame in record at line %d kept verbatim: %q", r.Line, f.Verbatim)
					}
				}
			}
			testutil.DiffText(t, name, data, writeAll(t, h, recs))
		})
	}
}

// emptyInside reports whether a header has an empty value before its
// last field, the one form the Reader keeps verbatim though the formatter
// writes it.
func emptyInside(h Header) bool {
	for _, f := range h.Fields[:max(len(h.Fields)-1, 0)] {
		if f.Value == "" {
			return true
		}
	}
	return false
}

// TestSharedFixturesRoundTrip runs the round trip on the shared fixture
// tree too, so a report added there is covered.
func TestSharedFixturesRoundTrip(t *testing.T) {
	dir := testutil.SharedFixture(t, "leaktext")
	names, _ := filepath.Glob(filepath.Join(dir, "*", "*.txt"))
	if len(names) == 0 {
		t.Fatal("no reports in", dir)
	}
	for _, name := range names {
		data := testutil.ReadFile(t, name)
		h, recs := readAll(t, data, false)
		testutil.DiffText(t, name, data, writeAll(t, h, recs))
	}
}

func TestKinds(t *testing.T) {
	data, _ := os.ReadFile("testdata/generated-x86_64/multi.txt")
	h, recs := readAll(t, data, true)
	if v, _ := h.Get(KeyOrigin); v != "sp-rtrace 1.8" {
		t.Errorf("origin %q", v)
	}
	count := map[Kind]int{}
	for _, r := range recs {
		count[r.Kind]++
	}
	want := map[Kind]int{KindComment: 3, KindContext: 2, KindResource: 3, KindMemoryMap: 10, KindCall: 22, KindBlank: 22}
	testutil.Diff(t, "kinds", want, count)
	var c18 Call
	for _, r := range recs {
		if r.Kind == KindCall && r.Call.Index == 18 {
			c18 = r.Call
		}
	}
	if string(c18.Func) != "open" || string(c18.Type) != "fd" || c18.Size != 1 || c18.ID != 4 || c18.Free ||
		!c18.HasTime || c18.Time != 23*60000+44*1000+327 || len(c18.Args) != 2 || len(c18.Frames) != 6 ||
		string(c18.Args[0].Value) != "/dev/null" || c18.Frames[0].Addr != 0x7f8ecbd37741 {
		t.Errorf("call 18: %+v", c18)
	}
}

func TestCompressedTrace(t *testing.T) {
	// "# allocation summary" sits between a group's calls and its frames:
	// the frames are a trace record.
	data, _ := os.ReadFile("testdata/upstream-v2.0/context.lc.txt")
	_, recs := readAll(t, data, true)
	var kinds []string
	for _, r := range recs[31:37] {
		kinds = append(kinds, r.Kind.String())
	}
	testutil.Diff(t, "kinds", []string{"call", "call", "call", "comment", "trace", "blank"}, kinds)
	if len(recs[35].Call.Frames) != 7 {
		t.Errorf("trace frames %d", len(recs[35].Call.Frames))
	}
}

func TestLenientLines(t *testing.T) {
	// Forms the C reader accepts that the formatter does not write: kept
	// verbatim, parsed all the same.
	in := "version=2.0, \n" +
		"1. [1:2:3.5] malloc(0010) = 0xABC trailing\n" +
		"\t0x0001  foo()\n" +
		"\t0xAB\n" +
		"2. @03 free(0x1)\n" +
		"\n"
	h, recs := readAll(t, []byte(in), true)
	if recs[0].Call.Time != 3600000+120000+3000+5 || recs[0].Call.Size != 10 || recs[0].Call.ID != 0xabc || recs[0].Call.Verbatim == nil {
		t.Errorf("call 1: %+v", recs[0].Call)
	}
	if f := recs[0].Call.Frames; len(f) != 2 || f[0].Addr != 1 || string(f[0].Resolved) != "foo()" || f[0].Verbatim == nil || f[1].Addr != 0xab {
		t.Errorf("frames: %+v", f)
	}
	if recs[1].Call.Context != 3 || !recs[1].Call.Free {
		t.Errorf("call 2: %+v", recs[1].Call)
	}
	testutil.DiffText(t, "lenient", []byte(in), writeAll(t, h, recs))
}

func TestComments(t *testing.T) {
	in := "version=2.0, \n" +
		"Process 1234 (demo) was created\n" +
		"\t$orphan = 1\n" +
		"<1> : memory (bad\n" +
		"1. malloc(5) = 0x10\n" +
		"# allocation summary: 1 block(s) with total size 5\n" +
		"\t0x10 in name+0x1a\n" +
		"\t$late = arg\n" +
		"\tnot a frame\n" +
		"99999999999999999999. malloc(1) = 0x1\n" +
		"\t0x11111111111111111111\n" +
		"\xff\xfe invalid utf-8\n"
	h, recs := readAll(t, []byte(in), false)
	var kinds []string
	for _, r := range recs {
		kinds = append(kinds, r.Kind.String())
	}
	want := []string{"comment", "trace", "comment", "call", "comment", "trace", "trace", "comment", "comment", "comment", "comment"}
	testutil.Diff(t, "kinds", want, kinds)
	testutil.DiffText(t, "comments", []byte(in), writeAll(t, h, recs))
	if !recs[4].Temporary() || recs[0].Temporary() {
		t.Error("Temporary")
	}
}

func TestStrict(t *testing.T) {
	for _, tc := range []struct {
		in   string
		line int
		err  error
	}{
		{"\t$orphan = 1\n", 2, ErrOrphan},
		{"99999999999999999999. malloc(1) = 0x1\n", 2, ErrOverflow},
		{"1. @100000000 malloc(1) = 0x1\n", 2, ErrOverflow},
		{"1. malloc(1) = 0x1\n\t0x11111111111111111111\n", 3, ErrOverflow},
		{"1. malloc(1) = \n", 2, ErrSyntax},
		{"1. malloc(1) = 0x1\n\t0xz\n", 3, ErrSyntax},
		{"1. malloc(1) = 0x1\n\t$x =\n", 3, ErrSyntax},
		{"4294967296. malloc(1) = 0x1\n", 2, ErrOverflow},
		{"1. malloc(2147483648) = 0x1\n", 2, ErrOverflow},
		{"1. [596:31:23.648] malloc(1) = 0x1\n", 2, ErrOverflow},
		{"1. malloc(1) = 0x1\n\t0x1\n\t0x2\n\t0x3\n\t0x4\n", 6, ErrDepth},
		{"1. malloc(1) = 0x1\n\t0x1\n\n\t0x2\n", 5, ErrOrphan},
	} {
		rd, err := NewReader(strings.NewReader("version=2.0, backtrace depth=3, \n" + tc.in))
		if err != nil {
			t.Fatal(err)
		}
		rd.Strict = true
		for {
			_, err = rd.Read()
			if err != nil {
				break
			}
		}
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != tc.line || !errors.Is(err, tc.err) {
			t.Errorf("%q: %v, want line %d %v", tc.in, err, tc.line, tc.err)
		}
		if _, err2 := rd.Read(); err2 != err {
			t.Errorf("%q: error not sticky: %v", tc.in, err2)
		}
	}
}

func TestLineLimit(t *testing.T) {
	long := "## " + strings.Repeat("x", 100) + "\n"
	rd, _ := NewReader(strings.NewReader("version=2.0, \n1. malloc(1) = 0x1\n" + long))
	rd.MaxLineLen = 100
	rec, err := rd.Read()
	if err != nil || rec.Kind != KindCall {
		t.Fatal(rec, err)
	}
	_, err = rd.Read()
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 || !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v", err)
	}
	// the default takes a 700-byte C++ frame and a 1 MiB comment; the
	// Writer writes the frame back, and refuses the comment, which
	// sp-rtrace's reader would split into pieces of 4095 bytes
	frame := "version=2.0, \n1. malloc(1) = 0x1\n\t0x1 " + strings.Repeat("std::x<", 100) + "\n"
	in := frame + "## " + strings.Repeat("y", DefaultMaxLineLen-3) + "\n"
	h, recs := readAll(t, []byte(in), true)
	if len(recs) != 2 || len(recs[1].Text) != DefaultMaxLineLen {
		t.Fatalf("%d records", len(recs))
	}
	testutil.DiffText(t, "long", []byte(frame), writeAll(t, h, recs[:1]))
	w, err := NewWriter(io.Discard, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs[1]); !errors.Is(err, ErrInvalid) {
		t.Errorf("writing a comment of 1 MiB: %v, want ErrInvalid", err)
	}
}

func TestCRLF(t *testing.T) {
	in := "version=2.0, \r\n1. malloc(1) = 0x1\r\n\t0x1 main()\r\n\r\n"
	h, recs := readAll(t, []byte(in), true)
	if !h.CRLF || len(recs) != 2 || string(recs[0].Call.Frames[0].Resolved) != "main()" {
		t.Fatalf("%+v %+v", h, recs)
	}
	testutil.DiffText(t, "crlf", []byte(in), writeAll(t, h, recs))
	rd, _ := NewReader(strings.NewReader("version=2.0, \r\n## x\n"))
	if _, err := rd.Read(); !errors.Is(err, ErrLineEnding) {
		t.Errorf("mixed endings: %v", err)
	}
	// in an LF report a CR is line content
	in = "version=2.0, \n## x\r\n"
	h, recs = readAll(t, []byte(in), true)
	testutil.DiffText(t, "cr", []byte(in), writeAll(t, h, recs))
}

func TestTruncated(t *testing.T) {
	for _, in := range []string{"", "version=2.0, ", "version=2.0, \n1. malloc(1) = 0x1"} {
		rd, err := NewReader(strings.NewReader(in))
		for err == nil {
			_, err = rd.Read()
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestTruncations(t *testing.T) {
	for _, name := range []string{"testdata/upstream-v2.0/shmsysv.txt", "testdata/upstream-v2.0/context.lc.txt", "testdata/generated-x86_64/multi.txt"} {
		data, _ := os.ReadFile(name)
		t.Run(name, func(t *testing.T) {
			testutil.CheckTruncations(t, data, func(r io.Reader) error {
				rd, err := NewReader(r)
				if err != nil {
					return err
				}
				rd.Strict = true
				for {
					if _, err := rd.Read(); err != nil {
						if err == io.EOF {
							return nil
						}
						return err
					}
				}
			}, testutil.TruncOptions{
				Boundary: func(n int) bool { return n > 0 && data[n-1] == '\n' },
				OneByte:  name == "testdata/upstream-v2.0/shmsysv.txt",
			})
		})
	}
}

func globFixtures() ([]string, error) { return filepath.Glob("testdata/*/*.txt") }

// TestManyTabLines: tab lines that are no frames, after a line that
// starts like a call, are each scanned once (a rescan per record would
// make this input quadratic).
func TestManyTabLines(t *testing.T) {
	in := "version=2.0, \n2010 was a year\n" + strings.Repeat("\tnot a frame\n", 200000) + "1. malloc(1) = 0x1\n" + strings.Repeat("\t0x1\n", 1000)
	h, recs := readAll(t, []byte(in), false)
	if len(recs) != 200002 || len(recs[200001].Call.Frames) != 1000 {
		t.Fatalf("%d records", len(recs))
	}
	testutil.DiffText(t, "tabs", []byte(in), writeAll(t, h, recs))
	rd, _ := NewReader(strings.NewReader("version=2.0, \n1. malloc(1) = 0x1\n" + strings.Repeat("\t0x1\n", 100)))
	rd.MaxFrames = 10
	_, err := rd.Read()
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxFrames: %v", err)
	}
}

func TestBinaryLog(t *testing.T) {
	data, err := os.ReadFile("testdata/generated-x86_64/multi.rtrace")
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewReader(bytes.NewReader(data))
	var se *SyntaxError
	if !errors.Is(err, ErrBinary) || !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("got %v", err)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestNotAReport checks that NewReader refuses, Strict or not, what is not
// a text report, other formats' files included: ErrHeader in a
// *SyntaxError at line 1. Every real report is still accepted.
func TestNotAReport(t *testing.T) {
	inputs := testutil.Foreign(t)
	for _, h := range []string{"version=2", "version=.0, arch=x", "version=2.0x, arch=x", "Version=2.0, ", " version=2.0, ", "arch=x86_64, version=2.0, "} {
		inputs = append(inputs, testutil.Input{Name: h, Data: []byte(h + "\n")})
	}
	// No line end for longer than MaxLineLen: refused at its first bytes.
	inputs = append(inputs, testutil.Input{Name: "long", Data: bytes.Repeat([]byte("x"), 2<<20)})
	for _, in := range inputs {
		if in.Name == "sample multi.txt" {
			continue
		}
		for _, strict := range []bool{false, true} {
			rd := &Reader{Strict: strict}
			err := rd.Reset(bytes.NewReader(in.Data))
			var se *SyntaxError
			if !errors.Is(err, ErrHeader) || !errors.As(err, &se) || se.Line != 1 {
				t.Errorf("%s (Strict %v): %v, want a *SyntaxError at line 1 wrapping ErrHeader", in.Name, strict, err)
			}
		}
	}
	// The long input is refused from its first read, not after a search
	// for its line end through MaxLineLen bytes.
	long := &countingReader{r: bytes.NewReader(bytes.Repeat([]byte("x"), 2<<20))}
	if err := new(Reader).Reset(long); !errors.Is(err, ErrHeader) || long.n > DefaultMaxLineLen/2 {
		t.Errorf("no line end: %v after reading %d bytes, want ErrHeader before %d", err, long.n, DefaultMaxLineLen/2)
	}
	for _, h := range []string{"version=2.0, arch=i686, ", "version=1.0, arch=x86_64-linux-gnu, time=2010.9.4 15:03:33, process=, pid=9399, ", "version=1.4", "version=10.12,arch=x"} {
		if _, err := NewReader(strings.NewReader(h + "\n")); err != nil {
			t.Errorf("%q: %v", h, err)
		}
	}
}
