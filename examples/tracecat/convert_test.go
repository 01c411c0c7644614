package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/leaktext"
)

// sampleFile writes a built-in sample to a file of its own.
func sampleFile(t *testing.T, name string) string {
	t.Helper()
	data, err := samples.ReadFile("samples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPprof converts a sample of every format that has a profile, and
// checks go tool pprof reads each (when the go command is there) with
// the total the format's own count gives.
func TestPprof(t *testing.T) {
	for _, tc := range []struct {
		sample string
		args   []string
		total  int64 // of the default sample type, -1: not checked
	}{
		{"tri.trim.trace", nil, -1},
		{"multi.txt", nil, leaked(t, "")},
		{"multi.txt", []string{"-profile", "memory"}, leaked(t, "memory")},
		{"two-backtraces.cbf", []string{"-format", "cbf"}, 2},
		{"fdr_simple.xray", nil, -1},
		{"gotest.trace", []string{"-profile", "sched"}, -1},
		{"gotest.trace", []string{"-profile", "sync"}, -1},
		{"gotest.trace", []string{"-profile", "syscall"}, -1},
	} {
		in := sampleFile(t, tc.sample)
		out := filepath.Join(t.TempDir(), "out.pb.gz")
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"-pprof", out}, tc.args...), in)
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Errorf("tracecat %q exits %d: %s", args, code, stderr.String())
			continue
		}
		if stdout.Len() > 0 || stderr.Len() > 0 {
			t.Errorf("tracecat %q prints %q and %q", args, stdout.String(), stderr.String())
		}
		gz, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		prof := testutil.DecodeProfile(t, gz)
		if len(prof.Samples) == 0 {
			t.Errorf("tracecat %q: no samples", args)
		}
		if tc.total >= 0 {
			def := 0
			for i, st := range prof.SampleTypes {
				if strings.HasPrefix(st, prof.Default+"/") {
					def = i
				}
			}
			if got := prof.Totals()[def]; got != tc.total {
				t.Errorf("tracecat %q: total %d, want %d", args, got, tc.total)
			}
		}
		var unitFlag []string
		if unit(prof) == "B" {
			unitFlag = []string{"-unit=B"} // bytes in full, not kB
		}
		top := testutil.PprofTop(t, gz, unitFlag...)
		if tc.total >= 0 && testutil.TopTotal(t, top) != strconv.FormatInt(tc.total, 10)+unit(prof) {
			t.Errorf("go tool pprof -top of tracecat %q: total is not %d:\n%s", args, tc.total, top)
		}
	}
}

// unit is how go tool pprof -unit=B prints the default sample
// type's unit after a number.
func unit(p *testutil.Profile) string {
	for _, st := range p.SampleTypes {
		if typ, u, _ := strings.Cut(st, "/"); typ == p.Default && u == "bytes" {
			return "B"
		}
	}
	return ""
}

// leaked is the size leaked in the leaktext sample, of one resource type
// or ("") all, as leaktext's LeakCounter (leakpost -l's sums) counts it.
func leaked(t *testing.T, typ string) int64 {
	data, err := samples.ReadFile("samples/multi.txt")
	if err != nil {
		t.Fatal(err)
	}
	rd, err := leaktext.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var lc leaktext.LeakCounter
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		lc.Add(rec)
	}
	var n int64
	for _, s := range lc.Sums() {
		if typ == "" || string(s.Resource.Type) == typ {
			n += s.Size
		}
	}
	if n == 0 {
		t.Fatal("nothing leaked in multi.txt")
	}
	return n
}

// TestTimeline checks that the XRay and Go samples' timelines are JSON
// whose every begin has its end.
func TestTimeline(t *testing.T) {
	for _, sample := range []string{"fdr_simple.xray", "gotest.trace"} {
		in := sampleFile(t, sample)
		out := filepath.Join(t.TempDir(), "out.json")
		var stdout, stderr bytes.Buffer
		if code := run([]string{"-timeline", out, in}, &stdout, &stderr); code != 0 {
			t.Fatalf("tracecat -timeline %s exits %d: %s", sample, code, stderr.String())
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		testutil.CheckTimeline(t, data)
	}
}

// Conversions a format does not have are refused with one line saying
// why; flags that do not go together are bad usage.
func TestConvertRefusals(t *testing.T) {
	leak := sampleFile(t, "multi.txt")
	api := sampleFile(t, "tri.trim.trace")
	gotr := sampleFile(t, "gotest.trace")
	xray := sampleFile(t, "fdr_simple.xray")
	instrMap := filepath.Join("..", "..", "xrayfdr", "testdata", "fdr_simple.instrmap.yaml")
	xrayYAML := filepath.Join("..", "..", "xrayfdr", "testdata", "fdr_simple.yaml")
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-timeline", out, leak}, 1, "tracecat: " + leak + ": no timeline from an sp-rtrace text report: "},
		{[]string{"-timeline", out, api}, 1, "tracecat: " + api + ": no timeline from an apitrace trace: apitrace traces record no times"},
		{[]string{"-pprof", out, "-profile", "cpu", api}, 1, "tracecat: " + api + ": -profile cpu: no such profile: an apitrace trace has one profile"},
		{[]string{"-pprof", out, "-profile", "disk", leak}, 1, "tracecat: " + leak + ": -profile disk: no such profile: the report's resource types are fd, fp, memory"},
		{[]string{"-pprof", out, gotr}, 1, "tracecat: " + gotr + ": -profile: no such profile: a Go trace has five profiles: -profile cpu, net, sync, syscall or sched"},
		{[]string{"-pprof", out, "-profile", "heap", gotr}, 1, "tracecat: " + gotr + ": -profile heap: no such profile: a Go trace's are cpu, net, sync, syscall and sched"},
		{[]string{"-pprof", out, "-timeline", out, leak}, 2, "tracecat: -pprof and -timeline: one at a time"},
		{[]string{"-profile", "cpu", leak}, 2, "tracecat: -profile goes with -pprof"},
		{[]string{"-pprof", out, leak, api}, 2, "tracecat: -pprof and -timeline take one FILE"},
		{[]string{"-pprof", out, "-profile", "sched", "-instr_map", instrMap, gotr}, 1, "tracecat: " + gotr + ": -instr_map names the functions of an XRay log, not of a Go execution trace"},
		{[]string{"-instr_map", instrMap, xray}, 2, "tracecat: -instr_map goes with -pprof or -timeline"},
		{[]string{"-timeline", out, "-instr_map", "/nonexistent/bin", xray}, 1, "tracecat: open /nonexistent/bin: "},
		// XRay forms tracecat tells but that hold no calls to convert,
		// or that only a profile reads (it said "bad file header").
		{[]string{"-pprof", out, instrMap}, 1, "tracecat: " + instrMap + ": an llvm-xray instrumentation map holds no calls"},
		{[]string{"-timeline", out, instrMap}, 1, "tracecat: " + instrMap + ": an llvm-xray instrumentation map holds no calls"},
		{[]string{"-timeline", out, xrayYAML}, 1, "tracecat: " + xrayYAML + ": a timeline is made from a binary XRay log, not from llvm-xray's YAML trace"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != tc.code {
			t.Errorf("tracecat %q exits %d, want %d", tc.args, code, tc.code)
		}
		if first, _, _ := strings.Cut(stderr.String(), "\n"); !strings.HasPrefix(first, tc.stderr) {
			t.Errorf("tracecat %q: stderr starts %q, want %q", tc.args, first, tc.stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("tracecat %q left %s behind", tc.args, out)
			os.Remove(out)
		}
	}
}

// Progress shows bytes read of the total and the rate, on a terminal
// only.
func TestProgress(t *testing.T) {
	in := sampleFile(t, "multi.txt")
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p := newProgress(f, in, &bytes.Buffer{}); p != nil {
		t.Error("progress shown on a buffer")
	}
	notTTY, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer notTTY.Close()
	if p := newProgress(f, in, notTTY); p != nil {
		t.Error("progress shown on a file")
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if p := newProgress(f, in, null); p != nil {
		t.Errorf("progress shown on %s, a character device but no terminal", os.DevNull)
	}
	st, _ := f.Stat()
	var shown bytes.Buffer
	p := &progress{r: f, name: "multi.txt", w: &shown, total: st.Size(), start: time.Now().Add(-2 * time.Second)}
	if _, err := io.Copy(io.Discard, p); err != nil {
		t.Fatal(err)
	}
	p.done()
	total := size(float64(st.Size()))
	if !strings.Contains(shown.String(), "tracecat: multi.txt: "+total+" of "+total+" (100%), ") || !strings.HasSuffix(shown.String(), "/s \n") {
		t.Errorf("progress shows %q", shown.String())
	}
}

// cutFile writes the first n bytes of a file (n < 0: all but -n) to a
// file of its own.
func cutFile(t *testing.T, path string, n int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n < 0 {
		n += len(data)
	}
	p := filepath.Join(t.TempDir(), "cut-"+filepath.Base(path))
	if err := os.WriteFile(p, data[:n], 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCut converts inputs cut short: the picture of what came before is
// written with one warning line, and the exit status is the format's own
// tool's (apitrace dump and go tool trace -pprof 0, leakpost 1); a Go
// trace cut inside its first generation has nothing to show, as in Go's
// tool, and leaves no file.
func TestCut(t *testing.T) {
	multigen := filepath.Join(testutil.SharedFixture(t, "gotrace"), "multigen.trace")
	for _, tc := range []struct {
		in    string
		args  []string
		code  int
		wrote bool
	}{
		{cutFile(t, sampleFile(t, "tri.trim.trace"), -100), nil, 0, true},
		{cutFile(t, sampleFile(t, "multi.txt"), -100), nil, 1, true},
		{cutFile(t, sampleFile(t, "gotest.trace"), -100), []string{"-profile", "sched"}, 1, false},
		{cutFile(t, multigen, 45000), []string{"-profile", "sched"}, 0, true},
		{cutFile(t, multigen, 45000), []string{"-profile", "cpu"}, 0, true},
		{cutFile(t, multigen, 45000), []string{"-timeline"}, 0, true},
		{cutFile(t, sampleFile(t, "gotest.trace"), -100), []string{"-timeline"}, 1, false},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"-pprof", out}
		if len(tc.args) > 0 && tc.args[0] == "-timeline" {
			args = []string{"-timeline", out}
		} else {
			args = append(args, tc.args...)
		}
		args = append(args, tc.in)
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if code != tc.code || len(lines) != 1 {
			t.Errorf("tracecat %q exits %d, stderr %q; want %d and one line", args, code, stderr.String(), tc.code)
		}
		if tc.wrote && !strings.Contains(lines[0], "warning: the input stopped early") {
			t.Errorf("tracecat %q: stderr %q, want a warning", args, stderr.String())
		}
		data, err := os.ReadFile(out)
		if (err == nil) != tc.wrote {
			t.Errorf("tracecat %q: output file: %v, want one: %v", args, err, tc.wrote)
			continue
		}
		if !tc.wrote {
			continue
		}
		if args[0] == "-timeline" {
			if !bytes.HasSuffix(bytes.TrimSpace(data), []byte("}")) || !bytes.Contains(data, []byte(`"running"`)) {
				t.Errorf("tracecat %q: timeline not whole or empty: %.200q", args, data)
			}
			continue
		}
		// multigen's first generation has no CPU samples: its profile
		// must decode, empty.
		if prof := testutil.DecodeProfile(t, data); len(prof.Samples) == 0 && !slices.Contains(args, "cpu") {
			t.Errorf("tracecat %q: no samples", args)
		}
	}
}

// TestConvertersComplete checks what convertOne relies on: every format
// has a profile, and one without a timeline says why.
func TestConvertersComplete(t *testing.T) {
	for _, f := range formats {
		c, ok := converters[f.name]
		switch {
		case !ok:
			t.Errorf("%s: no converter", f.name)
		case c.pprof == nil:
			t.Errorf("%s: no pprof profile", f.name)
		case c.timeline == nil && c.noTime == "":
			t.Errorf("%s: no timeline and no reason", f.name)
		}
	}
}

// -instr_map names an XRay log's functions in its profile and timeline, as
// llvm-xray's -instr_map does (TestConvertRefusals has its refusals).
func TestInstrMap(t *testing.T) {
	in := sampleFile(t, "fdr_simple.xray")
	m := filepath.Join("..", "..", "xrayfdr", "testdata", "fdr_simple.instrmap.yaml")
	for _, conv := range []string{"-pprof", "-timeline"} {
		for _, named := range []bool{false, true} {
			out := filepath.Join(t.TempDir(), "out")
			args := []string{conv, out, in}
			if named {
				args = []string{conv, out, "-instr_map", m, in}
			}
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != 0 {
				t.Fatalf("tracecat %q exits %d: %s", args, code, stderr.String())
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if conv == "-pprof" {
				zr, err := gzip.NewReader(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				if data, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			} else {
				testutil.CheckTimeline(t, data)
			}
			if got := bytes.Contains(data, []byte("mid(int)")); got != named {
				t.Errorf("tracecat %q: names the function mid(int): %v, want %v", args, got, named)
			}
		}
	}
}
