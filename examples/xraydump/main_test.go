package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// The outputs must equal the llvm-xray-14 goldens committed with xrayfdr.
func TestGoldens(t *testing.T) {
	td := filepath.Join("..", "..", "xrayfdr", "testdata")
	for _, name := range []string{"fdr_simple", "fdr_typed", "synthetic-v1", "synthetic-v5", "basic_simple"} {
		log := filepath.Join(td, name+".xray")
		for _, c := range []struct {
			suffix       string
			verify, yaml bool
		}{
			{".fdr-dump.txt", false, false},
			{".fdr-dump-verify.txt", true, false},
			{".yaml", false, true},
		} {
			want := testutil.ReadFile(t, filepath.Join(td, name+c.suffix))
			var got bytes.Buffer
			err := run(&got, log, c.verify, c.yaml, false, "")
			if name == "basic_simple" && !c.yaml {
				if err == nil {
					t.Errorf("%s%s: llvm-xray fails, we do not", name, c.suffix)
				}
			} else if err != nil {
				t.Fatalf("%s%s: %v", name, c.suffix, err)
			}
			testutil.DiffText(t, name+c.suffix, want, got.Bytes())
		}
	}
	var got bytes.Buffer
	if err := run(&got, filepath.Join(td, "fdr_simple.xray"), false, false, true, filepath.Join(td, "fdr_simple.instrmap.yaml")); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(got.Bytes()) || !bytes.Contains(got.Bytes(), []byte(`"name":"mid(int)"`)) {
		t.Errorf("chrome output invalid or unnamed:\n%.300s", got.String())
	}
	if err := run(&got, filepath.Join(td, "missing.xray"), false, false, false, ""); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
