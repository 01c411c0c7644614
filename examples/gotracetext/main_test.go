package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestConvert turns a runtime-written trace into the text Go's toolchain
// printed for it, and that text back into the runtime's bytes.
func TestConvert(t *testing.T) {
	for _, name := range []string{"gotest", "go122-annotations", "allocfree"} {
		data := testutil.ReadFile(t, "../../gotraceraw/testdata/"+name+".trace")
		want := testutil.ReadFile(t, "../../gotraceraw/testdata/"+name+".txt.gz")
		var text bytes.Buffer
		if err := toText(&text, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		testutil.DiffText(t, name+" text", want, text.Bytes())
		var wire bytes.Buffer
		if err := toWire(&wire, bytes.NewReader(want), true); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(wire.Bytes(), data) {
			t.Errorf("%s: -wire gave %d bytes, want the runtime's %d", name, wire.Len(), len(data))
		}
		wire.Reset()
		if err := toWire(&wire, bytes.NewReader(want), false); err != nil {
			t.Fatal(err)
		}
		if wire.Len() >= len(data) {
			t.Errorf("%s: -canonical gave %d bytes, want fewer than %d", name, wire.Len(), len(data))
		}
	}
}

// TestCut prints the events before a cut and reports the cut.
func TestCut(t *testing.T) {
	data, err := os.ReadFile("../../gotraceraw/testdata/gotest.trace")
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	err = toText(&text, bytes.NewReader(data[:len(data)-3]))
	if !errors.Is(err, io.ErrUnexpectedEOF) || text.Len() == 0 {
		t.Errorf("cut trace: %v, %d bytes of text", err, text.Len())
	}
}

// TestCommandLine checks the behaviour every example command shares.
func TestCommandLine(t *testing.T) {
	trace := "../../gotraceraw/testdata/gotest.trace"
	missing := filepath.Join(t.TempDir(), "missing.trace")
	cut := filepath.Join(t.TempDir(), "cut.trace")
	data := testutil.ReadFile(t, trace)
	if err := os.WriteFile(cut, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string // a substring of stderr; "" means empty stderr
		out    bool   // stdout is not empty
	}{
		{[]string{"-h"}, 0, "usage: gotracetext", false},
		{[]string{"-bogus", trace}, 2, "gotracetext: flag provided but not defined: -bogus\nusage:", false},
		{[]string{}, 2, "gotracetext: want one FILE, got 0 arguments\nusage:", false},
		{[]string{"-canonical", trace}, 2, "gotracetext: -canonical needs -wire\n", false},
		{[]string{missing}, 1, "gotracetext: open " + missing + ": no such file", false},
		{[]string{cut}, 1, "gotracetext: " + cut + ": gotraceraw: offset", true},
		{[]string{"-wire", trace}, 1, "gotracetext: " + trace + ": gotraceraw: line 1: not a Go execution trace header", false},
		{[]string{trace}, 0, "", true},
		{[]string{"-parsed", trace}, 0, "", true},
		{[]string{"-footprint", trace}, 0, "", true},
		{[]string{"-parsed", cut}, 1, "gotracetext: " + cut + ": parsed: offset", true},
		{[]string{"-wire", "-parsed", trace}, 2, "gotracetext: -wire, -parsed and -footprint exclude each other\n", false},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, code, tc.code, stderr.String())
		}
		if tc.stderr == "" && stderr.Len() != 0 || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%q: stderr %q, want %q", tc.args, stderr.String(), tc.stderr)
		}
		if code == 1 && strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: stderr is not one line: %q", tc.args, stderr.String())
		}
		if (stdout.Len() > 0) != tc.out {
			t.Errorf("%q: %d bytes on stdout", tc.args, stdout.Len())
		}
	}
}

// TestLikeGoTool runs -parsed and -footprint beside `go tool trace
// -d=parsed` and `-d=footprint` (Go 1.26's) on traces of each version, a
// cut one and a broken one: the same stdout and exit status, and our
// error carries Go's message.
func TestLikeGoTool(t *testing.T) {
	tool := goTraceTool(t)
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.trace")
	data := testutil.ReadFile(t, "../../gotraceraw/testdata/gcgens.trace")
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{cut}
	for _, name := range []string{"gotest", "gcgens", "go122-annotations", "go123-coro", "go124-annotations", "go125-light"} {
		files = append(files, "../../gotraceraw/testdata/"+name+".trace")
	}
	for _, f := range files {
		for _, mode := range []string{"parsed", "footprint"} {
			likeGoTool(t, tool, mode, f)
		}
	}
}

// goTraceTool returns the path of Go 1.26's trace tool, or skips.
func goTraceTool(t *testing.T) string {
	t.Helper()
	gocmd := testutil.Tool(t, "go")
	out, err := exec.Command(gocmd, "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "go1.26") {
		t.Skipf("compares with Go 1.26's go tool trace; the go command here is %s", v)
	}
	// The tool binary itself, without the go command's start each time.
	lookup := exec.Command(gocmd, "tool", "-n", "trace")
	lookup.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err = lookup.Output()
	if err != nil {
		t.Fatalf("go tool -n trace: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestFootprintCutLikeGo cuts a trace inside batch headers (whose padded
// sizes are ten-byte varints), at varint boundaries and inside a string's
// data: Go's tool counts the events before a cut unless it falls inside a
// varint, where it fails; -footprint must do the same.
func TestFootprintCutLikeGo(t *testing.T) {
	tool := goTraceTool(t)
	data := testutil.ReadFile(t, "../../gotraceraw/testdata/basic.trace")
	cuts := []int{}
	for off := gotraceraw.HeaderLen + 1; off < gotraceraw.HeaderLen+40; off += 3 {
		cuts = append(cuts, off)
	}
	// Inside the data of the first String of some length, and right
	// after its length.
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for {
		start := r.Offset()
		ev, err := r.Read()
		if err != nil {
			t.Fatal("no String of 8 bytes or more")
		}
		if ev.Type == gotraceraw.EvString && len(ev.Data) >= 8 {
			end := int(r.Offset())
			cuts = append(cuts, end-len(ev.Data), end-4, int(start)+1)
			break
		}
	}
	dir := t.TempDir()
	for _, off := range cuts {
		f := filepath.Join(dir, fmt.Sprintf("cut%d.trace", off))
		if err := os.WriteFile(f, data[:off], 0o644); err != nil {
			t.Fatal(err)
		}
		likeGoTool(t, tool, "footprint", f)
	}
}

// likeGoTool runs `go tool trace -d=MODE f` and gotracetext -MODE f: the
// same stdout and exit status, and our error carries Go's message.
func likeGoTool(t *testing.T, tool, mode, f string) {
	t.Helper()
	var want, goErr bytes.Buffer
	cmd := exec.Command(tool, "-d="+mode, f)
	cmd.Stdout, cmd.Stderr = &want, &goErr
	wantCode := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		wantCode = ee.ExitCode()
	}
	var got, stderr bytes.Buffer
	code := run([]string{"-" + mode, f}, &got, &stderr)
	name := filepath.Base(f) + " -" + mode
	testutil.DiffText(t, name, want.Bytes(), got.Bytes())
	if code != wantCode {
		t.Errorf("%s: exit %d, want %d (%s)", name, code, wantCode, stderr.Bytes())
	}
	if msg := strings.TrimSpace(goErr.String()); msg != "" && !strings.Contains(stderr.String(), msg) {
		t.Errorf("%s: stderr %q does not carry Go's %q", name, stderr.String(), msg)
	}
}
