package analysis

import (
	"io"
	"math/bits"
	"strconv"

	"github.com/tracefmt/tracefmt/internal/pprof"
	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
)

// Profile collects the call stacks of a log for a pprof profile (see
// WriteProfile): for every distinct stack of function calls, the time
// spent in it and not in its instrumented callees (self), the time from
// entry to exit (total), and the number of calls. Stacks of all threads
// are merged; memory is proportional to the number of distinct stacks.
//
// Calls are paired as Account pairs them with the same options, so the
// total time of each function summed over its stacks equals Account's
// sum.
type Profile struct {
	// DeduceSiblingCalls, KeepGoing and OnError are as in Account.
	DeduceSiblingCalls bool
	KeepGoing          bool
	OnError            func(*CallError)
	// Header is the log's header (Read sets it).
	Header xrayfdr.Header

	th    threads[profThread]
	nodes []profNode
	kids  map[[2]int32]int32 // (parent node, function id) -> node; parent -1 for roots
	w     xrayfdr.Walker
}

type profNode struct {
	id     int32
	parent int32
	self   uint64
	total  uint64
	calls  uint64
}

type profThread struct {
	started bool
	first   uint64
	stack   []profFrame
}

type profFrame struct {
	id    int32
	node  int32
	tsc   uint64
	inner uint64 // ticks spent in callees that returned
}

// Read adds the calls of the log in data.
func (p *Profile) Read(data []byte) error {
	if err := p.w.Walk(data, func(e *xrayfdr.Event) error {
		err := p.Add(e)
		if err != nil && p.KeepGoing {
			if p.OnError != nil {
				p.OnError(err.(*CallError))
			}
			return nil
		}
		return err
	}); err != nil {
		return err
	}
	p.Header = p.w.Header()
	return nil
}

func (p *Profile) node(parent, id int32) int32 {
	if p.kids == nil {
		p.kids = map[[2]int32]int32{}
	}
	k := [2]int32{parent, id}
	if n, ok := p.kids[k]; ok {
		return n
	}
	n := int32(len(p.nodes))
	p.nodes = append(p.nodes, profNode{id: id, parent: parent})
	p.kids[k] = n
	return n
}

// Add accounts one record, as Account.Add does.
func (p *Profile) Add(e *xrayfdr.Event) error {
	if e == nil {
		return errNilEvent
	}
	t, _ := p.th.get(e.TID)
	if !t.started {
		t.started, t.first = true, e.TSC
	}
	if e.TSC < t.first {
		return p.callError(e, t, ErrTimeOrder)
	}
	switch e.Kind {
	case xrayfdr.EventEnter, xrayfdr.EventEnterArg:
		parent := int32(-1)
		if n := len(t.stack); n > 0 {
			parent = t.stack[n-1].node
		}
		t.stack = append(t.stack, profFrame{id: e.FuncID, node: p.node(parent, e.FuncID), tsc: e.TSC})
	case xrayfdr.EventExit, xrayfdr.EventTailExit:
		n := len(t.stack)
		i := n - 1
		if i >= 0 && t.stack[i].id != e.FuncID {
			if !p.DeduceSiblingCalls {
				i = -1
			}
			for i >= 0 && t.stack[i].id != e.FuncID {
				i--
			}
		}
		if i < 0 {
			return p.callError(e, t, ErrNoEntry)
		}
		for j := n - 1; j >= i; j-- {
			f := &t.stack[j]
			d := absDiff(f.tsc, e.TSC)
			nd := &p.nodes[f.node]
			nd.total += d
			nd.calls++
			if d > f.inner {
				nd.self += d - f.inner
			}
			if j > 0 {
				t.stack[j-1].inner += d
			}
		}
		t.stack = t.stack[:i]
	}
	return nil
}

func (p *Profile) callError(e *xrayfdr.Event, t *profThread, err error) *CallError {
	ce := &CallError{Event: *e, Err: err}
	for _, f := range t.stack {
		ce.Stack = append(ce.Stack, f.id)
	}
	return ce
}

// ticksToNanos converts with the log's cycle frequency, exactly (ticks
// are nanoseconds when the log has none).
func ticksToNanos(t, freq uint64) int64 {
	if freq == 0 || freq == 1e9 {
		return int64(t)
	}
	hi, lo := bits.Mul64(t, 1e9)
	if hi >= freq {
		return -1 >> 1 // does not fit: saturate
	}
	q, r := bits.Div64(hi, lo, freq)
	if r >= freq-r { // round half up
		q++
	}
	return int64(q)
}

// WriteProfile writes the profile as a gzip-compressed profile.proto,
// which go tool pprof reads: one sample per distinct call stack, with
// values self and total (nanoseconds) and calls (count), self first and
// the default. Functions are named with m as instrmap.Map.Name names them
// (demangled).
func (p *Profile) WriteProfile(w io.Writer, m *instrmap.Map) error {
	if w == nil {
		return ErrNotOpen
	}
	self := pprof.ValueType{Type: "self", Unit: "nanoseconds"}
	enc := pprof.NewEncoder(w, pprof.Header{
		SampleTypes:       []pprof.ValueType{self, {Type: "total", Unit: "nanoseconds"}, {Type: "calls", Unit: "count"}},
		DefaultSampleType: "self",
		PeriodType:        self,
		Period:            1,
	})
	// one location and function per function id, made when first used
	locs := map[int32]uint64{}
	loc := func(id int32) uint64 {
		if l, ok := locs[id]; ok {
			return l
		}
		name := m.Name(id, true)
		var sys string
		if addr, ok := m.FuncAddr(id); ok {
			sys = "0x" + strconv.FormatUint(addr, 16)
		}
		fn := enc.Function(name, sys, "", 0)
		l := enc.Location(pprof.Location{Lines: []pprof.Line{{Function: fn}}})
		locs[id] = l
		return l
	}
	freq := p.Header.CycleFrequency
	var stack []uint64
	var vals []int64
	for i := range p.nodes {
		nd := &p.nodes[i]
		if nd.calls == 0 {
			continue
		}
		stack = stack[:0]
		for j := int32(i); j >= 0; j = p.nodes[j].parent {
			stack = append(stack, loc(p.nodes[j].id))
		}
		vals = append(vals[:0], ticksToNanos(nd.self, freq), ticksToNanos(nd.total, freq), int64(nd.calls))
		if err := enc.Sample(stack, vals); err != nil {
			return err
		}
	}
	return enc.Close()
}
