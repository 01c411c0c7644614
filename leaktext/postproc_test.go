package leaktext

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// goldens pairs real inputs with what sp-rtrace-postproc printed for them.
// Text-input cases are what the tool prints for a text report. The
// BinaryOrder cases compare against outputs the tool made from the binary
// log whose text form (made by the same tool) is the input.
var goldens = []struct {
	in, golden string
	opt        Options
}{
	{"generated-x86_64/multi.txt", "generated-x86_64/multi.txt.lc.txt", Options{Leaks: true, Compress: true}},
	{"upstream-v2.0/context.txt", "upstream-v2.0/context.lc.txt", Options{Leaks: true, Compress: true}},
	{"upstream-v2.0/context.txt", "upstream-v2.0/context.C4.txt", Options{FilterContext: true, ContextMask: 4}},
	{"upstream-v2.0/context.txt", "upstream-v2.0/context.reprocessed.txt", Options{}},
	{"upstream-v2.0/shmsysv.txt", "upstream-v2.0/shmsysv.lc.txt", Options{Leaks: true, Compress: true}},
	{"upstream-v2.0/shmsysv.r.txt", "upstream-v2.0/shmsysv.r.lc.txt", Options{Leaks: true, Compress: true}},
	{"generated-x86_64/multi.txt", "generated-x86_64/multi.l.txt", Options{Leaks: true, BinaryOrder: true}},
	{"generated-x86_64/multi.txt", "generated-x86_64/multi.lc.txt", Options{Leaks: true, Compress: true, BinaryOrder: true}},
	{"generated-x86_64/multi.txt", "generated-x86_64/multi.C1.lc.txt", Options{Leaks: true, Compress: true, FilterContext: true, ContextMask: 1, BinaryOrder: true}},
	{"generated-x86_64/nots-b3.txt", "generated-x86_64/nots-b3.lc.txt", Options{Leaks: true, Compress: true, BinaryOrder: true}},
	// The tool's output from a binary log is stable when processed again.
	{"generated-x86_64/multi.txt", "generated-x86_64/multi.txt", Options{BinaryOrder: true}},
	{"generated-x86_64/cxx.txt", "generated-x86_64/cxx.txt", Options{BinaryOrder: true}},
	{"generated-x86_64/nots-b3.txt", "generated-x86_64/nots-b3.txt", Options{BinaryOrder: true}},
	{"upstream-v2.0/context.txt", "upstream-v2.0/context.txt", Options{BinaryOrder: true}},
	{"upstream-v2.0/shmsysv.txt", "upstream-v2.0/shmsysv.txt", Options{BinaryOrder: true}},
}

func postprocess(t testing.TB, name string, opt Options) []byte {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := ReadReport(f)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := PostProcess(&out, rep, opt); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

var (
	allocLine   = regexp.MustCompile(`^\d+\. (?:@[0-9a-f]+ )?(?:\[[^\]]*\] )?.*?(?:<([^<>]+)>)?\((-?\d+)\) = 0x[0-9a-f]+$`)
	resourceSum = regexp.MustCompile(`^# Resource - (\S+) \(`)
)

// corrected returns the real tool's output with its documented defects
// put right, using only the golden and the input:
//   - on text input it prints "@ 0 : (null)" for every context: the
//     input's context lines (those the -C mask keeps) stand there instead;
//   - its per-type leak sums are wrong in multi-type reports: each
//     summary line is recomputed from the allocations the golden itself
//     lists.
func corrected(t *testing.T, golden, input []byte, opt Options) []byte {
	var contexts []string
	for _, l := range strings.Split(string(input), "\n") {
		if strings.HasPrefix(l, "@ ") {
			id, _ := strconv.ParseUint(strings.Fields(l)[1], 16, 32)
			if !opt.FilterContext || uint32(id)&opt.ContextMask != 0 {
				contexts = append(contexts, l)
			}
		}
	}
	lines := strings.SplitAfter(string(golden), "\n")
	count := map[string]int{}
	size := map[string]int64{}
	firstType := ""
	for _, l := range lines {
		if m := resourceSum.FindStringSubmatch(l); m != nil && firstType == "" {
			firstType = m[1]
		}
		if m := allocLine.FindStringSubmatch(strings.TrimSuffix(l, "\n")); m != nil {
			n, _ := strconv.ParseInt(m[2], 10, 64)
			count[m[1]]++
			size[m[1]] += n
		}
	}
	for i, l := range lines {
		if l == "@ 0 : (null)\n" && len(contexts) > 0 {
			lines[i] = contexts[0] + "\n"
			contexts = contexts[1:]
		}
		if m := resourceSum.FindStringSubmatch(l); m != nil && i+1 < len(lines) {
			typ := m[1]
			if typ == firstType {
				typ = "" // single-type reports name no type on calls
				if count[""] == 0 {
					typ = m[1]
				}
			}
			lines[i+1] = fmt.Sprintf("# %d block(s) leaked with total size of %d bytes\n", count[typ], size[typ])
		}
	}
	return []byte(strings.Join(lines, ""))
}

func TestPostProcessGoldens(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.golden, func(t *testing.T) {
			golden, err := os.ReadFile("testdata/" + g.golden)
			if err != nil {
				t.Fatal(err)
			}
			input, _ := os.ReadFile("testdata/" + g.in)
			want := corrected(t, golden, input, g.opt)
			got := postprocess(t, g.in, g.opt)
			testutil.DiffText(t, fmt.Sprintf("%s %+v", g.in, g.opt), want, got)
		})
	}
}

// TestDocumentedDefects pins each place where we differ from the real
// tool, so the package doc's list stays true.
func TestDocumentedDefects(t *testing.T) {
	// Multi-type leak sums: the real tool prints the fd numbers for memory.
	got := postprocess(t, "generated-x86_64/multi.txt", Options{Leaks: true})
	golden, _ := os.ReadFile("testdata/generated-x86_64/multi.l.txt")
	const ours = "# Resource - memory (memory allocation in bytes):\n# 8 block(s) leaked with total size of 100862 bytes\n"
	const theirs = "# Resource - memory (memory allocation in bytes):\n# 1 block(s) leaked with total size of 1 bytes\n"
	if !bytes.HasSuffix(got, []byte(ours)) || !bytes.HasSuffix(golden, []byte(theirs)) {
		t.Errorf("leak sums: ours ends %q", got[len(got)-120:])
	}
	// Context names: kept (the real tool prints "@ 0 : (null)").
	got = postprocess(t, "upstream-v2.0/context.txt", Options{Leaks: true, Compress: true})
	if !bytes.Contains(got, []byte("\n@ 1 : first context\n@ 2 : second context\n")) || bytes.Contains(got, []byte("(null)")) {
		t.Error("context names lost")
	}
	// Header hour: re-printed as read (the 1.3 tool moved it by an hour:
	// alloc.txt says 13:56:30, its re-processed alloc.r.txt 12:56:30).
	got = postprocess(t, "upstream-v1.3/alloc.txt", Options{})
	if !bytes.HasPrefix(got, []byte("version=2.0, arch=i686, timestamp=2010.12.2 13:56:30, process=../bin/alloc_test, pid=30856, backtrace depth=10, \n")) {
		t.Errorf("header: %q", got[:120])
	}
}

func TestFilterLeaks(t *testing.T) {
	in := "version=2.0, \n" +
		"<1> : memory (memory)\n<2> : segment (seg) [refcount]\n" +
		"1. malloc<memory>(8) = 0x10\n\n" +
		"2. malloc<memory>(9) = 0x10\n\n" + // 0x10 again while live: 1 stays a leak
		"3. free<memory>(0x10)\n\n" + // frees 2
		"4. realloc<memory>(0x20)\n\n" + // free with no alloc
		"5. shmget<segment>(100) = 0x7\n\n" +
		"6. shmat<segment>(100) = 0x7\n\n" + // a second reference, dropped
		"7. shmdt<segment>(0x7)\n\n" +
		"8. malloc<memory>(4) = 0x7\n\n" + // another type: no match
		"9. shmdt<segment>(0x7)\n\n" + // last reference: 5 goes
		"10. malloc<memory>(3) = 0x30\n\n" +
		"11. realloc<memory>(0x30)\n\n" +
		"12. realloc<memory>(6) = 0x30\n\n"
	rep, err := ReadReport(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	rep.FilterLeaks()
	var idx []int64
	for _, e := range rep.Events {
		idx = append(idx, e.Call.Index)
	}
	testutil.Diff(t, "leaks", []int64{1, 8, 12}, idx)
	sums := rep.LeakSums()
	if sums[0].Count != 3 || sums[0].Size != 18 || sums[1].Count != 0 {
		t.Errorf("sums %+v", sums)
	}
}

func TestSharedBacktrace(t *testing.T) {
	// A compressed report read back gives every call of a group the
	// group's frames; "##" and other records end a group.
	rep, err := ReadReport(strings.NewReader("version=2.0, \n" +
		"1. malloc(1) = 0x1\n2. malloc(2) = 0x2\n# allocation summary: 2 block(s) with total size 3\n\t0x10\n\t0x20\n\n" +
		"3. malloc(3) = 0x3\n## note\n\t0x30\n\n4. malloc(4) = 0x4\n\t0x10\n\t0x20\n\t$late = 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := rep.Events
	if len(e) != 4 || e[0].Trace != e[1].Trace || e[1].Trace != e[3].Trace || len(e[0].Trace.Frames) != 2 || len(e[2].Trace.Frames) != 0 {
		t.Fatalf("traces: %+v %+v %+v", e[0].Trace, e[2].Trace, e[3].Trace)
	}
	if len(e[3].Call.Args) != 1 || rep.Comments[0].After != 3 {
		t.Errorf("args %+v comments %+v", e[3].Call.Args, rep.Comments)
	}
	g := rep.Groups(SortCount)
	if len(g) != 2 || g[0].Count != 3 || g[0].Size != 7 || g[1].Count != 1 {
		t.Errorf("groups %+v", g)
	}
	g = rep.Groups(SortCountAsc)
	if g[0].Count != 1 {
		t.Errorf("count-asc %+v", g)
	}
	g = rep.Groups(SortSize)
	if g[0].Size != 7 {
		t.Errorf("size %+v", g)
	}
}

func TestTrimAndResourceFilter(t *testing.T) {
	got := postprocess(t, "generated-x86_64/multi.txt", Options{Leaks: true, ResourceMask: 4, Trim: true, Depth: 2})
	// One type left: registered as <1> and not named on calls, as the
	// real tool does; two frames kept; depth in the header.
	for _, want := range []string{"backtrace depth=2, ", "\n<1> : memory (memory allocation in bytes)\n: ", "\n1. [00:23:44.327] malloc(64) = 0x558ca657c2a0\n\t0x558c8898921b\n\t0x558c8898925a\n\n",
		"# Resource - memory (memory allocation in bytes):\n# 8 block(s) leaked with total size of 100862 bytes\n"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("missing %q", want)
		}
	}
	if bytes.Contains(got, []byte("<fd>")) || bytes.Contains(got, []byte("fopen")) {
		t.Error("other types kept")
	}
}

func TestAddressMap(t *testing.T) {
	rep, err := ReadReport(strings.NewReader(mustRead(t, "generated-x86_64/multi.txt")))
	if err != nil {
		t.Fatal(err)
	}
	am := NewAddressMap(rep.Maps)
	for _, tc := range []struct {
		addr uint64
		path string
		off  uint64
	}{
		{0x558c8898921b, "/opt/demo/demo-pie", 0x21b},
		{0x7f8ecbb4724a, "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x124a},
		{0x7f8ecbb16000, "", 0}, // libgcc's end is exclusive
		{0x7f8ecbaff000, "/usr/lib/x86_64-linux-gnu/libgcc_s.so.1", 0},
		{0xffffffffff600fff, "[vsyscall]", 0xfff},
		{0x1000, "", 0},
	} {
		m, off, ok := am.Lookup(tc.addr)
		if string(m.Path) != tc.path || off != tc.off || ok != (tc.path != "") {
			t.Errorf("%#x: %s+%#x %v", tc.addr, m.Path, off, ok)
		}
	}
}

func mustRead(t testing.TB, name string) string {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestV10 reads the protocol 1.0 pair: no empty lines between calls, and
// an old compressed form whose groups have no summary comment. The leaks
// of the full report are the ones the 1.0 tool listed, and its summary.
func TestV10(t *testing.T) {
	full, err := ReadReport(strings.NewReader(mustRead(t, "upstream-v1.0-x86_64/alloc.txt")))
	if err != nil {
		t.Fatal(err)
	}
	full.FilterLeaks()
	lcr, err := ReadReport(strings.NewReader(mustRead(t, "upstream-v1.0-x86_64/alloc.lcr.txt")))
	if err != nil {
		t.Fatal(err)
	}
	index := func(rep *Report) map[int64]string {
		m := map[int64]string{}
		for _, e := range rep.Events {
			var fr []string
			for _, f := range e.Trace.Frames {
				fr = append(fr, strconv.FormatUint(f.Addr, 16))
			}
			m[e.Call.Index] = fmt.Sprintf("%s(%d)=%#x %v", e.Call.Func, e.Call.Size, e.Call.ID, fr)
		}
		return m
	}
	testutil.Diff(t, "leaks of 1.0 report", index(lcr), index(full))
	// "# 29 block(s) leaked with total size of 29039 bytes"
	for _, rep := range []*Report{full, lcr} {
		if s := rep.LeakSums(); len(s) != 1 || s[0].Count != 29 || s[0].Size != 29039 {
			t.Errorf("sums %+v", s)
		}
	}
	if !strings.Contains(mustRead(t, "upstream-v1.0-x86_64/alloc.lcr.txt"), "# 29 block(s) leaked with total size of 29039 bytes\n") {
		t.Error("golden summary changed")
	}
}
