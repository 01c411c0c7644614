package testutil

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// Input is a named test input.
type Input struct {
	Name string
	Data []byte
}

// Foreign returns inputs that are no trace of any format this module
// reads: a line of English text, the module's go.mod and one of its Go
// source files, seeded random bytes, the start of the test's own ELF
// binary; then the samples of every format that tracecat carries (their
// names say which format; a package's test skips its own). A reader's
// header check must refuse each input that is not its format.
func Foreign(t testing.TB) []Input {
	t.Helper()
	root := ModuleRoot(t)
	rnd := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(rnd)
	in := []Input{
		{"english", []byte("This is a line of English text, and no trace of any kind at all.\n")},
		{"go.mod", ReadFile(t, filepath.Join(root, "go.mod"))},
		{"go-source", ReadFile(t, filepath.Join(root, "internal", "testutil", "foreign.go"))},
		{"random", rnd},
	}
	if exe, err := os.Executable(); err == nil {
		if b, err := os.ReadFile(exe); err == nil {
			in = append(in, Input{"elf", b[:min(len(b), 4096)]})
		}
	}
	samples, _ := filepath.Glob(filepath.Join(root, "examples", "tracecat", "samples", "*"))
	if len(samples) == 0 {
		t.Fatal("testutil: tracecat's samples are missing")
	}
	for _, p := range samples {
		in = append(in, Input{"sample " + filepath.Base(p), ReadFile(t, p)})
	}
	return in
}
