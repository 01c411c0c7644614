package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

func runCmd(args ...string) (string, int) {
	var stderr bytes.Buffer
	code := run(args, &stderr)
	return stderr.String(), code
}

func TestUsage(t *testing.T) {
	if errs, code := runCmd("-h"); code != 0 || !strings.Contains(errs, "usage: apitracefilter") {
		t.Errorf("-h: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{
		{"-bogus", "a", "b"},
		{"a"},
		{"-drop", "(", "a", "b"},
		{"-calls", "1-x", "a", "b"},
	} {
		errs, code := runCmd(args...)
		first, _, _ := strings.Cut(errs, "\n")
		if code != 2 || !strings.HasPrefix(first, "apitracefilter: ") || !strings.Contains(errs, "usage:") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
}

func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.trace")
	errs, code := runCmd(missing, filepath.Join(dir, "out.trace"))
	if code != 1 || !strings.HasPrefix(errs, "apitracefilter: ") || !strings.Contains(errs, missing) || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, %q", code, errs)
	}
	notTrace := filepath.Join(dir, "text.trace")
	os.WriteFile(notTrace, []byte("hello, world\n"), 0o644)
	errs, code = runCmd(notTrace, filepath.Join(dir, "out.trace"))
	if code != 1 || !strings.Contains(errs, notTrace) {
		t.Errorf("not a trace: exit %d, %q", code, errs)
	}
}

// inputs returns the traces the real-tool test filters: the shared
// fixtures apitrace writes and the package's test traces.
func inputs(t *testing.T) []string {
	root := testutil.ModuleRoot(t)
	local, _ := filepath.Glob(filepath.Join(root, "apitrace", "testdata", "*.trace"))
	shared, _ := filepath.Glob(filepath.Join(testutil.SharedFixture(t, "apitrace"), "*.trace"))
	var out []string
	for _, p := range append(local, shared...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := apitrace.Detect(data); c != apitrace.Snappy && c != apitrace.Gzip {
			continue // Brotli and zstd: the package does not read them
		}
		if len(data) > 2<<20 {
			continue // glxgears-20s: the small traces cover the same ground faster
		}
		out = append(out, p)
	}
	return out
}

// realDump runs `apitrace dump` with one line per call and every call
// shown, and returns its lines.
func realDump(t *testing.T, tool, path string) []string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(tool, "dump", "--color=never", "--multiline=no", "-v", path)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run() // exits non-zero on a cut trace, after printing it
	if stdout.Len() == 0 && stderr.Len() > 0 {
		t.Fatalf("apitrace dump %s: %s", path, stderr.String())
	}
	return strings.SplitAfter(stdout.String(), "\n")
}

var callLine = regexp.MustCompile(`^([0-9]+) ([^(]*)\(`)

// expect derives, from the real dump of IN, the dump OUT must give: the
// property lines, then the lines of the kept calls, in the same order,
// renumbered 0, 1, 2...
func expect(t *testing.T, lines []string, keep func(no uint64, name string) bool) string {
	var sb strings.Builder
	n := 0
	for _, line := range lines {
		m := callLine.FindStringSubmatch(line)
		if m == nil {
			sb.WriteString(line) // "// property = value", or the end
			continue
		}
		no, err := strconv.ParseUint(m[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if !keep(no, m[2]) {
			continue
		}
		fmt.Fprintf(&sb, "%d %s", n, line[len(m[1])+1:])
		n++
	}
	return sb.String()
}

// TestAgainstApitrace filters real traces and checks with the real
// `apitrace dump` that the copy holds exactly the calls kept.
func TestAgainstApitrace(t *testing.T) {
	tool := testutil.Tool(t, "apitrace")
	dir := t.TempDir()
	filters := []struct {
		name string
		args []string
		keep func(no uint64, name string) bool
	}{
		{"all", nil, func(uint64, string) bool { return true }},
		{"drop-glX", []string{"-drop", "^glX"}, func(_ uint64, name string) bool { return !strings.HasPrefix(name, "glX") }},
		{"drop-Get", []string{"-drop", "Get|Is"}, func(_ uint64, name string) bool {
			return !strings.Contains(name, "Get") && !strings.Contains(name, "Is")
		}},
		{"calls", []string{"-calls", "0-9,20-200/3,400-"}, func(no uint64, _ string) bool {
			return no <= 9 || no >= 20 && no <= 200 && (no-20)%3 == 0 || no >= 400
		}},
		{"both", []string{"-drop", "Swap", "-calls", "5-300"}, func(no uint64, name string) bool {
			return !strings.Contains(name, "Swap") && no >= 5 && no <= 300
		}},
	}
	for _, in := range inputs(t) {
		inLines := realDump(t, tool, in)
		for _, f := range filters {
			t.Run(filepath.Base(in)+"/"+f.name, func(t *testing.T) {
				out := filepath.Join(dir, f.name+"-"+filepath.Base(in))
				errs, code := runCmd(append(f.args, in, out)...)
				if code != 0 && !strings.Contains(errs, "unexpected EOF") {
					t.Fatalf("exit %d: %s", code, errs)
				}
				want := expect(t, inLines, f.keep)
				got := strings.Join(realDump(t, tool, out), "")
				testutil.DiffText(t, "apitrace dump of the copy", []byte(want), []byte(got))
				if w, g := strings.Count(want, "// incomplete"), strings.Count(got, "// incomplete"); w != g {
					t.Errorf("%d incomplete calls, want %d", g, w)
				}
				inData, _ := os.ReadFile(in)
				outData, _ := os.ReadFile(out)
				ci, _ := apitrace.Detect(inData)
				co, _ := apitrace.Detect(outData)
				if ci != co {
					t.Errorf("container %v, want %v as in IN", co, ci)
				}
			})
		}
	}
}

// TestCutInput: a gzip trace without its trailer whose events are all
// whole is filtered whole with a warning and exit 0, as `apitrace repack`
// exits 0 on it (TestAgainstApitrace checks the calls of OUT); the same
// trace cut inside an event, or with its deflate data damaged, still
// fails.
func TestCutInput(t *testing.T) {
	dir := t.TempDir()
	noEOF := filepath.Join(testutil.SharedFixture(t, "apitrace"), "zlib-no-eof.trace")
	out := filepath.Join(dir, "out.trace")
	if errs, code := runCmd(noEOF, out); code != 0 || !strings.HasPrefix(errs, "apitracefilter: "+noEOF+": warning: ") || strings.Count(errs, "\n") != 1 {
		t.Errorf("%s: exit %d, %q", noEOF, code, errs)
	}
	data, err := os.ReadFile(noEOF)
	if err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), data...)
	damaged[len(damaged)/2] ^= 0xff
	for name, b := range map[string][]byte{"cut.trace": data[:1000], "damaged.trace": damaged} {
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if errs, code := runCmd(in, out); code != 1 || !strings.HasPrefix(errs, "apitracefilter: "+in+": apitrace: ") || strings.Contains(errs, "warning") {
			t.Errorf("%s: exit %d, %q", name, code, errs)
		}
	}
}

// TestZstdStaysZstd filters a zstd trace: OUT is zstd too, and holds the
// calls that filtering the same trace in snappy keeps.
func TestZstdStaysZstd(t *testing.T) {
	dir := t.TempDir()
	snappyIn := filepath.Join(testutil.ModuleRoot(t), "apitrace", "testdata", "glxinfo-brief.trace")
	r, err := apitrace.NewReader(bytes.NewReader(testutil.ReadFile(t, snappyIn)))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	h.Container = apitrace.ZstdSeekable
	var zbuf bytes.Buffer
	w, err := apitrace.NewWriter(&zbuf, h)
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	zstdIn := filepath.Join(dir, "in.zst.trace")
	if err := os.WriteFile(zstdIn, zbuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := func(in string) (apitrace.Container, []string) {
		out := in + ".out"
		if errs, code := runCmd("-calls", "0-30/2", in, out); code != 0 || errs != "" {
			t.Fatalf("%s: exit %d, %q", in, code, errs)
		}
		data := testutil.ReadFile(t, out)
		c, _ := apitrace.Detect(data)
		cr, err := apitrace.NewCallReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for call, err := range cr.All() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%d %s %d", call.No, call.Name(), len(call.Args)))
		}
		return c, got
	}
	snappyCopy := filepath.Join(dir, "in.trace")
	if err := os.WriteFile(snappyCopy, testutil.ReadFile(t, snappyIn), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, want := calls(snappyCopy)
	zc, got := calls(zstdIn)
	if sc != apitrace.Snappy || (zc != apitrace.Zstd && zc != apitrace.ZstdSeekable) {
		t.Errorf("containers %v from snappy, %v from zstd", sc, zc)
	}
	if len(want) != 16 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("from zstd:\n%s\nfrom snappy (%d calls, want 16):\n%s", strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}
