package leaktext

// liveSet matches frees with the allocations they release, as
// sp-rtrace-postproc -l does: by resource type and id, in event order.
//   - a free releases the most recent live allocation of its id;
//   - an id allocated again while live leaves the older allocation
//     behind as a leak (realloc writes a free of the old block first);
//   - for reference-counted types a further allocation of a live id adds
//     a reference, a free removes one, and the allocation goes when none
//     is left.
//
// V is what the caller keeps of an allocation.
type liveSet[V any] struct {
	m map[liveKey]*liveEntry[V]
}

type liveKey struct {
	res int
	id  uint64
}

type liveEntry[V any] struct {
	v    V
	refs int
}

// alloc records an allocation and reports whether it stays as its own
// entry; false means it only added a reference to a live allocation.
// When it takes the place of a live allocation of the same id, that one
// is returned as left behind (a leak for good).
func (s *liveSet[V]) alloc(k liveKey, refcount bool, v V) (kept bool, left V, leftBehind bool) {
	if s.m == nil {
		s.m = map[liveKey]*liveEntry[V]{}
	}
	l := s.m[k]
	if l != nil && refcount {
		l.refs++
		return false, left, false
	}
	s.m[k] = &liveEntry[V]{v: v, refs: 1}
	if l != nil {
		return true, l.v, true
	}
	return true, left, false
}

// free applies a free and returns the allocation it released, if one
// went.
func (s *liveSet[V]) free(k liveKey, refcount bool) (released V, ok bool) {
	l := s.m[k]
	if l == nil {
		return released, false
	}
	l.refs--
	if l.refs > 0 && refcount {
		return released, false
	}
	delete(s.m, k)
	return l.v, true
}

// LeakCounter follows a report's records as a Reader yields them and sums
// the allocations left per resource type, as FilterLeaks and LeakSums do
// for a whole Report, in memory that grows with the allocations live at
// any one time rather than with the report. It matches calls in reading
// order; Report sorts them by timestamp first, which differs only for
// reports whose timestamps go backwards. The zero value is ready to use.
type LeakCounter struct {
	resources []Resource
	live      liveSet[int64] // sizes of the live allocations
	// left holds, per resource type, the allocations that a new one of
	// the same id left behind: they can no longer be freed.
	left                 []LeakSum
	calls, allocs, frees int
}

// Add takes the next record of the report.
func (lc *LeakCounter) Add(rec *Record) {
	if lc == nil || rec == nil {
		return
	}
	switch rec.Kind {
	case KindResource:
		if resourceIndex(lc.resources, rec.Resource.Type) < 0 {
			r := rec.Resource
			lc.resources = append(lc.resources, Resource{ID: r.ID, Type: clone(r.Type), Desc: clone(r.Desc), Flags: clone(r.Flags)})
		}
	case KindCall:
		c := &rec.Call
		lc.calls++
		res := resourceIndex(lc.resources, c.Type)
		refcount := res >= 0 && lc.resources[res].Refcount()
		k := liveKey{res, c.ID}
		if c.Free {
			lc.frees++
			lc.live.free(k, refcount)
			return
		}
		lc.allocs++
		if _, size, ok := lc.live.alloc(k, refcount, c.Size); ok {
			i := max(res, 0)
			if i >= len(lc.left) {
				lc.left = append(lc.left, make([]LeakSum, i+1-len(lc.left))...)
			}
			lc.left[i].Count++
			lc.left[i].Size += size
		}
	}
}

// Calls returns how many calls were added, and of them allocations and frees.
func (lc *LeakCounter) Calls() (calls, allocs, frees int) {
	if lc == nil {
		return 0, 0, 0
	}
	return lc.calls, lc.allocs, lc.frees
}

// Sums returns the allocations left per registered resource type, in
// registry order.
func (lc *LeakCounter) Sums() []LeakSum {
	if lc == nil {
		return nil
	}
	sums := make([]LeakSum, len(lc.resources))
	for i, r := range lc.resources {
		sums[i].Resource = r
	}
	if len(sums) == 0 {
		return sums
	}
	for i, l := range lc.left {
		if i < len(sums) {
			sums[i].Count += l.Count
			sums[i].Size += l.Size
		}
	}
	for k, l := range lc.live.m {
		i := max(k.res, 0)
		sums[i].Count++
		sums[i].Size += l.v
	}
	return sums
}
