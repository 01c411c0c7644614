package analysis

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/xraytest"
)

const analysesDir = "testdata/analyses"

// runAnalysis runs one llvm-xray command line ("account --sort=count")
// with the library, as xraydump does.
func runAnalysis(data []byte, m *instrmap.Map, v xrayfdr.LLVM, line string) ([]byte, error) {
	if m != nil {
		m.LLVM = v
	}
	words := strings.Fields(line)
	cmd, flags := words[0], map[string]string{}
	for _, w := range words[1:] {
		k, v, ok := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if !ok {
			v = "true"
		}
		flags[k] = v
	}
	var out bytes.Buffer
	keep := flags["keep-going"] == "true"
	deduce := flags["deduce-sibling-calls"] == "true"
	switch cmd {
	case "account":
		a := &Account{LLVM: v, DeduceSiblingCalls: deduce, RecursiveCallsOnly: flags["recursive-calls-only"] == "true", KeepGoing: keep}
		if err := a.Read(data); err != nil {
			return nil, err
		}
		f := AccountFormat{Sort: flags["sort"], Descending: flags["sortorder"] == "dsc"}
		if t, ok := flags["top"]; ok {
			f.Top, _ = strconv.Atoi(t)
		}
		if flags["format"] == "csv" {
			err := a.WriteCSV(&out, m, f)
			return out.Bytes(), err
		}
		err := a.WriteText(&out, m, f)
		return out.Bytes(), err
	case "stack":
		s := &Stacks{LLVM: v, KeepGoing: keep}
		if err := s.Read(data); err != nil {
			return nil, err
		}
		if s.Empty() {
			return nil, ErrNoCalls
		}
		f := StackFormat{PerThread: flags["per-thread-stacks"] == "true", AggregateThreads: flags["aggregate-threads"] == "true",
			Count: flags["aggregation-type"] == "count"}
		switch flags["stack-format"] {
		case "flame":
			err := s.WriteFlame(&out, m, f)
			return out.Bytes(), err
		case "folded-self":
			err := s.WriteFoldedSelf(&out, m, f)
			return out.Bytes(), err
		}
		err := s.WriteTop(&out, m, f)
		return out.Bytes(), err
	case "graph":
		g := &Graph{LLVM: v, DeduceSiblingCalls: deduce, KeepGoing: keep}
		if err := g.Read(data); err != nil {
			return nil, err
		}
		f := GraphFormat{EdgeLabel: GraphField(flags["edge-label"]), VertexLabel: GraphField(flags["vertex-label"]),
			EdgeColor: GraphField(flags["color-edges"]), VertexColor: GraphField(flags["color-vertices"])}
		err := g.WriteDOT(&out, m, f)
		return out.Bytes(), err
	}
	return nil, fmt.Errorf("unknown command %q", cmd)
}

// readGolden reads a golden output, gzip'ed or not; a .sha256 golden
// gives its hash only.
func readGolden(t *testing.T, path string) (text []byte, sum string) {
	if b, err := os.ReadFile(path + ".sha256"); err == nil {
		return nil, strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile(path + ".gz"); err == nil {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		text, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return text, ""
	}
	return testutil.ReadFile(t, path), ""
}

// TestAnalysesGolden compares every case make.sh recorded with what
// llvm-xray-14 printed.
func TestAnalysesGolden(t *testing.T) {
	f, err := os.Open(filepath.Join(analysesDir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logs := map[string][]byte{}
	maps := map[string]*instrmap.Map{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		logName, mapName, golden := fields[0], fields[1], fields[2]
		line := strings.Join(fields[3:], " ")
		fixture := strings.HasPrefix(logName, "fixture:")
		if fixture && !strings.HasSuffix(mapName, ".yaml") {
			// no map: the command starts in the second field
			line = strings.Join(fields[2:], " ")
			golden, mapName = mapName, ""
		}
		t.Run(filepath.Base(golden)+" "+line, func(t *testing.T) {
			data, ok := logs[logName]
			if !ok {
				path := filepath.Join(analysesDir, logName)
				if filepath.Ext(logName) == "" {
					path += ".xray"
				}
				if fixture {
					path = testutil.SharedFixture(t, filepath.Join("xray", strings.TrimPrefix(logName, "fixture:")+".xray"))
				}
				if _, err := os.Stat(path); err != nil {
					data, _ = readGolden(t, path) // gzip'ed
				} else {
					data = testutil.ReadFile(t, path)
				}
				logs[logName] = data
			}
			var m *instrmap.Map
			if mapName != "" {
				if m, ok = maps[mapName]; !ok {
					path := filepath.Join(analysesDir, mapName)
					if fixture {
						path = testutil.SharedFixture(t, filepath.Join("xray", mapName))
					}
					var err error
					if m, err = instrmap.Open(path); err != nil {
						t.Fatal(err)
					}
					maps[mapName] = m
				}
			}
			got, err := runAnalysis(data, m, xrayfdr.LLVM14, line) // the goldens are llvm-xray-14's
			if err != nil {
				t.Fatalf("llvm-xray-14 succeeds, we fail: %v", err)
			}
			want, sum := readGolden(t, filepath.Join(analysesDir, golden))
			if sum != "" {
				h := sha256.Sum256(got)
				if hex.EncodeToString(h[:]) != sum {
					t.Errorf("output (%d bytes) differs from llvm-xray-14's (sha256 %s)", len(got), sum)
				}
				return
			}
			testutil.DiffText(t, golden, want, got)
		})
	}
}

// TestAnalysesLive records fresh logs of the test program, built with
// clang++-14 and with clang++-19, and compares every command line of
// flags.txt with llvm-xray-14 and -19 (CI installs them all).
func TestAnalysesLive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	tools := xraytest.Tools(t)
	for _, major := range xraytest.Majors {
		t.Run("clang-"+strconv.Itoa(major), func(t *testing.T) { analysesLive(t, xraytest.Clang(t, major), tools) })
	}
}

func analysesLive(t *testing.T, cxx string, tools []xraytest.Tool) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	src, _ := filepath.Abs(filepath.Join(analysesDir, "src", "prog.cpp"))
	out, err := exec.Command(cxx, "-O1", "-fxray-instrument", "-fxray-instruction-threshold=1", "-pthread", src, "-o", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	flags, err := os.ReadFile(filepath.Join(analysesDir, "flags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := instrmap.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct{ name, threads, rounds, mode string }{
		{"one-thread", "0", "40", "xray-fdr"},
		{"threads", "3", "25", "xray-fdr"},
		{"basic", "2", "8", "xray-basic"},
	} {
		t.Run(run.name, func(t *testing.T) {
			logDir := t.TempDir()
			cmd := exec.Command(bin, run.threads, run.rounds, run.mode)
			cmd.Env = append(os.Environ(),
				"XRAY_OPTIONS=patch_premain=true xray_mode="+run.mode+" xray_logfile_base="+logDir+"/x-",
				"XRAY_FDR_OPTIONS=buffer_size=4096 func_duration_threshold_us=0",
				"XRAY_BASIC_OPTIONS=func_duration_threshold_us=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			logs, _ := filepath.Glob(filepath.Join(logDir, "x-*"))
			if len(logs) != 1 {
				t.Fatalf("want one log, got %v", logs)
			}
			data := testutil.ReadFile(t, logs[0])
			// compare runs every command line on log and on us, where
			// llvm-xray succeeds, and returns how many it compared.
			compare := func(label, log string, data []byte) int {
				compared := 0
				for _, line := range strings.Split(strings.TrimSpace(string(flags)), "\n") {
					for _, tool := range tools {
						compared += compareLine(t, tool, label, line, bin, log, data, m)
					}
				}
				return compared
			}
			if compare("", logs[0], data) == 0 {
				t.Errorf("llvm-xray failed on every command line")
			}
			checkIndependent(t, data)
			if run.mode != "xray-fdr" {
				return
			}
			// A thread whose time goes back, which a move between CPUs
			// whose clocks are apart writes (seldom here): llvm-xray's
			// graph sorts the records by time, and so must we.
			backLog := filepath.Join(logDir, "back.xray")
			back := goBackInTime(t, data, 50, 100000)
			if err := os.WriteFile(backLog, back, 0o644); err != nil {
				t.Fatal(err)
			}
			if compare("time going back, ", backLog, back) == 0 {
				t.Errorf("llvm-xray failed on every command line, time going back")
			}
		})
	}
}

// compareLine runs one command line of flags.txt with an llvm-xray and
// with us in its release's order, and compares the outputs where
// llvm-xray succeeds; it returns 1 when it compared.
func compareLine(t *testing.T, tool xraytest.Tool, label, line, bin, log string, data []byte, m *instrmap.Map) int {
	args := append(strings.Fields(line), "--instr_map="+bin, log)
	c := exec.Command(tool.Path, args...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if c.Run() != nil || strings.Contains(stderr.String(), "Error processing record") {
		return 0 // llvm-xray fails here: TestAccountIndependent checks us
	}
	got, err := runAnalysis(data, m, xrayfdr.LLVM(tool.Major), line)
	if err != nil {
		t.Errorf("%s%s: %s succeeds, we fail: %v", label, line, tool.Name(), err)
		return 1
	}
	testutil.DiffText(t, tool.Name()+": "+label+line, stdout.Bytes(), got)
	return 1
}

// goBackInTime returns a copy of the FDR log data with a NewCPU record
// after the n-th function record of its first thread, which sets that
// thread's time back by back ticks.
func goBackInTime(t *testing.T, data []byte, n int, back uint64) []byte {
	t.Helper()
	rd, err := xrayfdr.NewBytesReader(data)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := xrayfdr.NewWriter(&out, rd.Header())
	if err != nil {
		t.Fatal(err)
	}
	first, cur := int32(-1), int32(-1)
	var tsc, firstTSC uint64
	var cpu uint16
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		switch rec.Kind {
		case xrayfdr.KindNewBuffer:
			cur = rec.TID
			if first < 0 {
				first = cur
			}
		case xrayfdr.KindNewCPU:
			tsc, cpu = rec.TSC, rec.CPU
			if cur == first && firstTSC == 0 {
				firstTSC = tsc
			}
		case xrayfdr.KindFunction:
			tsc += uint64(rec.Delta)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if rec.Kind == xrayfdr.KindFunction && cur == first {
			if n--; n == 0 {
				// Not back before the thread's first record, which
				// account refuses (llvm-xray compares with the first
				// record of the whole log): a fast run may not be
				// back ticks in yet.
				if tsc-firstTSC <= back {
					back = max((tsc-firstTSC)/2, 1)
				}
				if err := w.Write(&xrayfdr.Record{Kind: xrayfdr.KindNewCPU, CPU: cpu, TSC: tsc - back}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		t.Fatalf("goBackInTime: the first thread has fewer function records than asked")
	}
	return out.Bytes()
}

// TestGraphTimeGoingBack checks that Graph pairs the records of a thread
// whose time goes back in time order, as llvm-xray's graph does (which
// TestAnalysesLive compares): like a Graph fed each thread's events
// sorted by time.
func TestGraphTimeGoingBack(t *testing.T) {
	data := goBackInTime(t, testutil.ReadFile(t, "../testdata/fdr_threads.xray"), 30, 5000)
	byThread := map[uint32][]xrayfdr.Event{}
	var tids []uint32
	wentBack := false
	if err := xrayfdr.Walk(data, func(e *xrayfdr.Event) error {
		evs := byThread[e.TID]
		if len(evs) == 0 {
			tids = append(tids, e.TID)
		} else if e.TSC < evs[len(evs)-1].TSC {
			wentBack = true
		}
		byThread[e.TID] = append(evs, *e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !wentBack {
		t.Fatal("no thread's time goes back in the edited log")
	}
	want := &Graph{KeepGoing: true}
	for _, tid := range tids {
		evs := byThread[tid]
		slices.SortStableFunc(evs, func(a, b xrayfdr.Event) int { return cmp.Compare(a.TSC, b.TSC) })
		for i := range evs {
			// errors are skipped, as with KeepGoing
			if err := want.Add(&evs[i]); err != nil && !errors.As(err, new(*CallError)) {
				t.Fatal(err)
			}
		}
	}
	got := &Graph{KeepGoing: true}
	if err := got.Read(data); err != nil {
		t.Fatal(err)
	}
	var wb, gb bytes.Buffer
	f := GraphFormat{EdgeLabel: "count"}
	if err := want.WriteDOT(&wb, nil, f); err != nil {
		t.Fatal(err)
	}
	if err := got.WriteDOT(&gb, nil, f); err != nil {
		t.Fatal(err)
	}
	testutil.DiffText(t, "graph of a thread going back", wb.Bytes(), gb.Bytes())
}

// timeGoesBack reports whether the time of some thread goes back in
// Walk's order.
func timeGoesBack(t *testing.T, data []byte) bool {
	last := map[uint32]uint64{}
	back := false
	if err := xrayfdr.Walk(data, func(e *xrayfdr.Event) error {
		if l, ok := last[e.TID]; ok && e.TSC < l {
			back = true
		}
		last[e.TID] = e.TSC
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return back
}

// independentStats computes per-function call counts and latency sums
// straight from the records: llvm-xray's expansion, each thread's events
// sorted by time, every exit matched with the innermost open call of
// its function.
func independentStats(t *testing.T, data []byte) map[int32][2]uint64 {
	tr, err := xrayfdr.Expand(data, false)
	if err != nil {
		t.Fatal(err)
	}
	byThread := map[uint32][]xrayfdr.Event{}
	for _, e := range tr.Events {
		byThread[e.TID] = append(byThread[e.TID], e)
	}
	out := map[int32][2]uint64{}
	for _, evs := range byThread {
		slices.SortStableFunc(evs, func(a, b xrayfdr.Event) int {
			switch {
			case a.TSC < b.TSC:
				return -1
			case a.TSC > b.TSC:
				return 1
			}
			return 0
		})
		type open struct {
			id  int32
			tsc uint64
		}
		var stack []open
		for _, e := range evs {
			switch e.Kind {
			case xrayfdr.EventEnter, xrayfdr.EventEnterArg:
				stack = append(stack, open{e.FuncID, e.TSC})
			case xrayfdr.EventExit, xrayfdr.EventTailExit:
				if len(stack) == 0 || stack[len(stack)-1].id != e.FuncID {
					t.Fatalf("thread %d: unbalanced exit of %d at %d", e.TID, e.FuncID, e.TSC)
				}
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				s := out[top.id]
				out[top.id] = [2]uint64{s[0] + 1, s[1] + e.TSC - top.tsc}
			}
		}
	}
	return out
}

// checkIndependent checks Account's counts and sums, and the pprof
// totals, against independentStats.
func checkIndependent(t *testing.T, data []byte) {
	t.Helper()
	if timeGoesBack(t, data) {
		// independentStats pairs each thread's events in time order,
		// Account (as llvm-xray account) in record order: they part
		// where a thread's time goes back.
		t.Log("a thread's time goes back in this log: independent check skipped")
		return
	}
	want := independentStats(t, data)
	a := &Account{}
	if err := a.Read(data); err != nil {
		t.Fatal(err)
	}
	freq := float64(a.Header.CycleFrequency)
	stats := a.Stats()
	if len(stats) != len(want) {
		t.Errorf("%d functions, want %d", len(stats), len(want))
	}
	for _, s := range stats {
		w := want[s.FuncID]
		if uint64(s.Count) != w[0] || s.Sum != float64(w[1])/freq {
			t.Errorf("function %d: count %d sum %v, want %d %v", s.FuncID, s.Count, s.Sum, w[0], float64(w[1])/freq)
		}
	}
	spans := map[int32][2]uint64{}
	var self, outer uint64
	if err := Spans(data, SpanOptions{}, func(s *Span) error {
		v := spans[s.FuncID]
		spans[s.FuncID] = [2]uint64{v[0] + 1, v[1] + s.Exit - s.Enter}
		self += s.Self
		if s.Depth == 0 {
			outer += s.Exit - s.Enter
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(spans, want) {
		t.Errorf("Spans: %v, want %v", spans, want)
	}
	if self != outer {
		t.Errorf("Spans: self times add up to %d, the outermost calls to %d", self, outer)
	}
	p := &Profile{}
	if err := p.Read(data); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.WriteProfile(&buf, nil); err != nil {
		t.Fatal(err)
	}
	// pprof values are nanoseconds, rounded per sample
	totals := profileTotals(t, buf.Bytes())
	for id, w := range want {
		got := totals["#"+strconv.Itoa(int(id))]
		ns := float64(w[1]) * 1e9 / freq
		if got[0] != w[0] || math.Abs(float64(got[1])-ns) > float64(got[0]) {
			t.Errorf("pprof function %d: calls %d total %d ns, want %d %.0f", id, got[0], got[1], w[0], ns)
		}
	}
}

// TestAccountIndependent checks counts and sums on multi-threaded logs,
// where llvm-xray-14's account fails.
func TestAccountIndependent(t *testing.T) {
	checkIndependent(t, testutil.ReadFile(t, filepath.Join(analysesDir, "mt.xray")))
	checkIndependent(t, testutil.ReadFile(t, filepath.Join(analysesDir, "st.xray")))
	checkIndependent(t, testutil.ReadFile(t, testutil.SharedFixture(t, "xray/synthetic-v5.xray")))
	checkIndependent(t, testutil.ReadFile(t, testutil.SharedFixture(t, "xray/fdr_threads.xray")))
}

// profileTotals decodes a gzip'ed profile.proto and returns, by function
// name, the calls and total nanoseconds of its samples where the function
// is innermost.
func profileTotals(t *testing.T, gz []byte) map[string][2]uint64 {
	t.Helper()
	out := map[string][2]uint64{}
	for _, s := range testutil.DecodeProfile(t, gz).Samples {
		o := out[s.Stack[0]]
		out[s.Stack[0]] = [2]uint64{o[0] + uint64(s.Values[2]), o[1] + uint64(s.Values[1])}
	}
	return out
}

// TestProfileGoTool checks that go tool pprof reads our profile and that
// its totals are Account's sums.
func TestProfileGoTool(t *testing.T) {
	goTool := testutil.Tool(t, "go")
	data := testutil.ReadFile(t, filepath.Join(analysesDir, "mt.xray"))
	m, err := instrmap.Open(filepath.Join(analysesDir, "prog"))
	if err != nil {
		t.Fatal(err)
	}
	p := &Profile{}
	if err := p.Read(data); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.pb.gz")
	var buf bytes.Buffer
	if err := p.WriteProfile(&buf, m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	a := &Account{}
	if err := a.Read(data); err != nil {
		t.Fatal(err)
	}
	var sum float64
	var calls int
	for _, s := range a.Stats() {
		sum += s.Sum
		calls += s.Count
	}
	for _, index := range []string{"total", "calls"} {
		out, err := exec.Command(goTool, "tool", "pprof", "-raw", "-sample_index="+index, path).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof -raw: %v: %s", err, out)
		}
		if !bytes.Contains(out, []byte("self/nanoseconds[dflt] total/nanoseconds calls/count")) {
			t.Errorf("go tool pprof -raw: no sample types in\n%s", out)
		}
	}
	out, err := exec.Command(goTool, "tool", "pprof", "-top", "-sample_index=calls", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -top: %v: %s", err, out)
	}
	// "Showing nodes accounting for N, 100% of N total"
	want := fmt.Sprintf("of %d total", calls)
	if !bytes.Contains(out, []byte(want)) {
		t.Errorf("go tool pprof -top -sample_index=calls: want %q in\n%s", want, out)
	}
	totals := profileTotals(t, buf.Bytes())
	var total uint64
	for _, v := range totals {
		total += v[1]
	}
	if math.Abs(float64(total)/1e9-sum) > 1e-9*float64(len(totals)) {
		t.Errorf("pprof total %d ns, account sum %v s", total, sum)
	}
}

// TestAnalysesBadInput feeds records llvm-xray cannot account and logs cut
// short: errors (or skipped records with KeepGoing), never a panic.
func TestAnalysesBadInput(t *testing.T) {
	ev := func(k xrayfdr.EventKind, id int32, tsc uint64, tid uint32) *xrayfdr.Event {
		return &xrayfdr.Event{Kind: k, FuncID: id, TSC: tsc, TID: tid}
	}
	for _, c := range []struct {
		name string
		evs  []*xrayfdr.Event
		err  error // from Account without KeepGoing
	}{
		{"exit without entry", []*xrayfdr.Event{ev(xrayfdr.EventExit, 1, 10, 1)}, ErrNoEntry},
		{"exit of another function", []*xrayfdr.Event{ev(xrayfdr.EventEnter, 1, 10, 1), ev(xrayfdr.EventExit, 2, 11, 1)}, ErrNoEntry},
		{"clock backwards", []*xrayfdr.Event{ev(xrayfdr.EventEnter, 1, 10, 1), ev(xrayfdr.EventExit, 1, 5, 1)}, ErrTimeOrder},
		{"unbalanced enters", []*xrayfdr.Event{ev(xrayfdr.EventEnter, 1, 10, 1), ev(xrayfdr.EventEnter, 2, 11, 1)}, nil},
		{"id missing from the map", []*xrayfdr.Event{ev(xrayfdr.EventEnter, 1<<27, 10, 1), ev(xrayfdr.EventExit, 1<<27, 11, 1)}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &Account{}
			var err error
			for _, e := range c.evs {
				if err = a.Add(e); err != nil {
					break
				}
			}
			if !errors.Is(err, c.err) {
				t.Errorf("Account: %v, want %v", err, c.err)
			}
			var ce *CallError
			if err != nil && (!errors.As(err, &ce) || ce.Error() == "") {
				t.Errorf("Account: %T, want *CallError", err)
			}
			for _, keep := range []bool{false, true} {
				s, g, p := &Stacks{KeepGoing: keep}, &Graph{KeepGoing: keep}, &Profile{KeepGoing: keep}
				for _, e := range c.evs {
					s.Add(e)
					g.Add(e)
					p.Add(e)
				}
				for _, w := range []func() error{
					func() error { return a.WriteText(io.Discard, nil, AccountFormat{}) },
					func() error { return s.WriteTop(io.Discard, nil, StackFormat{}) },
					func() error { return s.WriteFlame(io.Discard, nil, StackFormat{}) },
					func() error { return g.WriteDOT(io.Discard, nil, GraphFormat{EdgeColor: "min", VertexColor: "sum"}) },
					func() error { return p.WriteProfile(io.Discard, nil) },
				} {
					if err := w(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	// a log cut anywhere: an error wrapping io.ErrUnexpectedEOF or a
	// complete log (cut between buffers), never a panic
	data := testutil.ReadFile(t, filepath.Join(analysesDir, "mt.xray"))
	for n := 0; n < len(data); n += 1 + n/50 {
		for _, line := range []string{"account --keep-going", "stack --keep-going", "graph --keep-going"} {
			if _, err := runAnalysis(data[:n], nil, 0, line); err != nil {
				var fe *xrayfdr.FormatError
				if !errors.As(err, &fe) && !errors.Is(err, ErrNoCalls) {
					t.Fatalf("cut at %d: %s: %v (%T)", n, line, err, err)
				}
			}
		}
	}
}

// TestAnalysesAllocs checks that walking and accounting a log allocates
// per buffer, not per record, once the analyses have seen its functions.
func TestAnalysesAllocs(t *testing.T) {
	data := testutil.ReadFile(t, filepath.Join(analysesDir, "mt.xray"))
	records := 0
	xrayfdr.Walk(data, func(*xrayfdr.Event) error { records++; return nil })
	_, groups, err := xrayfdr.Index(data)
	if err != nil {
		t.Fatal(err)
	}
	buffers := 0
	for _, g := range groups {
		buffers += len(g.Blocks)
	}
	s := &Stacks{}
	p := &Profile{KeepGoing: true}
	var w xrayfdr.Walker
	for _, c := range []struct {
		name string
		fn   func(e *xrayfdr.Event) error
	}{
		{"walk", func(*xrayfdr.Event) error { return nil }},
		{"stack", s.Add},
		{"pprof", p.Add},
	} {
		w.Walk(data, c.fn)
		allocs := testing.AllocsPerRun(5, func() { w.Walk(data, c.fn) })
		// the index: a few slices per thread and per buffer
		if allocs > float64(8*buffers+64) || allocs > float64(records)/20 {
			t.Errorf("%s: %.0f allocations for %d records in %d buffers", c.name, allocs, records, buffers)
		}
	}
}

func TestAnalysesZeroValues(t *testing.T) {
	testutil.CheckZeroValue(t, new(Account))
	testutil.CheckZeroValue(t, new(Stacks))
	testutil.CheckZeroValue(t, new(Graph))
	testutil.CheckZeroValue(t, new(Profile))
	testutil.CheckZeroValue(t, new(CallError), "Unwrap")
	testutil.CheckZeroValue(t, new(xrayfdr.Event))
	// a zero analysis prints an empty report
	var b bytes.Buffer
	if err := new(Account).WriteText(&b, nil, AccountFormat{}); err != nil || !strings.HasPrefix(b.String(), "Functions with latencies: 0\n") {
		t.Errorf("%v %q", err, b.String())
	}
}

// TestHeaderLocations builds instrmap's testdata/header program (functions
// with internal linkage defined in a header, std::function with lambdas,
// nested templates) with clang++-14 and clang++-19, and compares account,
// whose rows start with the function's file:line:col, with llvm-xray-14's
// and -19's: the prefix names the header where the line table does, not
// the compilation unit. extract --symbolize and convert --symbolize are
// compared too, for the names each release spells its way.
func TestHeaderLocations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	tools := xraytest.Tools(t)
	src, err := filepath.Abs(filepath.Join("..", "instrmap", "testdata", "header", "m.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, major := range xraytest.Majors {
		t.Run("clang-"+strconv.Itoa(major), func(t *testing.T) {
			cxx := xraytest.Clang(t, major)
			dir := t.TempDir()
			bin := filepath.Join(dir, "m")
			if out, err := exec.Command(cxx, "-O0", "-g", "-fxray-instrument", "-fxray-instruction-threshold=1", src, "-o", bin).CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "XRAY_OPTIONS=patch_premain=true xray_mode=xray-fdr xray_logfile_base="+dir+"/x-",
				"XRAY_FDR_OPTIONS=func_duration_threshold_us=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			logs, _ := filepath.Glob(filepath.Join(dir, "x-*"))
			if len(logs) != 1 {
				t.Fatalf("want one log, got %v", logs)
			}
			data := testutil.ReadFile(t, logs[0])
			m, err := instrmap.Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools {
				want, msg := xraytest.LLVMRun(t, tool.Path, "account", "--instr_map="+bin, logs[0])
				if msg != "" {
					t.Fatalf("%s account: %s", tool.Name(), msg)
				}
				if !bytes.Contains(want, []byte(" m_hdr.h:")) {
					t.Fatalf("%s names no function of the header: the program does not test what it should", tool.Name())
				}
				v := xrayfdr.LLVM(tool.Major)
				got, err := runAnalysis(data, m, v, "account")
				if err != nil {
					t.Fatal(err)
				}
				testutil.DiffText(t, tool.Name()+" account", want, got)
				// and the names as extract and convert spell them
				want, msg = xraytest.LLVMRun(t, tool.Path, "extract", "--symbolize", bin)
				if msg != "" {
					t.Fatalf("%s extract: %s", tool.Name(), msg)
				}
				var ext bytes.Buffer
				if err := m.WriteYAML(&ext, true, true); err != nil {
					t.Fatal(err)
				}
				testutil.DiffText(t, tool.Name()+" extract --symbolize", want, ext.Bytes())
				want, msg = xraytest.LLVMRun(t, tool.Path, "convert", "--output-format=yaml", "--symbolize", "--instr_map="+bin, logs[0])
				if msg != "" {
					t.Fatalf("%s convert: %s", tool.Name(), msg)
				}
				tr, err := v.Expand(data, true)
				if err != nil {
					t.Fatal(err)
				}
				var conv bytes.Buffer
				if err := xrayfdr.WriteYAMLNames(&conv, tr, func(id int32) string { return m.Name(id, true) }); err != nil {
					t.Fatal(err)
				}
				testutil.DiffText(t, tool.Name()+" convert --symbolize", want, conv.Bytes())
			}
		})
	}
}
