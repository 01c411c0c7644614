package main

import (
	"bytes"
	"flag"
	"strings"
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
		want := testutil.ReadFile(t, td+tc.golden)
		var out, errs bytes.Buffer
		if code := run(&out, &errs, tc.args); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs.String())
		}
		testutil.DiffText(t, tc.golden, want, out.Bytes())
	}
}

func TestArgs(t *testing.T) {
	testutil.Diff(t, "split", []string{"-l", "-c", "-C", "1", "-s", "count", "-binary-order", "-b", "3", "f"},
		splitShort(defineFlagsOnly(), []string{"-lcC1", "-s", "count", "-binary-order", "-b3", "f"}))
}

// TestExitStatus: -h is 0 with the usage; a bad flag or argument is 2, one
// line saying what is wrong, then the usage; a file that cannot be read or
// parsed is 1, one line naming it.
func TestExitStatus(t *testing.T) {
	shm := td + "upstream-v2.0/shmsysv.txt"
	for _, tc := range []struct {
		args []string
		code int
		line string // the first line on stderr
	}{
		{[]string{"-h"}, 0, usage},
		{[]string{"-help"}, 0, usage},
		{[]string{"-x", shm}, 2, "leakpost: flag provided but not defined: -x"},
		{[]string{"-s", "size", shm}, 2, "leakpost: -s needs -c, as in sp-rtrace-postproc"},
		{[]string{"-c", "-s", "big", shm}, 2, `leakpost: -s "big": not size, size-asc, count or count-asc`},
		{[]string{"-C", "zz", shm}, 2, `leakpost: -C "zz": not a hex mask of 32 bits`},
		{[]string{}, 2, "leakpost: want one input file, got 0 arguments"},
		{[]string{shm, shm}, 2, "leakpost: want one input file, got 2 arguments"},
		{[]string{"/nonexistent/r.txt"}, 1, "leakpost: open /nonexistent/r.txt: no such file or directory"},
		{[]string{td + "generated-x86_64/multi.rtrace"}, 1, "leakpost: " + td + "generated-x86_64/multi.rtrace: leaktext: line 1: not an sp-rtrace text report: a binary sp-rtrace log"},
		{[]string{"../../go.mod"}, 1, `leakpost: ../../go.mod: leaktext: line 1: not an sp-rtrace text report: it starts "module github.co"`},
	} {
		var out, errs bytes.Buffer
		code := run(&out, &errs, tc.args)
		lines := strings.Split(errs.String(), "\n")
		if code != tc.code || !strings.HasPrefix(lines[0], tc.line) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tc.args, code, errs.String(), tc.code, tc.line)
		}
		if tc.code == 2 && (len(lines) < 2 || lines[1] != usage) {
			t.Errorf("%v: no usage after the message: %q", tc.args, errs.String())
		}
		if tc.code == 1 && len(lines) != 2 {
			t.Errorf("%v: more than one line: %q", tc.args, errs.String())
		}
		if tc.code != 0 && out.Len() > 0 {
			t.Errorf("%v: wrote %d bytes to stdout", tc.args, out.Len())
		}
	}
}

func defineFlagsOnly() *flag.FlagSet {
	fs := flag.NewFlagSet("leakpost", flag.ContinueOnError)
	defineFlags(fs)
	return fs
}
