package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/internal/testutil/zstdtest"
)

func runCmd(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestUsage(t *testing.T) {
	if _, errs, code := runCmd("-h"); code != 0 || !strings.Contains(errs, "usage: apitraceinfo") {
		t.Errorf("-h: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{{"-bogus", "x.trace"}, {}, {"--dump-frames"}} {
		_, errs, code := runCmd(args...)
		first, _, _ := strings.Cut(errs, "\n")
		if code != 2 || !strings.HasPrefix(first, "apitraceinfo: ") || !strings.Contains(errs, "usage:") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
}

// TestUnreadable checks that a file that cannot be read or parsed gives one
// line naming it and exit status 1, and that the other files are still
// summarised.
func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.trace")
	good := filepath.Join(testutil.ModuleRoot(t), "apitrace", "testdata", "tri.trace")
	out, errs, code := runCmd(missing, good)
	if code != 1 || !strings.HasPrefix(errs, "apitraceinfo: ") || !strings.Contains(errs, missing) || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, %q", code, errs)
	}
	if !strings.Contains(out, `"FileName": "`+good+`"`) {
		t.Errorf("the readable file was not summarised: %q", out)
	}
	damaged := filepath.Join(testutil.ModuleRoot(t), "apitrace", "testdata", "dump", "damaged.trace")
	out, errs, code = runCmd(damaged)
	if code != 1 || out != "" || !strings.Contains(errs, damaged) {
		t.Errorf("damaged: exit %d, %q, %q", code, out, errs)
	}
}

// corrected applies to apitrace info's output the corrections the command
// documents: for a gzip trace the decompressed size of the stream (counted
// here with compress/gzip) and the frame sizes (taken from got: apitrace
// info's are its reader's positions, which mean nothing for gzip), and
// "Frames": [] for a trace without frames.
func corrected(t *testing.T, want, got, trace string) string {
	want = strings.ReplaceAll(want, "\"Frames\": [{\n  }]", "\"Frames\": []")
	if !strings.Contains(want, `"ContainerType": "ZLib"`) {
		return want
	}
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, zr) // a cut stream counts up to the cut
	size := regexp.MustCompile(`"ActualDataSize": [0-9]+`)
	want = size.ReplaceAllString(want, `"ActualDataSize": `+strconv.FormatInt(n, 10))
	frame := regexp.MustCompile(`"SizeInBytes": [0-9]+`)
	gotSizes := frame.FindAllString(got, -1)
	k := 0
	return frame.ReplaceAllStringFunc(want, func(s string) string {
		if k < len(gotSizes) {
			s = gotSizes[k]
		}
		k++
		return s
	})
}

// inDir runs the command on a trace from the trace's directory, so that
// FileName is the base name, as in the goldens.
func inDir(t *testing.T, trace string, args ...string) (string, string, int) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(filepath.Dir(trace)); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	return runCmd(append(args, filepath.Base(trace))...)
}

// TestGoldens compares the output with apitrace info --dump-frames's,
// saved by apitrace/testdata/dump/gen.sh.
func TestGoldens(t *testing.T) {
	root := filepath.Join(testutil.ModuleRoot(t), "apitrace", "testdata")
	goldens, _ := filepath.Glob(filepath.Join(root, "dump", "*.info.json"))
	if len(goldens) == 0 {
		t.Fatal("no goldens")
	}
	for _, g := range goldens {
		name := strings.TrimSuffix(filepath.Base(g), ".info.json") + ".trace"
		trace := filepath.Join(root, "dump", name)
		if _, err := os.Stat(trace); err != nil {
			trace = filepath.Join(root, name)
		}
		t.Run(name, func(t *testing.T) {
			got, errs, code := inDir(t, trace, "--dump-frames")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			want := corrected(t, string(testutil.ReadFile(t, g)), got, trace)
			testutil.DiffText(t, name, []byte(want), []byte(got))
		})
	}
}

// TestAgainstApitrace runs the real apitrace info on every trace we read,
// with and without --dump-frames.
func TestAgainstApitrace(t *testing.T) {
	tool := testutil.Tool(t, "apitrace")
	root := testutil.ModuleRoot(t)
	local, _ := filepath.Glob(filepath.Join(root, "apitrace", "testdata", "*.trace"))
	shared, _ := filepath.Glob(filepath.Join(testutil.SharedFixture(t, "apitrace"), "*.trace"))
	for _, trace := range append(local, shared...) {
		for _, args := range [][]string{nil, {"--dump-frames"}} {
			t.Run(filepath.Base(trace)+strings.Join(args, ""), func(t *testing.T) {
				cmd := exec.Command(tool, append(append([]string{"info"}, args...), filepath.Base(trace))...)
				cmd.Dir = filepath.Dir(trace)
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("apitrace info: %v", err)
				}
				got, errs, code := inDir(t, trace, args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				want := corrected(t, string(out), got, trace)
				testutil.DiffText(t, filepath.Base(trace), []byte(want), []byte(got))
			})
		}
	}
}

// TestZstdName checks the container name of zstd traces: apitrace master's
// for the seekable ones, the same without the qualifier for plain streams
// (apitrace 11.1 reads no zstd).
func TestZstdName(t *testing.T) {
	tool := testutil.Tool(t, "apitrace")
	dir := t.TempDir()
	gz := filepath.Join(dir, "stream.gz")
	orig := filepath.Join(testutil.ModuleRoot(t), "apitrace", "testdata", "tri.trace")
	if msg, err := exec.Command(tool, "repack", "--zlib", orig, gz).CombinedOutput(); err != nil {
		t.Fatalf("apitrace repack: %v: %s", err, msg)
	}
	stream := testutil.ReadFile(t, gz)
	for _, tc := range []struct{ file, name string }{
		{"seekable.trace", "Zstandard (seekable)"},
		{"plain.trace", "Zstandard"},
	} {
		data := zstdtest.Pipe(t, stream, "-3")
		if tc.file == "seekable.trace" {
			data = zstdtest.Seekable(t, stream, zstdtest.FrameSize, false, "-3")
		}
		trace := filepath.Join(dir, tc.file)
		if err := os.WriteFile(trace, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, errs, code := inDir(t, trace)
		if code != 0 || !strings.Contains(got, `"ContainerType": "`+tc.name+`",`) {
			t.Errorf("%s: exit %d: %s%s", tc.file, code, got, errs)
		}
	}
}

// TestMasterSeekable compares the output with apitrace master's info of
// the seekable zstd traces master wrote (../shared/fixtures/apitrace/v13):
// the same but for ContainerSize, where we count the whole file and master
// the frames' compressed sizes from the seek table, leaving the table out.
func TestMasterSeekable(t *testing.T) {
	dir := filepath.Join(testutil.SharedFixture(t, "apitrace"), "v13")
	goldens, _ := filepath.Glob(filepath.Join(dir, "*.info.json"))
	if len(goldens) == 0 {
		t.Fatalf("no info goldens in %s", dir)
	}
	size := regexp.MustCompile(`"ContainerSize": [0-9]+`)
	for _, g := range goldens {
		trace := strings.TrimSuffix(g, ".info.json") + ".trace"
		t.Run(filepath.Base(trace), func(t *testing.T) {
			f, err := os.Open(trace)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			s, err := zstd.OpenSeekable(f, st.Size())
			if err != nil {
				t.Fatal(err)
			}
			var frames int64
			for _, fr := range s.Frames() {
				frames += fr.Size
			}
			want := string(testutil.ReadFile(t, g))
			if m := size.FindString(want); m != `"ContainerSize": `+strconv.FormatInt(frames, 10) {
				t.Fatalf("master's %s, the frames hold %d bytes", m, frames)
			}
			want = size.ReplaceAllString(want, `"ContainerSize": `+strconv.FormatInt(st.Size(), 10))
			got, errs, code := inDir(t, trace)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			testutil.DiffText(t, filepath.Base(trace), []byte(want), []byte(got))
		})
	}
}
