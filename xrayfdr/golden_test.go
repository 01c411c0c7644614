package xrayfdr

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// golden is one log with the outputs the real llvm-xray-14 made of it.
type golden struct {
	name string // path without .xray
	data []byte
}

func goldens(t *testing.T) []golden {
	t.Helper()
	var paths []string
	for _, pat := range []string{"testdata/*.xray", "testdata/invalid/*.xray"} {
		m, _ := filepath.Glob(pat)
		paths = append(paths, m...)
	}
	if len(paths) < 20 {
		t.Fatalf("only %d logs in testdata", len(paths))
	}
	var out []golden
	for _, p := range paths {
		out = append(out, golden{strings.TrimSuffix(p, ".xray"), testutil.ReadFile(t, p)})
	}
	return out
}

// output returns a golden output file, gzipped or not.
func (g golden) output(t *testing.T, suffix string) []byte {
	t.Helper()
	p := g.name + suffix
	if _, err := os.Stat(p); err != nil {
		p += ".gz"
	}
	return testutil.ReadFile(t, p)
}

// toolError returns what llvm-xray printed on stderr for a command
// ("fdr-dump", "fdr-dump -verify", "convert") without its "llvm-xray: "
// prefix, or "" when it succeeded.
func (g golden) toolError(t *testing.T, cmd string) string {
	t.Helper()
	b, err := os.ReadFile(g.name + ".err")
	if err != nil {
		return ""
	}
	sections := strings.Split("\n"+string(b), "\n--- ")
	for _, s := range sections {
		head, body, _ := strings.Cut(s, "\n")
		if strings.HasPrefix(head, cmd+": exit ") {
			i := strings.Index(body, "llvm-xray: ")
			if i < 0 {
				return strings.TrimSpace(body)
			}
			return strings.TrimSpace(body[i+len("llvm-xray: "):])
		}
	}
	return ""
}

func checkToolError(t *testing.T, want string, err error) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("llvm-xray accepts the log, we say %v", err)
		}
		return
	}
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Errorf("llvm-xray says %q, we say %v", want, err)
		return
	}
	testutil.Diff(t, "error text", want, fe.LLVM)
}

func TestDumpGolden(t *testing.T) {
	for _, g := range goldens(t) {
		t.Run(g.name, func(t *testing.T) {
			var got bytes.Buffer
			err := Dump(&got, bytes.NewReader(g.data))
			testutil.DiffText(t, "fdr-dump", g.output(t, ".fdr-dump.txt"), got.Bytes())
			checkToolError(t, g.toolError(t, "fdr-dump"), err)
		})
	}
}

func TestDumpVerifyGolden(t *testing.T) {
	for _, g := range goldens(t) {
		t.Run(g.name, func(t *testing.T) {
			var got bytes.Buffer
			err := LLVM14.DumpVerify(&got, g.data) // the goldens are llvm-xray-14's
			testutil.DiffText(t, "fdr-dump -verify", g.output(t, ".fdr-dump-verify.txt"), got.Bytes())
			checkToolError(t, g.toolError(t, "fdr-dump -verify"), err)
		})
	}
}

func TestYAMLGolden(t *testing.T) {
	for _, g := range goldens(t) {
		t.Run(g.name, func(t *testing.T) {
			var got bytes.Buffer
			tr, err := LLVM14.Expand(g.data, true) // the goldens are llvm-xray-14's
			if err == nil {
				err = WriteYAML(&got, tr)
			}
			want := g.output(t, ".yaml")
			if g.toolError(t, "convert") != "" {
				if err == nil {
					t.Errorf("llvm-xray convert fails, we expand %d events", len(tr.Events))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			testutil.DiffText(t, "yaml", want, got.Bytes())
		})
	}
}
