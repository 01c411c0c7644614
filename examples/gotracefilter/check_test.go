package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/internal/testutil/gorecord"
)

var fullMatrix = flag.Bool("fullmatrix", false, "TestDropMatrix drops every type of each version, present in the trace or not")

// parses runs `go tool trace -d=parsed file` and returns its output, or
// an error holding what it printed on standard error.
func parses(t *testing.T, file string) ([]byte, error) {
	t.Helper()
	if traceTool == "" {
		goTool(t, "parsed", "../../gotraceraw/testdata/gotest.trace") // finds the tool
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(traceTool, "-d=parsed", file)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		return nil, fmt.Errorf("go tool trace -d=parsed: %v: %s", err, msg)
	}
	return stdout.Bytes(), nil
}

// goTraces lists the real traces of ../shared/fixtures/gotrace and old/.
func goTraces(t *testing.T) []string {
	t.Helper()
	root := testutil.SharedFixture(t, "gotrace")
	var files []string
	for _, pat := range []string{"*.trace", "old/*.trace"} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatalf("no traces in %s", root)
	}
	return files
}

// typesIn returns the version of a trace and the types of its events.
func typesIn(t *testing.T, file string) (gotraceraw.Version, []gotraceraw.EventType) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := gotraceraw.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[gotraceraw.EventType]bool{}
	for e, err := range r.All() {
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		seen[e.Type] = true
	}
	var ts []gotraceraw.EventType
	for typ := range seen {
		ts = append(ts, typ)
	}
	slices.Sort(ts)
	return r.Header().Version, ts
}

// TestDropMatrix drops each event type alone from every real trace: the
// command exits 0 only with an output `go tool trace -d=parsed` reads;
// exit 2 comes only for the refused types; and when it refuses a
// generation (exit 1), the trace written without validation is one Go's
// parser refuses too. By default each trace drops the types it holds;
// -fullmatrix adds every other type of its version.
func TestDropMatrix(t *testing.T) {
	if n := goMinor(t); n < 26 {
		t.Skipf("needs Go 1.26's `go tool trace -d=parsed`; the go command here is Go 1.%d", n)
	}
	dir := t.TempDir()
	out, raw := filepath.Join(dir, "out.trace"), filepath.Join(dir, "raw.trace")
	counts := map[string]int{}
	for _, in := range goTraces(t) {
		name := strings.TrimSuffix(filepath.Base(in), ".trace")
		v, types := typesIn(t, in)
		if *fullMatrix {
			types = v.Types()
		}
		_, inErr := parses(t, in)
		for _, typ := range types {
			var stderr bytes.Buffer
			code := run([]string{"-drop", typ.String(), in, out}, &stderr)
			counts[fmt.Sprint("exit ", code)]++
			_, why := refused[typ]
			switch {
			case code == 2 && !why:
				t.Errorf("%s -drop %v: exit 2 for a type not refused: %s", name, typ, stderr.Bytes())
			case code == 2:
			case why:
				t.Errorf("%s -drop %v: exit %d for a refused type", name, typ, code)
			case code == 0:
				if _, err := parses(t, out); err != nil {
					t.Errorf("%s -drop %v: exit 0 and %v", name, typ, err)
				}
			case code == 1:
				// A refusal must be Go's too: the same drop unvalidated
				// makes a trace Go's parser refuses.
				if c := run([]string{"-novalidate", "-drop", typ.String(), in, raw}, &bytes.Buffer{}); c != 0 {
					t.Errorf("%s -drop %v -novalidate: exit %d", name, typ, c)
				} else if _, err := parses(t, raw); err == nil {
					t.Errorf("%s -drop %v: refused (%s) a trace Go's parser reads", name, typ, bytes.TrimSpace(stderr.Bytes()))
				} else if inErr == nil {
					counts["refused at run time"]++
					t.Logf("%s -drop %v: %s", name, typ, bytes.TrimSpace(stderr.Bytes()))
				}
			default:
				t.Errorf("%s -drop %v: exit %d: %s", name, typ, code, stderr.Bytes())
			}
		}
	}
	t.Logf("%d traces, outcomes %v", len(goTraces(t)), counts)
}

var (
	syncLine = regexp.MustCompile(`^M=-1 P=-1 G=-1 Sync Time=\d+ N=\d+`)
	timeArg  = regexp.MustCompile(` Time=(\d+)`)
)

// generationsParsed splits `go tool trace -d=parsed` output at the Sync
// event that starts each generation (the last Sync ends the trace).
func generationsParsed(out []byte) [][]string {
	var gens [][]string
	for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if syncLine.MatchString(l) {
			gens = append(gens, nil)
		}
		if len(gens) > 0 {
			gens[len(gens)-1] = append(gens[len(gens)-1], l)
		}
	}
	if len(gens) > 0 {
		gens = gens[:len(gens)-1] // the final Sync
	}
	return gens
}

// sameGeneration compares a generation as Go's parser printed it in the
// whole trace and in a trace that keeps it. The Sync's number and time
// may differ; so may any time Go's parser moved to one past the event
// before it (it keeps times increasing) in either. In the first
// generation of the kept part Go knows nothing of the states before it
// but what its status events say: there the state transitions Go draws
// from them may differ (in their states, their thread, their order
// among themselves), as may the scheduling context printed for each
// event (P=, G=). In every generation, a task begun before the kept part
// (its ID in before) may end with no type and no parent, which Go's
// parser knows from the task's begin only.
func sameGeneration(whole, kept []string, first bool, before map[string]bool) string {
	if len(whole) != len(kept) {
		return fmt.Sprintf("%d lines, want %d", len(kept), len(whole))
	}
	transition := regexp.MustCompile(`^M=-?\d+ P=-?\d+ G=-?\d+ StateTransition Time=\S+ (ProcID|GoID)=\d+ \w+->\w+ Reason=""$`)
	context := regexp.MustCompile(`^M=(-?\d+) P=-?\d+ G=-?\d+ `)
	unknownTaskEnd := regexp.MustCompile(fmt.Sprintf(`^(.* TaskEnd .* ID=(\d+)) Parent=%d Type=""$`, uint64(parsed.NoTask)))
	taskEnd := regexp.MustCompile(`^(.* TaskEnd .* ID=\d+) Parent=\d+ Type=".*"$`)
	prevW, prevK := uint64(0), uint64(0)
	for i := range whole {
		w, k := whole[i], kept[i]
		if strings.HasPrefix(w, "M=") && strings.HasPrefix(k, "M=") {
			tw, tk := lineTime(w), lineTime(k)
			if i == 0 {
				w, k = syncLine.ReplaceAllString(w, "Sync"), syncLine.ReplaceAllString(k, "Sync")
			} else if tw == prevW+1 || tk == prevK+1 {
				w, k = timeArg.ReplaceAllString(w, " Time=T"), timeArg.ReplaceAllString(k, " Time=T")
			}
			prevW, prevK = tw, tk
		}
		if first && w != k {
			if transition.MatchString(w) && transition.MatchString(k) {
				continue
			}
			w, k = timeArg.ReplaceAllString(w, " Time=T"), timeArg.ReplaceAllString(k, " Time=T")
			w, k = context.ReplaceAllString(w, "M=$1 "), context.ReplaceAllString(k, "M=$1 ")
		}
		if m := unknownTaskEnd.FindStringSubmatch(k); w != k && m != nil && before[m[2]] {
			w, k = taskEnd.ReplaceAllString(w, "$1"), m[1]
		}
		if w != k {
			return fmt.Sprintf("line %d:\n\twhole: %s\n\tkept:  %s", i+1, whole[i], kept[i])
		}
	}
	return ""
}

// tasksBegun returns the IDs of the tasks begun in gens, as Go's parser
// prints them.
func tasksBegun(gens [][]string) map[string]bool {
	begin := regexp.MustCompile(`^M=-?\d+ P=-?\d+ G=-?\d+ TaskBegin Time=\d+ ID=(\d+) `)
	ids := map[string]bool{}
	for _, g := range gens {
		for _, l := range g {
			if m := begin.FindStringSubmatch(l); m != nil {
				ids[m[1]] = true
			}
		}
	}
	return ids
}

func lineTime(l string) uint64 {
	m := timeArg.FindStringSubmatch(l)
	if m == nil {
		return 0
	}
	var v uint64
	fmt.Sscan(m[1], &v)
	return v
}

// TestSplit keeps generations by -gens and by -from/-to from the real
// traces with several generations: Go's parser reads each output, and
// prints each generation kept as it printed it in the whole trace.
func TestSplit(t *testing.T) {
	if n := goMinor(t); n < 26 {
		t.Skipf("needs Go 1.26's `go tool trace -d=parsed`; the go command here is Go 1.%d", n)
	}
	dir := t.TempDir()
	cases := 0
	// A trace recorded now, of generations of 2 ms, besides the fixtures.
	rec := gorecord.Workload("light")
	rec.Env = []string{"GODEBUG=traceadvanceperiod=2000000"}
	recorded := gorecord.RecordFile(t, gorecord.Local, rec)
	traces := append(goTraces(t), recorded)
	for _, in := range traces {
		name := strings.TrimSuffix(filepath.Base(in), ".trace")
		wholeOut, err := parses(t, in)
		if err != nil {
			continue // Go 1.26 cannot read it: nothing to compare with
		}
		whole := generationsParsed(wholeOut)
		n := len(whole)
		if n < 2 {
			continue
		}
		gens, err := scanFile(in)
		if err != nil || len(gens) != n {
			t.Fatalf("%s: %d generations read (%v), Go prints %d", name, len(gens), err, n)
		}
		origin := gens[0].nanos(gens[0].start)
		mid := func(i int) string {
			return fmt.Sprintf("%dns", (gens[i].nanos(gens[i].start)+gens[i].nanos(gens[i].end))/2-origin)
		}
		end := func(i int) string { return fmt.Sprintf("%dns", gens[i].nanos(gens[i].end)-origin) }
		type splitCase struct {
			args        []string
			first, last int // from 1
		}
		splits := []splitCase{
			{[]string{"-gens", "1"}, 1, 1},
			{[]string{"-gens", "2-"}, 2, n},
			{[]string{"-gens", fmt.Sprintf("%d-%d", n-1, n+5)}, n - 1, n},
			{[]string{"-gens", fmt.Sprint(n)}, n, n},
			{[]string{"-gens", fmt.Sprint(n), "-drop", "UserLog"}, n, n},
			// Windows keep the generations that overlap them.
			{[]string{"-from", mid(1), "-to", mid(1)}, 0, 0},
			{[]string{"-from", end(n - 2)}, 0, 0},
			{[]string{"-to", mid(0)}, 0, 0},
		}
		if in == recorded {
			// A cut at each generation: its task spans several.
			for i := 3; i < n; i++ {
				splits = append(splits, splitCase{[]string{"-gens", fmt.Sprintf("%d-", i)}, i, n})
			}
		}
		for _, tc := range splits {
			out := filepath.Join(dir, name+".trace")
			var stderr bytes.Buffer
			if code := run(append(tc.args, in, out), &stderr); code != 0 {
				t.Errorf("%s %v: exit %d: %s", name, tc.args, code, stderr.Bytes())
				continue
			}
			cases++
			got, err := parses(t, out)
			if err != nil {
				t.Errorf("%s %v: %v", name, tc.args, err)
				continue
			}
			kept := generationsParsed(got)
			var want [][]string
			if tc.first > 0 {
				want = whole[tc.first-1 : tc.last]
			} else {
				w, err := parseWindow(flagValue(tc.args, "-from"), flagValue(tc.args, "-to"))
				if err != nil {
					t.Fatal(err)
				}
				// From the first that meets it to the last.
				for i, g := range gens {
					start, end := time.Duration(g.nanos(g.start)-origin), time.Duration(g.nanos(g.end)-origin)
					if end >= w.from && (w.to < 0 || start <= w.to) {
						if tc.first == 0 {
							tc.first = i + 1
						}
						tc.last = i + 1
					}
				}
				want = whole[tc.first-1 : tc.last]
			}
			if len(kept) != len(want) {
				t.Errorf("%s %v: %d generations kept, want %d", name, tc.args, len(kept), len(want))
				continue
			}
			for i := range want {
				if tc.args[len(tc.args)-2] == "-drop" {
					break // UserLog lines differ on purpose
				}
				if d := sameGeneration(want[i], kept[i], i == 0, tasksBegun(whole[:tc.first-1])); d != "" {
					t.Errorf("%s %v: generation %d prints otherwise: %s", name, tc.args, tc.first+i, d)
				}
			}
		}
	}
	if cases == 0 {
		t.Fatal("no trace with several generations")
	}
	// The comparison sees a changed event, in the first generation kept
	// as in the others.
	out, err := parses(t, traces[len(traces)-1])
	if err != nil {
		t.Fatal(err)
	}
	g := generationsParsed(out)[1]
	for i, l := range g {
		if strings.Contains(l, " Metric ") || strings.Contains(l, " GoID=") && !strings.Contains(l, "Reason=\"\"") {
			changed := append([]string(nil), g...)
			changed[i] = strings.Replace(l, "=", "=9", 2)
			if sameGeneration(g, changed, false, nil) == "" || sameGeneration(g, changed, true, nil) == "" {
				t.Errorf("a changed line passes the comparison: %s", changed[i])
			}
			break
		}
	}
	// A task's type lost passes only for a task begun before the cut.
	taskEnd := regexp.MustCompile(`^(.* TaskEnd .* ID=(\d+)) Parent=\d+ Type=".*"$`)
	found := false
	for _, g := range generationsParsed(out) {
		for i, l := range g {
			m := taskEnd.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			found = true
			changed := append([]string(nil), g...)
			changed[i] = fmt.Sprintf(`%s Parent=%d Type=""`, m[1], uint64(parsed.NoTask))
			if sameGeneration(g, changed, false, map[string]bool{m[2]: false}) == "" {
				t.Errorf("a task's type lost passes the comparison: %s", changed[i])
			}
			if sameGeneration(g, changed, false, map[string]bool{m[2]: true}) != "" {
				t.Errorf("a task begun before the cut must end with no type: %s", changed[i])
			}
		}
	}
	if !found {
		t.Errorf("no TaskEnd in the recorded trace")
	}
	t.Logf("%d cases", cases)
}

func flagValue(args []string, name string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == name {
			return args[i+1]
		}
	}
	return ""
}

// TestGenerationTimes checks the clock -from and -to read against Go's:
// the first Sync Go prints is at the trace's start, and each generation's
// events, as Go times them, lie in the span read for it, its last at its
// end.
func TestGenerationTimes(t *testing.T) {
	if n := goMinor(t); n < 26 {
		t.Skipf("needs Go 1.26's `go tool trace -d=parsed`; the go command here is Go 1.%d", n)
	}
	for _, in := range goTraces(t) {
		name := strings.TrimSuffix(filepath.Base(in), ".trace")
		out, err := parses(t, in)
		if err != nil {
			continue
		}
		parsed := generationsParsed(out)
		gens, err := scanFile(in)
		if err != nil || len(gens) != len(parsed) {
			t.Fatalf("%s: %d generations read (%v), Go prints %d", name, len(gens), err, len(parsed))
		}
		if got, want := lineTime(parsed[0][0]), uint64(gens[0].nanos(gens[0].start)); got != want {
			t.Errorf("%s: first Sync at %d, trace start read as %d", name, got, want)
		}
		for i, lines := range parsed {
			g := &gens[i]
			lo, hi := uint64(g.nanos(g.start)), uint64(g.nanos(g.end))
			var last, prev uint64
			for _, l := range lines[1:] {
				if !strings.HasPrefix(l, "M=") {
					continue // a stack's lines, or a log's second
				}
				tm := lineTime(l)
				bumped := tm == prev+1
				prev = tm
				if bumped {
					continue
				}
				if tm < lo || tm > hi {
					t.Errorf("%s generation %d: event at %d outside [%d, %d]: %s", name, i+1, tm, lo, hi, l)
					break
				}
				last = max(last, tm)
			}
			if last != hi {
				t.Errorf("%s generation %d: last event at %d, end read as %d", name, i+1, last, hi)
			}
		}
	}
}

// TestDropCombos drops random sets of the types the command does not
// refuse, with a random -gens at times, from random real traces: exit 0
// only with an output Go's parser reads.
func TestDropCombos(t *testing.T) {
	if n := goMinor(t); n < 26 {
		t.Skipf("needs Go 1.26's `go tool trace -d=parsed`; the go command here is Go 1.%d", n)
	}
	traces := goTraces(t)
	out := filepath.Join(t.TempDir(), "out.trace")
	rng := rand.New(rand.NewPCG(23, 4))
	exits := map[int]int{}
	for i := 0; i < 80; i++ {
		in := traces[rng.IntN(len(traces))]
		_, types := typesIn(t, in)
		var names []string
		for _, typ := range types {
			if _, no := refused[typ]; !no && rng.IntN(3) == 0 {
				names = append(names, typ.String())
			}
		}
		if len(names) == 0 {
			continue
		}
		args := []string{"-drop", strings.Join(names, ",")}
		if rng.IntN(3) == 0 {
			args = append(args, "-gens", fmt.Sprintf("%d-", 1+rng.IntN(3)))
		}
		var stderr bytes.Buffer
		code := run(append(args, in, out), &stderr)
		exits[code]++
		if code == 0 {
			if _, err := parses(t, out); err != nil {
				t.Errorf("%s %v: exit 0 and %v", filepath.Base(in), args, err)
			}
		} else if !strings.Contains(stderr.String(), "no generation of its") {
			t.Logf("%s %v: exit %d: %s", filepath.Base(in), args, code, bytes.TrimSpace(stderr.Bytes()))
		}
	}
	t.Logf("exit statuses: %v", exits)
}
