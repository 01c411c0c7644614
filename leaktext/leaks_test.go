package leaktext

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The streaming LeakCounter must find what FilterLeaks and LeakSums find
// on a whole report (the reports here have timestamps in order).
func TestLeakCounterAgreesWithReport(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.txt")
	if len(files) < 5 {
		t.Fatalf("only %d reports in testdata", len(files))
	}
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
		var calls int
		for _, e := range rep.Events {
			if e.Res >= 0 || len(rep.Resources) == 0 {
				calls++
			}
		}
		rep.FilterLeaks()
		want := rep.LeakSums()

		rd, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var lc LeakCounter
		for rec, err := range rd.All() {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			lc.Add(rec)
		}
		got := lc.Sums()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: LeakCounter (-report +counter):\n%s", name, diff)
		}
		for _, s := range got {
			if s.Count > 0 {
				leaky++
			}
		}
		if n, _, _ := lc.Calls(); n < calls {
			t.Errorf("%s: counter saw %d calls, the report %d", name, n, calls)
		}
	}
	if leaky == 0 {
		t.Error("no report leaks anything: the test shows nothing")
	}
}
