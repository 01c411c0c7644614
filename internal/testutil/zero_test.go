package testutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type safeZero struct{ buf []byte }

func (z *safeZero) Read() (byte, error) {
	if z.buf == nil {
		return 0, errors.New("not open")
	}
	return z.buf[0], nil
}

type panickyZero struct{ buf []byte }

func (z *panickyZero) Read() (byte, error) { return z.buf[0], nil }

type nilErrZero struct{}

func (z *nilErrZero) Flush() error { return nil }

func TestCheckZeroValue(t *testing.T) {
	CheckZeroValue(t, new(safeZero))
	CheckZeroValue(t, new(nilErrZero), "Flush")
	for _, v := range []any{new(panickyZero), new(nilErrZero)} {
		ft := new(testing.T)
		done := make(chan struct{})
		go func() { defer close(done); CheckZeroValue(ft, v) }()
		<-done
		if !ft.Failed() {
			t.Errorf("CheckZeroValue(%T) passed", v)
		}
	}
}

type value struct{ n []int }

func (v *value) Len() int { return len(v.n) }

type nilSafe struct{ n []int }

func (v *nilSafe) Len() int {
	if v == nil {
		return 0
	}
	return len(v.n)
}

func TestCheckNilArgs(t *testing.T) {
	refuses := func(p *int) error {
		if p == nil {
			return errors.New("nil")
		}
		return nil
	}
	// Dir holds Safe, Panics, Forgotten and T.
	good := API{Dir: "testdata/nilpkg", Funcs: map[string]any{"Safe": refuses, "Panics": refuses, "Forgotten": func() {}}, Types: []any{new(T), new(nilSafe)}}
	CheckNilArgs(t, good)
	for name, api := range map[string]API{
		"a function panics":       {Dir: good.Dir, Funcs: map[string]any{"Safe": refuses, "Panics": func(p *int) int { return *p }, "Forgotten": func() {}}, Types: good.Types},
		"nil gives no error":      {Dir: good.Dir, Funcs: map[string]any{"Safe": func(*int) error { return nil }, "Panics": refuses, "Forgotten": func() {}}, Types: good.Types},
		"a function is forgotten": {Dir: good.Dir, Funcs: map[string]any{"Safe": refuses, "Panics": refuses}, Types: good.Types},
		"a type is forgotten":     {Dir: good.Dir, Funcs: good.Funcs},
		"a nil value panics":      {Dir: good.Dir, Funcs: good.Funcs, Types: []any{new(T), new(value)}},
	} {
		ft := new(testing.T)
		done := make(chan struct{})
		go func() { defer close(done); CheckNilArgs(ft, api) }()
		<-done
		if !ft.Failed() {
			t.Errorf("%s: CheckNilArgs passed", name)
		}
	}
}

// T stands for the type of testdata/nilpkg.
type T struct{}

// TestEveryPackageChecksNil fails for a public package of the module whose
// tests do not call CheckNilArgs, so that a new package cannot leave its
// exported API out of the nil-argument check.
func TestEveryPackageChecksNil(t *testing.T) {
	root := ModuleRoot(t)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		switch d.Name() {
		case "internal", "examples", "bench", "testdata", ".git", ".ci":
			return filepath.SkipDir
		}
		src, _ := filepath.Glob(filepath.Join(path, "*.go"))
		public, checked := false, false
		for _, f := range src {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if strings.HasSuffix(f, "_test.go") {
				checked = checked || strings.Contains(string(b), "CheckNilArgs(")
			} else if !strings.Contains(string(b), "\npackage main\n") && !strings.HasPrefix(string(b), "package main\n") && !strings.Contains(string(b), "//go:build ignore") {
				public = true
			}
		}
		if public && !checked {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("package %s has no test calling testutil.CheckNilArgs", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
