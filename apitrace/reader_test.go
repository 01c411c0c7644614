package apitrace

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// fixture describes a real trace: facts from fixtures/apitrace/README.md,
// which were read off the real tool.
type fixture struct {
	name      string
	shared    bool // only in ../shared/fixtures/apitrace (large)
	version   uint64
	semantic  uint64
	container Container
	props     int
	calls     int // enter events
	truncated bool
}

var fixtures = []fixture{
	{name: "incomplete-call.trace", version: 2, semantic: 2, calls: 8},
	{name: "zlib-no-eof.trace", version: 1, semantic: 1, container: Gzip, calls: 32, truncated: true},
	{name: "tri.trace", version: 4, semantic: 4, calls: 33},
	{name: "glxsimple.trace", version: 4, semantic: 4, calls: 922},
	{name: "tri_glsl.trace", version: 5, semantic: 5, calls: 6939},
	{name: "tri.trim.trace", version: 6, semantic: 4, calls: 21},
	{name: "glxinfo-brief.trace", version: 6, semantic: 6, props: 1, calls: 571},
	{name: "glxinfo-brief-backtrace.trace", version: 6, semantic: 6, props: 1, calls: 571},
	{name: "glxinfo-brief.gzip.trace", version: 6, semantic: 6, props: 1, container: Gzip, calls: 571},
	{name: "es2_info.trace", version: 6, semantic: 6, props: 1, calls: 23},
	{name: "threads.trace", version: 6, semantic: 6, props: 1, calls: 1629},
	{name: "glxgears-20s.trace", shared: true, version: 6, semantic: 6, props: 1, calls: 778015},
}

func fixturePath(t testing.TB, f fixture) string {
	if f.shared {
		return testutil.SharedFixture(t, "apitrace/"+f.name)
	}
	return filepath.Join("testdata", f.name)
}

func readFixture(t testing.TB, f fixture) []byte {
	data, err := os.ReadFile(fixturePath(t, f))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestReadFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			data := readFixture(t, f)
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			h := r.Header()
			if h.Version != f.version || h.SemanticVersion != f.semantic || h.Container != f.container || len(h.Properties) != f.props {
				t.Fatalf("header %+v, want version %d/%d %v with %d properties", h, f.version, f.semantic, f.container, f.props)
			}
			if f.props > 0 && h.Properties[0].Name != "process.name" {
				t.Errorf("first property %q", h.Properties[0].Name)
			}
			enters := 0
			var last error
			for {
				ev, err := r.Read()
				if err != nil {
					last = err
					break
				}
				if ev.Kind == Enter {
					if ev.Call != uint64(enters) {
						t.Fatalf("enter %d numbered %d", enters, ev.Call)
					}
					enters++
					if ev.Sig == nil || ev.Sig.Name == "" {
						t.Fatalf("call %d without a signature", ev.Call)
					}
				}
			}
			if enters != f.calls {
				t.Errorf("%d calls, want %d", enters, f.calls)
			}
			if raw, _ := stream(t, data); r.Decompressed() != int64(len(raw)) {
				t.Errorf("Decompressed() = %d at the end, stream has %d bytes", r.Decompressed(), len(raw))
			}
			if f.truncated {
				var fe *FormatError
				if !errors.As(last, &fe) || !errors.Is(last, io.ErrUnexpectedEOF) {
					t.Fatalf("end: %v, want a FormatError wrapping io.ErrUnexpectedEOF", last)
				}
			} else if last != io.EOF {
				t.Fatalf("end: %v", last)
			}
			if _, err := r.Read(); err != last {
				t.Errorf("error not sticky: %v then %v", last, err)
			}
		})
	}
}

// dumpLine matches a call line of `apitrace dump -v --color=never`.
var dumpLine = regexp.MustCompile(`^(\d+) (@[0-9a-f]+ )?([A-Za-z_][A-Za-z0-9_:]*)\(`)

// dumpCalls returns call number, name and incompleteness of every call the
// real apitrace dump printed, in its order.
func dumpCalls(t *testing.T, path string) []string {
	data := testutil.ReadFile(t, path)
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		line := sc.Text()
		m := dumpLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := m[1] + " " + m[2] + m[3]
		if strings.HasSuffix(line, " incomplete") {
			s += " incomplete"
		}
		out = append(out, s)
	}
	return out
}

// TestCallOrder checks that calls come in the order the real apitrace dump
// prints them (leave order, then pending calls in enter order), with the
// same incomplete marks.
func TestCallOrder(t *testing.T) {
	for _, tc := range []struct{ trace, dump string }{
		{"incomplete-call.trace", "incomplete-call.dump-verbose.txt"},
		{"glxinfo-brief.trace", "glxinfo-brief.dump-verbose.txt"},
		{"es2_info.trace", "es2_info.dump-verbose.txt"},
		{"tri.trim.trace", "tri.trim.dump-verbose.txt"},
		{"zlib-no-eof.trace", "zlib-no-eof.dump.txt"},
		{"glxsimple.trace", "glxsimple.dump.txt"},
		{"tri_glsl.trace", "tri_glsl.dump.txt"},
		{"glxgears-20s.trace", "glxgears-20s.dump.txt.gz"},
		{"threads.trace", "threads.dump-verbose-tid.txt"},
	} {
		t.Run(tc.trace, func(t *testing.T) {
			if testing.Short() && strings.HasPrefix(tc.trace, "glxgears") {
				t.Skip("large")
			}
			dumpPath := filepath.Join("testdata", tc.dump)
			if _, err := os.Stat(dumpPath); err != nil {
				dumpPath = testutil.SharedFixture(t, "apitrace/"+tc.dump)
			}
			want := dumpCalls(t, dumpPath)
			path := filepath.Join("testdata", tc.trace)
			if _, err := os.Stat(path); err != nil {
				path = testutil.SharedFixture(t, "apitrace/"+tc.trace)
			}
			data := testutil.ReadFile(t, path)
			cr, err := NewCallReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			verbose := strings.Contains(tc.dump, "verbose")
			var got []string
			for {
				c, err := cr.Read()
				if err != nil {
					break
				}
				if !verbose && hiddenInDump(c) {
					continue
				}
				s := strconv.FormatUint(c.No, 10) + " "
				if strings.Contains(tc.dump, "tid") {
					s += "@" + strconv.FormatUint(c.Thread, 16) + " "
				}
				s += c.Name()
				if c.Incomplete {
					s += " incomplete"
				}
				got = append(got, s)
			}
			testutil.Diff(t, "calls", want, got)
		})
	}
}

// hiddenInDump reports whether apitrace dump hides the call without -v:
// the function is in apitrace's verbose table, or it is glGetError()
// returning 0.
func hiddenInDump(c *Call) bool {
	if c.Sig.Flags()&NameVerbose != 0 {
		return true
	}
	return c.Name() == "glGetError" && c.Ret.Kind() != KindNone && c.Ret.Int() == 0
}

func TestContainers(t *testing.T) {
	for _, tc := range []struct {
		name string
		head []byte
		want error
	}{
		// Cut short: a zstd frame header, a Brotli stream.
		{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0}, io.ErrUnexpectedEOF},
		{"brotli", []byte{0x1b, 0x03, 0x00, 0x00}, io.ErrUnexpectedEOF},
		// No magic, so Brotli, as apitrace tries; it is not Brotli.
		{"text", []byte("this is not a trace, nor any compressed stream\n"), ErrContainer},
	} {
		_, err := NewReader(bytes.NewReader(tc.head))
		var fe *FormatError
		if !errors.Is(err, tc.want) || !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a *FormatError wrapping %v", tc.name, err, tc.want)
		}
	}
	for _, head := range [][]byte{nil, {'a'}, {0x1f}, {0x28, 0xb5}} {
		if _, err := NewReader(bytes.NewReader(head)); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%x: %v, want io.ErrUnexpectedEOF", head, err)
		}
	}
	data := testutil.ReadFile(t, testutil.SharedFixture(t, "apitrace/glxinfo-brief.brotli.trace"))
	r, err := NewReader(bytes.NewReader(data))
	if err != nil || r.Header().Container != Brotli {
		t.Fatalf("real Brotli trace: %v, %v", err, r.Header().Container)
	}
}

// readAllCalls reads every call of a trace and returns the error that ended
// it, nil for a clean end.
func readAllCalls(in io.Reader) error {
	cr, err := NewCallReader(in)
	if err != nil {
		return err
	}
	for {
		_, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func errOffset(err error) (int64, bool) {
	var fe *FormatError
	if errors.As(err, &fe) {
		// A gzip stream has no chunks and no file offset to check.
		return max(fe.Chunk, 0), true
	}
	return 0, false
}

func TestTruncations(t *testing.T) {
	for _, f := range fixtures {
		if f.truncated || f.shared {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			data := readFixture(t, f)
			opts := testutil.TruncOptions{Offset: errOffset, Boundary: chunkBoundaries(data)}
			if len(data) > 5000 {
				// About 400 cuts: every byte of the first and last 64,
				// then a step that is no multiple of anything.
				opts.Step = len(data)/400 | 1
			}
			if testing.Short() {
				opts.Step = 997
			}
			if f.name == "incomplete-call.trace" {
				opts.OneByte = true
			}
			testutil.CheckTruncations(t, data, readAllCalls, opts)
		})
	}
}

// chunkBoundaries returns which cuts of a snappy file may end cleanly: only
// those after a whole chunk (the stream then may end between events).
func chunkBoundaries(data []byte) func(int) bool {
	ends := map[int]bool{len(data): true}
	if bytes.HasPrefix(data, []byte("at")) {
		for off := 2; off+4 <= len(data); {
			n := int(uint32(data[off]) | uint32(data[off+1])<<8 | uint32(data[off+2])<<16 | uint32(data[off+3])<<24)
			off += 4 + n
			ends[off] = true
		}
	}
	return func(n int) bool { return ends[n] }
}

// TestTruncatedKeepsCalls cuts a trace inside its chunk and checks that the
// calls before the cut come back, then the pending one as incomplete, then
// io.ErrUnexpectedEOF.
func TestTruncatedKeepsCalls(t *testing.T) {
	data, err := os.ReadFile("testdata/glxinfo-brief.trace")
	if err != nil {
		t.Fatal(err)
	}
	whole := 0
	for _, err := range mustCalls(t, data).All() {
		if err != nil {
			t.Fatal(err)
		}
		whole++
	}
	for _, cut := range []int{len(data) / 4, len(data) / 2, len(data) - 10} {
		cr := mustCalls(t, data[:cut])
		n, incomplete := 0, 0
		var last error
		for c, err := range cr.All() {
			if err != nil {
				last = err
				break
			}
			if c.Incomplete {
				incomplete++
			} else if incomplete > 0 {
				t.Fatalf("complete call %d after an incomplete one", c.No)
			}
			n++
		}
		if !errors.Is(last, io.ErrUnexpectedEOF) {
			t.Fatalf("cut %d: %v", cut, last)
		}
		if n == 0 || n >= whole || incomplete > 1 {
			t.Fatalf("cut %d: %d calls (%d incomplete) of %d", cut, n, incomplete, whole)
		}
	}
}

func mustCalls(t *testing.T, data []byte) *CallReader {
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return cr
}

func TestOneByteReader(t *testing.T) {
	data, err := os.ReadFile("testdata/tri.trace")
	if err != nil {
		t.Fatal(err)
	}
	a, b := 0, 0
	for _, err := range mustCalls(t, data).All() {
		if err != nil {
			t.Fatal(err)
		}
		a++
	}
	cr, err := NewCallReader(iotest.OneByteReader(bytes.NewReader(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range cr.All() {
		if err != nil {
			t.Fatal(err)
		}
		b++
	}
	if a != b {
		t.Fatalf("%d calls, %d through a one-byte reader", a, b)
	}
}

// TestNotATrace checks that NewReader refuses what is not a trace, other
// formats' files included, with ErrHeader in a *FormatError.
func TestNotATrace(t *testing.T) {
	for _, in := range testutil.Foreign(t) {
		if strings.HasSuffix(in.Name, ".trace") && !strings.Contains(in.Name, "gotest") {
			continue
		}
		_, err := NewReader(bytes.NewReader(in.Data))
		var fe *FormatError
		if !errors.Is(err, ErrHeader) || !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a *FormatError wrapping ErrHeader", in.Name, err)
		}
	}
	if !errors.Is(ErrContainer, ErrHeader) {
		t.Error("ErrContainer does not wrap ErrHeader")
	}
}

// TestStrict reads a trace edited into what no tracer writes, an integer
// in more bytes than it needs and a frame detail given twice: Strict
// refuses each where it stands, the default reads the trace as apitrace
// does.
func TestStrict(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	f := &Frame{ID: 0, Has: HasModule | HasLine, Module: "zzmod", Line: 5}
	sig := &FunctionSig{ID: 0, Name: "glFinish"}
	for _, ev := range []Event{{Kind: Enter, Call: 0, Sig: sig, Backtrace: []*Frame{f}}, {Kind: Leave, Call: 0}} {
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := stream(t, buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	detail := []byte("\x01\x05zzmod\x04\x05")
	if bytes.Count(s, detail) != 1 {
		t.Fatalf("the frame's details are not in the stream once: %q", s)
	}
	for _, c := range []struct {
		name, with string
		want       error
	}{
		{"line 5 in two bytes", "\x01\x05zzmod\x04\x85\x00", ErrNonMinimal},
		{"module twice", "\x01\x05zzmod\x01\x05zzmod\x04\x05", ErrBadDetail},
	} {
		data := container(bytes.Replace(s, detail, []byte(c.with), 1))
		for _, strict := range []bool{false, true} {
			r := &Reader{Strict: strict}
			if err := r.Reset(bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			var got *Frame
			for ev, err := range r.All() {
				if err != nil {
					got = nil
					if !strict || !errors.Is(err, c.want) {
						t.Errorf("%s, Strict %v: %v", c.name, strict, err)
					}
					var fe *FormatError
					if !errors.As(err, &fe) || fe.Offset <= int64(bytes.Index(s, detail)) {
						t.Errorf("%s: %v, not a FormatError past the start of the frame's details", c.name, err)
					}
					break
				}
				if len(ev.Backtrace) > 0 {
					got = ev.Backtrace[0]
				}
			}
			if !strict && (got == nil || got.Module != "zzmod" || got.Line != 5) {
				t.Errorf("%s, default: frame %+v, want zzmod line 5", c.name, got)
			}
			if strict && got != nil {
				t.Errorf("%s, Strict: read the frame %+v", c.name, got)
			}
		}
	}
}
