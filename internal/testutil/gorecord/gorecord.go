// Package gorecord records Go execution traces at test time, with the Go
// toolchain of a given version, so that tests can compare what this module
// makes of a fresh trace with what that Go's own tools make of it.
//
// Use:
//
//	data := gorecord.Record(t, "go1.22.12", gorecord.Workload("all"))
//	file := gorecord.RecordFile(t, gorecord.Local, gorecord.Prog{
//		Source: "package main\n...", // a tiny program: see Prog
//		Env:    []string{"GODEBUG=traceallocfree=1"},
//	})
//	out, err := gorecord.Command(t, gorecord.Local, "tool", "trace", "-d=parsed", file).Output()
//
// A toolchain is a version the go command can switch to (GOTOOLCHAIN), such
// as "go1.25.14", or Local, the go command the tests run with. Toolchains
// lists one per trace format version. A toolchain other than the local one
// is fetched by the go command from the module proxy on first use; when it
// cannot be, the test is skipped, or fails under CI (CI=true).
//
// Each recording is made once per test binary run: asking again returns
// the same trace. Programs are copied to a temporary directory and built
// there (by testutil.BuildGoProgram, with -trimpath): nothing is written
// beside their source.
package gorecord

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// Local names the go command the tests run with, used as it is
// (GOTOOLCHAIN=local).
const Local = "local"

// Toolchains are those the tests record with, one per trace format
// version: Go 1.22 (header Go1.22), 1.23 and 1.24 (both Go1.23), 1.25
// (Go1.25), and the local one (Go 1.26 here and in CI's main pass).
var Toolchains = testutil.GoToolchains

// Prog is a program that writes a trace to the file named by its last
// argument, which Record appends to Args.
type Prog struct {
	// Dir is a directory holding the program's module (go.mod and its
	// .go files), relative to the module root of the test's package
	// unless absolute. Dir and Source are exclusive.
	Dir string
	// Shared names a program in ../shared/fixtures/gotrace/progs/ (module
	// gotracefixtures) instead; the test is skipped, or fails under CI,
	// when it is absent.
	Shared string
	// Source is the text of main.go of a program of its own module
	// (go 1.22), written to a temporary directory.
	Source string
	// Args come before the trace file's name.
	Args []string
	// Env is added to the test's environment when the program runs
	// (GODEBUG=traceallocfree=1, traceadvanceperiod=...).
	Env []string
}

// Workload is the module's own recording program with the given mode:
// "all" (goroutines and channels, a mutex, GC, syscalls, user tasks,
// regions and logs, 128-frame stacks, CPU samples: one generation or
// two) or "light" (channels and GC, then a 10 ms sleep, which with
// GODEBUG=traceadvanceperiod=2000000 gives several generations).
func Workload(mode string) Prog {
	return Prog{Dir: "gotraceraw/testdata/recordprog", Args: []string{mode}}
}

var cache struct {
	sync.Mutex
	toolchains map[string]*toolchain // by name
	traces     map[string]*result    // by toolchain, source, args, env
}

type toolchain struct {
	once    sync.Once
	gocmd   string
	env     string // GOTOOLCHAIN=...
	version string // go env GOVERSION
	err     error
}

type result struct {
	once sync.Once
	data []byte
	err  error
}

// entry returns the cache entry of key in m, making it.
func entry(m *map[string]*result, key string) *result {
	cache.Lock()
	defer cache.Unlock()
	if *m == nil {
		*m = map[string]*result{}
	}
	r := (*m)[key]
	if r == nil {
		r = new(result)
		(*m)[key] = r
	}
	return r
}

// getToolchain finds toolchain name, fetching it on first use.
func getToolchain(t testing.TB, name string) *toolchain {
	t.Helper()
	gocmd := testutil.Tool(t, "go")
	cache.Lock()
	if cache.toolchains == nil {
		cache.toolchains = map[string]*toolchain{}
	}
	tc := cache.toolchains[name]
	if tc == nil {
		tc = &toolchain{gocmd: gocmd}
		cache.toolchains[name] = tc
	}
	cache.Unlock()
	tc.once.Do(func() {
		tc.env = "GOTOOLCHAIN=local"
		local, err := goVersion(gocmd, tc.env)
		if err != nil {
			tc.err = err
			return
		}
		if name == Local || name == local {
			tc.version = local
			return
		}
		if !regexp.MustCompile(`^go1\.\d+(\.\d+)?$`).MatchString(name) {
			tc.err = fmt.Errorf("gorecord: %q is not a toolchain name such as go1.25.14", name)
			return
		}
		tc.env = "GOTOOLCHAIN=" + name
		tc.version, tc.err = goVersion(gocmd, tc.env)
	})
	if tc.err != nil {
		if strings.HasPrefix(tc.err.Error(), "gorecord:") {
			t.Fatal(tc.err)
		}
		missing(t, "toolchain %s cannot be had: %v", name, tc.err)
	}
	return tc
}

func goVersion(gocmd, env string) (string, error) {
	cmd := exec.Command(gocmd, "env", "GOVERSION")
	cmd.Env = append(os.Environ(), env)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // "go: downloading go1.25.14" goes there
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s go env GOVERSION: %v: %s", env, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return string(bytes.TrimSpace(out)), nil
}

func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if testutil.InCI() {
		t.Fatalf("gorecord: "+format, args...)
	}
	t.Skipf("skipped outside CI: "+format, args...)
}

// Version returns the Go version of toolchain ("go1.26.8"), skipping the
// test as Record does when it cannot be had.
func Version(t testing.TB, toolchain string) string {
	t.Helper()
	return getToolchain(t, toolchain).version
}

// Command returns a command running the go command of toolchain with
// args, as `go tool trace -d=parsed FILE` of that version.
func Command(t testing.TB, toolchain string, args ...string) *exec.Cmd {
	t.Helper()
	tc := getToolchain(t, toolchain)
	cmd := exec.Command(tc.gocmd, args...)
	cmd.Env = append(os.Environ(), tc.env)
	return cmd
}

// source returns the files of p's program and a key naming them.
func source(t testing.TB, p Prog) (map[string][]byte, string) {
	t.Helper()
	files := map[string][]byte{}
	dir := ""
	switch {
	case p.Source != "":
		files["go.mod"] = []byte("module gorecordprog\n\ngo 1.22\n")
		files["main.go"] = []byte(p.Source)
	case p.Shared != "":
		dir = testutil.SharedFixture(t, "gotrace/progs/"+p.Shared)
	case p.Dir != "":
		dir = p.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(testutil.ModuleRoot(t), filepath.FromSlash(dir))
		}
	default:
		t.Fatal("gorecord: a Prog needs Dir, Shared or Source")
	}
	if dir != "" {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("gorecord: %v", err)
		}
		for _, e := range ents {
			if n := e.Name(); e.Type().IsRegular() && (strings.HasSuffix(n, ".go") || n == "go.mod" || n == "go.sum") {
				b, err := os.ReadFile(filepath.Join(dir, n))
				if err != nil {
					t.Fatalf("gorecord: %v", err)
				}
				files[n] = b
			}
		}
		if files["go.mod"] == nil {
			t.Fatalf("gorecord: %s holds no go.mod", dir)
		}
	}
	h := sha256.New()
	for _, n := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s\x00%d\x00%s", n, len(files[n]), files[n])
	}
	return files, fmt.Sprintf("%x", h.Sum(nil)[:12])
}

// Record returns a trace written by p's program built with toolchain
// (Local, or a name as in Toolchains). The same request in the same test
// binary returns the same trace, which the caller must not modify.
func Record(t testing.TB, toolchain string, p Prog) []byte {
	t.Helper()
	tc := getToolchain(t, toolchain)
	files, src := source(t, p)
	key := strings.Join(append(append([]string{toolchain, src}, p.Args...), append([]string{"\x00"}, p.Env...)...), "\x00")
	r := entry(&cache.traces, key)
	r.once.Do(func() {
		dir, err := os.MkdirTemp("", "gorecord")
		if err != nil {
			r.err = err
			return
		}
		defer os.RemoveAll(dir)
		for n, b := range files {
			if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
				r.err = err
				return
			}
		}
		file := testutil.RecordGoTrace(t, strings.TrimPrefix(tc.env, "GOTOOLCHAIN="), dir, p.Env, append(p.Args, "OUT")...)
		r.data, r.err = os.ReadFile(file)
	})
	if r.err != nil {
		t.Fatalf("gorecord: %v", r.err)
	}
	return r.data
}

// RecordFile is Record writing the trace to a file in t.TempDir(), whose
// name it returns.
func RecordFile(t testing.TB, toolchain string, p Prog) string {
	t.Helper()
	data := Record(t, toolchain, p)
	file := filepath.Join(t.TempDir(), "recorded.trace")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
