package analysis

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/llvmorder"
)

// Account collects per-function call counts and latencies, as
// llvm-xray account does. Feed it a log with Read (or events with Add),
// then print with WriteText or WriteCSV, or take the figures from Stats.
//
// Latencies are measured from each function's entry to its exit, on the
// function's thread; an exit must match the innermost open call (or,
// with DeduceSiblingCalls, a call further out, which closes the calls
// opened since, as llvm-xray does for exits it never saw). The latency of
// every call is kept, so that percentiles are exact: 8 bytes per call.
type Account struct {
	// DeduceSiblingCalls closes, at an exit that does not match the
	// innermost call, the calls opened since the matching one.
	DeduceSiblingCalls bool
	// RecursiveCallsOnly counts only calls made while the function is
	// already on its thread's stack (directly or indirectly recursive).
	RecursiveCallsOnly bool
	// KeepGoing skips records that cannot be accounted (reporting each
	// to OnError) instead of failing.
	KeepGoing bool
	// OnError, if set, receives each record skipped with KeepGoing.
	OnError func(*CallError)
	// LLVM is the llvm-xray release whose order to follow where releases
	// differ (the threads' order; for a graph, its edges'); 0 is the
	// newest.
	LLVM xrayfdr.LLVM

	// Header is the log's header (Read sets it); its cycle frequency
	// turns ticks into seconds.
	Header xrayfdr.Header

	th    threads[accThread]
	idx   funcIndex
	order llvmorder.Map[int32] // function ids in llvm-xray's FunctionLatencies order
	funcs []accFunc
	w     xrayfdr.Walker
}

type accThread struct {
	started bool
	first   uint64
	stack   []frame
	depth   map[int32]uint32 // RecursiveCallsOnly: bit 31 recursive, low bits depth
}

type accFunc struct {
	id  int32
	lat latencies
	sum float64 // in llvm-xray's order of addition
}

// latencies holds one value per call in chunks, so that a growing list
// is never copied.
type latencies struct {
	full [][]uint64
	cur  []uint64
	n    int
}

const latChunk = 8192

func (l *latencies) add(v uint64) {
	if len(l.cur) == cap(l.cur) {
		if len(l.cur) >= latChunk {
			l.full = append(l.full, l.cur)
			l.cur = make([]uint64, 0, latChunk)
		} else {
			l.cur = append(make([]uint64, 0, max(16, 4*cap(l.cur))), l.cur...)
		}
	}
	l.cur = append(l.cur, v)
	l.n++
}

// all returns the values in one slice.
func (l *latencies) all() []uint64 {
	if len(l.full) > 0 {
		s := make([]uint64, 0, l.n)
		for _, c := range l.full {
			s = append(s, c...)
		}
		l.cur = append(s, l.cur...)
		l.full = nil
	}
	return l.cur
}

// Read accounts every function call of the log in data (see xrayfdr.Walk for
// the order of the records).
func (a *Account) Read(data []byte) error {
	a.w.LLVM = a.LLVM
	if err := a.w.Walk(data, a.add); err != nil {
		return err
	}
	a.Header = a.w.Header()
	return nil
}

func (a *Account) add(e *xrayfdr.Event) error {
	err := a.Add(e)
	if err != nil && a.KeepGoing {
		if a.OnError != nil {
			a.OnError(err.(*CallError))
		}
		return nil
	}
	return err
}

// Add accounts one record. It returns a *CallError for a record it
// cannot account (the record is then ignored).
func (a *Account) Add(e *xrayfdr.Event) error {
	if e == nil {
		return errNilEvent
	}
	t, _ := a.th.get(e.TID)
	if !t.started {
		t.started, t.first = true, e.TSC
	}
	if e.TSC < t.first {
		return a.callError(e, t, ErrTimeOrder)
	}
	if a.RecursiveCallsOnly && t.depth == nil {
		t.depth = map[int32]uint32{}
	}
	switch e.Kind {
	case xrayfdr.EventEnter, xrayfdr.EventEnterArg:
		t.stack = append(t.stack, frame{e.FuncID, e.TSC})
		if t.depth != nil {
			t.depth[e.FuncID] = recIncr(t.depth[e.FuncID])
		}
	case xrayfdr.EventExit, xrayfdr.EventTailExit:
		n := len(t.stack)
		if n == 0 {
			return a.callError(e, t, ErrNoEntry)
		}
		if top := t.stack[n-1]; top.id == e.FuncID {
			if t.depth == nil || t.depth[top.id]&(1<<31) != 0 {
				a.record(top.id, absDiff(top.tsc, e.TSC))
			}
			if t.depth != nil {
				t.depth[top.id] = recDecr(t.depth[top.id])
			}
			t.stack = t.stack[:n-1]
			return nil
		}
		if !a.DeduceSiblingCalls {
			return a.callError(e, t, ErrNoEntry)
		}
		p := n - 1
		for p >= 0 && t.stack[p].id != e.FuncID {
			p--
		}
		if p < 0 {
			return a.callError(e, t, ErrNoEntry)
		}
		for _, f := range t.stack[p:] {
			if t.depth == nil || t.depth[f.id]&(1<<31) != 0 {
				a.record(f.id, absDiff(f.tsc, e.TSC))
			}
		}
		if t.depth != nil {
			for i := n - 1; i >= p; i-- {
				id := t.stack[i].id
				t.depth[id] = recDecr(t.depth[id])
			}
		}
		t.stack = t.stack[:p]
	}
	return nil
}

// recIncr and recDecr keep llvm-xray's recursion status: a depth whose
// top bit says the function called itself while on the stack.
func recIncr(s uint32) uint32 {
	d := s&^(1<<31) + 1
	s = s&(1<<31) | d
	if s&(1<<31) == 0 && d == 2 {
		s |= 1 << 31
	}
	return s
}

func recDecr(s uint32) uint32 {
	d := (s&^(1<<31) - 1) &^ (1 << 31)
	s = s&(1<<31) | d
	if s&(1<<31) != 0 && d == 0 {
		s = 0
	}
	return s
}

func (a *Account) callError(e *xrayfdr.Event, t *accThread, err error) *CallError {
	ce := &CallError{Event: *e, Err: err}
	for _, f := range t.stack {
		ce.Stack = append(ce.Stack, f.id)
	}
	return ce
}

func (a *Account) record(id int32, lat uint64) {
	i, ok := a.idx.get(id)
	if !ok {
		i = len(a.funcs)
		a.idx.set(id, i)
		a.funcs = append(a.funcs, accFunc{id: id})
		a.order.Insert(id, llvmorder.HashInt(uint32(id)), i)
	}
	f := &a.funcs[i]
	f.lat.add(lat)
	f.sum += float64(lat)
}

// FuncStats holds the figures of one function: its call count and
// latencies in seconds (in ticks when the log has no cycle frequency).
type FuncStats struct {
	FuncID                          int32
	Count                           int
	Min, Median, P90, P99, Max, Sum float64
}

// Stats returns the figures of every function with at least one call
// accounted, in llvm-xray's (hash) order. The percentiles are the
// exact order statistics llvm-xray reports: the values at index n/2,
// floor(0.9n) and floor(0.99n) of the sorted latencies.
func (a *Account) Stats() []FuncStats {
	out := make([]FuncStats, 0, len(a.funcs))
	freq := float64(a.Header.CycleFrequency)
	a.order.Each(func(_ int32, i int) {
		f := &a.funcs[i]
		lat := f.lat.all()
		n := len(lat)
		lo, hi := lat[0], lat[0]
		for _, v := range lat {
			lo, hi = min(lo, v), max(hi, v)
		}
		med, p90, p99 := llvmorder.OrderStats(lat, n/2, int(math.Floor(float64(n)*0.9)), int(math.Floor(float64(n)*0.99)))
		s := FuncStats{FuncID: f.id, Count: n, Sum: f.sum, Min: float64(lo), Max: float64(hi),
			Median: float64(med), P90: float64(p90), P99: float64(p99)}
		if freq != 0 {
			s.Min /= freq
			s.Median /= freq
			s.P90 /= freq
			s.P99 /= freq
			s.Max /= freq
			s.Sum /= freq
		}
		out = append(out, s)
	})
	return out
}

// AccountFormat says how WriteText and WriteCSV sort and cut the rows.
type AccountFormat struct {
	// Sort is the field rows are sorted by, as llvm-xray names it:
	// "funcid" (the default when empty), "count", "min", "med", "90p",
	// "99p", "max", "sum", or "func". llvm-xray 14 does not sort by
	// "func" (the rows keep its hash order), and neither do we, so the
	// output stays the same.
	Sort string
	// Descending sorts in descending order.
	Descending bool
	// Top keeps the first Top rows when positive.
	Top int
}

// sortedStats sorts the rows as llvm-xray does (libstdc++'s std::sort
// from its hash order, so that ties come out in the same order).
func (a *Account) sortedStats(f AccountFormat) ([]FuncStats, error) {
	rows := a.Stats()
	var key func(s *FuncStats) float64
	switch f.Sort {
	case "", "funcid":
		key = func(s *FuncStats) float64 { return float64(s.FuncID) }
	case "count":
		key = func(s *FuncStats) float64 { return float64(s.Count) }
	case "min":
		key = func(s *FuncStats) float64 { return s.Min }
	case "med":
		key = func(s *FuncStats) float64 { return s.Median }
	case "90p":
		key = func(s *FuncStats) float64 { return s.P90 }
	case "99p":
		key = func(s *FuncStats) float64 { return s.P99 }
	case "max":
		key = func(s *FuncStats) float64 { return s.Max }
	case "sum":
		key = func(s *FuncStats) float64 { return s.Sum }
	case "func":
	default:
		return nil, fmt.Errorf("analysis: unknown sort field %q", f.Sort)
	}
	if key != nil {
		if f.Descending {
			llvmorder.Sort(rows, func(l, r *FuncStats) bool { return key(l) > key(r) })
		} else {
			llvmorder.Sort(rows, func(l, r *FuncStats) bool { return key(l) < key(r) })
		}
	}
	if f.Top > 0 && f.Top < len(rows) {
		rows = rows[:f.Top]
	}
	return rows, nil
}

// WriteText prints the figures as llvm-xray account does, naming
// functions with m (nil: "#id"), as llvm-xray's symbolizer does.
func (a *Account) WriteText(w io.Writer, m *instrmap.Map, f AccountFormat) error {
	if w == nil {
		return ErrNotOpen
	}
	rows, err := a.sortedStats(f)
	if err != nil {
		return err
	}
	names := instrmap.NewNamer(m)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Functions with latencies: %d\n", len(a.funcs))
	bw.WriteString("   funcid      count [      min,       med,       90p,       99p,       max]       sum  function    \n")
	b := make([]byte, 0, 256)
	var num [32]byte // each figure's digits before padding, without an allocation
	for i := range rows {
		r := &rows[i]
		b = b[:0]
		b = padLeft(b, strconv.AppendInt(num[:0], int64(r.FuncID), 10), 9)
		b = append(b, ' ')
		b = padLeft(b, strconv.AppendInt(num[:0], int64(r.Count), 10), 10)
		b = append(b, " ["...)
		for j, v := range [...]float64{r.Min, r.Median, r.P90, r.P99, r.Max} {
			if j > 0 {
				b = append(b, ", "...)
			}
			b = padLeft(b, strconv.AppendFloat(num[:0], v, 'f', 6, 64), 9)
		}
		b = append(b, "] "...)
		b = padLeft(b, strconv.AppendFloat(num[:0], r.Sum, 'f', 6, 64), 9)
		b = append(b, "  "...)
		b = append(b, names.Location(r.FuncID)...)
		b = append(b, ": "...)
		b = append(b, names.Name(r.FuncID)...)
		b = append(b, '\n')
		bw.Write(b)
	}
	return bw.Flush()
}

// WriteCSV prints the figures as llvm-xray account --format=csv does.
func (a *Account) WriteCSV(w io.Writer, m *instrmap.Map, f AccountFormat) error {
	if w == nil {
		return ErrNotOpen
	}
	rows, err := a.sortedStats(f)
	if err != nil {
		return err
	}
	names := instrmap.NewNamer(m)
	bw := bufio.NewWriter(w)
	bw.WriteString("funcid,count,min,median,90%ile,99%ile,max,sum,debug,function\n")
	b := make([]byte, 0, 256)
	for i := range rows {
		r := &rows[i]
		b = b[:0]
		b = strconv.AppendInt(b, int64(r.FuncID), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Count), 10)
		for _, v := range [...]float64{r.Min, r.Median, r.P90, r.P99, r.Max, r.Sum} {
			b = append(b, ',')
			b = appendCDouble(b, v)
		}
		b = append(b, ",\""...)
		b = append(b, names.Location(r.FuncID)...)
		b = append(b, "\",\""...)
		b = append(b, names.Name(r.FuncID)...)
		b = append(b, "\"\n"...)
		bw.Write(b)
	}
	return bw.Flush()
}

// appendCDouble formats v as LLVM's raw_ostream prints a double (C's
// "%e").
func appendCDouble(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "nan"...)
	case math.IsInf(v, 1):
		return append(b, "INF"...)
	case math.IsInf(v, -1):
		return append(b, "-INF"...)
	}
	return strconv.AppendFloat(b, v, 'e', 6, 64)
}

func padLeft(b, s []byte, w int) []byte {
	for i := len(s); i < w; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}
