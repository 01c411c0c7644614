package analysis

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"

	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/llvmorder"
)

// Stacks collects the call stacks of a log in a trie (one per thread),
// with the time spent in each and how often each was entered, as
// llvm-xray stack does. Feed it one or more logs with Read (or events with
// Add), then print with WriteTop (llvm-xray stack), WriteFlame (llvm-xray
// stack --all-stacks --stack-format=flame) or WriteFoldedSelf.
//
// Memory is proportional to the number of distinct stacks.
//
// Exits are matched as llvm-xray stack matches them: an exit closes the
// innermost call of its function and every call opened since; an exit
// with no call of its function open closes every open call of its thread
// and is an error (skipped with KeepGoing).
type Stacks struct {
	// KeepGoing skips records that cannot be accounted (reporting each
	// to OnError) instead of failing.
	KeepGoing bool
	// OnError, if set, receives each record skipped with KeepGoing.
	OnError func(*CallError)
	// LLVM is the llvm-xray release whose order to follow where releases
	// differ (the threads' order; for a graph, its edges'); 0 is the
	// newest.
	LLVM xrayfdr.LLVM

	roots    llvmorder.Map[uint32] // thread id -> index in rootVecs, in llvm-xray's order
	rootTIDs []uint32
	rootVecs []*stackNode // per thread: a node whose callees are the roots
	th       threads[[]stackFrame]
	lastExit bool
	w        xrayfdr.Walker
}

// stackNode is one call stack: a node of a thread's trie.
type stackNode struct {
	id      int32
	parent  *stackNode
	callees []*stackNode
	byID    map[int32]*stackNode // callees, once there are many
	// durations of the calls that ended with this stack innermost
	// (terminal) or unwound through it (intermediate)
	termN, interN     uint64
	termSum, interSum uint64
}

type stackFrame struct {
	n   *stackNode
	tsc uint64
}

// Read adds the calls of the log in data.
func (s *Stacks) Read(data []byte) error {
	s.lastExit = false
	s.w.LLVM = s.LLVM
	return s.w.Walk(data, func(e *xrayfdr.Event) error {
		err := s.Add(e)
		if err != nil && s.KeepGoing {
			if s.OnError != nil {
				s.OnError(err.(*CallError))
			}
			return nil
		}
		return err
	})
}

// Empty reports whether no call was seen (llvm-xray then fails with
// "No instrumented calls were accounted in the input file.").
func (s *Stacks) Empty() bool { return len(s.rootVecs) == 0 }

func (s *Stacks) threadRoots(tid uint32) int {
	i, fresh := s.roots.Insert(tid, llvmorder.HashInt(tid), len(s.rootVecs))
	if fresh {
		s.rootVecs = append(s.rootVecs, &stackNode{})
		s.rootTIDs = append(s.rootTIDs, tid)
	}
	return i
}

// Add accounts one record. It returns a *CallError for an exit with no
// matching entry (after unwinding the thread's stack as llvm-xray does).
func (s *Stacks) Add(e *xrayfdr.Event) error {
	if e == nil {
		return errNilEvent
	}
	tsp, _ := s.th.get(e.TID)
	ts := *tsp
	switch e.Kind {
	case xrayfdr.EventEnter, xrayfdr.EventEnterArg:
		s.lastExit = false
		if len(ts) == 0 {
			roots := s.rootVecs[s.threadRoots(e.TID)]
			root := roots.callee(e.FuncID)
			if root == nil {
				root = &stackNode{id: e.FuncID} // no parent: a root
				roots.addCallee(root)
			}
			*tsp = append(ts, stackFrame{root, e.TSC})
			return nil
		}
		top := ts[len(ts)-1].n
		callee := top.callee(e.FuncID)
		if callee == nil {
			callee = &stackNode{id: e.FuncID, parent: top}
			top.addCallee(callee)
		}
		*tsp = append(ts, stackFrame{callee, e.TSC})
	case xrayfdr.EventExit, xrayfdr.EventTailExit:
		wasExit := s.lastExit
		s.lastExit = true
		if len(ts) == 0 {
			return &CallError{Event: *e, Err: ErrNoEntry}
		}
		i := len(ts) - 1
		for i >= 0 && ts[i].n.id != e.FuncID {
			i--
		}
		var err error
		if i < 0 {
			err = s.callError(e, ts)
			i = 0
		}
		for _, f := range ts[i : len(ts)-1] {
			f.n.interN++
			f.n.interSum += absDiff(f.tsc, e.TSC)
		}
		d := ts[len(ts)-1]
		if wasExit {
			d.n.interN++
			d.n.interSum += absDiff(d.tsc, e.TSC)
		} else {
			d.n.termN++
			d.n.termSum += absDiff(d.tsc, e.TSC)
		}
		*tsp = ts[:i]
		return err
	}
	return nil
}

// callee finds the callee of n for function id: a scan while there are
// few, a map past that (a log with many functions under one caller
// stays linear).
func (n *stackNode) callee(id int32) *stackNode {
	if n.byID != nil {
		return n.byID[id]
	}
	for _, c := range n.callees {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (n *stackNode) addCallee(c *stackNode) {
	n.callees = append(n.callees, c)
	switch {
	case n.byID != nil:
		n.byID[c.id] = c
	case len(n.callees) > 16:
		n.byID = make(map[int32]*stackNode, 2*len(n.callees))
		for _, c := range n.callees {
			n.byID[c.id] = c
		}
	}
}

func (s *Stacks) callError(e *xrayfdr.Event, ts []stackFrame) *CallError {
	ce := &CallError{Event: *e, Err: ErrNoEntry}
	for _, f := range ts {
		ce.Stack = append(ce.Stack, f.n.id)
	}
	return ce
}

// StackFormat says what WriteTop, WriteFlame and WriteFoldedSelf print.
type StackFormat struct {
	// PerThread prints the top stacks of each thread (WriteTop).
	PerThread bool
	// AggregateThreads merges the stacks of all threads; otherwise
	// WriteFlame and WriteFoldedSelf put the thread first in each stack.
	AggregateThreads bool
	// Count makes the values invocation counts instead of time (ticks).
	Count bool
}

// llvm-xray's mergeTrieNodes: the merged node gets the durations of both;
// callees of the right side merge with the left's of the same function
// or come as they are (keeping their parent); the left's others follow
// in hash order.
func mergeNodes(l, r *stackNode, parent *stackNode) *stackNode {
	n := &stackNode{id: l.id, parent: parent,
		termN: l.termN + r.termN, interN: l.interN + r.interN,
		termSum: l.termSum + r.termSum, interSum: l.interSum + r.interSum}
	var left llvmorder.Map[int32]
	for i, c := range l.callees {
		left.Insert(c.id, llvmorder.HashInt(uint32(c.id)), i)
	}
	for _, c := range r.callees {
		h := llvmorder.HashInt(uint32(c.id))
		if i, ok := left.Get(c.id, h); ok {
			n.callees = append(n.callees, mergeNodes(l.callees[i], c, n))
			left.Erase(c.id, h)
		} else {
			n.callees = append(n.callees, c)
		}
	}
	left.Each(func(_ int32, i int) { n.callees = append(n.callees, l.callees[i]) })
	return n
}

// mergedRoots merges the roots of all threads as llvm-xray does: a root
// of a function met before is merged with it, and the merged node moves
// to the end of the list.
func (s *Stacks) mergedRoots() []*stackNode {
	type entry struct {
		n   *stackNode
		seq int
	}
	byID := map[int32]*entry{}
	seq := 0
	for _, i := range s.rootOrder() {
		for _, n := range s.rootVecs[i].callees {
			seq++
			if e, ok := byID[n.id]; ok {
				e.n, e.seq = mergeNodes(e.n, n, nil), seq
			} else {
				byID[n.id] = &entry{n, seq}
			}
		}
	}
	es := make([]*entry, 0, len(byID))
	for _, e := range byID {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b *entry) int { return cmp.Compare(a.seq, b.seq) })
	merged := make([]*stackNode, len(es))
	for i, e := range es {
		merged[i] = e.n
	}
	return merged
}

func (s *Stacks) rootOrder() []int {
	var out []int
	s.roots.Each(func(_ uint32, i int) { out = append(out, i) })
	return out
}

// WriteTop prints the ten stacks with the largest time and the ten with
// the most calls, as llvm-xray stack does (--per-thread-stacks,
// --aggregate-threads from f).
func (s *Stacks) WriteTop(w io.Writer, m *instrmap.Map, f StackFormat) error {
	if w == nil {
		return ErrNotOpen
	}
	names := instrmap.NewNamer(m)
	bw := bufio.NewWriter(w)
	switch {
	case f.AggregateThreads:
		printTop(bw, names, s.mergedRoots())
	case f.PerThread:
		for _, i := range s.rootOrder() {
			bw.WriteString("Thread " + strconv.FormatUint(uint64(s.rootTIDs[i]), 10) + ":\n")
			printTop(bw, names, s.rootVecs[i].callees)
			bw.WriteString("\n")
		}
	default:
		var all []*stackNode
		for _, i := range s.rootOrder() {
			all = append(all, s.rootVecs[i].callees...)
		}
		printTop(bw, names, all)
	}
	return bw.Flush()
}

type nodeValue struct {
	n *stackNode
	v uint64
}

// insertTop keeps the ten largest values, a new value before equal ones.
func insertTop(top []nodeValue, e nodeValue) []nodeValue {
	i := 0
	for i < len(top) && top[i].v > e.v {
		i++
	}
	top = append(top, nodeValue{})
	copy(top[i+1:], top[i:])
	top[i] = e
	if len(top) == 11 {
		top = top[:10]
	}
	return top
}

func printTop(bw *bufio.Writer, names *instrmap.Namer, roots []*stackNode) {
	var bySum, byCount []nodeValue
	unique := 0
	var st []*stackNode
	for _, r := range roots {
		st = append(st[:0], r)
		for len(st) > 0 {
			n := st[len(st)-1]
			st = st[:len(st)-1]
			if n.termN > 0 {
				unique++
				bySum = insertTop(bySum, nodeValue{n, n.termSum})
				byCount = insertTop(byCount, nodeValue{n, n.termN})
			}
			st = append(st, n.callees...)
		}
	}
	bw.WriteString("\nUnique Stacks: " + strconv.Itoa(unique) + "\nTop 10 Stacks by leaf sum:\n\n")
	for _, p := range bySum {
		bw.WriteString("Sum: " + strconv.FormatUint(p.v, 10) + "\n")
		printStack(bw, names, p.n)
	}
	bw.WriteString("\nTop 10 Stacks by leaf count:\n\n")
	for _, p := range byCount {
		bw.WriteString("Count: " + strconv.FormatUint(p.v, 10) + "\n")
		printStack(bw, names, p.n)
	}
	bw.WriteString("\n")
}

func printStack(bw *bufio.Writer, names *instrmap.Namer, leaf *stackNode) {
	var path []*stackNode
	for n := leaf; n != nil; n = n.parent {
		path = append(path, n)
	}
	b := make([]byte, 0, 128)
	b = padRight(b, []byte("lvl"), 5)
	b = append(b, ' ')
	b = padRight(b, []byte("function"), 60)
	b = append(b, ' ')
	b = padLeft(b, []byte("count"), 12)
	b = append(b, ' ')
	b = padLeft(b, []byte("sum"), 16)
	b = append(b, '\n')
	bw.Write(b)
	var num [24]byte // each figure's digits before padding, without an allocation
	line := func(level int, id int32, count, sum uint64) {
		b = b[:0]
		b = append(b, '#')
		b = padRight(b, strconv.AppendInt(num[:0], int64(level), 10), 4)
		b = append(b, ' ')
		name := names.Name(id)
		if len(name) > 60 {
			name = name[:57] + "..."
		}
		b = padRight(b, []byte(name), 60)
		b = append(b, ' ')
		b = padLeft(b, strconv.AppendUint(num[:0], count, 10), 12)
		b = append(b, ' ')
		b = padLeft(b, strconv.AppendInt(num[:0], int64(sum), 10), 16)
		b = append(b, '\n')
		bw.Write(b)
	}
	level := 0
	for i := len(path) - 1; i >= 1; i-- {
		line(level, path[i].id, path[i].interN, path[i].interSum)
		level++
	}
	line(level, leaf.id, leaf.termN, leaf.termSum)
	bw.WriteString("\n")
}

func padRight(b, s []byte, w int) []byte {
	b = append(b, s...)
	for i := len(s); i < w; i++ {
		b = append(b, ' ')
	}
	return b
}

// WriteFlame prints every stack with its total time (or call count),
// callees included, as llvm-xray stack --all-stacks
// --stack-format=flame does ("thread_T;f;g; 1234"). flamegraph.pl adds
// callees to their callers again, so their time counts twice there: use
// WriteFoldedSelf for flame graphs.
func (s *Stacks) WriteFlame(w io.Writer, m *instrmap.Map, f StackFormat) error {
	if w == nil {
		return ErrNotOpen
	}
	names := instrmap.NewNamer(m)
	bw := bufio.NewWriter(w)
	var b []byte
	s.eachStack(f, func(tid uint32, thread bool, n *stackNode) {
		b = b[:0]
		if thread {
			b = append(b, "thread_"...)
			b = strconv.AppendUint(b, uint64(tid), 10)
			b = append(b, ';')
		}
		b = appendLineage(b, names, n, ";")
		b = append(b, ' ')
		v := n.termSum + n.interSum
		if f.Count {
			v = n.termN + n.interN
		}
		b = strconv.AppendUint(b, v, 10)
		b = append(b, '\n')
		bw.Write(b)
	})
	return bw.Flush()
}

// WriteFoldedSelf prints every stack with the time spent in it and not
// in its callees (or, with f.Count, the number of calls of that very
// stack), in the folded format flamegraph.pl and speedscope read
// ("thread_T;f;g 1234"): the sum of a stack and its descendants is its
// total time, so the graph is drawn right. Stacks with a zero value are
// left out.
func (s *Stacks) WriteFoldedSelf(w io.Writer, m *instrmap.Map, f StackFormat) error {
	if w == nil {
		return ErrNotOpen
	}
	names := instrmap.NewNamer(m)
	bw := bufio.NewWriter(w)
	var b []byte
	s.eachStack(f, func(tid uint32, thread bool, n *stackNode) {
		v := n.termN + n.interN
		if !f.Count {
			v = n.termSum + n.interSum
			var inner uint64
			for _, c := range n.callees {
				inner += c.termSum + c.interSum
			}
			if inner >= v {
				v = 0
			} else {
				v -= inner
			}
		}
		if v == 0 {
			return
		}
		b = b[:0]
		if thread {
			b = append(b, "thread_"...)
			b = strconv.AppendUint(b, uint64(tid), 10)
			b = append(b, ';')
		}
		b = appendLineage(b, names, n, ";")
		b = b[:len(b)-1]
		b = append(b, ' ')
		b = strconv.AppendUint(b, v, 10)
		b = append(b, '\n')
		bw.Write(b)
	})
	return bw.Flush()
}

// eachStack visits the stacks in llvm-xray's order.
func (s *Stacks) eachStack(f StackFormat, fn func(tid uint32, thread bool, n *stackNode)) {
	visit := func(roots []*stackNode, tid uint32, thread bool) {
		var st []*stackNode
		for _, r := range roots {
			st = append(st[:0], r)
			for len(st) > 0 {
				n := st[len(st)-1]
				st = st[:len(st)-1]
				fn(tid, thread, n)
				st = append(st, n.callees...)
			}
		}
	}
	if f.AggregateThreads {
		visit(s.mergedRoots(), 0, false)
		return
	}
	for _, i := range s.rootOrder() {
		visit(s.rootVecs[i].callees, s.rootTIDs[i], true)
	}
}

// appendLineage appends the names from the root down to n, each
// followed by sep.
func appendLineage(b []byte, names *instrmap.Namer, n *stackNode, sep string) []byte {
	var path [64]*stackNode
	p := path[:0]
	for ; n != nil; n = n.parent {
		p = append(p, n)
	}
	for i := len(p) - 1; i >= 0; i-- {
		b = append(b, names.Name(p[i].id)...)
		b = append(b, sep...)
	}
	return b
}
