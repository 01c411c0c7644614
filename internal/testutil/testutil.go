// Package testutil holds what the format packages' tests share: finding
// the real fixtures and tools, golden comparisons, and the driver that
// cuts an input at every byte.
package testutil

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// InCI reports whether the tests run under CI (CI=true), where every
// fixture and tool must be present and a missing one fails the test.
func InCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v != "" && v != "0" && v != "false"
}

// ModuleRoot is the directory holding the module's go.mod.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testutil: no go.mod above the test's directory")
		}
		dir = parent
	}
}

// SharedFixture returns the path of rel inside the shared fixture tree that
// stands beside a checkout (../shared/fixtures). When it is absent, the test
// is skipped, or fails under CI.
func SharedFixture(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(ModuleRoot(t), "..", "shared", "fixtures", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missing(t, "shared fixture %s is absent (%v); it lives in ../shared/fixtures beside a checkout", rel, err)
	}
	return p
}

// Tool returns the path of an external command the test compares against.
// When it is not installed, the test is skipped, or fails under CI, where
// .ci/run installs it.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, "%s is not installed (.ci/run installs it in CI): %v", name, err)
	}
	return p
}

func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("testutil: "+format, args...)
	}
	t.Skipf("skipped outside CI: "+format, args...)
}

// ReadFile returns the contents of path, decompressed when it ends in .gz.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// Diff fails the test when got differs from want, showing a line diff
// (-want +got) headed by name.
func Diff[T any](t testing.TB, name string, want, got T) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

// DiffText is Diff for text outputs: it compares line by line so a long
// dump shows only the lines that differ.
func DiffText(t testing.TB, name string, want, got []byte) {
	t.Helper()
	if bytes.Equal(want, got) {
		return
	}
	d := cmp.Diff(strings.SplitAfter(string(want), "\n"), strings.SplitAfter(string(got), "\n"))
	if len(d) > 8000 {
		d = d[:8000] + "\n... (diff cut)"
	}
	t.Errorf("%s differs (-want +got):\n%s", name, d)
}
