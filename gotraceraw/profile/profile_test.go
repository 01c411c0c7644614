package profile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/internal/testutil/gorecord"
)

// profileOf converts a trace file; a trace that fails is cut as Go's tool
// cuts it, and nil means no profile.
func profileOf(t testing.TB, path string, typ Type) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := parsed.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	p := Profile{Type: typ}
	for ev, err := range r.All() {
		if err != nil {
			if p.Cut(err) != nil {
				return nil
			}
			break
		}
		p.Add(ev)
	}
	var out bytes.Buffer
	if err := p.WriteProfile(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// traces runs go tool pprof -traces on a profile, once per sample type
// with exact nanoseconds, and returns its samples, each a block of
// lines, sorted.
func traces(t testing.TB, pprofTool string, gz []byte) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.pb.gz")
	if err := os.WriteFile(path, gz, 0o666); err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, index := range []string{"contentions", "delay"} {
		out, err := exec.Command(pprofTool, "-traces", "-unit=ns", "-sample_index="+index, path).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof -traces: %v\n%s", err, out)
		}
		_, body, _ := strings.Cut(string(out), "-----------+")
		for _, b := range strings.Split(body, "-----------+-------------------------------------------------------\n") {
			if b = strings.TrimPrefix(b, "-------------------------------------------------------\n"); b != "" {
				blocks = append(blocks, index+":"+b)
			}
		}
	}
	slices.Sort(blocks)
	return blocks
}

// goTools returns the paths of go tool trace and go tool pprof, run
// directly: the go command in front of each would double the test's time.
func goTools(t testing.TB) (trace, pprof string) {
	t.Helper()
	goTool := testutil.Tool(t, "go")
	if v := gorecord.Version(t, gorecord.Local); !strings.HasPrefix(v, "go1.26") {
		t.Skipf("the rules are those of Go 1.26's go tool trace; the go command is %s", v)
	}
	for _, name := range []string{"trace", "pprof"} {
		out, err := exec.Command(goTool, "tool", "-n", name).Output()
		if err != nil {
			t.Fatalf("go tool -n %s: %v", name, err)
		}
		if name == "trace" {
			trace = strings.TrimSpace(string(out))
		} else {
			pprof = strings.TrimSpace(string(out))
		}
	}
	return trace, pprof
}

// samples returns a profile's samples as text, sorted: values, then the
// stack's addresses and names.
func samples(t testing.TB, gz []byte) []string {
	t.Helper()
	p := testutil.DecodeProfile(t, gz)
	var out []string
	for _, s := range p.Samples {
		var b strings.Builder
		fmt.Fprintf(&b, "%v", s.Values)
		for i, f := range s.Stack {
			fmt.Fprintf(&b, "\n  %#x %s", s.Addrs[i], f)
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

// compareWithGo checks our profiles of a trace file against go tool trace
// -pprof's: the same samples, and with withTraces the same go tool pprof
// -traces output, sorted.
func compareWithGo(t *testing.T, traceTool, pprofTool, path string, withTraces bool) (n map[Type]int) {
	t.Helper()
	n = map[Type]int{}
	for _, typ := range []Type{Net, Sync, Syscall, Sched} {
		want, err := exec.Command(traceTool, "-pprof="+typ.String(), path).Output()
		got := profileOf(t, path, typ)
		name := filepath.Base(path) + " -pprof=" + typ.String()
		if (err != nil) != (got == nil) {
			t.Fatalf("%s: go tool trace fails: %v; our profile fails: %v", name, err, got == nil)
		}
		if err != nil {
			n[0]++ // both fail
			continue
		}
		w, g := samples(t, want), samples(t, got)
		if !slices.Equal(w, g) {
			testutil.DiffText(t, name, []byte(strings.Join(w, "\n")), []byte(strings.Join(g, "\n")))
		}
		n[typ] += len(w)
		if withTraces {
			if w, g := traces(t, pprofTool, want), traces(t, pprofTool, got); !slices.Equal(w, g) {
				testutil.DiffText(t, name+" (go tool pprof -traces)", []byte(strings.Join(w, "=====\n")), []byte(strings.Join(g, "=====\n")))
			}
		}
	}
	return n
}

// TestSameAsGoTool compares with Go 1.26's go tool trace -pprof on every
// shared fixture.
func TestSameAsGoTool(t *testing.T) {
	traceTool, pprofTool := goTools(t)
	dir := testutil.SharedFixture(t, "gotrace")
	files, _ := filepath.Glob(filepath.Join(dir, "*.trace"))
	old, _ := filepath.Glob(filepath.Join(dir, "old", "*.trace"))
	files = append(files, old...)
	if len(files) < 10 {
		t.Fatalf("only %d traces in %s", len(files), dir)
	}
	total := map[Type]int{}
	for i, f := range files {
		for typ, n := range compareWithGo(t, traceTool, pprofTool, f, i == 0) {
			total[typ] += n
		}
	}
	for _, typ := range []Type{Net, Sync, Syscall, Sched} {
		if total[typ] == 0 {
			t.Errorf("no %v samples in any fixture: nothing was compared", typ)
		}
	}
}

// TestSameAsGoToolLive records traces with every Go toolchain of the
// trace formats (Go 1.22 to 1.26) and compares with Go 1.26's tool.
func TestSameAsGoToolLive(t *testing.T) {
	traceTool, pprofTool := goTools(t)
	for _, tc := range gorecord.Toolchains {
		t.Run(tc, func(t *testing.T) {
			path := gorecord.RecordFile(t, tc, gorecord.Workload("all"))
			compareWithGo(t, traceTool, pprofTool, path, tc == gorecord.Local)
		})
	}
}

// The CPU profile has one sample per CPU sample of the trace, with its
// stack.
func TestCPU(t *testing.T) {
	path := filepath.Join("..", "testdata", "cpuprofile.trace")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := parsed.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != parsed.KindStackSample {
			continue
		}
		var b strings.Builder
		for _, fr := range ev.Stack().Frames() {
			fmt.Fprintf(&b, "%#x %s\n", fr.PC, fr.Func)
		}
		want[b.String()]++
	}
	var n int64
	for _, c := range want {
		n += c
	}
	if n < 20 {
		t.Fatalf("only %d CPU samples in %s", n, path)
	}
	p := testutil.DecodeProfile(t, profileOf(t, path, CPU))
	got := map[string]int64{}
	for _, s := range p.Samples {
		var b strings.Builder
		for i, name := range s.Stack {
			fmt.Fprintf(&b, "%#x %s\n", s.Addrs[i], name)
		}
		got[b.String()] += s.Values[0]
		if s.Values[1] != s.Values[0]*cpuPeriod {
			t.Errorf("a sample of %d has %d ns", s.Values[0], s.Values[1])
		}
	}
	testutil.Diff(t, "CPU samples per stack", want, got)
	if p.Default != "cpu" || p.Period != cpuPeriod {
		t.Errorf("default sample type %q, period %d", p.Default, p.Period)
	}
}

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics.
func TestNilArguments(t *testing.T) {
	testutil.CheckNilArgs(t, testutil.API{
		Funcs:    map[string]any{"ParseType": ParseType},
		Types:    []any{new(Profile), new(Type)},
		Open:     []any{&Profile{Type: Sched}, &Profile{Type: CPU}},
		AllowNil: []string{"ParseType"},
	})
	var nilProfile *Profile
	if err := nilProfile.WriteProfile(io.Discard); !errors.Is(err, ErrNotOpen) {
		t.Errorf("nil Profile's WriteProfile: %v, want ErrNotOpen", err)
	}
	if err := (&Profile{Type: Net}).WriteProfile(nil); !errors.Is(err, ErrNotOpen) {
		t.Errorf("WriteProfile(nil): %v, want ErrNotOpen", err)
	}
	if err := nilProfile.Cut(io.ErrUnexpectedEOF); !errors.Is(err, ErrNotOpen) {
		t.Errorf("nil Profile's Cut: %v, want ErrNotOpen", err)
	}
	if _, err := ParseType("heap"); err == nil {
		t.Error("ParseType(heap) is no error")
	}
	for _, typ := range []Type{Net, Sync, Syscall, Sched, CPU} {
		if got, err := ParseType(typ.String()); got != typ || err != nil {
			t.Errorf("ParseType(%q) = %v, %v", typ.String(), got, err)
		}
	}
}

// cpuProg spins in two functions for a while with the tracer and the CPU
// profiler on, and writes the CPU profile to its first argument.
const cpuProg = `package main

import (
	"os"
	"runtime/pprof"
	"runtime/trace"
)

var sink int

// The spins are counted in work, not time: on a loaded machine they
// still get their CPU samples.

//go:noinline
func spinA(n int) {
	for i := 0; i < n; i++ {
		sink += i * i
	}
}

//go:noinline
func spinB(n int) {
	for i := 0; i < n; i++ {
		sink ^= i * 3
	}
}

func main() {
	out := os.Args[len(os.Args)-1]
	tf, err := os.Create(out)
	if err != nil {
		panic(err)
	}
	pf, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		panic(err)
	}
	if err := trace.Start(tf); err != nil {
		panic(err)
	}
	spinA(600_000_000)
	spinB(400_000_000)
	trace.Stop()
	pprof.StopCPUProfile()
	tf.Close()
	pf.Close()
}
`

// TestCPULive records a trace together with a CPU profile and checks the
// trace's CPU samples per function of the program against the profile's,
// within what the runtime drops.
func TestCPULive(t *testing.T) {
	cpu := filepath.Join(t.TempDir(), "cpu.pprof")
	path := gorecord.RecordFile(t, gorecord.Local, gorecord.Prog{Source: cpuProg, Args: []string{cpu}})
	want := map[string]int64{}
	pdata, err := os.ReadFile(cpu)
	if err != nil {
		t.Fatal(err)
	}
	// the innermost function of the program's own (the runtime may
	// be below it: asyncPreempt)
	fn := func(stack []string) string {
		for _, l := range stack {
			for _, f := range strings.Split(l, "|") {
				if strings.HasPrefix(f, "main.") {
					return f
				}
			}
		}
		return "other"
	}
	for _, s := range testutil.DecodeProfile(t, pdata).Samples {
		want[fn(s.Stack)] += s.Values[0]
	}
	got := map[string]int64{}
	for _, s := range testutil.DecodeProfile(t, profileOf(t, path, CPU)).Samples {
		got[fn(s.Stack)] += s.Values[0]
	}
	for _, fn := range []string{"main.spinA", "main.spinB"} {
		w, g := want[fn], got[fn]
		if w < 5 {
			t.Errorf("%s: only %d samples in the CPU profile", fn, w)
			continue
		}
		if d := w - g; d < -w/10-2 || d > w/10+2 {
			t.Errorf("%s: %d samples in the trace, %d in the CPU profile", fn, g, w)
		}
	}
	t.Logf("CPU profile %v, trace %v", want, got)
}

// TestCutSameAsGoTool compares with go tool trace -pprof on fixtures cut
// short at several offsets and damaged inside a generation: Go's tool keeps
// the events up to the last Sync before the error, and fails when there is
// none.
func TestCutSameAsGoTool(t *testing.T) {
	traceTool, pprofTool := goTools(t)
	dir := testutil.SharedFixture(t, "gotrace")
	tmp := t.TempDir()
	fails, profiles := 0, 0
	for _, name := range []string{"multigen", "gcgens", "gcstress", "allocfree", "syscalls"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".trace"))
		if err != nil {
			t.Fatal(err)
		}
		for _, frac := range []int{10, 35, 60, 85, 99} {
			n := len(data) * frac / 100
			path := filepath.Join(tmp, fmt.Sprintf("%s-%d.trace", name, n))
			if err := os.WriteFile(path, data[:n], 0o666); err != nil {
				t.Fatal(err)
			}
			for typ, k := range compareWithGo(t, traceTool, pprofTool, path, frac == 60) {
				if typ == 0 {
					fails += k
				} else {
					profiles++
				}
			}
		}
	}
	// Damaged events in multigen's second generation: an event without
	// a timestamp, one contradicting the state, one that cannot be
	// ordered, a stack ID not in the table. Go's tool drops that
	// generation's events but counts them for the goroutines' lives.
	data, err := os.ReadFile(filepath.Join(dir, "multigen.trace"))
	if err != nil {
		t.Fatal(err)
	}
	for _, flip := range []struct {
		off int
		xor byte
	}{{40997, 1}, {44985, 1}, {45982, 1}, {40000, 0x40}} {
		d := slices.Clone(data)
		d[flip.off] ^= flip.xor
		path := filepath.Join(tmp, fmt.Sprintf("multigen-flip%d.trace", flip.off))
		if err := os.WriteFile(path, d, 0o666); err != nil {
			t.Fatal(err)
		}
		for typ := range compareWithGo(t, traceTool, pprofTool, path, flip.off == 45982) {
			if typ != 0 {
				profiles++
			}
		}
	}
	if fails == 0 || profiles == 0 {
		t.Errorf("%d cuts with no profile, %d with one: want some of both", fails, profiles)
	}
}
