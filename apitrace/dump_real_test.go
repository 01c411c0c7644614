package apitrace

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// recordRealTraces records short traces of Mesa demos with the real tracer
// under a virtual X server and Mesa's software renderer: glxinfo -B, and
// about two seconds each of glxgears (GLX, display lists) and es2gears (EGL
// and GLES2: shaders, vertex buffer blobs), stopped by SIGINT so that their
// last call is often incomplete.
func recordRealTraces(t *testing.T) (dir string, traces []string) {
	t.Helper()
	apitrace := testutil.Tool(t, "apitrace")
	xvfb := testutil.Tool(t, "xvfb-run")
	glxinfo := testutil.Tool(t, "glxinfo")
	glxgears := testutil.Tool(t, "glxgears")
	es2gears := testutil.Tool(t, "es2gears_x11")
	timeout := testutil.Tool(t, "timeout")
	dir = t.TempDir()
	for _, run := range []struct {
		name, api string
		cmd       []string
	}{
		{"glxinfo.trace", "gl", []string{glxinfo, "-B"}},
		{"glxgears.trace", "gl", []string{timeout, "-k", "5", "-s", "INT", "2", glxgears}},
		{"es2gears.trace", "egl", []string{timeout, "-k", "5", "-s", "INT", "2", es2gears}},
	} {
		args := append([]string{"-a", apitrace, "trace", "--api", run.api, "-o", filepath.Join(dir, run.name)}, run.cmd...)
		// A recording that hangs (X server, demo) fails the test instead.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, xvfb, args...)
		cmd.WaitDelay = 10 * time.Second // children may keep the output pipe open
		cmd.Env = append(os.Environ(), "LIBGL_ALWAYS_SOFTWARE=1")
		out, err := cmd.CombinedOutput()
		if _, serr := os.Stat(filepath.Join(dir, run.name)); serr != nil {
			t.Fatalf("recording %s: %v (%v)\n%s", run.name, serr, err, out)
		}
		traces = append(traces, run.name)
	}
	return dir, traces
}

// TestDumpAgainstApitrace records real traces and compares our dump with
// `apitrace dump` on them, option set by option set, blob files included,
// and our summary with `apitrace info`'s.
func TestDumpAgainstApitrace(t *testing.T) {
	if testing.Short() {
		t.Skip("records traces under xvfb-run")
	}
	dir, traces := recordRealTraces(t)
	apitrace := testutil.Tool(t, "apitrace")
	for _, trace := range traces {
		t.Run("info/"+trace, func(t *testing.T) { checkRealInfo(t, filepath.Join(dir, trace)) })
	}
	for _, args := range [][]string{
		{"--color=never"},
		{"--color=never", "-v"},
		{"--color=never", "--thread-ids", "--call-nos=no", "--arg-names=no"},
		{"--color=never", "--multiline=no", "-v"},
		{"--color=never", "--calls=0-100,200-/7,*/frame"},
		{"--color=never", "--grep=^glX|Viewport", "-v"},
		{"--color=never", "--blobs"},
		{"--color=always", "-v"},
	} {
		for _, trace := range traces {
			t.Run(trace+"/"+strings.Join(args, " "), func(t *testing.T) {
				realBlobs, ourBlobs := t.TempDir(), t.TempDir()
				cmd := exec.Command(apitrace, append(append([]string{"dump"}, args...), filepath.Join(dir, trace))...)
				cmd.Dir = realBlobs
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				want, err := cmd.Output()
				if err != nil {
					t.Fatalf("apitrace dump: %v\n%s", err, stderr.Bytes())
				}
				a, err := ParseDumpArgs(append([]string{"--compat=11.1"}, append(args, trace)...))
				if err != nil {
					t.Fatal(err)
				}
				opts := a.Options
				opts.BlobDir = ourBlobs
				var got bytes.Buffer
				if err := dumpFiles(t, &got, opts, dir, a.Files); err != nil {
					t.Fatal(err)
				}
				testutil.DiffText(t, "dump", want, got.Bytes())
				if opts.Blobs {
					testutil.DiffText(t, "blob files", blobSums(t, realBlobs), blobSums(t, ourBlobs))
				}
			})
		}
	}
}

// TestDumpTruncatedAgainstApitrace cuts committed traces (snappy and gzip)
// at several places and compares our dump of each piece with apitrace's:
// the calls kept, dropped and marked incomplete must be the same.
func TestDumpTruncatedAgainstApitrace(t *testing.T) {
	apitrace := testutil.Tool(t, "apitrace")
	dir := t.TempDir()
	for _, name := range []string{"glxinfo-brief-backtrace.trace", "tri.trace", "zlib-no-eof.trace", "synth.trace"} {
		data := testutil.ReadFile(t, filepath.Join("testdata", "dump", name))
		for _, frac := range []int{5, 33, 50, 77, 95, 99} {
			n := len(data) * frac / 100
			if n < 200 {
				// A cut inside the header: apitrace prints the properties
				// it half read, padded with bytes read past the end.
				continue
			}
			cut := filepath.Join(dir, "cut.trace")
			if err := os.WriteFile(cut, data[:n], 0o644); err != nil {
				t.Fatal(err)
			}
			want, err := exec.Command(apitrace, "dump", "--color=never", "-v", cut).Output()
			if err != nil {
				t.Fatalf("%s cut at %d: apitrace dump: %v", name, n, err)
			}
			var got bytes.Buffer
			if err := dumpFiles(t, &got, DumpOptions{Verbose: true}, dir, []string{"cut.trace"}); err != nil {
				t.Fatalf("%s cut at %d: %v", name, n, err)
			}
			testutil.DiffText(t, name+" cut", want, got.Bytes())
		}
	}
}
