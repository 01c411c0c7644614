package analysis

import (
	"errors"
	"strconv"

	"github.com/tracefmt/tracefmt/xrayfdr"
)

// Errors of the analyses, carried by CallError.Err.
var (
	// ErrNoEntry means a function exit with no matching entry on its
	// thread's call stack (its entry was lost, or never written).
	ErrNoEntry = errors.New("analysis: exit with no matching entry")
	// ErrTimeOrder means a record earlier than the first record of its
	// thread (a clock that went backwards).
	ErrTimeOrder = errors.New("analysis: record before the first record of its thread")
	// ErrNoCalls means a log in which no function call was completed.
	ErrNoCalls = errors.New("analysis: no instrumented calls were accounted in the input")
	// ErrNotOpen means a nil writer (or trace) given to a function that
	// writes.
	ErrNotOpen = errors.New("analysis: not open")

	errNilEvent = errors.New("analysis: nil event")
)

// CallError reports a record an analysis cannot account for. With
// KeepGoing set the analysis skips the record (as llvm-xray --keep-going
// does) and reports it to OnError instead of failing.
type CallError struct {
	Event xrayfdr.Event // the record
	Err   error         // ErrNoEntry or ErrTimeOrder
	// Stack holds the function ids on the record's thread's call stack
	// when it was met, outermost first.
	Stack []int32
}

func (e *CallError) Error() string {
	if e == nil {
		return "<nil>"
	}
	if e.Err == nil {
		return "analysis: call error"
	}
	return "analysis: thread " + strconv.FormatUint(uint64(e.Event.TID), 10) +
		": " + e.Event.Kind.String() + " of function " + strconv.Itoa(int(e.Event.FuncID)) +
		" at tsc " + strconv.FormatUint(e.Event.TSC, 10) + ": " + trimPkg(e.Err.Error())
}

func (e *CallError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// errNilFunc is what a function given a nil callback returns: a caller's
// mistake, not bad input.
var errNilFunc = errors.New("analysis: nil function argument")

func trimPkg(s string) string {
	const p = "analysis: "
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// frame is one entry of a thread's call stack.
type frame struct {
	id  int32
	tsc uint64
}

func absDiff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}

// funcIndex maps function ids to small indexes: a slice for the ids
// XRay gives (dense, from 1), a map for the rest.
type funcIndex struct {
	dense  []int32 // id -> index+1
	sparse map[int32]int32
}

const maxDenseID = 1 << 20

func (f *funcIndex) get(id int32) (int, bool) {
	if id >= 0 && id < maxDenseID {
		if int(id) < len(f.dense) && f.dense[id] != 0 {
			return int(f.dense[id] - 1), true
		}
		return 0, false
	}
	i, ok := f.sparse[id]
	return int(i), ok
}

func (f *funcIndex) set(id int32, i int) {
	if id >= 0 && id < maxDenseID {
		if int(id) >= len(f.dense) {
			f.dense = append(f.dense, make([]int32, int(id)+1-len(f.dense))...)
		}
		f.dense[id] = int32(i + 1)
		return
	}
	if f.sparse == nil {
		f.sparse = map[int32]int32{}
	}
	f.sparse[id] = int32(i)
}

// threads finds per-thread state by thread id, remembering the last one
// (records come thread by thread).
type threads[T any] struct {
	m       map[uint32]*T
	lastTID uint32
	last    *T
}

func (t *threads[T]) get(tid uint32) (*T, bool) {
	if t.last != nil && t.lastTID == tid {
		return t.last, false
	}
	if t.m == nil {
		t.m = map[uint32]*T{}
	}
	s, ok := t.m[tid]
	if !ok {
		s = new(T)
		t.m[tid] = s
	}
	t.last, t.lastTID = s, tid
	return s, !ok
}
