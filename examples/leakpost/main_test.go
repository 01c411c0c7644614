package main

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

const td = "../../leaktext/testdata/"

// TestGoldens runs leakpost as sp-rtrace-postproc was run, on pairs where
// the real tool's output has none of its documented defects.
func TestGoldens(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{[]string{"-lc", td + "upstream-v2.0/shmsysv.txt"}, "upstream-v2.0/shmsysv.lc.txt"},
		{[]string{"-l", "-c", td + "upstream-v2.0/shmsysv.r.txt"}, "upstream-v2.0/shmsysv.r.lc.txt"},
		{[]string{"-binary-order", "-lc", td + "generated-x86_64/nots-b3.txt"}, "generated-x86_64/nots-b3.lc.txt"},
		{[]string{"-binary-order", "-s", "size-asc", "-lc", td + "generated-x86_64/nots-b3.txt"}, "generated-x86_64/nots-b3.lc.txt"},
	} {
		want, err := os.ReadFile(td + tc.golden)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(&out, tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		testutil.DiffText(t, tc.golden, want, out.Bytes())
	}
}

func TestArgs(t *testing.T) {
	testutil.Diff(t, "split", []string{"-l", "-c", "-C", "1", "-s", "count", "-binary-order", "-b", "3", "f"},
		splitShort(fsOnly(), []string{"-lcC1", "-s", "count", "-binary-order", "-b3", "f"}))
	for _, bad := range [][]string{{"-s", "size", td + "upstream-v2.0/shmsysv.txt"}, {"-c", "-s", "big", td + "upstream-v2.0/shmsysv.txt"}, {"-C", "zz", "x"}, {}, {"/nonexistent"}} {
		if err := run(&bytes.Buffer{}, bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func fsOnly() *flag.FlagSet { fs, _ := flagSet(); return fs }
