package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace"
)

// sampleFormat is the format each built-in sample is, by its extension.
var sampleFormat = map[string]string{
	".trace": "", // apitrace or Go: told apart by magic, checked below
	".xray":  "xray",
	".txt":   "leaktext",
	".cbf":   "cbf",
}

func TestSamples(t *testing.T) {
	names, err := fs.Glob(samples, "samples/*")
	if err != nil || len(names) < 5 {
		t.Fatalf("samples: %v, %v", names, err)
	}
	seen := map[string]bool{}
	for _, n := range names {
		data, _ := samples.ReadFile(n)
		want, ok := sampleFormat[path.Ext(n)]
		if !ok {
			t.Errorf("%s: sample with an unknown extension", n)
			continue
		}
		var f *format
		if want == "cbf" {
			f, _ = lookup("cbf")
		} else if f = detect(data); f == nil {
			t.Errorf("%s: not detected", n)
			continue
		}
		if want != "" && f.name != want {
			t.Errorf("%s detected as %s, want %s", n, f.name, want)
		}
		seen[f.name] = true
		var out bytes.Buffer
		if err := summariseOne(&out, path.Base(n), bytes.NewReader(data), f); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		if !strings.HasPrefix(out.String(), path.Base(n)+": "+f.name+"\n") || strings.Count(out.String(), "\n") < 2 {
			t.Errorf("%s: summary too thin:\n%s", n, out.String())
		}
	}
	for _, f := range formats {
		if !seen[f.name] {
			t.Errorf("no sample of %s", f.name)
		}
	}
}

func TestUnknownInput(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("hello, world\n"), {0x02, 0x10, 0x10, 0x00}} {
		var out bytes.Buffer
		if err := summariseOne(&out, "x", bytes.NewReader(data), nil); err == nil {
			t.Errorf("%q detected as %q", data, out.String())
		}
	}
}

// Detection must not take one format's files for another's.
func TestDetectExclusive(t *testing.T) {
	names, _ := fs.Glob(samples, "samples/*")
	for _, n := range names {
		data, _ := samples.ReadFile(n)
		var hits []string
		for _, f := range formats {
			if f.detect != nil && f.detect(data) {
				hits = append(hits, f.name)
			}
		}
		if path.Ext(n) != ".cbf" && len(hits) != 1 {
			t.Errorf("%s: detected as %v", n, hits)
		}
	}
}

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello, world\n"), 0o644)
	xray, _ := samples.ReadFile("samples/fdr_simple.xray")
	cut := filepath.Join(dir, "cut.xray")
	os.WriteFile(cut, xray[:len(xray)-5], 0o644)
	missing := filepath.Join(dir, "missing.trace")
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string // a line the output holds
		stderr string // the start of the first line on stderr
	}{
		{[]string{"-h"}, 0, "", "usage: tracecat"},
		{[]string{"-bogus"}, 2, "", "tracecat: flag provided but not defined: -bogus"},
		{[]string{"-format", "pdf"}, 2, "", `tracecat: unknown format "pdf"`},
		{[]string{missing}, 1, "", "tracecat: open " + missing},
		{[]string{"-format", "xray", text}, 1, "", "tracecat: " + text + ": not an XRay log"},
		{[]string{"-format", "gotrace", text}, 1, "", "tracecat: " + text + ": not a Go execution trace"},
		{[]string{cut}, 1, "cut.xray: xray", "tracecat: " + cut + ": xrayfdr: offset "},
		{[]string{missing, cut}, 1, "cut.xray: xray", "tracecat: open " + missing},
		{nil, 0, "tri.trim.trace: apitrace", ""},
		{[]string{"-format", "cbf"}, 0, "two-backtraces.cbf: cbf", ""},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code {
			t.Errorf("tracecat %q exits %d, want %d; stderr:\n%s", tc.args, code, tc.code, stderr.String())
		}
		if !strings.Contains(stdout.String(), tc.stdout) {
			t.Errorf("tracecat %q prints\n%s\nwant a line %q", tc.args, stdout.String(), tc.stdout)
		}
		first, _, _ := strings.Cut(stderr.String(), "\n")
		if !strings.HasPrefix(first, tc.stderr) || tc.stderr == "" && first != "" {
			t.Errorf("tracecat %q: stderr starts %q, want %q", tc.args, first, tc.stderr)
		}
	}
}

// TestStreams pipes large generated inputs of every format through the
// tracecat binary and checks that its peak memory stays under 32 MiB.
// TRACECAT_BIG_MB sets the size of each input (default 64).
func TestStreams(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak memory is read from Linux's rusage")
	}
	if testing.Short() {
		t.Skip("-short: no large inputs")
	}
	size := int64(64)
	if s := os.Getenv("TRACECAT_BIG_MB"); s != "" {
		size, _ = strconv.ParseInt(s, 10, 64)
	}
	size <<= 20
	bin := filepath.Join(t.TempDir(), "tracecat")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		format, sample string
		head           func([]byte) int // length of the part written once
		args           []string         // "-pprof /dev/null" converts instead
	}{
		{"xray", "fdr_simple.xray", func([]byte) int { return 32 }, nil},
		{"gotrace", "gotest.trace", func([]byte) int { return 16 }, nil},
		{"leaktext", "multi.txt", func(b []byte) int { return bytes.IndexByte(b, '\n') + 1 }, nil},
		{"cbf", "two-backtraces.cbf", func([]byte) int { return 0 }, nil},
		{"apitrace", "tri.trim.trace", nil, nil},
		// the profiles of the formats that stream (an XRay log is read
		// whole; the repeated Go trace is not a valid one)
		{"leaktext", "multi.txt", func(b []byte) int { return bytes.IndexByte(b, '\n') + 1 }, []string{"-pprof", os.DevNull}},
		{"cbf", "two-backtraces.cbf", func([]byte) int { return 0 }, []string{"-pprof", os.DevNull}},
		{"apitrace", "tri.trim.trace", nil, []string{"-pprof", os.DevNull}},
	} {
		name := tc.format
		if tc.args != nil {
			name += tc.args[0]
		}
		t.Run(name, func(t *testing.T) {
			data, err := samples.ReadFile("samples/" + tc.sample)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, append(append([]string{"-format", tc.format}, tc.args...), "-")...)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cw := &countWriter{w: in}
			var genErr error
			if tc.head == nil {
				genErr = repeatCalls(cw, data, size)
			} else {
				n := tc.head(data)
				cw.Write(data[:n])
				for cw.n < size && genErr == nil {
					_, genErr = cw.Write(data[n:])
				}
			}
			in.Close()
			if err := cmd.Wait(); err != nil || genErr != nil {
				t.Fatalf("tracecat: %v, generating: %v\n%s", err, genErr, stderr.String())
			}
			peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			t.Logf("%d MiB in, peak RSS %.1f MiB:\n%s", cw.n>>20, float64(peak)/(1<<20), stdout.String())
			if peak > 32<<20 {
				t.Errorf("peak RSS %.1f MiB on %d MiB of %s, want under 32 MiB", float64(peak)/(1<<20), cw.n>>20, tc.format)
			}
		})
	}
}

// repeatCalls writes an apitrace trace of at least size bytes: the calls of
// the trace in data, again and again, through a CallWriter.
func repeatCalls(w io.Writer, data []byte, size int64) error {
	cr, err := apitrace.NewCallReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	var calls []*apitrace.Call
	for c, err := range cr.All() {
		if err != nil {
			return err
		}
		calls = append(calls, c.Clone())
	}
	cw, err := apitrace.NewCallWriter(w, cr.Header())
	if err != nil {
		return err
	}
	for counted := w.(*countWriter); counted.n < size; {
		for _, c := range calls {
			if err := cw.Write(c); err != nil {
				return err
			}
		}
	}
	return cw.Close()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// The usage says when -profile is needed: for a Go trace, which has no
// default profile, and not for the other formats.
func TestUsageProfile(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"tracecat [-format F] -pprof OUT.pb.gz -profile TYPE GOTRACE\n",
		"-profile is needed\nfor a Go trace (cpu, net, sync, syscall or sched: there is no default",
		"optional for an sp-rtrace report",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, stderr.String())
		}
	}
}
