package leaktext

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// mustProfile returns the profile of a report.
func mustProfile(t *testing.T, data []byte) []byte {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var p Profile
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		p.Add(rec)
	}
	var out bytes.Buffer
	if err := p.WriteProfile(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// profileOf feeds a report to a Profile and decodes what it writes.
func profileOf(t *testing.T, data []byte, resource string) *testutil.Profile {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	p := Profile{Resource: resource}
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		p.Add(rec)
	}
	var out bytes.Buffer
	if err := p.WriteProfile(&out); err != nil {
		t.Fatal(err)
	}
	return testutil.DecodeProfile(t, out.Bytes())
}

// The profile's samples are the groups of sp-rtrace-postproc -l -c, per
// backtrace (its addresses) and resource type, and its totals per type are
// the "# Resource -" sums of leakpost -l.
func TestProfileAgreesWithLeakpost(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.txt")
	leaky := 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := ReadReport(bytes.NewReader(data))
		if err != nil {
			continue // not every text file there is a report
		}
		rep.FilterLeaks()
		wantSums := map[string][2]int64{}
		for _, s := range rep.LeakSums() {
			if s.Count > 0 {
				wantSums[string(s.Resource.Type)] = [2]int64{int64(s.Count), s.Size}
			}
		}
		// groups by backtrace addresses and type
		wantGroups := map[string][2]int64{}
		for _, e := range rep.Events {
			var b strings.Builder
			if res := max(e.Res, 0); res < len(rep.Resources) {
				b.WriteString(string(rep.Resources[res].Type))
			}
			for _, f := range e.Trace.Frames {
				b.WriteString(" " + strconv.FormatUint(f.Addr, 16))
			}
			g := wantGroups[b.String()]
			wantGroups[b.String()] = [2]int64{g[0] + 1, g[1] + e.Call.Size}
		}

		prof := profileOf(t, data, "")
		gotSums := map[string][2]int64{}
		gotGroups := map[string][2]int64{}
		for _, s := range prof.Samples {
			typ := s.Labels["resource"]
			g := gotSums[typ]
			gotSums[typ] = [2]int64{g[0] + s.Values[0], g[1] + s.Values[1]}
			k := typ
			for _, a := range s.Addrs {
				k += " " + strconv.FormatUint(a, 16)
			}
			g = gotGroups[k]
			gotGroups[k] = [2]int64{g[0] + s.Values[0], g[1] + s.Values[1]}
		}
		if len(rep.Resources) == 0 {
			wantSums, gotSums = nil, nil // no type to name the sums by
		}
		if diff := cmp.Diff(wantSums, gotSums, cmpEmpty); diff != "" {
			t.Errorf("%s: leaks per type (-leakpost +profile):\n%s", name, diff)
		}
		if diff := cmp.Diff(wantGroups, gotGroups, cmpEmpty); diff != "" {
			t.Errorf("%s: leaks per backtrace (-leakpost +profile):\n%s", name, diff)
		}
		if len(gotSums) > 0 {
			leaky++
		}
		// -profile TYPE keeps that type's samples only, unlabelled
		for typ, want := range wantSums {
			one := profileOf(t, data, typ)
			if got := one.Totals(); got[0] != want[0] || got[1] != want[1] {
				t.Errorf("%s: Resource %q: totals %v, want %v", name, typ, got, want)
			}
		}
		if len(prof.Mappings) != len(rep.Maps) {
			t.Errorf("%s: %d mappings, the report has %d memory maps", name, len(prof.Mappings), len(rep.Maps))
		}
	}
	if leaky < 4 {
		t.Errorf("only %d reports with leaks", leaky)
	}
}

var cmpEmpty = cmp.FilterValues(func(a, b map[string][2]int64) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

// TestProfileShared checks the shared reports against the real tool's
// own -l output: its "# Resource -" sums for the types it gets right
// (the first two; it prints the first type's sums for the third).
func TestProfileShared(t *testing.T) {
	dir := testutil.SharedFixture(t, "leaktext/generated-x86_64")
	data := testutil.ReadFile(t, filepath.Join(dir, "multi.txt"))
	real := testutil.ReadFile(t, filepath.Join(dir, "multi.l.txt"))
	lines := strings.Split(string(real), "\n")
	want := map[string][2]int64{}
	for i, l := range lines {
		typ, ok := strings.CutPrefix(l, "# Resource - ")
		if !ok || i+1 >= len(lines) {
			continue
		}
		typ, _, _ = strings.Cut(typ, " ")
		var n, size int64
		if _, err := fmt.Sscanf(lines[i+1], "# %d block(s) leaked with total size of %d bytes", &n, &size); err != nil {
			t.Fatalf("multi.l.txt: %q: %v", lines[i+1], err)
		}
		want[typ] = [2]int64{n, size}
	}
	if len(want) != 3 {
		t.Fatalf("multi.l.txt: %d resource sums, want 3", len(want))
	}
	prof := profileOf(t, data, "")
	got := map[string][2]int64{}
	for _, s := range prof.Samples {
		g := got[s.Labels["resource"]]
		got[s.Labels["resource"]] = [2]int64{g[0] + s.Values[0], g[1] + s.Values[1]}
	}
	for _, typ := range []string{"fd", "fp"} {
		if got[typ] != want[typ] {
			t.Errorf("type %s: profile %v, sp-rtrace-postproc -l %v", typ, got[typ], want[typ])
		}
	}
	var names []string
	for _, m := range prof.Mappings {
		names = append(names, m.File)
	}
	sort.Strings(names)
	if len(names) == 0 || !strings.Contains(strings.Join(names, " "), "/opt/demo/demo-pie") {
		t.Errorf("mappings %v: no /opt/demo/demo-pie", names)
	}
	top := testutil.PprofTop(t, mustProfile(t, data), "-sample_index=inuse_objects")
	n := got["fd"][0] + got["fp"][0] + got["memory"][0]
	if total := testutil.TopTotal(t, top); total != strconv.FormatInt(n, 10) {
		t.Errorf("go tool pprof -top: total %s, want %d\n%s", total, n, top)
	}
}

// Frames a resolver named carry their function in the profile.
func TestProfileNames(t *testing.T) {
	data, err := os.ReadFile("testdata/generated-x86_64/cxx.resolved.txt")
	if err != nil {
		t.Fatal(err)
	}
	prof := profileOf(t, data, "")
	found := false
	for _, s := range prof.Samples {
		for _, f := range s.Stack {
			found = found || f == "app::Cache::add(char const*, int)"
		}
	}
	if !found {
		t.Errorf("no sample passes through app::Cache::add: %v", prof.Samples)
	}
	var zero Profile
	if err := zero.WriteProfile(nil); err != ErrNotOpen {
		t.Errorf("WriteProfile(nil): %v, want ErrNotOpen", err)
	}
}

// FuzzProfile: whatever a Reader reads converts, with no panic, to a
// profile whose references resolve and whose leaks are never negative.
func FuzzProfile(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		var p Profile
		for rec, err := range rd.All() {
			if err != nil {
				break
			}
			p.Add(rec)
		}
		var out bytes.Buffer
		if err := p.WriteProfile(&out); err != nil {
			t.Fatal(err)
		}
		// sizes are the report's own numbers; counts must be positive
		for _, s := range testutil.DecodeProfile(t, out.Bytes()).Samples {
			if s.Values[0] <= 0 {
				t.Fatalf("a sample with values %v", s.Values)
			}
		}
	})
}
