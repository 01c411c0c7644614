package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

var td = filepath.Join("..", "..", "xrayfdr", "testdata")

// The outputs must equal the llvm-xray-14 goldens committed with xrayfdr.
func TestGoldens(t *testing.T) {
	for _, name := range []string{"fdr_simple", "fdr_typed", "synthetic-v1", "synthetic-v5", "basic_simple"} {
		log := filepath.Join(td, name+".xray")
		for _, c := range []struct {
			suffix string
			args   []string
		}{
			{".fdr-dump.txt", nil},
			{".fdr-dump-verify.txt", []string{"-verify"}},
			{".yaml", []string{"-yaml"}},
		} {
			want := testutil.ReadFile(t, filepath.Join(td, name+c.suffix))
			var got, stderr bytes.Buffer
			code := run(append(c.args, log), &got, &stderr)
			if name == "basic_simple" && c.suffix != ".yaml" {
				if code != 1 {
					t.Errorf("%s%s: llvm-xray fails, we exit %d", name, c.suffix, code)
				}
			} else if code != 0 {
				t.Fatalf("%s%s: exit %d: %s", name, c.suffix, code, stderr.String())
			}
			testutil.DiffText(t, name+c.suffix, want, got.Bytes())
		}
	}
	var got, stderr bytes.Buffer
	if code := run([]string{"-chrome", "-instr-map", filepath.Join(td, "fdr_simple.instrmap.yaml"), filepath.Join(td, "fdr_simple.xray")}, &got, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	if !json.Valid(got.Bytes()) || !bytes.Contains(got.Bytes(), []byte(`"name":"mid(int)"`)) {
		t.Errorf("chrome output invalid or unnamed:\n%.300s", got.String())
	}
}

func TestExitStatus(t *testing.T) {
	missing := filepath.Join(td, "missing.xray")
	for _, c := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"-h"}, 0, "usage: xraydump"},
		{[]string{"-nosuchflag", "x"}, 2, "flag provided but not defined"},
		{[]string{}, 2, "want one FILE"},
		{[]string{"-yaml", "-verify", "x"}, 2, "exclude each other"},
		{[]string{missing}, 1, "xraydump: open " + missing},
		{[]string{"-yaml", filepath.Join(td, "invalid", "metadata-kind-10.xray")}, 1, "xraydump: " + filepath.Join(td, "invalid", "metadata-kind-10.xray") + ": xrayfdr: offset 80"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, want %d; stderr %q lacks %q", c.args, code, c.code, stderr.String(), c.want)
		}
		if c.code == 2 && strings.Count(stderr.String(), "xraydump:") != 1 {
			t.Errorf("%q: want one error line then the usage, got %q", c.args, stderr.String())
		}
		if c.code == 1 && strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: want one line, got %q", c.args, stderr.String())
		}
	}
}
