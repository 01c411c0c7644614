// Package llvmorder reproduces the orders llvm-xray's containers give:
// the bucket order of LLVM's DenseMap, and libstdc++'s std::sort where
// rows tie. The log's dump and the analyses print rows in these orders.
package llvmorder

import "math/bits"

// Map reproduces the bucket order of LLVM's DenseMap for keys whose
// hash the caller gives (see HashInt and HashPair): power-of-two
// buckets from 64, quadratic probing, growth when three quarters full,
// tombstones reused on stdInsertion.
type Map[K comparable] struct {
	b    []bucket[K]
	n    int
	tomb int
}

type bucket[K comparable] struct {
	state uint8 // 0 empty, 1 used, 2 tombstone
	hash  uint32
	key   K
	val   int
}

// HashInt is DenseMapInfo's hash of a 32-bit integer key.
func HashInt(k uint32) uint32 { return k * 37 }

// HashPair is DenseMapInfo's hash of a pair of 32-bit integers
// (combineHashValue of their hashes): LLVM 14's when llvm19 is false, else
// LLVM 19's, whose combineHashValue mixes with one multiplication and one
// xor-shift (splitmix64's first step) where LLVM 14 shuffled bits in
// eight steps.
func HashPair(llvm19 bool, a, b uint32) uint32 {
	return combine(llvm19, a*37, b*37)
}

// HashBlockKey is DenseMapInfo's hash of the key of llvm-xray's block
// index, a pair of a 64-bit process id and a 32-bit thread id. LLVM 19
// hashes a 64-bit integer with the same mix; LLVM 14 multiplies it by 37
// like a 32-bit one.
func HashBlockKey(llvm19 bool, pid uint64, tid uint32) uint32 {
	h := uint32(pid) * 37
	if llvm19 {
		h = uint32(mix(pid))
	}
	return combine(llvm19, h, tid*37)
}

// mix is LLVM 19's densemap::detail::mix.
func mix(x uint64) uint64 {
	x *= 0xbf58476d1ce4e5b9
	return x ^ x>>31
}

// combine is LLVM's detail::combineHashValue of two hashes.
func combine(llvm19 bool, a, b uint32) uint32 {
	k := uint64(a)<<32 | uint64(b)
	if llvm19 {
		return uint32(mix(k))
	}
	k += ^(k << 32)
	k ^= k >> 22
	k += ^(k << 13)
	k ^= k >> 8
	k += k << 3
	k ^= k >> 15
	k += ^(k << 27)
	k ^= k >> 31
	return uint32(k)
}

// lookup returns the bucket of key, or where it would be inserted, and
// whether it is there.
func (m *Map[K]) lookup(key K, h uint32) (int, bool) {
	mask := len(m.b) - 1
	i := int(h) & mask
	tomb := -1
	for probe := 1; ; probe++ {
		e := &m.b[i]
		switch {
		case e.state == 1 && e.key == key:
			return i, true
		case e.state == 0:
			if tomb >= 0 {
				return tomb, false
			}
			return i, false
		case e.state == 2 && tomb < 0:
			tomb = i
		}
		i = (i + probe) & mask
	}
}

// Get returns the value stored for key.
func (m *Map[K]) Get(key K, h uint32) (int, bool) {
	if len(m.b) == 0 {
		return 0, false
	}
	i, ok := m.lookup(key, h)
	if !ok {
		return 0, false
	}
	return m.b[i].val, true
}

// Insert stores val for key unless key is there; it returns the value
// stored and whether it is new.
func (m *Map[K]) Insert(key K, h uint32, val int) (int, bool) {
	if len(m.b) > 0 {
		if i, ok := m.lookup(key, h); ok {
			return m.b[i].val, false
		}
	}
	n := len(m.b)
	switch {
	case (m.n+1)*4 >= n*3:
		m.grow(max(64, 2*n))
	case n-(m.n+1+m.tomb) <= n/8:
		m.grow(n)
	}
	i, _ := m.lookup(key, h)
	if m.b[i].state == 2 {
		m.tomb--
	}
	m.b[i] = bucket[K]{state: 1, hash: h, key: key, val: val}
	m.n++
	return val, true
}

func (m *Map[K]) grow(n int) {
	old := m.b
	m.b = make([]bucket[K], n)
	m.tomb = 0
	for _, e := range old {
		if e.state == 1 {
			i, _ := m.lookup(e.key, e.hash)
			m.b[i] = e
		}
	}
}

// Erase removes key, leaving a tombstone.
func (m *Map[K]) Erase(key K, h uint32) {
	if len(m.b) == 0 {
		return
	}
	if i, ok := m.lookup(key, h); ok {
		m.b[i].state = 2
		m.n--
		m.tomb++
	}
}

// Each calls fn with the values in bucket order.
func (m *Map[K]) Each(fn func(key K, val int)) {
	for i := range m.b {
		if e := &m.b[i]; e.state == 1 {
			fn(e.key, e.val)
		}
	}
}

// Sort sorts s as libstdc++'s std::sort does with less (stdIntrosort:
// median of three pivots, heap sort past the depth limit, a final
// stdInsertion sort), so that elements that compare equal end in the
// order llvm-xray prints them. less need not be a strict weak order
// (llvm-xray's block comparator is not): where the C++ code would then
// run off the array, the scans stop at its ends, and with a strict weak
// order those stops are never reached.
func Sort[T any](s []T, less func(a, b *T) bool) {
	if len(s) < 2 {
		return
	}
	stdIntrosort(s, 0, len(s), 2*(bits.Len(uint(len(s)))-1), less)
	if len(s) > 16 {
		stdInsertion(s, 0, 16, less)
		for i := 16; i < len(s); i++ {
			stdLinearInsert(s, 0, i, less)
		}
	} else {
		stdInsertion(s, 0, len(s), less)
	}
}

func stdIntrosort[T any](s []T, first, last, depth int, less func(a, b *T) bool) {
	for last-first > 16 {
		if depth == 0 {
			stdHeapSort(s[first:last], less)
			return
		}
		depth--
		mid := first + (last-first)/2
		stdMedianToFirst(s, first, first+1, mid, last-1, less)
		cut := stdPartition(s, first+1, last, first, less)
		stdIntrosort(s, cut, last, depth, less)
		last = cut
	}
}

func stdMedianToFirst[T any](s []T, res, a, b, c int, less func(a, b *T) bool) {
	switch {
	case less(&s[a], &s[b]):
		switch {
		case less(&s[b], &s[c]):
			s[res], s[b] = s[b], s[res]
		case less(&s[a], &s[c]):
			s[res], s[c] = s[c], s[res]
		default:
			s[res], s[a] = s[a], s[res]
		}
	case less(&s[a], &s[c]):
		s[res], s[a] = s[a], s[res]
	case less(&s[b], &s[c]):
		s[res], s[c] = s[c], s[res]
	default:
		s[res], s[b] = s[b], s[res]
	}
}

func stdPartition[T any](s []T, first, last, pivot int, less func(a, b *T) bool) int {
	lo, end := first, last
	for {
		for lo < end-1 && less(&s[lo], &s[pivot]) {
			lo++
		}
		last--
		for last > first && less(&s[pivot], &s[last]) {
			last--
		}
		if lo >= last {
			return lo
		}
		s[lo], s[last] = s[last], s[lo]
		lo++
	}
}

func stdInsertion[T any](s []T, first, last int, less func(a, b *T) bool) {
	for i := first + 1; i < last; i++ {
		if less(&s[i], &s[first]) {
			v := s[i]
			copy(s[first+1:i+1], s[first:i])
			s[first] = v
		} else {
			stdLinearInsert(s, first, i, less)
		}
	}
}

// stdLinearInsert moves s[i] down while it is less than its left
// neighbour (libstdc++'s unguarded insert, stopped at lo).
func stdLinearInsert[T any](s []T, lo, i int, less func(a, b *T) bool) {
	v := s[i]
	j := i - 1
	for j >= lo && less(&v, &s[j]) {
		s[j+1] = s[j]
		j--
	}
	s[j+1] = v
}

func stdHeapSort[T any](s []T, less func(a, b *T) bool) {
	n := len(s)
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		stdAdjustHeap(s, parent, n, s[parent], less)
		if parent == 0 {
			break
		}
	}
	for last := n - 1; last > 0; last-- {
		v := s[last]
		s[last] = s[0]
		stdAdjustHeap(s, 0, last, v, less)
	}
}

func stdAdjustHeap[T any](s []T, hole, n int, v T, less func(a, b *T) bool) {
	top, second := hole, hole
	for second < (n-1)/2 {
		second = 2 * (second + 1)
		if less(&s[second], &s[second-1]) {
			second--
		}
		s[hole] = s[second]
		hole = second
	}
	if n&1 == 0 && second == (n-2)/2 {
		second = 2 * (second + 1)
		s[hole] = s[second-1]
		hole = second - 1
	}
	parent := (hole - 1) / 2
	for hole > top && less(&s[parent], &v) {
		s[hole] = s[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	s[hole] = v
}

// NthElement reorders s so that s[k] holds the value a full sort would
// put there, smaller or equal values before it and larger or equal ones
// after (as std::nth_element): order statistics in linear time.
func NthElement(s []uint64, k int) {
	lo, hi := 0, len(s)-1
	for hi-lo >= 16 {
		mid := lo + (hi-lo)/2
		if s[mid] < s[lo] {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[hi] < s[mid] {
			s[hi], s[mid] = s[mid], s[hi]
		}
		p := s[mid]
		i, j := lo, hi
		for i <= j {
			for s[i] < p {
				i++
			}
			for s[j] > p {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
	for i := lo + 1; i <= hi; i++ {
		for j := i; j > lo && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// OrderStats returns the values at indexes a <= b <= c of s sorted,
// reordering s.
func OrderStats(s []uint64, a, b, c int) (va, vb, vc uint64) {
	NthElement(s, a)
	NthElement(s[a:], b-a)
	NthElement(s[b:], c-b)
	return s[a], s[b], s[c]
}
