package xrayfdr

import (
	"bytes"
	"cmp"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestSortBlocksOrder checks the libstdc++ emulation where the comparator
// is a strict weak order (distinct seconds and micros growing together):
// the result must be sorted, for sizes on both sides of 16 and past the
// heap-sort depth limit.
func TestSortBlocksOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, n := range []int{0, 1, 2, 5, 16, 17, 40, 200, 1000} {
		b := make([]Block, n)
		for i := range b {
			b[i] = Block{Seconds: uint64(i), Micros: uint32(i), Records: i}
		}
		rng.Shuffle(n, func(i, j int) { b[i], b[j] = b[j], b[i] })
		sortBlocks(b)
		for i := range b {
			if b[i].Records != i {
				t.Fatalf("n=%d: position %d holds %d", n, i, b[i].Records)
			}
		}
		// the non-strict comparator must still terminate and permute
		for i := range b {
			b[i] = Block{Seconds: uint64(rng.Intn(3)), Micros: uint32(rng.Intn(3)), Records: i}
		}
		sortBlocks(b)
		seen := make([]int, 0, n)
		for _, x := range b {
			seen = append(seen, x.Records)
		}
		slices.Sort(seen)
		for i := range seen {
			if seen[i] != i {
				t.Fatalf("n=%d: not a permutation", n)
			}
		}
	}
}

func TestSortEventsStable(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	evs := make([]Event, 5000)
	for i := range evs {
		evs[i] = Event{TSC: uint64(rng.Intn(100)), FuncID: int32(i)}
	}
	want := slices.Clone(evs)
	slices.SortStableFunc(want, func(a, b Event) int { return int(a.TSC) - int(b.TSC) })
	got := sortEvents(evs)
	for i := range got {
		if got[i].FuncID != want[i].FuncID {
			t.Fatalf("position %d: %d, want %d", i, got[i].FuncID, want[i].FuncID)
		}
	}
}

// TestSortEventsMerge sorts logs of a few ascending runs, the merge's
// case, with ties within and across runs and the largest TSC.
func TestSortEventsMerge(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, k := range []int{2, 3, 5, 22, 64} {
		var evs []Event
		for r := 0; r < k; r++ {
			tsc := uint64(rng.Intn(50))
			for range 1 + rng.Intn(300) {
				tsc += uint64(rng.Intn(3)) // ties within a run
				if rng.Intn(100) == 0 {
					tsc = ^uint64(0)
				}
				evs = append(evs, Event{TSC: tsc, FuncID: int32(len(evs))})
			}
		}
		want := slices.Clone(evs)
		slices.SortStableFunc(want, func(a, b Event) int { return cmp.Compare(a.TSC, b.TSC) })
		got := sortEvents(evs)
		for i := range got {
			if got[i].FuncID != want[i].FuncID {
				t.Fatalf("%d runs: position %d: %d, want %d", k, i, got[i].FuncID, want[i].FuncID)
			}
		}
	}
}

// TestExpandUnsorted checks that the unsorted expansion, stably sorted by
// TSC, is the sorted one, arguments and payloads included.
func TestExpandUnsorted(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.xray")
	big := filepath.Join(testutil.ModuleRoot(t), "..", "shared", "fixtures", "xray", "fdr_big.xray")
	if _, err := os.Stat(big); err == nil || testutil.InCI() {
		paths = append(paths, testutil.SharedFixture(t, "xray/fdr_big.xray"))
	}
	expanded := 0
	for _, p := range paths {
		data := testutil.ReadFile(t, p)
		sorted, err := Expand(data, true)
		if err != nil {
			continue
		}
		unsorted, err := Expand(data, false)
		if err != nil {
			t.Fatalf("%s: sorted expansion, unsorted: %v", p, err)
		}
		evs := slices.Clone(unsorted.Events)
		slices.SortStableFunc(evs, func(a, b Event) int { return cmp.Compare(a.TSC, b.TSC) })
		if len(evs) != len(sorted.Events) {
			t.Fatalf("%s: %d events unsorted, %d sorted", p, len(evs), len(sorted.Events))
		}
		for i := range evs {
			a, b := &evs[i], &sorted.Events[i]
			if a.RecordType != b.RecordType || a.CPU != b.CPU || a.Kind != b.Kind || a.FuncID != b.FuncID ||
				a.TSC != b.TSC || a.TID != b.TID || a.PID != b.PID ||
				!slices.Equal(unsorted.Args(a), sorted.Args(b)) || !bytes.Equal(unsorted.Data(a), sorted.Data(b)) {
				t.Fatalf("%s: event %d: %+v unsorted, %+v sorted", p, i, *a, *b)
			}
		}
		expanded++
	}
	if expanded < 5 {
		t.Fatalf("only %d logs expanded", expanded)
	}
}

// TestSortSlots checks the sort of an FDR log's slots against the sort of
// the events they make, with few runs (merged) and many (sorted).
func TestSortSlots(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	ctxs := []slotCtx{{CPU: 1, TID: 2, PID: 3}, {RecordType: 4, CPU: 5, TID: 6, PID: 7, extra: 1}}
	for _, runLen := range []int{1, 3, 200, 5000} {
		var slots []slot
		tsc := uint64(0)
		for i := range 5000 {
			if i%runLen == 0 {
				tsc = uint64(rng.Intn(100))
			}
			tsc += uint64(rng.Intn(2))
			slots = append(slots, slot{TSC: tsc, fk: uint32(i) | uint32(i%6)<<28, ctx: uint32(i % 2)})
		}
		evs := make([]Event, len(slots))
		for i := range slots {
			evs[i] = slots[i].event(ctxs)
		}
		want := sortEvents(evs)
		got := sortSlots(slots, ctxs)
		if !slices.Equal(got, want) {
			t.Fatalf("runs of %d: slots sort differently", runLen)
		}
	}
}
