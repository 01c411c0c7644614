package apitrace

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// dumpV13Golden reads the command line of a golden in the shared v13
// folder from its name (TRACE.dump-calls-RANGE[-thread-ids].txt, as its
// README says).
func dumpV13Golden(t *testing.T, name string) (trace string, args []string) {
	base := strings.TrimSuffix(name, ".txt")
	trace, calls, ok := strings.Cut(base, ".dump-calls-")
	if !ok {
		t.Fatalf("%s: not a dump-calls golden", name)
	}
	if r, ok := strings.CutSuffix(calls, "-thread-ids"); ok {
		calls = r
		args = append(args, "--thread-ids")
	}
	// RANGE is FIRST-LAST or one call number.
	if first, last, ok := strings.Cut(calls, "-"); ok {
		calls = first + "-" + last
	}
	return trace + ".trace", append(args, "--calls="+calls)
}

// TestDumpV13Goldens compares our default dump with apitrace 13.0's own
// output of --calls on a multithreaded trace and on a trace whose last
// call is incomplete (../shared/fixtures/apitrace/v13, made with 13.0
// built from its sources; master prints the same).
func TestDumpV13Goldens(t *testing.T) {
	dir := testutil.SharedFixture(t, "apitrace")
	goldens, err := filepath.Glob(filepath.Join(dir, "v13", "*.dump-calls-*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(goldens) == 0 {
		t.Fatalf("no dump goldens in %s/v13", dir)
	}
	differ := 0
	for _, g := range goldens {
		trace, args := dumpV13Golden(t, filepath.Base(g))
		t.Run(filepath.Base(g), func(t *testing.T) {
			want := testutil.ReadFile(t, g)
			for _, v := range []DumpVersion{Dump13, Dump11} {
				a, err := ParseDumpArgs(append([]string{"--compat=" + v.String()}, args...))
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if err := dumpFiles(t, &got, a.Options, dir, []string{trace}); err != nil {
					t.Fatal(err)
				}
				if v == Dump13 {
					testutil.DiffText(t, filepath.Base(g), want, got.Bytes())
				} else if !bytes.Equal(want, got.Bytes()) {
					differ++
				}
			}
		})
	}
	// The goldens were chosen where the releases differ: most of them
	// must show it, or --compat=11.1 changes nothing.
	if differ*2 < len(goldens) {
		t.Errorf("--compat=11.1 differs from 13.0 on %d of %d goldens, want at least half", differ, len(goldens))
	}
}

// TestDumpCallsAgainstApitrace11 compares --compat=11.1 with Debian's
// apitrace 11.1 on the ranges of the v13 goldens and more, on the same
// traces: the releases differ there, so this checks the other side.
func TestDumpCallsAgainstApitrace11(t *testing.T) {
	dir := testutil.SharedFixture(t, "apitrace")
	apitrace := testutil.Tool(t, "apitrace")
	ranges := []string{"0-20", "5-30", "60-120", "90-92", "150-170", "172", "0-3,*/frame", "100-/7", "3-"}
	for _, trace := range []string{"glthreads.trace", "incomplete-call.trace", "glxinfo-brief-backtrace.trace"} {
		for _, r := range ranges {
			for _, extra := range [][]string{nil, {"--thread-ids", "-v"}} {
				args := append([]string{"--color=never", "--calls=" + r}, extra...)
				t.Run(trace+"/"+strings.Join(args, " "), func(t *testing.T) {
					want, err := exec.Command(apitrace, append(append([]string{"dump"}, args...), filepath.Join(dir, trace))...).Output()
					if err != nil {
						t.Fatalf("apitrace dump: %v", err)
					}
					a, err := ParseDumpArgs(append([]string{"--compat=11.1"}, args...))
					if err != nil {
						t.Fatal(err)
					}
					var got bytes.Buffer
					if err := dumpFiles(t, &got, a.Options, dir, []string{trace}); err != nil {
						t.Fatal(err)
					}
					testutil.DiffText(t, "dump", want, got.Bytes())
				})
			}
		}
	}
}

// TestDumpBoolOne checks the one option value the releases read
// differently: 1, a warning in apitrace 11.1 (which then keeps the
// default, yes) and yes from 12.0 on; and that an unknown value warns and
// keeps the default in both, as apitrace's boolOption does.
func TestDumpBoolOne(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		warnings int
		tids     bool
		nos      bool
	}{
		{[]string{"--thread-ids=1", "--call-nos=0"}, 0, true, true},
		{[]string{"--thread-ids=1", "--call-nos=0", "--compat=11.1"}, 1, true, true},
		{[]string{"--compat=11.1", "--thread-ids=0", "--call-nos=1"}, 1, false, false},
		{[]string{"--thread-ids=maybe", "--call-nos=no"}, 1, true, true},
		{[]string{"--thread-ids=no", "--call-nos=perhaps", "--compat=11.1"}, 1, false, false},
	} {
		a, err := ParseDumpArgs(tc.args)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if len(a.Warnings) != tc.warnings || a.Options.ThreadIDs != tc.tids || a.Options.NoCallNos != tc.nos {
			t.Errorf("%q: warnings %q, thread ids %v, no call numbers %v; want %d warnings, %v, %v",
				tc.args, a.Warnings, a.Options.ThreadIDs, a.Options.NoCallNos, tc.warnings, tc.tids, tc.nos)
		}
	}
}
