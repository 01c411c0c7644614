package gotraceraw

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

const canonical = `Trace Go1.26
EventBatch gen=1 m=18446744073709551615 time=100 size=27
Strings
String id=1
	data="hello"
String id=2
	data=""
Stack id=1 nframes=2
	pc=4242 func=1 file=2 line=10
	pc=4243 func=1 file=2 line=11
ProcStop dt=7
`

// TestTextVariants reads texts that Go's TextReader also accepts, and
// one it refuses (a String with no data line), to the same events as
// the canonical text, or with nil data.
func TestTextVariants(t *testing.T) {
	_, want := readTextEvents(t, []byte(canonical))
	if want[3].Data == nil || len(want[3].Data) != 0 {
		t.Fatalf(`data="" read as %#v, want empty and not nil`, want[3].Data)
	}
	for name, text := range map[string]string{
		"comments and blank lines": "# a comment\n\nTrace Go1.26\n  # indented comment\nEventBatch gen=1 m=18446744073709551615 time=100 size=27\n\n" +
			"Strings\nString id=1\n# between event and data\n\tdata=\"hello\"\nString id=2\n\tdata=\"\"\nStack id=1 nframes=2\n\n\tpc=4242 func=1 file=2 line=10\n#\n\tpc=4243 func=1 file=2 line=11\nProcStop dt=7\n",
		"unicode spaces": "Trace\u3000Go1.26\u00a0\nEventBatch\u2003gen=1\tm=18446744073709551615\u00a0time=100 size=27\u2029\n" +
			"Strings\nString id=1\n\u0085data=\"hello\"\nString\v\fid=2\n\tdata=\"\"\nStack id=1 nframes=2\n pc=4242 func=1 file=2 line=10\n\tpc=4243  func=1   file=2\tline=11\r\nProcStop dt=7 \n",
		"leading zeros": "Trace Go1.026\nEventBatch gen=01 m=18446744073709551615 time=00100 size=27\nStrings\nString id=1\n\tdata=\"hello\"\nString id=2\n\tdata=\"\"\n" +
			"Stack id=1 nframes=002\n\tpc=4242 func=1 file=2 line=10\n\tpc=4243 func=1 file=2 line=0011\nProcStop dt=0007\n",
		"crlf": strings.ReplaceAll(canonical, "\n", "\r\n"),
		"other quotes": "Trace Go1.26\nEventBatch gen=1 m=18446744073709551615 time=100 size=27\nStrings\nString id=1\n\t data = `hello` \nString id=2\n\tdata=``\n" +
			"Stack id=1 nframes=2\n\tpc=4242 func=1 file=2 line=10\n\tpc=4243 func=1 file=2 line=11\nProcStop dt=7\n",
		"escapes": "Trace Go1.26\nEventBatch gen=1 m=18446744073709551615 time=100 size=27\nStrings\nString id=1\n\tdata=\"\\x68\\u0065l\\154o\"\nString id=2\n\tdata=\"\"\n" +
			"Stack id=1 nframes=2\n\tpc=4242 func=1 file=2 line=10\n\tpc=4243 func=1 file=2 line=11\nProcStop dt=7\n",
	} {
		_, got := readTextEvents(t, []byte(text))
		testutil.Diff(t, name, want, got)
	}

	// A String with no data line, before another event and at the end:
	// empty data, read back as nil and printed again without a data line.
	noData := "Trace Go1.25\nEventBatch gen=1 m=2 time=3 size=11\nStrings\nString id=1\nString id=2\n\tdata=\"x\"\nString id=3\n"
	_, got := readTextEvents(t, []byte(noData))
	if len(got) != 5 || got[2].Data != nil || string(got[3].Data) != "x" || got[4].Data != nil || got[4].Args[0] != 3 {
		t.Fatalf("events %v", got)
	}
	back, err := textToText([]byte(noData))
	if err != nil || string(back) != noData {
		t.Errorf("text to text: %q, %v", back, err)
	}
	wire, err := toWire([]byte(noData), false)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := toText(wire); err != nil || string(back) != noData {
		t.Errorf("text to wire to text: %q, %v", back, err)
	}
}

func TestTextErrors(t *testing.T) {
	body := "Trace Go1.26\nStrings\n"
	for _, tc := range []struct {
		text string
		want error
		line int
	}{
		{"", io.ErrUnexpectedEOF, 0},
		{"# only a comment\n\n", io.ErrUnexpectedEOF, 2},
		{"Trace Go1.24\n", ErrVersion, 1},
		{"Trace Go1.21\n", ErrV1, 1},
		{"\nTrace go1.26\n", ErrHeader, 2},
		{"Trace Go1.26 extra\n", ErrHeader, 1},
		{"Trace Go1.26 # comment\n", ErrHeader, 1},
		{"Trace Go1.x\n", ErrHeader, 1},
		{"trace Go1.26\n", ErrHeader, 1},
		{body + "procstop dt=1\n", ErrEventType, 3},
		{body + "GoSwitch dt=1 g=1 g_seq=1\n", nil, 0},
		{"Trace Go1.22\nGoSwitch dt=1 g=1 g_seq=1\n", ErrEventType, 2},
		{body + "ProcStop dt=5 # c\n", ErrSyntax, 3},
		{body + "ProcStop dt=5#c\n", ErrSyntax, 3},
		{body + "ProcStart dt=1 p_seq=2 p=3\n", ErrSyntax, 3},
		{body + "ProcStart dt=1 p=3\n", ErrSyntax, 3},
		{body + "ProcStop dt=1 x=2\n", ErrSyntax, 3},
		{body + "ProcStop dt = 5\n", ErrSyntax, 3},
		{body + "ProcStop dt=+7\n", ErrSyntax, 3},
		{body + "ProcStop dt=0x7\n", ErrSyntax, 3},
		{body + "ProcStop dt=1_000\n", ErrSyntax, 3},
		{body + "ProcStop dt=18446744073709551616\n", ErrSyntax, 3},
		{body + "ProcStop dt=\n", ErrSyntax, 3},
		{body + "ProcStop\n", ErrSyntax, 3},
		{body + "Stack id=1 nframes=2\n\tpc=1 func=2 file=3 line=4\n", io.ErrUnexpectedEOF, 4},
		{body + "Stack id=1 nframes=1\n\tpc=1 file=2 func=3 line=4\n", ErrSyntax, 4},
		{body + "Stack id=1 nframes=99999999\n", ErrTooLarge, 3},
		{body + "String id=1\n\tdata=\"abc\n", ErrSyntax, 4},
		{body + "String id=1\n\tdata=\"abc\" # c\n", ErrSyntax, 4},
		{body + "String id=1\n\tdata=abc\n", ErrSyntax, 4},
		{body + "String id=1\n\tdata='ab'\n", ErrSyntax, 4},
		{body + "String id=1\n\tData=\"abc\"\n", ErrEventType, 4}, // not a data line: read as the next event
		// A last line without its newline was cut, maybe inside a number.
		{"Trace Go1.26", io.ErrUnexpectedEOF, 1},
		{body + "ProcStop dt=1", io.ErrUnexpectedEOF, 3},
		{body + "ProcStop dt=1\n# comment", io.ErrUnexpectedEOF, 4},
		{body + "String id=1\n\t", io.ErrUnexpectedEOF, 4},
		{body + "String id=1\n\tdata=\"abc\"", io.ErrUnexpectedEOF, 4},
		{body + "Stack id=1 nframes=1\n\tpc=1 func=2 file=3 line=4", io.ErrUnexpectedEOF, 4},
	} {
		_, err := readAllText(strings.NewReader(tc.text), nil)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%q: %v", tc.text, err)
			}
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%q: error %v, want %v", tc.text, err, tc.want)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != tc.line {
			t.Errorf("%q: %v: want line %d", tc.text, err, tc.line)
		}
		if strings.Count(err.Error(), "gotraceraw") != 1 {
			t.Errorf("%q: %q does not name the package once", tc.text, err)
		}
	}
	// Limits.
	r, err := NewTextReader(strings.NewReader(body + "String id=1\n\tdata=\"abcdef\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	r.MaxDataLen = 5
	r.Read()
	if _, err := r.Read(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxDataLen: %v", err)
	}
	long := body + "ProcStop dt=1" + strings.Repeat(" ", 200<<10) + "\n"
	if _, err := readAllText(strings.NewReader(long), func(r *TextReader) { r.MaxLineLen = 100 << 10 }); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxLineLen: %v", err)
	}
	if _, err := readAllText(strings.NewReader(long), nil); err != nil {
		t.Errorf("a 200 KiB line: %v", err)
	}
}

// readAllText reads a whole text trace, after configuring the reader.
func readAllText(rd io.Reader, config func(*TextReader)) (int, error) {
	var r TextReader
	if config != nil {
		config(&r)
	}
	if err := r.Reset(rd); err != nil {
		return 0, err
	}
	n := 0
	for {
		if _, err := r.Read(); err != nil {
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
		n++
	}
}

// TestQuote compares appendQuote with strconv.Quote on the strings real
// traces hold and on awkward ones.
func TestQuote(t *testing.T) {
	for _, s := range []string{"", "hello", "héllo 日本語 🚀", "a\"b\\c", "\t\n\r\a\b\f\v\x00\x01\x7f", "\xff\xfe", "\u200b\u00ad\ufeff", "\U0001f680\U000e0001",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", string(rune(0x10ffff)), "\u0085\u00a0", strings.Repeat("x", 2000)} {
		if got, want := string(appendQuote(nil, []byte(s))), strconv.Quote(s); got != want {
			t.Errorf("appendQuote(%q) = %s, want %s", s, got, want)
		}
	}
	for r := rune(0); r <= utf8.MaxRune; r += 7 {
		s := string(r)
		if got, want := string(appendQuote(nil, []byte(s))), strconv.Quote(s); got != want {
			t.Fatalf("appendQuote(%U) = %s, want %s", r, got, want)
		}
	}
}

func TestTextTruncations(t *testing.T) {
	text := testutil.ReadFile(t, "testdata/gotest.txt.gz")
	// A cut inside a line is a malformed or shorter line; a cut inside a
	// Stack's frames is io.ErrUnexpectedEOF.
	testutil.CheckTruncations(t, text, func(rd io.Reader) error {
		_, err := readAllText(rd, nil)
		return err
	}, testutil.TruncOptions{
		Step: 3,
		Allow: func(n int, err error) bool {
			for _, ok := range []error{ErrSyntax, ErrEventType, ErrHeader, ErrVersion, ErrV1} {
				if errors.Is(err, ok) {
					return true
				}
			}
			return false
		},
	})
}

func TestTextWriterIdentity(t *testing.T) {
	// Events built by hand print like Go's Event.String.
	e := Event{Version: Go126, Type: EvUserLog, Args: []uint64{1, 2, 3, 4, 5}}
	if got, want := e.String(), "UserLog dt=1 task=2 key_string=3 value_string=4 stack=5"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	var b bytes.Buffer
	w, _ := NewTextWriter(&b, Header{Version: Go126})
	for _, e := range []*Event{{Type: EvEventBatch, Args: []uint64{1, 2, 3, 0}}, {Type: EvString, Args: []uint64{1}, Data: []byte{}}} {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if got := b.String(); got != "Trace Go1.26\nEventBatch gen=1 m=2 time=3 size=3\nString id=1\n\tdata=\"\"\n" {
		t.Errorf("got %q", got)
	}
	if bytes.Contains(b.Bytes(), []byte("\r")) {
		t.Error("CR in output")
	}
}

// TestLookup checks the text readers' name lookup against the tables.
func TestLookup(t *testing.T) {
	for _, v := range Versions {
		n := 0
		for _, typ := range v.Types() {
			s, _ := v.Spec(typ)
			got, ok := v.table().lookup([]byte(s.Name))
			if !ok || got != typ {
				t.Errorf("%v: lookup(%q) = %v, %v", v, s.Name, got, ok)
			}
			if got2, ok := v.Lookup(s.Name); !ok || got2 != typ {
				t.Errorf("%v: Lookup(%q) = %v, %v", v, s.Name, got2, ok)
			}
			n++
		}
		for _, bad := range []string{"", "Stack ", "stack", "GoStar", "GoStartX", "EndOfGeneration"} {
			if typ, ok := v.table().lookup([]byte(bad)); ok && (bad != "EndOfGeneration" || v != Go126) {
				t.Errorf("%v: lookup(%q) = %v", v, bad, typ)
			}
		}
		want := map[Version]int{Go122: 44, Go123: 58, Go125: 60, Go126: 61}[v]
		if n != want {
			t.Errorf("%v has %d types, want %d", v, n, want)
		}
	}
}

func TestAppendUint(t *testing.T) {
	for _, v := range []uint64{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, 1<<32 - 1, 1 << 63, 1<<64 - 1, 10000000000000000000} {
		if got, want := string(appendUint(nil, v)), strconv.FormatUint(v, 10); got != want {
			t.Errorf("appendUint(%d) = %s", v, got)
		}
	}
	for v := uint64(0); v < 100000; v++ {
		if got, want := string(appendUint(nil, v)), strconv.FormatUint(v, 10); got != want {
			t.Fatalf("appendUint(%d) = %s", v, got)
		}
	}
}

func TestTextReadAllocs(t *testing.T) {
	text := testutil.ReadFile(t, "testdata/gcgens.txt.gz")
	var r TextReader
	br := bytes.NewReader(text)
	allocs := testing.AllocsPerRun(20, func() {
		br.Reset(text)
		if err := r.Reset(br); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := r.Read(); err != nil {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per trace, want 0", allocs)
	}
}

// TestSameSlices: an event decodes to the same Go values, nil or not,
// from either form, wherever its line ends (a fuzz finding: the last
// line without its newline gave nil Args).
func TestSameSlices(t *testing.T) {
	wire := cat(header(26), ev(EvEventBatch, 1, 2, 3, 1), ev(EvSync))
	_, fromWire := readEvents(t, wire)
	for _, text := range []string{
		"Trace Go1.26\nEventBatch gen=1 m=2 time=3 size=1\nSync\n",
	} {
		_, fromText := readTextEvents(t, []byte(text))
		testutil.Diff(t, fmt.Sprintf("%q", text), fromWire, fromText)
		if fromText[1].Args == nil {
			t.Errorf("%q: nil Args", text)
		}
	}
	for _, text := range []string{"Trace Go1.26\nSync\n"} {
		var r TextReader
		if err := r.Reset(strings.NewReader(text)); err != nil {
			t.Fatal(err)
		}
		if e, err := r.Read(); err != nil || e.Args == nil || len(e.Args) != 0 {
			t.Errorf("%q: %#v, %v", text, e, err)
		}
	}
}

// TestGo122CPUSample reads the names Go 1.22's tools print for CPUSample
// ("time p g m stack"; the runtime writes m, p, g) as the same values in
// wire order, and prints Go 1.23's names.
func TestGo122CPUSample(t *testing.T) {
	go122 := "Trace Go1.22\nEventBatch gen=1 m=18446744073709551615 time=3 size=7\nCPUSamples\nCPUSample time=100 p=11 g=22 m=33 stack=4\n"
	_, evs := readTextEvents(t, []byte(go122))
	testutil.Diff(t, "args", []uint64{100, 11, 22, 33, 4}, evs[2].Args)
	back, err := textToText([]byte(go122))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(go122, "p=11 g=22 m=33", "m=11 p=22 g=33", 1)
	testutil.DiffText(t, "text", []byte(want), back)
	// Go 1.23's names read under Go1.22 too; Go 1.22's only there.
	if _, evs := readTextEvents(t, []byte(want)); !slices.Equal(evs[2].Args, []uint64{100, 11, 22, 33, 4}) {
		t.Errorf("Go 1.23 names: %v", evs[2].Args)
	}
	if _, err := readAllText(strings.NewReader(strings.Replace(go122, "Go1.22", "Go1.23", 1)), nil); !errors.Is(err, ErrSyntax) {
		t.Errorf("Go 1.22 names in a Go1.23 trace: %v", err)
	}
	// Wire: the bytes Go 1.22's runtime wrote, printed with Go 1.23's names.
	wire, err := toWire([]byte(go122), true)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := toText(wire)
	testutil.DiffText(t, "wire to text", []byte(want), text)
}
