package leaktext

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// An allocation that a new one of the same id replaces while live stays a
// leak, in the counter as in FilterLeaks; a refcounted type's further
// allocation only adds a reference.
func TestLeakCounterReallocatedID(t *testing.T) {
	report := "version=1.0, arch=x86_64, timestamp=2026.11.23 12:00:00, process=p, pid=1\n" +
		"<1> : memory (memory allocation in bytes)\n" +
		"<2> : fd (file descriptor) [refcount]\n" +
		"1. malloc<memory>(10) = 0x1000\n" +
		"2. malloc<memory>(20) = 0x1000\n" +
		"3. free<memory>(0x1000)\n" +
		"4. open<fd>(1) = 0x3\n" +
		"5. dup<fd>(1) = 0x3\n" +
		"6. close<fd>(0x3)\n"
	rep, err := ReadReport(strings.NewReader(report))
	if err != nil {
		t.Fatal(err)
	}
	rep.FilterLeaks()
	want := rep.LeakSums()
	if len(want) != 2 || want[0].Count != 1 || want[0].Size != 10 || want[1].Count != 1 {
		t.Fatalf("FilterLeaks+LeakSums = %+v, want the first malloc and the fd left", want)
	}
	rd, err := NewReader(strings.NewReader(report))
	if err != nil {
		t.Fatal(err)
	}
	var lc LeakCounter
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		lc.Add(rec)
	}
	if diff := cmp.Diff(want, lc.Sums()); diff != "" {
		t.Errorf("LeakCounter (-report +counter):\n%s", diff)
	}
}
