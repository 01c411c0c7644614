package xrayfdr

import (
	"cmp"
	"math/rand"
	"slices"
	"testing"
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
