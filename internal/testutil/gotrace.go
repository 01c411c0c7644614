package testutil

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// GoToolchains are the toolchains whose traces the tests record, one per
// trace version and Go 1.24 (which writes Go 1.23's): the go command
// fetches each from the module proxy by GOTOOLCHAIN. "local" is the one
// on PATH.
var GoToolchains = []string{"go1.22.12", "go1.23.12", "go1.24.13", "go1.25.14", "local"}

var builds sync.Map // toolchain + dir → *buildResult

type buildResult struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// BuildGoProgram builds the main package in dir (a module of its own) with
// the given toolchain, once per test binary, and returns the executable.
// When the toolchain cannot be had (no network, no proxy), the test is
// skipped, or fails under CI.
func BuildGoProgram(t testing.TB, toolchain, dir string) string {
	t.Helper()
	gocmd := Tool(t, "go")
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := builds.LoadOrStore(toolchain+"\x00"+abs, new(buildResult))
	b := v.(*buildResult)
	b.once.Do(func() {
		tmp, err := os.MkdirTemp("", "tracefmt-goprog")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(tmp, filepath.Base(abs))
		cmd := exec.Command(gocmd, "build", "-trimpath", "-o", b.path, ".")
		cmd.Dir = abs
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+toolchain, "GOFLAGS=")
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		if toolchain != "local" && strings.Contains(string(b.out), "download") {
			missing(t, "toolchain %s cannot be fetched: %v\n%s", toolchain, b.err, b.out)
		}
		t.Fatalf("building %s with %s: %v\n%s", dir, toolchain, b.err, b.out)
	}
	return b.path
}

// RecordGoTrace builds the program in dir with toolchain (see
// BuildGoProgram) and runs it with args, where "OUT" stands for the trace
// file it must write, and env added to its environment. It returns the
// trace's path, in a directory the test removes.
func RecordGoTrace(t testing.TB, toolchain, dir string, env []string, args ...string) string {
	t.Helper()
	prog := BuildGoProgram(t, toolchain, dir)
	out := filepath.Join(t.TempDir(), "rec.trace")
	argv := make([]string, len(args))
	for i, a := range args {
		if a == "OUT" {
			a = out
		}
		argv[i] = a
	}
	cmd := exec.Command(prog, argv...)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(prog), argv, err, b)
	}
	return out
}

var goRoot struct {
	once sync.Once
	dir  string
	err  error
}

// GoRoot returns $(go env GOROOT) of the go command on PATH, where Go's
// own trace tests and corpus are, skipping the test when there is none
// (failing under CI).
func GoRoot(t testing.TB) string {
	t.Helper()
	gocmd := Tool(t, "go")
	goRoot.once.Do(func() {
		out, err := exec.Command(gocmd, "env", "GOROOT").Output()
		goRoot.dir, goRoot.err = strings.TrimSpace(string(out)), err
	})
	if goRoot.err != nil {
		t.Fatalf("go env GOROOT: %v", goRoot.err)
	}
	return goRoot.dir
}

var goMinor struct {
	once sync.Once
	n    int
	err  error
}

// GoMinor returns the minor version of the go command on PATH (26 for
// go1.26.8), skipping the test when there is none (failing under CI).
func GoMinor(t testing.TB) int {
	t.Helper()
	gocmd := Tool(t, "go")
	goMinor.once.Do(func() {
		out, err := exec.Command(gocmd, "env", "GOVERSION").Output()
		if err != nil {
			goMinor.err = err
			return
		}
		v := strings.TrimPrefix(strings.TrimSpace(string(out)), "go1.")
		if i := strings.IndexAny(v, ".rcbeta"); i >= 0 {
			v = v[:i]
		}
		goMinor.n, goMinor.err = strconv.Atoi(v)
	})
	if goMinor.err != nil {
		t.Fatalf("go env GOVERSION: %v", goMinor.err)
	}
	return goMinor.n
}

// TxtarSection returns the body of section name of a txtar archive, as
// Go's trace test corpus holds its traces and expectations.
func TxtarSection(archive []byte, name string) ([]byte, bool) {
	marker := []byte("-- " + name + " --\n")
	i := bytes.Index(archive, marker)
	if i < 0 || (i > 0 && archive[i-1] != '\n') {
		return nil, false
	}
	body := archive[i+len(marker):]
	if j := bytes.Index(body, []byte("\n-- ")); j >= 0 {
		body = body[:j+1]
	}
	return body, true
}
