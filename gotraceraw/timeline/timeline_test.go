package timeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// openTrace opens a trace file for reading at the parsed level; the file
// is closed when the test ends.
func openTrace(t *testing.T, path string) *parsed.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := parsed.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// timelineOf writes the timeline of a trace file, and counts what the
// trace holds.
func timelineOf(t *testing.T, path string) ([]byte, map[string]int, parsed.Time) {
	t.Helper()
	r := openTrace(t, path)
	var out bytes.Buffer
	w, err := NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	goroutines := map[parsed.GoID]bool{}
	var first parsed.Time
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if len(counts) == 0 {
			first = ev.Time
		}
		counts[ev.Kind.String()]++
		if ev.Kind == parsed.KindStateTransition {
			st := ev.StateTransition()
			if from, to := st.Goroutine(); st.Resource.Kind == parsed.ResourceGoroutine && from != to {
				goroutines[parsed.GoID(st.Resource.ID)] = true
				counts["goroutine transition"]++
			}
		}
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	counts["goroutines"] = len(goroutines)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&parsed.Event{}); err != ErrClosed {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
	return out.Bytes(), counts, first
}

// Every fixture's timeline is well formed JSON whose spans pair up, with
// a track per goroutine, a span per goroutine state change, and the
// trace's tasks, regions, logs, ranges and CPU samples.
func TestFixtures(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*.trace")
	if len(files) < 5 {
		t.Fatalf("only %d traces in testdata", len(files))
	}
	seen := map[string]int{}
	for _, path := range files {
		data, counts, _ := timelineOf(t, path)
		evs := testutil.CheckTimeline(t, data)
		got := map[string]int{}
		tracks := map[string]bool{}
		for _, e := range evs {
			switch {
			case e.Ph == "M" && e.Name == "thread_name" && string(e.Pid) == "1":
				tracks[string(e.Tid)] = true
			case e.Ph == "B" && string(e.Pid) == "1":
				got["goroutine transition"]++
			case e.Ph == "b" && e.Cat == "task":
				got["TaskBegin"]++
			case e.Ph == "B" && string(e.Pid) == "6":
				got["RegionBegin"]++
			case e.Ph == "i" && e.Cat == "log":
				got["Log"]++
			case e.Ph == "i" && e.Cat == "cpu":
				got["StackSample"]++
			case e.Ph == "b" && e.Cat == "range":
				got["range"]++
			case e.Ph == "C":
				got["Metric"]++
			}
		}
		name := filepath.Base(path)
		if len(tracks) != counts["goroutines"] {
			t.Errorf("%s: %d goroutine tracks, %d goroutines in the trace", name, len(tracks), counts["goroutines"])
		}
		// a span per change of state, but for exits, which end one
		if got["goroutine transition"] > counts["goroutine transition"] || got["goroutine transition"] < counts["goroutine transition"]/2 {
			t.Errorf("%s: %d goroutine state spans for %d transitions", name, got["goroutine transition"], counts["goroutine transition"])
		}
		for _, k := range []string{"TaskBegin", "RegionBegin", "Log", "StackSample", "Metric"} {
			if got[k] > counts[k] || k != "TaskBegin" && k != "RegionBegin" && got[k] != counts[k] {
				t.Errorf("%s: %d %s in the timeline, %d in the trace", name, got[k], k, counts[k])
			}
			seen[k] += got[k]
		}
		if got["range"] == 0 || got["range"] > counts["RangeBegin"]+counts["RangeActive"] {
			t.Errorf("%s: %d ranges in the timeline, %d begin in the trace", name, got["range"], counts["RangeBegin"]+counts["RangeActive"])
		}
	}
	for _, k := range []string{"TaskBegin", "RegionBegin", "Log", "StackSample", "Metric"} {
		if seen[k] == 0 {
			t.Errorf("no %s in any fixture's timeline", k)
		}
	}
}

// Times are the trace's nanoseconds since its first event, exactly.
func TestTimes(t *testing.T) {
	path := "../testdata/annotations.trace"
	data, _, first := timelineOf(t, path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := parsed.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var want []string // the logs' times
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == parsed.KindLog {
			ns := int64(ev.Time - first)
			want = append(want, strconv.FormatInt(ns/1000, 10)+"."+strings.Repeat("0", 3-len(strconv.FormatInt(ns%1000, 10)))+strconv.FormatInt(ns%1000, 10))
		}
	}
	var got []string
	for _, e := range testutil.CheckTimeline(t, data) {
		if e.Cat == "log" {
			got = append(got, string(e.Ts))
		}
	}
	if len(want) == 0 {
		t.Fatal("no logs in annotations.trace")
	}
	testutil.Diff(t, "log times", want, got)
}

func TestZero(t *testing.T) {
	var w *Writer
	if err := w.Write(&parsed.Event{}); err != ErrNotOpen {
		t.Errorf("nil Writer: Write: %v", err)
	}
	if err := (&Writer{}).Close(); err != ErrNotOpen {
		t.Errorf("zero Writer: Close: %v", err)
	}
	if _, err := NewWriter(nil); err != ErrNotOpen {
		t.Errorf("NewWriter(nil): %v", err)
	}
}

// TestCutEndsAtSync: a trace cut short fails as a generation is read,
// before any of its events, so the timeline of what came before the error
// is that of the events up to the last Sync, as Go's tool keeps them; and
// it is whole, every span ended.
func TestCutEndsAtSync(t *testing.T) {
	dir := testutil.SharedFixture(t, "gotrace")
	for _, name := range []string{"multigen", "gcgens", "gcstress"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".trace"))
		if err != nil {
			t.Fatal(err)
		}
		for _, frac := range []int{20, 50, 80, 97} {
			n := len(data) * frac / 100
			r, err := parsed.NewReader(bytes.NewReader(data[:n]))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			w, err := NewWriter(&out)
			if err != nil {
				t.Fatal(err)
			}
			var last parsed.Kind
			events := 0
			for ev, err := range r.All() {
				if err != nil {
					break
				}
				last = ev.Kind
				events++
				if err := w.Write(ev); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if events > 0 && last != parsed.KindSync {
				t.Errorf("%s cut at %d: the last event before the error is %v, not a Sync", name, n, last)
			}
			if events > 1 {
				testutil.CheckTimeline(t, out.Bytes())
			}
		}
	}
}

type failingDest struct{}

var errDiskFull = errors.New("disk full")

func (failingDest) Write([]byte) (int, error) { return 0, errDiskFull }

// A destination that fails is reported by the Write whose event could not
// be written out, by every later Write and by Close, not by Close alone.
func TestDestinationFails(t *testing.T) {
	// (its timeline is 350 KB, more than the Writer buffers)
	r := openTrace(t, "../testdata/syscalls.trace")
	w, err := NewWriter(failingDest{})
	if err != nil {
		t.Fatal(err)
	}
	failedAt := -1
	n := 0
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		werr := w.Write(ev)
		switch {
		case failedAt < 0 && werr != nil:
			failedAt = n
			if !errors.Is(werr, errDiskFull) {
				t.Fatalf("event %d: %v, want the destination's failure", n, werr)
			}
		case failedAt >= 0 && !errors.Is(werr, errDiskFull):
			t.Fatalf("event %d, after the failure at %d: %v", n, failedAt, werr)
		}
		n++
	}
	if failedAt < 0 {
		t.Fatalf("no Write of %d events reported the failing destination", n)
	}
	if err := w.Close(); !errors.Is(err, errDiskFull) {
		t.Errorf("Close: %v, want the destination's failure", err)
	}
}
