package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/internal/testutil/zstdtest"
)

// TestRun checks the command against apitrace 11.1's own output for the
// same options (goldens of the apitrace package, made by its gen.sh).
func TestRun(t *testing.T) {
	dir := filepath.Join("..", "..", "apitrace", "testdata", "dump")
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"es2_info.txt", []string{"es2_info.trace"}},
		{"es2_info.tid-nocallno-noargnames.txt", []string{"--thread-ids=yes", "--call-nos=no", "--arg-names=no", "es2_info.trace"}},
		{"esc.v-nomultiline.txt", []string{"-v", "--multiline=no", "esc.trace"}},
		{"zlib-no-eof.txt", []string{"zlib-no-eof.trace"}},
	} {
		want, err := os.ReadFile(filepath.Join(dir, tc.golden))
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--color=never"}, tc.args...)
		args[len(args)-1] = filepath.Join(dir, args[len(args)-1])
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Errorf("%s: exit %d: %s", tc.golden, code, stderr.Bytes())
		}
		if !bytes.Equal(stdout.Bytes(), want) {
			t.Errorf("%s: output differs from apitrace dump's", tc.golden)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--nope"}, &stdout, &stderr); code != 1 {
		t.Errorf("bad option: exit %d", code)
	}
	if code := run([]string{filepath.Join(dir, "missing.trace")}, &stdout, &stderr); code != 1 {
		t.Errorf("missing file: exit %d", code)
	}
}

// TestBrotliAndZstd checks a real Brotli trace (`apitrace repack --brotli`)
// and a seekable zstd trace built as apitrace master builds them against
// apitrace 11.1's dump of the same trace.
func TestBrotliAndZstd(t *testing.T) {
	dir := testutil.SharedFixture(t, "apitrace")
	tool := testutil.Tool(t, "apitrace")
	tmp := t.TempDir()
	gz := filepath.Join(tmp, "stream.gz")
	if msg, err := exec.Command(tool, "repack", "--zlib", filepath.Join(dir, "glxinfo-brief.trace"), gz).CombinedOutput(); err != nil {
		t.Fatalf("apitrace repack: %v: %s", err, msg)
	}
	seekable := filepath.Join(tmp, "glxinfo-brief.zstd.trace")
	if err := os.WriteFile(seekable, zstdtest.Seekable(t, testutil.ReadFile(t, gz), zstdtest.FrameSize, false, "-3"), 0o644); err != nil {
		t.Fatal(err)
	}
	for trace, golden := range map[string]string{
		filepath.Join(dir, "glxinfo-brief.brotli.trace"): "glxinfo-brief.brotli.dump.txt",
		seekable: "glxinfo-brief.dump.txt",
	} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"--color=never", trace}, &stdout, &stderr); code != 0 {
			t.Errorf("%s: exit %d: %s", trace, code, stderr.Bytes())
		}
		testutil.DiffText(t, filepath.Base(trace), testutil.ReadFile(t, filepath.Join(dir, golden)), stdout.Bytes())
	}
}

// exitCases are command lines whose exit status (and, for some, message)
// apitracedump shares with apitrace dump.
var exitCases = []struct {
	name    string
	args    []string
	code    int
	message string // a line apitrace dump prints on stderr too
}{
	{"help", []string{"-h"}, 0, ""},
	{"long help", []string{"--help"}, 0, ""},
	{"bad option", []string{"--nope", "x.trace"}, 1, ""},
	{"missing file", []string{"missing.trace"}, 1, "error: failed to open missing.trace"},
	{"damaged", []string{"damaged.trace"}, 1, ""},
	{"cut short", []string{"zlib-no-eof.trace"}, 0, ""},
}

// TestExitStatus checks apitracedump's exit statuses: those of apitrace
// dump, not of the other example commands.
func TestExitStatus(t *testing.T) {
	dir := filepath.Join("..", "..", "apitrace", "testdata", "dump")
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	for _, tc := range exitCases {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code || tc.message != "" && !strings.Contains(stderr.String(), tc.message+"\n") {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.name, code, stderr.String(), tc.code, tc.message)
		}
		if tc.code == 0 && strings.Contains(tc.name, "help") && !strings.HasPrefix(stdout.String(), "usage: apitracedump") {
			t.Errorf("%s: usage not on stdout: %q", tc.name, stdout.String())
		}
	}
}

// TestExitStatusAgainstApitrace runs the same command lines through the
// real apitrace dump.
func TestExitStatusAgainstApitrace(t *testing.T) {
	tool := testutil.Tool(t, "apitrace")
	dir := filepath.Join("..", "..", "apitrace", "testdata", "dump")
	for _, tc := range exitCases {
		cmd := exec.Command(tool, append([]string{"dump"}, tc.args...)...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || tc.message != "" && !strings.Contains(stderr.String(), tc.message+"\n") {
			t.Errorf("%s: apitrace dump exits %d, stderr %q; the test expects %d and %q", tc.name, code, stderr.String(), tc.code, tc.message)
		}
	}
}

// TestWarningsAgainstApitrace11 checks that --compat=11.1 warns as
// apitrace 11.1 does about a boolean option's value 1, and prints the
// same dump; without --compat, 1 means yes, silently, as in 13.0.
func TestWarningsAgainstApitrace11(t *testing.T) {
	tool := testutil.Tool(t, "apitrace")
	dir := filepath.Join("..", "..", "apitrace", "testdata", "dump")
	args := []string{"--color=never", "--thread-ids=1", "--call-nos=maybe", "--calls=0-3", filepath.Join(dir, "es2_info.trace")}
	cmd := exec.Command(tool, append([]string{"dump"}, args...)...)
	var wantErr bytes.Buffer
	cmd.Stderr = &wantErr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("apitrace dump: %v", err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"--compat=11.1"}, args...), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.Bytes())
	}
	testutil.DiffText(t, "stdout", want, stdout.Bytes())
	testutil.DiffText(t, "stderr", wantErr.Bytes(), stderr.Bytes())
	stdout.Reset()
	stderr.Reset()
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.Bytes())
	}
	if got := stderr.String(); got != "error: unexpected bool maybe\n" {
		t.Errorf("13.0 stderr %q, want only the warning about maybe", got)
	}
	testutil.DiffText(t, "stdout", want, stdout.Bytes())
}
