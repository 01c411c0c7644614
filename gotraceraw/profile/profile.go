// Package profile makes pprof profiles from Go execution traces: the
// profiles `go tool trace -pprof=TYPE` writes (network blocking,
// synchronization blocking, syscalls, scheduler latency), with the same
// samples, and the CPU profile samples a trace carries.
//
// A Profile takes the events of a trace as package parsed's Reader returns
// them, one at a time, and writes a gzip-compressed profile.proto, which
// go tool pprof reads. Its memory grows with the distinct stacks and the
// goroutines alive at one time (and the IDs of cgo callbacks' goroutines),
// not with the trace; the parsed Reader holds one generation. Go's tool
// holds every event.
//
// # The rules, as Go's tool has them
//
// For Net, Sync, Syscall and Sched, a goroutine's time in one state is a
// sample: from its move into the state (to waiting for the network, for a
// channel, select or sync primitive, into a syscall, to runnable) until it
// leaves it, with the stack of the event that moved it there (for Sched,
// that of the goroutine that made it runnable or created it). Samples
// with the same program counters add up: values contentions (count) and
// delay (nanoseconds). As in Go's tool, each stretch counts only for the
// part within the goroutine's life as the trace's summary gives it: from
// its first run to its end (or the end of the trace); a goroutine that
// never runs in the trace counts from the start. A location stands for a
// program counter and is named by the first frame seen with it, so an
// inlined call shows as its innermost function, as in Go's tool.
//
// CPU has one sample per CPU profile sample in the trace (recorded when the
// program ran with both the tracer and the CPU profiler on), with its stack:
// values samples (count) and cpu (nanoseconds, at the CPU profiler's
// default rate of 100 Hz, as the trace does not record the rate).
//
// # Where this package differs
//
// # A trace cut short or damaged
//
// Go's tool profiles such a trace's events up to the last Sync event read
// before the error (the start of the generation that failed, or the end
// of the last one read whole), and fails when there is none. A Profile
// does the same when told of the error with Cut: it keeps each
// generation's goroutine transitions (a few words each) until the Sync
// that ends it, so its memory grows with the largest generation's
// transitions as well, as the parsed Reader's does. The events after that
// Sync still count for the goroutines' lives, as in Go's tool (whose
// summary reads every event before the error).
package profile

import (
	"fmt"
	"io"
	"strings"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/internal/pprof"
)

// Type is a kind of profile.
type Type uint8

// The profiles: those of `go tool trace -pprof=TYPE`, and the CPU samples.
const (
	Net     Type = iota + 1 // time blocked waiting for the network
	Sync                    // time blocked on channels, select and sync primitives
	Syscall                 // time in syscalls
	Sched                   // time runnable before running: scheduler latency
	CPU                     // the CPU profile samples the trace carries
)

var typeNames = [...]string{Net: "net", Sync: "sync", Syscall: "syscall", Sched: "sched", CPU: "cpu"}

// String returns the name ParseType takes ("net", "sched", ...).
func (t Type) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", t)
}

// ParseType returns the Type of a name: net, sync, syscall, sched (as go
// tool trace -pprof takes them) or cpu.
func ParseType(name string) (Type, error) {
	for t, n := range typeNames {
		if n != "" && n == name {
			return Type(t), nil
		}
	}
	return 0, fmt.Errorf("profile: unknown profile type %q (want net, sync, syscall, sched or cpu)", name)
}

// cpuPeriod is the CPU profiler's default sampling period, in nanoseconds
// (runtime/pprof samples at 100 Hz).
const cpuPeriod = 10_000_000

// maxFrames is as far as Go's tool tells stacks apart (pprofMaxStack, and
// the frame it lets through past it).
const maxFrames = 129

// Profile builds one profile from the events of a trace. Set Type, then
// Add every event of the trace in order and call WriteProfile.
type Profile struct {
	Type Type

	// stacks holds each stack's program counters, groups the stacks
	// Go's tool takes for one (see intern); groupOf is the group of each
	// stack, sums each group's count and nanoseconds; shown and shownAt
	// are the stack a group is shown with, and when that stack's
	// stretch ended.
	stacks  *pprof.Tally
	groups  *pprof.Tally
	groupOf []int
	sums    []int64
	shown   []int
	shownAt []parsed.Time
	frames  map[uint64]parsed.Frame
	gs      map[parsed.GoID]*goState
	pcs     []uint64
	// recent caches gs by the low bits of the goroutine ID: a busy
	// trace's transitions go round a few hundred goroutines.
	recent [256]struct {
		id parsed.GoID
		g  *goState
	}
	// byID caches intern's result by the stack's ID in the current
	// generation's table (IDs are not kept across generations).
	byID map[uint64]int

	// steps and pendingCPU are the current generation's goroutine
	// transitions and CPU samples (as stack groups), kept until its end
	// shows that Go's tool keeps them. synced says a Sync was added,
	// anyG that a goroutine was seen, cut that Cut was called.
	steps      []step
	pendingCPU []int
	synced     bool
	anyG       bool
	cut        bool
}

// goState is what a Profile knows of one goroutine ID. Go's tool counts
// a stretch only for its part within the life its summary gives the
// goroutine: from the first run of the ID's latest incarnation (a
// goroutine ID comes back for each cgo callback on an extra M) to its end.
// Until the ID's last incarnation is known, its stretches are kept as sums
// per stack, both ways they may count.
type goState struct {
	// started says the current incarnation has run; start is when it
	// first did.
	started bool
	start   parsed.Time
	// tracking says it is in the profiled state since since, with the
	// stack at index stack.
	tracking bool
	since    parsed.Time
	stack    int
	// whole sums every stretch of every incarnation at its whole length:
	// what counts if the last incarnation never runs. clipped sums the
	// current incarnation's stretches from its first run on: what counts
	// if it has run and is the last.
	whole, clipped []sum
}

// sum is the stretches of one goroutine with one stack.
type sum struct {
	stack int
	n, ns int64
	last  parsed.Time // when the latest stretch ended
}

// add adds a stretch of d nanoseconds ending at end to the sum of stack.
func add(sums []sum, stack int, d int64, end parsed.Time) []sum {
	if d <= 0 {
		return sums
	}
	for i := range sums {
		if s := &sums[i]; s.stack == stack {
			s.n++
			s.ns += d
			s.last = max(s.last, end)
			return sums
		}
	}
	return append(sums, sum{stack, 1, d, end})
}

// counted returns the sums that count for a goroutine whose life the trace
// ends with.
func (g *goState) counted() []sum {
	if g.started {
		return g.clipped
	}
	return g.whole
}

// state and track give the goroutine state a Type profiles and whether a
// move into it for a reason counts, as Go's tool decides.
func (t Type) state() parsed.GoState {
	switch t {
	case Net, Sync:
		return parsed.GoWaiting
	case Syscall:
		return parsed.GoSyscall
	case Sched:
		return parsed.GoRunnable
	}
	return 0
}

func (t Type) track(reason string) bool {
	switch t {
	case Net:
		return reason == "network"
	case Sync:
		return strings.Contains(reason, "chan") || strings.Contains(reason, "sync") || strings.Contains(reason, "select")
	}
	return true
}

func (p *Profile) init() {
	if p.stacks == nil {
		p.stacks = pprof.NewTally(0)
		p.groups = pprof.NewTally(0)
		p.frames = map[uint64]parsed.Frame{}
		p.gs = map[parsed.GoID]*goState{}
		p.byID = map[uint64]int{}
	}
}

// intern returns the index of a stack, keyed by its program counters (up
// to maxFrames), and keeps the first frame seen for each. Go's tool tells
// stacks apart by their first maxFrames-1 program counters in an array
// padded with zeros, so stacks that differ only in trailing zero PCs (a
// stack of one unknown frame and no stack at all) are one sample there,
// shown with the stack of its latest stretch: the stack's group holds
// them.
func (p *Profile) intern(s parsed.Stack) int {
	id := s.ID()
	if i, ok := p.byID[id]; ok {
		return i
	}
	i := p.internFrames(s)
	p.byID[id] = i
	return i
}

func (p *Profile) internFrames(s parsed.Stack) int {
	pcs := p.pcs[:0]
	for i, f := range s.Frames() {
		if i == maxFrames {
			break
		}
		pcs = append(pcs, f.PC)
		if _, ok := p.frames[f.PC]; !ok {
			p.frames[f.PC] = f
		}
	}
	p.pcs = pcs
	i := p.stacks.Intern(pcs)
	if i == len(p.groupOf) {
		key := pcs[:min(len(pcs), maxFrames-1)]
		for len(key) > 0 && key[len(key)-1] == 0 {
			key = key[:len(key)-1]
		}
		g := p.groups.Intern(key)
		if g == len(p.shown) {
			p.shown = append(p.shown, i)
			p.shownAt = append(p.shownAt, 0)
			p.sums = append(p.sums, 0, 0)
		}
		p.groupOf = append(p.groupOf, g)
	}
	return i
}

// step is one goroutine state transition, as Add saw it: applied to the
// goroutines' state when the Sync that ends its generation comes (Go's
// tool keeps a generation's events only once the next Sync is read).
type step struct {
	time     parsed.Time
	id       parsed.GoID
	stack    int32 // the stack's index when tracked, else -1
	from, to parsed.GoState
}

// Add takes the next event of the trace. A generation's events count
// once the Sync event that follows it is added (the trace ends with one),
// or when WriteProfile is called.
func (p *Profile) Add(ev *parsed.Event) {
	if p == nil || ev == nil || p.cut {
		return
	}
	p.init()
	if ev.Kind == parsed.KindSync {
		p.flush(true)
		p.synced = true
		clear(p.byID) // a new generation, a new stack table
		return
	}
	if p.Type == CPU {
		switch ev.Kind {
		case parsed.KindStackSample:
			p.pendingCPU = append(p.pendingCPU, p.groupOf[p.intern(ev.Stack())])
		case parsed.KindStateTransition:
			p.anyG = p.anyG || ev.StateTransition().Resource.Kind == parsed.ResourceGoroutine
		}
		return
	}
	if ev.Kind != parsed.KindStateTransition {
		return
	}
	switch ev.Type {
	case gotraceraw.EvProcStart, gotraceraw.EvProcStop, gotraceraw.EvProcSteal, gotraceraw.EvProcStatus:
		return // a P's, told without building the transition
	}
	st := ev.StateTransition()
	if st.Resource.Kind != parsed.ResourceGoroutine {
		return
	}
	s := step{time: ev.Time, id: parsed.GoID(st.Resource.ID), stack: -1}
	s.from, s.to = st.Goroutine()
	if s.to == p.Type.state() && p.Type.track(st.Reason) {
		s.stack = int32(p.intern(ev.Stack()))
	}
	p.steps = append(p.steps, s)
}

// Cut tells the Profile that reading the trace failed with err after the
// events added so far. As Go's tool does with a trace cut short or
// damaged, the profile keeps the events up to the last Sync event added;
// the later ones count only for the lives of goroutines (when each first
// ran, whether it ended), as they do in the summary Go's tool makes of
// every event it read. Cut returns an error wrapping err where Go's tool
// gives no profile: no Sync event was added, or no goroutine was seen.
// Later calls to Add are ignored.
func (p *Profile) Cut(err error) error {
	if p == nil {
		return errNotOpen
	}
	p.init()
	if !p.cut {
		p.cut = true
		p.flush(false)
	}
	if !p.synced || !p.anyG {
		return fmt.Errorf("profile: nothing of the trace to profile: %w", err)
	}
	return nil
}

// flush applies the steps and CPU samples added since the last Sync:
// wholly when whole, else only to the goroutines' lives.
func (p *Profile) flush(whole bool) {
	for _, s := range p.steps {
		p.apply(s, whole)
	}
	p.steps = p.steps[:0]
	if whole {
		for _, g := range p.pendingCPU {
			p.sums[2*g]++
			p.sums[2*g+1] += cpuPeriod
		}
	}
	p.pendingCPU = p.pendingCPU[:0]
}

// apply takes one goroutine's state transition; stretches start and end
// only when stretches is set.
func (p *Profile) apply(s step, stretches bool) {
	p.anyG = true
	id, from, to := s.id, s.from, s.to
	c := &p.recent[uint64(id)%uint64(len(p.recent))]
	g := c.g
	if c.id != id || g == nil {
		if g = p.gs[id]; g == nil {
			g = &goState{}
			p.gs[id] = g
		}
		c.id, c.g = id, g
	}
	if from != to && (from == parsed.GoNotExist || from == parsed.GoUndetermined) {
		// Go's summary starts the ID afresh: what its earlier
		// incarnations did counts only if this one never runs.
		g.started, g.clipped = false, g.clipped[:0]
	}
	switch {
	case !stretches:
	case !g.tracking:
		if s.stack >= 0 {
			g.tracking, g.since, g.stack = true, s.time, int(s.stack)
		}
	case to != p.Type.state():
		g.tracking = false
		g.whole = add(g.whole, g.stack, int64(s.time-g.since), s.time)
		if g.started {
			g.clipped = add(g.clipped, g.stack, int64(s.time-max(g.since, g.start)), s.time)
		}
	}
	if from != to && to == parsed.GoRunning && !g.started {
		g.started, g.start = true, s.time
	}
	if to == parsed.GoNotExist && from == parsed.GoRunning {
		// An ordinary exit: the ID does not come back, its sums are
		// final.
		p.commit(g.counted(), p.sums, p.shown, p.shownAt)
		delete(p.gs, id)
		c.g = nil
	}
}

// commit adds a goroutine's sums to the groups' sums, and makes a stack
// the one its group is shown with when its stretch ended last.
func (p *Profile) commit(sums []sum, vals []int64, shown []int, shownAt []parsed.Time) {
	for _, s := range sums {
		g := p.groupOf[s.stack]
		vals[2*g] += s.n
		vals[2*g+1] += s.ns
		if s.last >= shownAt[g] {
			shown[g], shownAt[g] = s.stack, s.last
		}
	}
}

// WriteProfile writes the profile of the events added so far as a
// gzip-compressed profile.proto. Stretches of goroutines that have not
// run yet count as the trace's summary counts them at its end.
func (p *Profile) WriteProfile(w io.Writer) error {
	if p == nil || w == nil {
		return errNotOpen
	}
	if p.Type < Net || p.Type > CPU {
		return fmt.Errorf("profile: %v is not a profile type", p.Type)
	}
	p.init()
	p.flush(!p.cut)
	h := pprof.Header{
		SampleTypes: []pprof.ValueType{{Type: "contentions", Unit: "count"}, {Type: "delay", Unit: "nanoseconds"}},
		PeriodType:  pprof.ValueType{Type: "trace", Unit: "count"},
		Period:      1,
	}
	if p.Type == CPU {
		h = pprof.Header{
			SampleTypes:       []pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
			DefaultSampleType: "cpu",
			PeriodType:        pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
			Period:            cpuPeriod,
		}
	}
	// The goroutines still known count now as the trace's end would
	// have them, into a copy of the sums: more events may come.
	n := p.groups.Len()
	vals := append([]int64(nil), p.sums...)
	shown := append([]int(nil), p.shown...)
	shownAt := append([]parsed.Time(nil), p.shownAt...)
	for _, g := range p.gs {
		p.commit(g.counted(), vals, shown, shownAt)
	}
	enc := pprof.NewEncoder(w, h)
	locs := map[uint64]uint64{}
	var pcs, sample []uint64
	for i := range n {
		v := vals[2*i : 2*i+2]
		if v[0] == 0 {
			continue
		}
		pcs = p.stacks.Stack(pcs[:0], shown[i])
		sample = sample[:0]
		for _, pc := range pcs {
			l, ok := locs[pc]
			if !ok {
				f := p.frames[pc]
				fn := enc.Function(f.Func, "", f.File, 0)
				l = enc.Location(pprof.Location{Address: pc, Lines: []pprof.Line{{Function: fn, Line: int64(f.Line)}}})
				locs[pc] = l
			}
			sample = append(sample, l)
		}
		if err := enc.Sample(sample, v); err != nil {
			return err
		}
	}
	return enc.Close()
}

var errNotOpen = fmt.Errorf("profile: nil Profile or writer")
