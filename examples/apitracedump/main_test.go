package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
