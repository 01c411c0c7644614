package main

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestReadLog reads small and large files (the large ones into memory of
// their own on Linux) and compares with os.ReadFile.
func TestReadLog(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 4096, hugeLogMin - 1, hugeLogMin, hugeLogMin + 2<<20 + 3} {
		want := make([]byte, n)
		rng.Read(want)
		path := filepath.Join(t.TempDir(), "log")
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, release, err := readLog(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: readLog differs from the file", n)
		}
		release()
	}
	if _, _, err := readLog(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("readLog of a missing file: no error")
	}
}
