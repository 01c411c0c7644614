package apitrace

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// profileOf counts the calls of a trace and decodes the profile.
func profileOf(t *testing.T, data []byte) (*testutil.Profile, []byte) {
	t.Helper()
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var p Profile
	for c, err := range cr.All() {
		if err != nil {
			break // a cut trace: its calls still count, as in apitrace info
		}
		p.Add(c)
	}
	var out bytes.Buffer
	if err := p.WriteProfile(&out); err != nil {
		t.Fatal(err)
	}
	return testutil.DecodeProfile(t, out.Bytes()), out.Bytes()
}

// The profile's total is apitrace info's call count on every trace, and
// its calls per function are the trace's.
func TestProfileCalls(t *testing.T) {
	traces, _ := filepath.Glob("testdata/*.trace")
	if len(traces) < 8 {
		t.Fatalf("only %d traces in testdata", len(traces))
	}
	for _, name := range traces {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := ReadInfo(bytes.NewReader(data), false)
		prof, _ := profileOf(t, data)
		if got := prof.Totals()[0]; got != int64(info.CallsCount) {
			t.Errorf("%s: %d calls in the profile, apitrace info counts %d", name, got, info.CallsCount)
		}
		want := map[string]int64{}
		cr, err := NewCallReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for c, err := range cr.All() {
			if err != nil {
				break
			}
			want[c.Name()]++
		}
		got := map[string]int64{}
		for _, s := range prof.Samples {
			got[s.Stack[0]] += s.Values[0]
		}
		for fn, n := range want {
			if got[fn] != n {
				t.Errorf("%s: %s: %d calls in the profile, %d in the trace", name, fn, got[fn], n)
			}
		}
	}
}

// On a trace with backtraces, each call's stack is its function, then
// its backtrace as apitrace dump prints it (function names where the
// frame has one, else module+offset).
func TestProfileBacktraces(t *testing.T) {
	trace := filepath.Join("testdata", "glxinfo-brief-backtrace.trace")
	data := testutil.ReadFile(t, trace)
	// the real tool, verbose: its default leaves glGetError out
	out, err := exec.Command(testutil.Tool(t, "apitrace"), "dump", "--color=never", "--verbose", trace).Output()
	if err != nil {
		t.Fatalf("apitrace dump: %v", err)
	}
	dump := string(out)
	// the stacks from the dump: "N name(args) = ret", "Backtrace:", frames
	want := map[string]int64{}
	var cur []string
	flush := func() {
		if cur != nil {
			want[strings.Join(cur, " | ")]++
		}
		cur = nil
	}
	for _, line := range strings.Split(dump, "\n") {
		if no, rest, ok := strings.Cut(line, " "); ok && isDigits(no) {
			flush()
			name, _, _ := strings.Cut(rest, "(")
			cur = []string{name}
			continue
		}
		if cur == nil || line == "Backtrace:" || line == "" {
			continue
		}
		// "module: function+0xoff: file:line", "module+0xoff", "?"
		parts := strings.Split(line, ": ")
		name := parts[0]
		if len(parts) > 1 {
			name, _, _ = strings.Cut(parts[1], "+0x")
		}
		cur = append(cur, name)
	}
	flush()
	prof, gz := profileOf(t, data)
	got := map[string]int64{}
	for _, s := range prof.Samples {
		got[strings.Join(s.Stack, " | ")] += s.Values[0]
	}
	testutil.Diff(t, "stacks", want, got)
	if len(want) < 10 {
		t.Errorf("only %d distinct stacks in the dump", len(want))
	}
	var n int64
	for _, c := range want {
		n += c
	}
	top := testutil.PprofTop(t, gz)
	if total := testutil.TopTotal(t, top); total != strconv.FormatInt(n, 10) {
		t.Errorf("go tool pprof -top: total %s, want %d", total, n)
	}
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// FuzzProfile: every call a CallReader returns of arbitrary bytes counts
// once in a profile whose references resolve.
func FuzzProfile(f *testing.F) {
	for _, name := range []string{"incomplete-call.trace", "glxinfo-brief-backtrace.trace"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range seedStreams(f) {
		f.Add(container(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var cr CallReader
		cr.Reader().MaxDataLen = 1 << 20
		if err := cr.Reset(bytes.NewReader(data)); err != nil {
			return
		}
		var p Profile
		n := int64(0)
		for c, err := range cr.All() {
			if err != nil {
				break
			}
			p.Add(c)
			n++
		}
		var out bytes.Buffer
		if err := p.WriteProfile(&out); err != nil {
			t.Fatal(err)
		}
		if got := testutil.DecodeProfile(t, out.Bytes()).Totals()[0]; got != n {
			t.Fatalf("%d calls counted, %d read", got, n)
		}
	})
}
