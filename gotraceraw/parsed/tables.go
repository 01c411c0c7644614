package parsed

import (
	"math"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

// typeInfo is what the parser needs of each event type. Go's parser reads
// the events of every version with the newest table, so this one is built
// from Go126's.
type typeInfo struct {
	known bool // a type of the table (Go's parser: below 137)
	timed bool
	nargs uint8 // arguments after dt
	kind  Kind
	stack int8 // index in args of the event's own stack, or -1
	start gotraceraw.EventType
	// ids are the stack IDs then the string IDs to check, as Go's
	// parser checks them: an index in args, with idStack for a stack.
	ids  [3]uint8
	nids uint8
}

const (
	idIndex = 0x7f
	idStack = 0x80
)

var info = func() (t [256]typeInfo) {
	kinds := map[gotraceraw.EventType]Kind{
		gotraceraw.EvCPUSample: KindStackSample, gotraceraw.EvProcsChange: KindMetric,
		gotraceraw.EvHeapAlloc: KindMetric, gotraceraw.EvHeapGoal: KindMetric,
		gotraceraw.EvSTWBegin: KindRangeBegin, gotraceraw.EvSTWEnd: KindRangeEnd,
		gotraceraw.EvGCActive: KindRangeActive, gotraceraw.EvGCBegin: KindRangeBegin, gotraceraw.EvGCEnd: KindRangeEnd,
		gotraceraw.EvGCSweepActive: KindRangeActive, gotraceraw.EvGCSweepBegin: KindRangeBegin, gotraceraw.EvGCSweepEnd: KindRangeEnd,
		gotraceraw.EvGCMarkAssistActive: KindRangeActive, gotraceraw.EvGCMarkAssistBegin: KindRangeBegin,
		gotraceraw.EvGCMarkAssistEnd: KindRangeEnd, gotraceraw.EvGoLabel: KindLabel,
		gotraceraw.EvUserTaskBegin: KindTaskBegin, gotraceraw.EvUserTaskEnd: KindTaskEnd,
		gotraceraw.EvUserRegionBegin: KindRegionBegin, gotraceraw.EvUserRegionEnd: KindRegionEnd,
		gotraceraw.EvUserLog: KindLog,
	}
	for _, typ := range []gotraceraw.EventType{gotraceraw.EvProcStart, gotraceraw.EvProcStop, gotraceraw.EvProcSteal,
		gotraceraw.EvProcStatus, gotraceraw.EvGoCreate, gotraceraw.EvGoCreateSyscall, gotraceraw.EvGoStart,
		gotraceraw.EvGoDestroy, gotraceraw.EvGoDestroySyscall, gotraceraw.EvGoStop, gotraceraw.EvGoBlock,
		gotraceraw.EvGoUnblock, gotraceraw.EvGoSyscallBegin, gotraceraw.EvGoSyscallEnd, gotraceraw.EvGoSyscallEndBlocked,
		gotraceraw.EvGoStatus, gotraceraw.EvGoSwitch, gotraceraw.EvGoSwitchDestroy, gotraceraw.EvGoCreateBlocked,
		gotraceraw.EvGoStatusStack} {
		kinds[typ] = KindStateTransition
	}
	starts := map[gotraceraw.EventType]gotraceraw.EventType{
		gotraceraw.EvGoSyscallEnd: gotraceraw.EvGoSyscallBegin, gotraceraw.EvGoSyscallEndBlocked: gotraceraw.EvGoSyscallBegin,
		gotraceraw.EvSTWEnd: gotraceraw.EvSTWBegin, gotraceraw.EvGCActive: gotraceraw.EvGCBegin,
		gotraceraw.EvGCEnd: gotraceraw.EvGCBegin, gotraceraw.EvGCSweepActive: gotraceraw.EvGCSweepBegin,
		gotraceraw.EvGCSweepEnd: gotraceraw.EvGCSweepBegin, gotraceraw.EvGCMarkAssistActive: gotraceraw.EvGCMarkAssistBegin,
		gotraceraw.EvGCMarkAssistEnd: gotraceraw.EvGCMarkAssistBegin, gotraceraw.EvUserRegionEnd: gotraceraw.EvUserRegionBegin,
	}
	for i := range t {
		typ := gotraceraw.EventType(i)
		ti := &t[i]
		ti.stack = -1
		spec, ok := gotraceraw.Go126.Spec(typ)
		ti.known = i < int(gotraceraw.EvGoroutineStackFree)+1
		if !ok {
			continue
		}
		ti.kind = kinds[typ]
		if spec.Experiment != gotraceraw.NoExperiment {
			ti.kind = KindExperimental
		}
		ti.start = starts[typ]
		ti.timed = spec.Timed
		if spec.Timed {
			ti.nargs = uint8(len(spec.Args) - 1)
			for j, a := range spec.StackArgs {
				if j == 0 {
					ti.stack = int8(a - 1)
				}
				ti.ids[ti.nids] = uint8(a-1) | idStack
				ti.nids++
			}
			for _, a := range spec.StringArgs {
				ti.ids[ti.nids] = uint8(a - 1)
				ti.nids++
			}
		}
	}
	return t
}()

// The goroutine and P statuses of the wire (GoStatus, ProcStatus).
const (
	goRunnable = 1
	goRunning  = 2
	goSyscall  = 3
	goWaiting  = 4

	procRunning          = 1
	procIdle             = 2
	procSyscall          = 3
	procSyscallAbandoned = 4
)

// goStatusState and procStatusState map wire statuses to the states
// events report; a status past their ends is refused.
var (
	goStatusState   = [...]GoState{0, GoRunnable, GoRunning, GoSyscall, GoWaiting}
	procStatusState = [...]ProcState{0, ProcRunning, ProcIdle, ProcRunning, ProcIdle}
)

func goStatusName(s uint64) string {
	switch s {
	case goRunnable:
		return "Runnable"
	case goRunning:
		return "Running"
	case goSyscall:
		return "Syscall"
	case goWaiting:
		return "Waiting"
	}
	return "Bad"
}

func procStatusName(s uint64) string {
	switch s {
	case procRunning:
		return "Running"
	case procIdle:
		return "Idle"
	case procSyscall:
		return "Syscall"
	}
	return "Bad"
}

// idTable maps the IDs of a generation's strings or stacks to them: a
// slice when the IDs are dense, as the runtime writes them, else a map.
// ID 0 always maps to the zero value.
type idTable[T any] struct {
	dense   []T
	present []bool
	sparse  map[uint64]T
}

func (t *idTable[T]) get(id uint64) (T, bool) {
	if id == 0 {
		var z T
		return z, true
	}
	if id < uint64(len(t.dense)) {
		if t.present[id] {
			return t.dense[id], true
		}
		var z T
		return z, false
	}
	v, ok := t.sparse[id]
	return v, ok
}

// has reports whether id is in the table, as get does.
func (t *idTable[T]) has(id uint64) bool {
	if id < uint64(len(t.present)) {
		return id == 0 || t.present[id]
	}
	if id == 0 {
		return true
	}
	_, ok := t.sparse[id]
	return ok
}

// build fills the table from ids and vals, in a slice when the IDs are
// dense enough (at most twice as many slots as entries).
func (t *idTable[T]) build(ids []uint64, vals []T) {
	maxID := uint64(0)
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	if maxID < math.MaxInt32 && maxID <= uint64(2*len(ids)+8) {
		t.dense = make([]T, maxID+1)
		t.present = make([]bool, maxID+1)
		for i, id := range ids {
			t.dense[id], t.present[id] = vals[i], true
		}
		return
	}
	t.sparse = make(map[uint64]T, len(ids))
	for i, id := range ids {
		t.sparse[id] = vals[i]
	}
}

// tables is what a generation's events refer to: its strings, stacks,
// clock and experimental batches. A Reader makes new tables for every
// generation and never changes them after, so events may share them.
type tables struct {
	gen  uint64
	freq float64 // nanoseconds per tick
	// whole is freq when it is a whole number up to 2^31 (64 in Go's
	// traces on Linux), else 0: a delta under 2^21 times it is then below
	// 2^53, where float64 is exact, so integers give what ns gives.
	whole    Time
	strs     idTable[string]
	stacks   idTable[[]Frame]
	hasClock bool
	clock    ClockSnapshot
	exp      []ExperimentalBatch
}

// ns converts ticks to nanoseconds as Go's parser does, in float64.
func (t *tables) ns(ticks uint64) Time { return Time(float64(ticks) * t.freq) }

// setFreq sets the generation's nanoseconds per tick.
func (t *tables) setFreq(f float64) {
	t.freq, t.whole = f, 0
	if f >= 1 && f <= 1<<31 && f == math.Trunc(f) {
		t.whole = Time(f)
	}
}
