package parsed

import "testing"

// TestSeenIDs checks the table of IDs seen in a generation across its
// dense and sparse parts, including an ID put in the map before the slice
// grew over it, and its reuse after reset.
func TestSeenIDs(t *testing.T) {
	var s seenIDs
	for round := 0; round < 2; round++ {
		ids := []uint64{1, 2, 5000, 3, 1 << 40}
		for i := uint64(4); i < 6000; i++ {
			if i != 5000 {
				ids = append(ids, i)
			}
		}
		for j, id := range ids {
			if _, ok := s.get(id); ok {
				t.Fatalf("round %d: id %d seen before it was set", round, id)
			}
			s.set(id, j)
		}
		if len(s.dense) <= 5000 {
			t.Fatalf("round %d: the slice did not grow over 5000 (len %d)", round, len(s.dense))
		}
		for j, id := range ids {
			if got, ok := s.get(id); !ok || got != j {
				t.Fatalf("round %d: get(%d) = %d, %v; want %d, true", round, id, got, ok, j)
			}
		}
		for _, id := range []uint64{0, 6000, 7000, 1<<40 + 1} {
			if _, ok := s.get(id); ok {
				t.Fatalf("round %d: id %d seen, never set", round, id)
			}
		}
		s.reset()
		for _, id := range ids {
			if _, ok := s.get(id); ok {
				t.Fatalf("round %d: id %d seen after reset", round, id)
			}
		}
	}
}

// TestPCTable checks that a PC keeps its first frame, whatever comes
// after, through the table's growth and after reset.
func TestPCTable(t *testing.T) {
	var tab pcTable
	for round := 0; round < 2; round++ {
		const n = 1000
		for i := uint64(0); i < n; i++ {
			// PCs a multiple of the table's size apart collide.
			if j := tab.add(pcFrame{pc: i << 20, fn: i, line: 1}); j != int32(i) {
				t.Fatalf("round %d: new pc %#x got index %d, want %d", round, i<<20, j, i)
			}
		}
		for i := uint64(0); i < n; i++ {
			if j := tab.add(pcFrame{pc: i << 20, fn: i + 1, line: 2}); j != int32(i) {
				t.Fatalf("round %d: pc %#x again got index %d, want %d", round, i<<20, j, i)
			}
		}
		if len(tab.frames) != n {
			t.Fatalf("round %d: %d frames, want %d", round, len(tab.frames), n)
		}
		for i, f := range tab.frames {
			if f.pc != uint64(i)<<20 || f.fn != uint64(i) || f.line != 1 {
				t.Fatalf("round %d: frame %d is %+v, want the first one given", round, i, f)
			}
		}
		tab.reset()
		if len(tab.frames) != 0 {
			t.Fatalf("round %d: %d frames after reset", round, len(tab.frames))
		}
	}
}
