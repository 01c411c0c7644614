package parsed

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

var inLineCases = flag.Int("inlinecases", 300, "TestInLineAgrees reads this many random edits of the fixtures both ways")

// TestInLineAgrees reads the fixtures, Go's test corpus and random edits
// of the fixtures (events dropped, duplicated, swapped, arguments changed
// to values of the trace) with the common events ordered in line and with
// every event taken by the general path: the same text and the same error
// each time. -inlinecases sets how many edits; FuzzReader does the same
// on its inputs.
func TestInLineAgrees(t *testing.T) {
	var traces [][]byte
	for _, f := range fixtureTraces(t, false) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, data)
	}
	fixtures := len(traces)
	for _, data := range append(traces, goCorpusTraces(t)...) {
		text, err := parseText(data)
		agreeInLine(t, data, text, err)
	}

	// Edits of the small fixtures: most break the order somewhere in the
	// middle of a generation, where the in-line path meets the general.
	var small [][]*gotraceraw.Event
	var versions []gotraceraw.Version
	for _, data := range traces[:fixtures] {
		if len(data) > 32<<10 {
			continue
		}
		evs, v := readRaw(t, data)
		small, versions = append(small, evs), append(versions, v)
	}
	rng := rand.New(rand.NewPCG(2, uint64(*inLineCases)))
	n := *inLineCases
	if testing.Short() {
		n = min(n, 30)
	}
	failed, read := 0, 0
	for i := 0; i < n; i++ {
		k := i % len(small)
		data, ok := writeMutant(versions[k], mutate(rng, small[k]))
		if !ok {
			continue
		}
		read++
		text, err := parseText(data)
		if err != nil {
			failed++
		}
		agreeInLine(t, data, text, err)
		if t.Failed() {
			t.Logf("edit %d of fixture %d", i, k)
			return
		}
	}
	t.Logf("%d edits: %d read, %d of them with an error", n, read, failed)
	if failed == 0 || failed == read {
		t.Errorf("the edits all read with an error or all without: they test nothing")
	}
}

// mutate returns a copy of evs with one to four random edits.
func mutate(rng *rand.Rand, evs []*gotraceraw.Event) []*gotraceraw.Event {
	out := append([]*gotraceraw.Event(nil), evs...)
	for ops := 1 + rng.IntN(4); ops > 0 && len(out) > 1; ops-- {
		i := rng.IntN(len(out))
		switch rng.IntN(4) {
		case 0: // drop
			out = append(out[:i:i], out[i+1:]...)
		case 1: // duplicate
			out = append(out[:i+1:i+1], out[i:]...)
		case 2: // swap with a near one
			if j := i + 1 + rng.IntN(3); j < len(out) {
				out[i], out[j] = out[j], out[i]
			}
		case 3: // an argument takes the value of another event's
			e := out[i].Clone()
			o := out[rng.IntN(len(out))]
			if len(e.Args) > 0 && len(o.Args) > 0 && e.Type != gotraceraw.EvStack {
				e.Args[rng.IntN(len(e.Args))] = o.Args[rng.IntN(len(o.Args))]
			}
			out[i] = e
		}
	}
	return out
}

// writeMutant writes evs in the binary form; false when the Writer
// refuses them.
func writeMutant(v gotraceraw.Version, evs []*gotraceraw.Event) ([]byte, bool) {
	var b bytes.Buffer
	w, err := gotraceraw.NewWriter(&b, gotraceraw.Header{Version: v})
	if err != nil {
		return nil, false
	}
	for _, e := range evs {
		if w.Write(e) != nil {
			return nil, false
		}
	}
	if w.Close() != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// TestCPUSampleTies gives a CPU sample the time of a thread's event, which
// Go's parser returns first: the in-line path must stop for the sample
// only after that event, as the general path does. Random edits do not
// make such ties.
func TestCPUSampleTies(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "cpuprofile.trace"))
	if err != nil {
		t.Fatal(err)
	}
	// The events of the first sample's generation whose times are their
	// own (not moved after the last) and a whole number of ticks.
	raws, v := readRaw(t, data)
	first, gen := -1, uint64(0)
	for i, e := range raws {
		if e.Type == gotraceraw.EvEventBatch {
			gen = e.Args[0]
		}
		if e.Type == gotraceraw.EvCPUSample {
			first = i
			break
		}
	}
	if first < 0 {
		t.Fatal("no CPU sample")
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var times []Time
	var per float64
	last := Time(0)
	for e, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if e.tab != nil && e.tab.gen == gen && e.Kind != KindSync && e.Type != gotraceraw.EvCPUSample && e.Time > last+1 {
			times = append(times, e.Time)
			per = e.tab.freq
		}
		last = e.Time
	}
	tried := 0
	for k := 0; k < len(times); k += max(1, len(times)/6) {
		ticks := float64(times[k]) / per
		if ticks != float64(uint64(ticks)) {
			continue
		}
		evs := append([]*gotraceraw.Event(nil), raws...)
		s := raws[first].Clone()
		s.Args[0] = uint64(ticks)
		evs[first] = s
		out, ok := writeMutant(v, evs)
		if !ok {
			t.Fatal("the Writer refuses the trace with the sample moved")
		}
		text, err := parseText(out)
		agreeInLine(t, out, text, err)
		file := filepath.Join(t.TempDir(), "tie.trace")
		if err := os.WriteFile(file, out, 0o644); err != nil {
			t.Fatal(err)
		}
		compareWithGo(t, file)
		tried++
	}
	if tried == 0 {
		t.Fatal("no event to tie with")
	}
}

// readRaw reads a trace's events at the raw level, each its own copy.
func readRaw(t *testing.T, data []byte) ([]*gotraceraw.Event, gotraceraw.Version) {
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var evs []*gotraceraw.Event
	for e, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		e = e.Clone()
		e.Widths = nil
		evs = append(evs, e)
	}
	return evs, r.Header().Version
}
