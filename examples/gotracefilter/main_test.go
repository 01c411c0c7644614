package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestCommandLine checks the behaviour every example command shares.
func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	in := "../../gotraceraw/testdata/gotest.trace"
	out := filepath.Join(dir, "out.trace")
	missing := filepath.Join(dir, "missing.trace")
	cut := filepath.Join(dir, "cut.trace")
	data := testutil.ReadFile(t, in)
	if err := os.WriteFile(cut, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string // the start of stderr
	}{
		{[]string{"-h"}, 0, "usage: gotracefilter"},
		{[]string{"-bogus", in, out}, 2, "gotracefilter: flag provided but not defined: -bogus\nusage:"},
		{[]string{"-drop", "UserLog"}, 2, "gotracefilter: want IN and OUT, got 0 arguments\nusage:"},
		{[]string{in, out}, 2, "gotracefilter: nothing to do: give -drop, -gens, -from or -to\nusage:"},
		{[]string{"-drop", "UserLog,NoSuchEvent", in, out}, 2, "gotracefilter: -drop: unknown event type \"NoSuchEvent\"\nusage:"},
		{[]string{"-drop", "userlog", in, out}, 2, "gotracefilter: -drop: unknown event type \"userlog\"\nusage:"},
		{[]string{"-drop", "EventBatch", in, out}, 2, "gotracefilter: -drop: EventBatch cannot be dropped: EventBatch holds the other events\n"},
		{[]string{"-drop", "UserLog,GoStart", in, out}, 2, "gotracefilter: -drop: GoStart cannot be dropped: Go's parser follows every goroutine and P through its GoStart events\n"},
		{[]string{"-gens", "0", in, out}, 2, "gotracefilter: -gens: \"0\" is not N, N-M, N- or -M with 1 <= N <= M\nusage:"},
		{[]string{"-gens", "3-2", in, out}, 2, "gotracefilter: -gens: \"3-2\" is not"},
		{[]string{"-gens", "x", in, out}, 2, "gotracefilter: -gens: \"x\" is not"},
		{[]string{"-from", "1", in, out}, 2, "gotracefilter: -from: \"1\" is not a duration from the trace's start such as 1.5s\nusage:"},
		{[]string{"-to", "-1s", in, out}, 2, "gotracefilter: -to: \"-1s\" is not a duration"},
		{[]string{"-from", "2s", "-to", "1s", in, out}, 2, "gotracefilter: -to 1s is before -from 2s\nusage:"},
		{[]string{"-gens", "5-", in, out}, 1, "gotracefilter: " + in + ": no generation of its 1 is in -gens 5-\n"},
		{[]string{"-from", "1h", in, out}, 1, "gotracefilter: " + in + ": no generation of its 1 is in the window 1h0m0s to the end\n"},
		{[]string{"-gens", "1", in, out}, 0, ""},
		{[]string{"-gens", "-1", "-from", "0s", "-to", "1s", in, out}, 0, ""},
		{[]string{"-drop", "String", "-novalidate", in, out}, 0, ""},
		{[]string{"-drop", "UserLog", in, in}, 2, "gotracefilter: IN and OUT are the same file\nusage:"},
		{[]string{"-drop", "UserLog", missing, out}, 1, "gotracefilter: open " + missing + ": no such file"},
		{[]string{"-drop", "UserLog", in, filepath.Join(dir, "no", "out.trace")}, 1, "gotracefilter: open " + filepath.Join(dir, "no", "out.trace") + ": no such file"},
		{[]string{"-drop", "UserLog", cut, out}, 1, "gotracefilter: " + cut + ": gotraceraw: offset "},
		{[]string{"-drop", "UserLog", "../../gotraceraw/testdata/gotest.txt.gz", out}, 1, "gotracefilter: ../../gotraceraw/testdata/gotest.txt.gz: gotraceraw: offset 0: not a Go execution trace header"},
		{[]string{"-drop", "UserLog, GoLabel", in, out}, 0, ""},
	} {
		var stderr bytes.Buffer
		code := run(tc.args, &stderr)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, code, tc.code, stderr.String())
		}
		if got := stderr.String(); !strings.HasPrefix(got, tc.stderr) || tc.stderr == "" && got != "" {
			t.Errorf("%q: stderr %q, want it to start with %q", tc.args, got, tc.stderr)
		}
		if (code == 1 || strings.Contains(tc.stderr, "cannot be dropped")) && strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: stderr is not one line: %q", tc.args, stderr.String())
		}
	}
	// A cut trace: the whole generations before the cut are written.
	gens := "../../gotraceraw/testdata/gcgens.trace"
	data = testutil.ReadFile(t, gens)
	if err := os.WriteFile(cut, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"-drop", "UserLog", cut, out}, &bytes.Buffer{}); code != 1 {
		t.Fatalf("cut: exit %d", code)
	}
	first2 := filepath.Join(dir, "first2.trace")
	if code := run([]string{"-drop", "UserLog", "-gens", "1-2", gens, first2}, &bytes.Buffer{}); code != 0 {
		t.Fatalf("-gens 1-2: exit %d", code)
	}
	if got, want := testutil.ReadFile(t, out), testutil.ReadFile(t, first2); !bytes.Equal(got, want) {
		t.Errorf("cut in its third generation: %d bytes written, want the %d of the two before", len(got), len(want))
	}
}

// goMinor returns the minor version of the go command the tests run with
// (26 for go1.26.8).
func goMinor(t *testing.T) int {
	t.Helper()
	gocmd := testutil.Tool(t, "go")
	out, err := exec.Command(gocmd, "env", "GOVERSION").Output()
	if err != nil {
		t.Fatalf("go env GOVERSION: %v", err)
	}
	m := regexp.MustCompile(`^go1\.(\d+)`).FindSubmatch(bytes.TrimSpace(out))
	if m == nil {
		t.Skipf("go version %q: not a release", out)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

var traceTool string // the go tool trace binary, found once

// goTool runs `go tool trace -d=MODE file` and returns its output, failing
// the test when the tool reports an error.
func goTool(t *testing.T, mode, file string) []byte {
	t.Helper()
	if traceTool == "" {
		out, err := exec.Command("go", "tool", "-n", "trace").Output()
		if err != nil {
			t.Fatalf("go tool -n trace: %v", err)
		}
		traceTool = string(bytes.TrimSpace(out))
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(traceTool, "-d="+mode, file)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("go tool trace -d=%s %s: %v\n%s", mode, filepath.Base(file), err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// parsedEvents counts the events `go tool trace -d=parsed` prints, each
// on a line of its own starting "M=".
func parsedEvents(out []byte) int {
	return bytes.Count(out, []byte("\nM=")) + btoi(bytes.HasPrefix(out, []byte("M=")))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestDropParsed filters real traces and reads the result with Go's own
// parser: it reads without error, and holds the original's events less
// those dropped, counted from Go's own text of the original (each of
// these types is one parsed event: a Log, a Label, a Metric, a
// StackSample, a RegionBegin or RegionEnd).
func TestDropParsed(t *testing.T) {
	if n := goMinor(t); n < 26 {
		t.Skipf("needs Go 1.26's `go tool trace -d=parsed` (and -d=wire, Go 1.24); the go command here is Go 1.%d", n)
	}
	traces, _ := filepath.Glob("../../gotraceraw/testdata/*.trace")
	if testing.Short() {
		traces = []string{"../../gotraceraw/testdata/annotations.trace", "../../gotraceraw/testdata/cpuprofile.trace"}
	} else {
		shared := testutil.SharedFixture(t, "gotrace")
		for _, name := range []string{"multigen", "gcstress", "syscalls"} {
			traces = append(traces, filepath.Join(shared, name+".trace"))
		}
	}
	drops := [][]string{{"UserLog"}, {"GoLabel"}, {"HeapAlloc", "HeapGoal"}, {"CPUSample"}, {"UserRegionBegin", "UserRegionEnd"}}
	dir := t.TempDir()
	total := map[string]int{}
	for _, in := range traces {
		// Go 1.26's raw reader refuses the experimental events of older
		// headers, so skip those traces: the count needs its text.
		if strings.Contains(in, "allocfree") && !strings.HasSuffix(in, "/allocfree.trace") {
			continue
		}
		name := filepath.Base(in)
		before := parsedEvents(goTool(t, "parsed", in))
		wire := goTool(t, "wire", in)
		for _, types := range drops {
			dropped := 0
			for _, typ := range types {
				dropped += bytes.Count(wire, []byte("\n"+typ+" ")) + btoi(bytes.HasPrefix(wire, []byte(typ+" ")))
			}
			out := filepath.Join(dir, name)
			var stderr bytes.Buffer
			if code := run([]string{"-drop", strings.Join(types, ","), in, out}, &stderr); code != 0 {
				t.Fatalf("%s: -drop %v: exit %d: %s", name, types, code, stderr.Bytes())
			}
			after := parsedEvents(goTool(t, "parsed", out))
			if after != before-dropped {
				t.Errorf("%s: -drop %v: %d parsed events, want %d - %d = %d", name, types, after, before, dropped, before-dropped)
			}
			total[strings.Join(types, ",")] += dropped
		}
	}
	for _, types := range drops {
		if k := strings.Join(types, ","); total[k] == 0 {
			t.Errorf("no trace had a %s event to drop", k)
		}
	}
	t.Logf("dropped events, by -drop: %v", total)
}

// TestRefusedGeneration filters a trace whose third generation is
// broken (its GoStart events dropped): the command fails saying so, and
// writes the two generations before it, which Go's parser reads.
func TestRefusedGeneration(t *testing.T) {
	dir := t.TempDir()
	in := "../../gotraceraw/testdata/gcgens.trace"
	broken := filepath.Join(dir, "broken.trace")
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := gotraceraw.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := gotraceraw.NewWriter(&b, r.Header())
	if err != nil {
		t.Fatal(err)
	}
	var split splitter
	for e, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if split.next(e) == 2 && e.Type == gotraceraw.EvGoStart {
			continue
		}
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, want := filepath.Join(dir, "out.trace"), filepath.Join(dir, "want.trace")
	var stderr bytes.Buffer
	if code := run([]string{"-drop", "UserLog", broken, out}, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr.Bytes())
	}
	msg := stderr.String()
	t.Log(msg)
	// one line: IN, the generation as -gens counts it, Go's reason once
	if !strings.HasPrefix(msg, "gotracefilter: "+broken+": generation 3 refused: expected a goroutine but didn't have one (thread M ") ||
		strings.Count(msg, "\n") != 1 || strings.Count(msg, ": ") != 3 ||
		!strings.HasSuffix(msg, "; OUT holds the generations kept before it\n") {
		t.Errorf("stderr %q", msg)
	}
	// generations are named as -gens counts them, in IN
	stderr.Reset()
	if code := run([]string{"-gens", "2-", broken, filepath.Join(dir, "from2.trace")}, &stderr); code != 1 || !strings.HasPrefix(stderr.String(), "gotracefilter: "+broken+": generation 3 refused: ") {
		t.Errorf("-gens 2-: exit %d, stderr %q", code, stderr.Bytes())
	}
	if code := run([]string{"-drop", "UserLog", "-gens", "1-2", in, want}, &stderr); code != 0 {
		t.Fatalf("-gens 1-2: exit %d", code)
	}
	if got, want := testutil.ReadFile(t, out), testutil.ReadFile(t, want); !bytes.Equal(got, want) {
		t.Errorf("%d bytes written, want the %d of the two generations before the broken one", len(got), len(want))
	}
	if n := goMinor(t); n >= 26 {
		if _, err := parses(t, out); err != nil {
			t.Error(err)
		}
	}
	// Unvalidated, the broken generation is written as it is.
	if code := run([]string{"-novalidate", "-drop", "UserLog", broken, out}, &stderr); code != 0 {
		t.Fatalf("-novalidate: exit %d", code)
	}
}
