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
// # A trace cut short or damaged
//
// Go's tool profiles such a trace's events up to the last Sync event read
// before the error (the start of the generation that failed, or the end
// of the last one read whole), and fails when there is none. A Profile
// does the same when told of the error with Cut. A trace cut short fails
// as a generation is read, before its events, so all the events read
// count; a damaged event fails inside a generation, whose earlier events
// then count only for the goroutines' lives (when each first ran, whether
// it ended), as in Go's tool (whose summary reads every event before the
// error). To go back to the last Sync, a Profile keeps the goroutines and
// sums a generation changes as they were at its start: memory grows with
// the goroutines alive, not with the generation.
//
// A whole trace without a goroutine (a header and nothing else) gives an
// empty profile; Go's tool fails on it ("failed to find matching
// goroutines"). A trace holds no samples then, and an empty profile says
// so to a script without looking like a failure.
package profile

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
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

	// syncs counts the Sync events added. pre holds the goroutines as
	// they were at the last one, before their first change since, and
	// groupPre the groups' sums (groupAt[g] is syncs+1 once saved): Cut
	// goes back to them. anyG says a goroutine was seen, cut that Cut
	// was called.
	syncs    uint32
	pre      map[parsed.GoID]*preState
	groupPre []groupState
	groupAt  []uint32
	anyG     bool
	cut      bool
}

// preState is a goroutine as it was at the last Sync, and whether it
// exited since (reset: after a new life began).
type preState struct {
	g             goState
	exited, reset bool
}

// groupState is a group's sums and shown stack as they were.
type groupState struct {
	g     int
	n, ns int64
	shown int
	at    parsed.Time
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
	// born is the count of Syncs when the state was made, touched
	// when it was last saved for Cut, resetAt when a new life last
	// began.
	born, touched, resetAt uint32
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
		p.pre = map[parsed.GoID]*preState{}
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
			p.groupAt = append(p.groupAt, 0)
		}
		p.groupOf = append(p.groupOf, g)
	}
	return i
}

// Add takes the next event of the trace.
func (p *Profile) Add(ev *parsed.Event) {
	if p == nil || ev == nil || p.cut {
		return
	}
	p.init()
	if ev.Kind == parsed.KindSync {
		// A new generation, a new stack table; what came before is
		// what Cut keeps.
		clear(p.byID)
		clear(p.pre)
		p.groupPre = p.groupPre[:0]
		p.syncs++
		return
	}
	if p.Type == CPU {
		switch ev.Kind {
		case parsed.KindStackSample:
			g := p.groupOf[p.intern(ev.Stack())]
			p.touchGroup(g)
			p.sums[2*g]++
			p.sums[2*g+1] += cpuPeriod
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
	p.anyG = true
	id := parsed.GoID(st.Resource.ID)
	from, to := st.Goroutine()
	c := &p.recent[uint64(id)%uint64(len(p.recent))]
	g := c.g
	if c.id != id || g == nil {
		if g = p.gs[id]; g == nil {
			g = &goState{born: p.syncs}
			p.gs[id] = g
		}
		c.id, c.g = id, g
	}
	if g.touched != p.syncs && g.born != p.syncs {
		// The first change since the last Sync: keep the state
		// as it was there, for Cut.
		g.touched = p.syncs
		p.pre[id] = &preState{g: goState{
			started: g.started, start: g.start,
			whole: slices.Clone(g.whole), clipped: slices.Clone(g.clipped),
		}}
	}
	if from != to && (from == parsed.GoNotExist || from == parsed.GoUndetermined) {
		// Go's summary starts the ID afresh: what its earlier
		// incarnations did counts only if this one never runs.
		g.started, g.clipped = false, g.clipped[:0]
		g.resetAt = p.syncs
	}
	state := p.Type.state()
	switch {
	case !g.tracking:
		if to == state && p.Type.track(st.Reason) {
			g.tracking, g.since, g.stack = true, ev.Time, p.intern(ev.Stack())
		}
	case to != state:
		g.tracking = false
		g.whole = add(g.whole, g.stack, int64(ev.Time-g.since), ev.Time)
		if g.started {
			g.clipped = add(g.clipped, g.stack, int64(ev.Time-max(g.since, g.start)), ev.Time)
		}
	}
	if from != to && to == parsed.GoRunning && !g.started {
		g.started, g.start = true, ev.Time
	}
	if to == parsed.GoNotExist && from == parsed.GoRunning {
		// An ordinary exit: the ID does not come back, its sums are
		// final.
		if pre := p.pre[id]; pre != nil && g.born != p.syncs && !pre.exited {
			pre.exited, pre.reset = true, g.resetAt == p.syncs
		}
		for _, s := range g.counted() {
			p.touchGroup(p.groupOf[s.stack])
		}
		p.commit(g.counted(), p.sums, p.shown, p.shownAt)
		delete(p.gs, id)
		c.g = nil
	}
}

// touchGroup keeps a group's sums as they were at the last Sync, before
// their first change since.
func (p *Profile) touchGroup(g int) {
	if p.groupAt[g] == p.syncs+1 {
		return
	}
	p.groupAt[g] = p.syncs + 1
	p.groupPre = append(p.groupPre, groupState{g, p.sums[2*g], p.sums[2*g+1], p.shown[g], p.shownAt[g]})
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
		return ErrNotOpen
	}
	p.init()
	if !p.cut {
		p.cut = true
		p.rollBack()
	}
	if p.syncs == 0 || !p.anyG {
		return fmt.Errorf("profile: nothing of the trace to profile: %w", err)
	}
	return nil
}

// rollBack makes the state that of the last Sync, with the lives of the
// goroutines as the events since left them.
func (p *Profile) rollBack() {
	for _, s := range slices.Backward(p.groupPre) {
		p.sums[2*s.g], p.sums[2*s.g+1], p.shown[s.g], p.shownAt[s.g] = s.n, s.ns, s.shown, s.at
	}
	gs := make(map[parsed.GoID]*goState, len(p.gs))
	for id, g := range p.gs {
		if pre := p.pre[id]; pre != nil {
			if pre.exited {
				continue // a new goroutine with the old one's ID
			}
			kept := pre.g
			if g.resetAt == p.syncs {
				kept.clipped = nil
			}
			kept.started = g.started
			gs[id] = &kept
		} else if g.born != p.syncs {
			gs[id] = g // untouched since the Sync
		}
	}
	for _, id := range slices.Sorted(maps.Keys(p.pre)) {
		if pre := p.pre[id]; pre.exited && !pre.reset {
			// It ran to its exit: what counts is its stretches
			// since its first run, as they were at the Sync.
			p.commit(pre.g.clipped, p.sums, p.shown, p.shownAt)
		}
	}
	p.gs, p.pre, p.recent = gs, nil, [len(p.recent)]struct {
		id parsed.GoID
		g  *goState
	}{}
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
		return ErrNotOpen
	}
	if p.Type < Net || p.Type > CPU {
		return fmt.Errorf("profile: %v is not a profile type", p.Type)
	}
	p.init()
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

// ErrNotOpen means a nil Profile, or a nil destination for WriteProfile.
var ErrNotOpen = errors.New("profile: nil Profile or writer")
