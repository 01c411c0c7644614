package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
)

type chromeTrace struct {
	TraceEvents []struct {
		Name string          `json:"name"`
		Ph   string          `json:"ph"`
		Pid  uint32          `json:"pid"`
		Tid  uint32          `json:"tid"`
		Ts   json.Number     `json:"ts"`
		S    string          `json:"s"`
		Args json.RawMessage `json:"args"`
	} `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// checkChrome parses out as JSON and checks that spans nest per thread and
// time never goes back within a thread. It returns the number of spans and
// instant events.
func checkChrome(t *testing.T, out []byte) (spans, instants int) {
	t.Helper()
	var tr chromeTrace
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&tr); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	type th struct{ pid, tid uint32 }
	stacks := map[th][]string{}
	last := map[th]float64{}
	for i, e := range tr.TraceEvents {
		k := th{e.Pid, e.Tid}
		ts, err := e.Ts.Float64()
		if err != nil {
			t.Fatalf("event %d: ts %q", i, e.Ts)
		}
		if ts < last[k] {
			t.Fatalf("event %d: time goes back on thread %v", i, k)
		}
		last[k] = ts
		switch e.Ph {
		case "B":
			stacks[k] = append(stacks[k], e.Name)
		case "E":
			st := stacks[k]
			if len(st) == 0 || st[len(st)-1] != e.Name {
				t.Fatalf("event %d: E %q does not close the innermost span %v", i, e.Name, st)
			}
			stacks[k] = st[:len(st)-1]
			spans++
		case "i":
			instants++
			if !json.Valid(e.Args) {
				t.Fatalf("event %d: args", i)
			}
		default:
			t.Fatalf("event %d: phase %q", i, e.Ph)
		}
	}
	for k, st := range stacks {
		if len(st) > 0 {
			t.Errorf("thread %v ends with open spans %v", k, st)
		}
	}
	return spans, instants
}

func TestChrome(t *testing.T) {
	for _, name := range []string{"fdr_simple", "fdr_typed", "fdr_threads", "basic_simple", "synthetic-v1", "synthetic-v5"} {
		t.Run(name, func(t *testing.T) {
			data := testutil.ReadFile(t, "../testdata/"+name+".xray")
			tr, err := xrayfdr.Expand(data, true)
			if err != nil {
				t.Fatal(err)
			}
			var names map[int32]string
			if f, err := os.Open("../testdata/" + name + ".instrmap.yaml"); err == nil {
				m, err := instrmap.ReadYAML(f)
				f.Close()
				names = m.Names(true)
				if err != nil || len(names) == 0 {
					t.Fatalf("instrumentation map: %d names, %v", len(names), err)
				}
			}
			var out bytes.Buffer
			if err := WriteChrome(&out, tr, names); err != nil {
				t.Fatal(err)
			}
			spans, instants := checkChrome(t, out.Bytes())
			custom := 0
			enters := 0
			for _, e := range tr.Events {
				switch e.Kind {
				case xrayfdr.EventCustom, xrayfdr.EventTyped:
					custom++
				case xrayfdr.EventEnter, xrayfdr.EventEnterArg:
					enters++
				}
			}
			if instants != custom || spans != enters {
				t.Errorf("%d spans, %d instants; want %d, %d", spans, instants, enters, custom)
			}
			if names != nil && !strings.Contains(out.String(), `"name":"leaf(int)"`) && name == "fdr_simple" {
				t.Errorf("names from the map not used")
			}
		})
	}
}

func TestChromeTimestamps(t *testing.T) {
	// 1.8e18 ticks at 1 GHz: a float64 would lose the last digits
	evs := []xrayfdr.Event{
		{Kind: xrayfdr.EventEnter, FuncID: 1, TSC: 1795282106007886855, TID: 1},
		{Kind: xrayfdr.EventExit, FuncID: 1, TSC: 1795282106007886855 + 1_234_567_891, TID: 1},
	}
	var out bytes.Buffer
	WriteChrome(&out, &xrayfdr.Trace{Header: xrayfdr.Header{CycleFrequency: 1e9}, Events: evs}, nil)
	if !strings.Contains(out.String(), `"ts":1234567.891`) {
		t.Errorf("timestamp not exact:\n%s", out.String())
	}
	if !strings.Contains(out.String(), `"firstTSC":"1795282106007886855"`) {
		t.Errorf("first TSC missing")
	}
}

// FuzzChrome writes the Chrome JSON of every log that expands (seeded
// with the log package's test logs): no panic, no error.
func FuzzChrome(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/*.xray")
	for _, p := range paths {
		f.Add(testutil.ReadFile(f, p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := xrayfdr.Expand(data, true)
		if err != nil {
			return
		}
		if err := WriteChrome(io.Discard, tr, nil); err != nil {
			t.Fatal(err)
		}
	})
}

type failingDest struct{ writes int }

var errDiskFull = errors.New("disk full")

func (f *failingDest) Write([]byte) (int, error) {
	f.writes++
	return 0, errDiskFull
}

// A destination that fails: WriteChrome returns its failure, having tried
// to write once.
func TestChromeDestinationFails(t *testing.T) {
	var evs []xrayfdr.Event
	for i := range uint64(20000) { // about 2 MB of JSON
		evs = append(evs,
			xrayfdr.Event{Kind: xrayfdr.EventEnter, FuncID: 1, TSC: 10 * i, TID: 1},
			xrayfdr.Event{Kind: xrayfdr.EventExit, FuncID: 1, TSC: 10*i + 5, TID: 1})
	}
	var dest failingDest
	err := WriteChrome(&dest, &xrayfdr.Trace{Header: xrayfdr.Header{CycleFrequency: 1e9}, Events: evs}, nil)
	if !errors.Is(err, errDiskFull) || dest.writes != 1 {
		t.Errorf("WriteChrome: %v after %d writes, want the destination's failure after 1", err, dest.writes)
	}
}
