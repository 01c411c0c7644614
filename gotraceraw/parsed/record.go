package parsed

import (
	"time"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

// Event is one event of the trace, in the order Go's parser gives them,
// with the execution context it happened in.
//
// Reader.Read returns a pointer to an Event the Reader owns: it and the
// slices its accessors return are valid until the next Read or Reset. The
// strings they return may be kept. Clone makes a copy to keep.
//
// An accessor called on an event of another kind returns the zero value.
type Event struct {
	Kind Kind
	// Type is the wire event behind the event: EvGoStart, EvGCBegin…; for
	// the Sync events the parser makes, EvNone. A GoSwitch also yields a
	// GoBlock or GoDestroy and a GoStart, which have those types.
	Type gotraceraw.EventType
	// Time is the event's time. As in Go's parser, each event is made
	// later than the one before it, by a nanosecond if need be.
	Time Time
	// Goroutine, Proc and Thread are the execution context before the
	// event: a GoStart has NoGoroutine, the goroutine it starts is in its
	// StateTransition.
	Goroutine GoID
	Proc      ProcID
	Thread    ThreadID

	args [4]uint64 // the wire arguments after dt, some rewritten by the ordering
	tab  *tables   // the generation's tables; nil on the Sync that ends a trace
	name string    // a TaskEnd's task type, from its begin
	off  int64     // stream offset of the wire event, for errors
}

// Clone returns a copy of e to keep: it stays valid after the next Read.
func (e *Event) Clone() *Event {
	if e == nil {
		return nil
	}
	c := *e
	return &c
}

// Stack returns the stack of the event's execution context (a CPU
// sample's, for a StackSample): the zero Stack when it has none.
func (e *Event) Stack() Stack {
	if e == nil {
		return Stack{}
	}
	s, _ := e.stack()
	return s
}

// stack returns the event's stack and whether Go's parser considers it
// present: a CPU sample always has one, even with stack ID 0.
func (e *Event) stack() (Stack, bool) {
	if e.Kind == KindSync {
		return Stack{}, false
	}
	if e.Type == gotraceraw.EvCPUSample {
		return Stack{e.tab, e.args[0]}, true
	}
	i := info[e.Type].stack
	if i < 0 || e.args[i] == 0 {
		return Stack{}, false
	}
	return Stack{e.tab, e.args[i]}, true
}

// str returns the string with ID id in the event's generation.
func (e *Event) str(id uint64) string {
	if e.tab == nil {
		return ""
	}
	s, _ := e.tab.strs.get(id)
	return s
}

// Metric returns a Metric event's name and value.
func (e *Event) Metric() Metric {
	if e == nil {
		return Metric{}
	}
	if e.Kind != KindMetric {
		return Metric{}
	}
	m := Metric{Value: e.args[0]}
	switch e.Type {
	case gotraceraw.EvProcsChange:
		m.Name = "/sched/gomaxprocs:threads"
	case gotraceraw.EvHeapAlloc:
		m.Name = "/memory/classes/heap/objects:bytes"
	case gotraceraw.EvHeapGoal:
		m.Name = "/gc/heap/goal:bytes"
	}
	return m
}

// Label returns a Label event's label and goroutine.
func (e *Event) Label() Label {
	if e == nil {
		return Label{}
	}
	if e.Kind != KindLabel {
		return Label{}
	}
	return Label{Label: e.str(e.args[0]), Resource: ResourceID{ResourceGoroutine, int64(e.Goroutine)}}
}

// Range returns a RangeBegin, RangeActive or RangeEnd event's range.
func (e *Event) Range() Range {
	if e == nil {
		return Range{}
	}
	switch e.Kind {
	case KindRangeBegin, KindRangeActive, KindRangeEnd:
	default:
		return Range{}
	}
	var r Range
	switch e.Type {
	case gotraceraw.EvSTWBegin, gotraceraw.EvSTWEnd:
		r.Name = "stop-the-world (" + e.str(e.args[0]) + ")"
		r.Scope = ResourceID{ResourceGoroutine, int64(e.Goroutine)}
	case gotraceraw.EvGCBegin, gotraceraw.EvGCActive, gotraceraw.EvGCEnd:
		r.Name = "GC concurrent mark phase"
	case gotraceraw.EvGCSweepBegin, gotraceraw.EvGCSweepActive, gotraceraw.EvGCSweepEnd:
		r.Name = "GC incremental sweep"
		r.Scope = ResourceID{ResourceProc, int64(e.Proc)}
		if e.Type == gotraceraw.EvGCSweepActive {
			r.Scope.ID = int64(e.args[0])
		}
	case gotraceraw.EvGCMarkAssistBegin, gotraceraw.EvGCMarkAssistActive, gotraceraw.EvGCMarkAssistEnd:
		r.Name = "GC mark assist"
		r.Scope = ResourceID{ResourceGoroutine, int64(e.Goroutine)}
		if e.Type == gotraceraw.EvGCMarkAssistActive {
			r.Scope.ID = int64(e.args[0])
		}
	}
	return r
}

// RangeAttributes returns what a RangeEnd event reports: the bytes swept
// and reclaimed at the end of a sweep, nothing for other ranges.
func (e *Event) RangeAttributes() []RangeAttribute {
	if e == nil {
		return nil
	}
	if e.Kind != KindRangeEnd || e.Type != gotraceraw.EvGCSweepEnd {
		return nil
	}
	return []RangeAttribute{{"bytes swept", e.args[0]}, {"bytes reclaimed", e.args[1]}}
}

// Task returns a TaskBegin or TaskEnd event's task.
func (e *Event) Task() Task {
	if e == nil {
		return Task{}
	}
	switch e.Type {
	case gotraceraw.EvUserTaskBegin:
		return Task{ID: TaskID(e.args[0]), Parent: TaskID(e.args[1]), Type: e.str(e.args[2])}
	case gotraceraw.EvUserTaskEnd:
		return Task{ID: TaskID(e.args[0]), Parent: TaskID(e.args[2]), Type: e.name}
	}
	return Task{}
}

// Region returns a RegionBegin or RegionEnd event's region.
func (e *Event) Region() Region {
	if e == nil {
		return Region{}
	}
	if e.Kind != KindRegionBegin && e.Kind != KindRegionEnd {
		return Region{}
	}
	return Region{Task: TaskID(e.args[0]), Type: e.str(e.args[1])}
}

// Log returns a Log event's message.
func (e *Event) Log() Log {
	if e == nil {
		return Log{}
	}
	if e.Kind != KindLog {
		return Log{}
	}
	return Log{Task: TaskID(e.args[0]), Category: e.str(e.args[1]), Message: e.str(e.args[2])}
}

// StateTransition returns a StateTransition event's change of state.
func (e *Event) StateTransition() StateTransition {
	if e == nil {
		return StateTransition{}
	}
	if e.Kind != KindStateTransition {
		return StateTransition{}
	}
	g := func(id GoID, from, to GoState) StateTransition {
		return StateTransition{Resource: ResourceID{ResourceGoroutine, int64(id)}, from: uint8(from), to: uint8(to)}
	}
	p := func(id ProcID, from, to ProcState) StateTransition {
		return StateTransition{Resource: ResourceID{ResourceProc, int64(id)}, from: uint8(from), to: uint8(to)}
	}
	a := &e.args
	switch e.Type {
	case gotraceraw.EvProcStart:
		return p(ProcID(a[0]), ProcIdle, ProcRunning)
	case gotraceraw.EvProcStop:
		return p(e.Proc, ProcRunning, ProcIdle)
	case gotraceraw.EvProcSteal:
		from := ProcRunning
		if a[3] == procSyscallAbandoned {
			from = ProcIdle // the P's thread is unknown: it reads as idle
		}
		return p(ProcID(a[0]), from, ProcIdle)
	case gotraceraw.EvProcStatus:
		return p(ProcID(a[0]), ProcState(a[2]), procStatusState[a[1]])
	case gotraceraw.EvGoCreate, gotraceraw.EvGoCreateBlocked:
		to := GoRunnable
		if e.Type == gotraceraw.EvGoCreateBlocked {
			to = GoWaiting
		}
		s := g(GoID(a[0]), GoNotExist, to)
		s.Stack = Stack{e.tab, a[1]}
		return s
	case gotraceraw.EvGoCreateSyscall:
		return g(GoID(a[0]), GoNotExist, GoSyscall)
	case gotraceraw.EvGoStart:
		return g(GoID(a[0]), GoRunnable, GoRunning)
	case gotraceraw.EvGoDestroy:
		return g(e.Goroutine, GoRunning, GoNotExist)
	case gotraceraw.EvGoDestroySyscall:
		return g(e.Goroutine, GoSyscall, GoNotExist)
	case gotraceraw.EvGoStop, gotraceraw.EvGoBlock:
		to := GoRunnable
		if e.Type == gotraceraw.EvGoBlock {
			to = GoWaiting
		}
		s := g(e.Goroutine, GoRunning, to)
		s.Reason = e.str(a[0])
		s.Stack = e.Stack()
		return s
	case gotraceraw.EvGoUnblock, gotraceraw.EvGoSwitch, gotraceraw.EvGoSwitchDestroy:
		// A switch first unblocks the goroutine it names, as an unblock.
		return g(GoID(a[0]), GoWaiting, GoRunnable)
	case gotraceraw.EvGoSyscallBegin:
		s := g(e.Goroutine, GoRunning, GoSyscall)
		s.Stack = e.Stack()
		return s
	case gotraceraw.EvGoSyscallEnd:
		return g(e.Goroutine, GoSyscall, GoRunning)
	case gotraceraw.EvGoSyscallEndBlocked:
		return g(e.Goroutine, GoSyscall, GoRunnable)
	case gotraceraw.EvGoStatus, gotraceraw.EvGoStatusStack:
		s := g(GoID(a[0]), GoState(a[2]>>32), goStatusState[a[2]&(1<<32-1)])
		s.Stack = e.Stack()
		return s
	}
	return StateTransition{}
}

// Sync returns what a Sync event says.
func (e *Event) Sync() Sync {
	if e == nil {
		return Sync{}
	}
	if e.Kind != KindSync {
		return Sync{}
	}
	s := Sync{N: int(e.args[0])}
	if e.tab != nil {
		s.ExperimentalBatches = e.tab.exp
		if e.tab.hasClock {
			s.ClockSnapshot = &e.tab.clock
		}
	}
	return s
}

// Experimental returns an experimental event's name and arguments; Args
// is valid until the next Read.
func (e *Event) Experimental() Experimental {
	if e == nil {
		return Experimental{}
	}
	if e.Kind != KindExperimental {
		return Experimental{}
	}
	spec, _ := gotraceraw.Go126.Spec(e.Type)
	names := spec.Args[1:]
	return Experimental{Name: spec.Name, Experiment: spec.Experiment, ArgNames: names, Args: e.args[:len(names):len(names)]}
}

// String returns the event as Go's parser prints it (Event.String of
// internal/trace), without a final newline.
func (e *Event) String() string {
	if e == nil {
		return "<nil>"
	}
	b := e.AppendText(nil)
	return string(b)
}

// wallTime is the wall clock of a ClockSnapshot, as Go's parser makes it.
func wallTime(sec, nsec uint64) time.Time { return time.Unix(int64(sec), int64(nsec)) }
