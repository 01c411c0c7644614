package parsed

import (
	"iter"
	"strconv"
	"time"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

// Time is a timestamp in nanoseconds, on the traced machine's monotonic
// clock.
type Time int64

// Sub returns t - t0.
func (t Time) Sub(t0 Time) time.Duration { return time.Duration(int64(t) - int64(t0)) }

// GoID is a goroutine's ID; ProcID a P's; ThreadID an M's (an OS thread
// as the runtime numbers it).
type (
	GoID     int64
	ProcID   int64
	ThreadID int64
)

// The IDs of no goroutine, no P, no thread.
const (
	NoGoroutine GoID     = -1
	NoProc      ProcID   = -1
	NoThread    ThreadID = -1
)

// TaskID is a runtime/trace task's ID.
type TaskID uint64

const (
	// NoTask is the parent of a task that has none, and the parent of a
	// task whose beginning is not in the trace.
	NoTask TaskID = ^TaskID(0)
	// BackgroundTask is the task of regions and logs made outside any task.
	BackgroundTask TaskID = 0
)

// Kind is what an event means; its accessor of the same name gives the
// details.
type Kind uint8

// The kinds, as Go's parser numbers them.
const (
	KindBad Kind = iota
	// KindSync starts each generation, and ends the trace: every resource
	// that exists has been named before it.
	KindSync
	KindMetric
	KindLabel
	KindStackSample // a CPU profile sample
	KindRangeBegin
	KindRangeActive // a range that began before the generation
	KindRangeEnd
	KindTaskBegin
	KindTaskEnd
	KindRegionBegin
	KindRegionEnd
	KindLog
	KindStateTransition
	KindExperimental
)

var kindNames = [...]string{"Bad", "Sync", "Metric", "Label", "StackSample", "RangeBegin", "RangeActive",
	"RangeEnd", "TaskBegin", "TaskEnd", "RegionBegin", "RegionEnd", "Log", "StateTransition", "Experimental"}

// String returns the kind's name as Go's parser prints it ("Bad" for an
// unknown kind).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Bad"
}

// GoState is a goroutine's state.
type GoState uint8

const (
	GoUndetermined GoState = iota // nothing known yet: the goroutine existed before the trace
	GoNotExist
	GoRunnable
	GoRunning
	GoWaiting
	GoSyscall
)

var goStateNames = [...]string{"Undetermined", "NotExist", "Runnable", "Running", "Waiting", "Syscall"}

func (s GoState) String() string {
	if int(s) < len(goStateNames) {
		return goStateNames[s]
	}
	return "Bad"
}

// Executing reports whether a goroutine in state s is bound to a thread.
func (s GoState) Executing() bool { return s == GoRunning || s == GoSyscall }

// ProcState is a P's state.
type ProcState uint8

const (
	ProcUndetermined ProcState = iota
	ProcNotExist
	ProcRunning
	ProcIdle
)

var procStateNames = [...]string{"Undetermined", "NotExist", "Running", "Idle"}

func (s ProcState) String() string {
	if int(s) < len(procStateNames) {
		return procStateNames[s]
	}
	return "Bad"
}

// Executing reports whether a P in state s is bound to a thread.
func (s ProcState) Executing() bool { return s == ProcRunning }

// ResourceKind says what a ResourceID names.
type ResourceKind uint8

const (
	ResourceNone ResourceKind = iota
	ResourceGoroutine
	ResourceProc
	ResourceThread
)

var resourceNames = [...]string{"None", "Goroutine", "Proc", "Thread"}

func (k ResourceKind) String() string {
	if int(k) < len(resourceNames) {
		return resourceNames[k]
	}
	return "Bad"
}

// ResourceID names a goroutine, a P or a thread.
type ResourceID struct {
	Kind ResourceKind
	ID   int64
}

// String returns "None" or the kind and ID, "Goroutine(7)".
func (r ResourceID) String() string {
	if r.Kind == ResourceNone {
		return "None"
	}
	return r.Kind.String() + "(" + strconv.FormatInt(r.ID, 10) + ")"
}

// Frame is one frame of a stack.
type Frame struct {
	PC   uint64
	Func string
	File string
	Line uint64
}

// Stack is a stack of the generation an event belongs to. The zero Stack
// has no frames. A Stack is valid as long as its event; its frames' strings
// may be kept.
type Stack struct {
	tab *tables
	id  uint64
}

// ID returns the stack's ID in its generation's stack table (0: no stack).
// IDs of different generations are unrelated.
func (s Stack) ID() uint64 { return s.id }

// Frames returns the frames, innermost first. The slice belongs to the
// generation's table: do not modify it.
func (s Stack) Frames() []Frame {
	if s.tab == nil || s.id == 0 {
		return nil
	}
	f, _ := s.tab.stacks.get(s.id)
	return f
}

// All iterates over the frames, innermost first.
func (s Stack) All() iter.Seq[Frame] {
	return func(yield func(Frame) bool) {
		for _, f := range s.Frames() {
			if !yield(f) {
				return
			}
		}
	}
}

// StateTransition is a goroutine's or a P's change of state.
type StateTransition struct {
	Resource ResourceID
	// Reason says why a goroutine stopped or blocked, as the runtime
	// words it.
	Reason string
	// Stack is the transitioning goroutine's stack: for a creation, the
	// new goroutine's starting stack; otherwise the same as the event's.
	Stack    Stack
	from, to uint8
}

// Goroutine returns a goroutine transition's states; zeros for a P's.
func (s StateTransition) Goroutine() (from, to GoState) {
	if s.Resource.Kind != ResourceGoroutine {
		return 0, 0
	}
	return GoState(s.from), GoState(s.to)
}

// Proc returns a P transition's states; zeros for a goroutine's.
func (s StateTransition) Proc() (from, to ProcState) {
	if s.Resource.Kind != ResourceProc {
		return 0, 0
	}
	return ProcState(s.from), ProcState(s.to)
}

// Metric is a sampled runtime metric, named as runtime/metrics names it.
type Metric struct {
	Name  string
	Value uint64
}

// Label is a label applied to a goroutine.
type Label struct {
	Label    string
	Resource ResourceID
}

// Range is a span of time scoped to a resource: "GC concurrent mark phase"
// (ResourceNone), "GC incremental sweep" (a P), "GC mark assist" and
// "stop-the-world (reason)" (a goroutine).
type Range struct {
	Name  string
	Scope ResourceID
}

// RangeAttribute is a value reported at a range's end.
type RangeAttribute struct {
	Name  string
	Value uint64
}

// Task is a runtime/trace task's begin or end.
type Task struct {
	ID     TaskID
	Parent TaskID // NoTask when unknown
	Type   string // "" when the begin is not in the trace
}

// Region is a runtime/trace region's begin or end.
type Region struct {
	Task TaskID
	Type string
}

// Log is a runtime/trace.Log message.
type Log struct {
	Task     TaskID
	Category string
	Message  string
}

// ClockSnapshot is a reading of the trace clock with the monotonic and
// wall clocks at about the same moment (Go 1.25 and later).
type ClockSnapshot struct {
	Trace Time
	Wall  time.Time
	Mono  uint64
}

// ExperimentalBatch is an experiment's batch of data, uninterpreted.
type ExperimentalBatch struct {
	Experiment gotraceraw.Experiment
	Thread     ThreadID
	Data       []byte
}

// Sync holds what a Sync event says about the generation it starts.
type Sync struct {
	// N counts the Sync events so far, from 1.
	N int
	// ClockSnapshot is nil before Go 1.25 and on the Sync that ends the
	// trace.
	ClockSnapshot *ClockSnapshot
	// ExperimentalBatches are the generation's experimental batches, in
	// trace order.
	ExperimentalBatches []ExperimentalBatch
}

// Experimental is an experimental event (GODEBUG=traceallocfree=1),
// passed on unvalidated.
type Experimental struct {
	Name       string
	Experiment gotraceraw.Experiment
	ArgNames   []string
	Args       []uint64
}
