package pprof

import "encoding/binary"

// Tally sums sample values per stack. A stack is a list of keys the
// caller chooses (addresses, frame ids), innermost first; the caller turns
// them into locations when it writes the samples. Memory grows with the
// distinct stacks, not with the samples.
type Tally struct {
	n     int // values per stack
	index map[string]int
	keys  []string
	vals  []int64
	buf   []byte
}

// NewTally returns a Tally of n values per stack.
func NewTally(n int) *Tally { return &Tally{n: n, index: map[string]int{}} }

// Intern returns the index of stack, adding it with zero values the first
// time.
func (t *Tally) Intern(stack []uint64) int {
	b := t.buf[:0]
	for _, k := range stack {
		b = binary.LittleEndian.AppendUint64(b, k)
	}
	t.buf = b
	// The lookup with a converted []byte does not allocate.
	if i, ok := t.index[string(b)]; ok {
		return i
	}
	i := len(t.keys)
	k := string(b)
	t.index[k] = i
	t.keys = append(t.keys, k)
	t.vals = append(t.vals, make([]int64, t.n)...)
	return i
}

// AddAt adds vals to the values of the stack at index i.
func (t *Tally) AddAt(i int, vals ...int64) {
	v := t.vals[i*t.n : (i+1)*t.n]
	for j, x := range vals {
		v[j] += x
	}
}

// Add adds vals to the values of stack.
func (t *Tally) Add(stack []uint64, vals ...int64) { t.AddAt(t.Intern(stack), vals...) }

// Len is the number of distinct stacks.
func (t *Tally) Len() int { return len(t.keys) }

// Stack appends the stack at index i to dst.
func (t *Tally) Stack(dst []uint64, i int) []uint64 {
	k := t.keys[i]
	for j := 0; j+8 <= len(k); j += 8 {
		// The conversion of 8 bytes that do not escape copies to the
		// stack, not the heap.
		dst = append(dst, binary.LittleEndian.Uint64([]byte(k[j:j+8])))
	}
	return dst
}

// Values returns the values of the stack at index i (the Tally's own
// slice).
func (t *Tally) Values(i int) []int64 { return t.vals[i*t.n : (i+1)*t.n] }
