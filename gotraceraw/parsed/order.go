package parsed

import (
	"fmt"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

// raw is a timed event as a batch holds it, its time made absolute.
type raw struct {
	typ  gotraceraw.EventType
	time Time
	args [4]uint64
	off  int64 // stream offset, for errors
}

// schedCtx is an execution context: the goroutine, P and thread an event
// happens on.
type schedCtx struct {
	g GoID
	p ProcID
	m ThreadID
}

// The wire's GC states.
const (
	gcUndetermined = iota
	gcNotRunning
	gcRunning
)

var gcStateNames = [...]string{"Undetermined", "NotRunning", "Running"}

// rangeKind names a range in flight: the type of its begin event and, for
// stop-the-world, the string ID of its reason.
type rangeKind struct {
	typ  gotraceraw.EventType
	desc uint64
}

func (r rangeKind) String() string { return fmt.Sprintf("{%d %d}", r.typ, r.desc) }

type ranges []rangeKind

func (rs ranges) has(r rangeKind) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

func (rs *ranges) begin(r rangeKind) error {
	if rs.has(r) {
		return wrapf(ErrState, "discovered event already in-flight for when starting event %v", r.typ.String())
	}
	*rs = append(*rs, r)
	return nil
}

// active records a range found in progress at a generation's start: in
// the first generation it starts one, later it must be one known.
func (rs *ranges) active(r rangeKind, firstGen bool) error {
	if firstGen {
		if rs.has(r) {
			return wrapf(ErrState, "found named active range already in first gen: %v", r)
		}
		*rs = append(*rs, r)
	} else if !rs.has(r) {
		return wrapf(ErrState, "resource is missing active range: %v %v", r.typ.String(), []rangeKind(*rs))
	}
	return nil
}

// end ends the range that end event typ closes, returning its desc.
func (rs *ranges) end(typ gotraceraw.EventType) (uint64, error) {
	start := info[typ].start
	for i, x := range *rs {
		if x.typ == start {
			s := *rs
			desc := x.desc
			// Removed by swapping with the last, as Go's parser does: the
			// order of what stays in flight shows in its messages.
			s[i] = s[len(s)-1]
			*rs = s[:len(s)-1]
			return desc, nil
		}
	}
	return 0, wrapf(ErrState, "tried to end event %v, but not in-flight", start.String())
}

// rangeOf makes the range an event begins, continues or ends.
func rangeOf(typ gotraceraw.EventType, desc uint64) rangeKind {
	if s := info[typ].start; s != gotraceraw.EvNone {
		typ = s
	}
	return rangeKind{typ, desc}
}

type region struct {
	task uint64
	name string
}

type gState struct {
	// id is the goroutine's ID while the state is in the ordering's
	// index, noID once it leaves (destroyed, reset): a thread's cached
	// state is used only while its id is the thread's goroutine.
	id          GoID
	status      uint64 // a wire status (goRunnable…)
	seqGen, seq uint64
	regions     []region
	ranges      ranges
}

// ready reports whether the goroutine of state s (nil: unknown) can take
// the transition numbered seq of generation gen, which needs status from.
func (s *gState) ready(from, gen, seq uint64) bool {
	return s != nil && s.status == from && seqNext(gen, seq, s.seqGen, s.seq)
}

// take records the transition numbered seq of generation gen, to status
// to, that ready allowed: the goroutine's next must follow it.
func (s *gState) take(to, gen, seq uint64) {
	s.status, s.seqGen, s.seq = to, gen, seq
}

type pState struct {
	status      uint64 // a wire status (procRunning…)
	seqGen, seq uint64
	ranges      ranges
}

type mState struct {
	g GoID
	p ProcID
	// gs caches the state of the goroutine last started here, so that
	// its stop or block needs no lookup; it is g's only while gs.id == g.
	gs *gState
}

// running returns the cached state of the thread's goroutine when it is
// that goroutine's and running, else nil: then it must be looked up.
func (ms *mState) running() *gState {
	if s := ms.gs; s != nil && s.id == ms.g && s.status == goRunning {
		return s
	}
	return nil
}

// noID marks a goroutine state out of the index: the cache is asked only
// for a thread that has a goroutine, never NoGoroutine.
const noID = NoGoroutine

type taskState struct {
	name   string
	parent TaskID
}

// ordering keeps the state of every goroutine, P and thread, and decides
// whether an event can come next: it is Go's parser's state machine.
type ordering struct {
	v          gotraceraw.Version
	gs         index[gState]
	ps         index[pState]
	ms         map[ThreadID]*mState
	tasks      map[TaskID]taskState
	gcSeq      uint64
	gcState    uint8
	initialGen uint64
	q          queue
	free       []*gState // goroutines destroyed, to reuse
	off        int64     // offset of the event being advanced
	out        *Event    // where the next event goes, when set (see slot)
}

func (o *ordering) reset(v gotraceraw.Version) {
	if o.ms == nil {
		o.ms = make(map[ThreadID]*mState)
		o.tasks = make(map[TaskID]taskState)
	}
	o.gs.each(func(_ int64, s *gState) {
		s.id = noID
		o.free = append(o.free, s)
	})
	o.gs.clear()
	o.ps.clear()
	clear(o.ms)
	clear(o.tasks)
	o.v, o.gcSeq, o.gcState, o.initialGen, o.out = v, 0, gcUndetermined, 0, nil
	o.q.reset()
}

func (o *ordering) newG(id GoID, status, gen uint64) *gState {
	var s *gState
	if n := len(o.free); n > 0 {
		s = o.free[n-1]
		o.free = o.free[:n-1]
		*s = gState{regions: s.regions[:0], ranges: s.ranges[:0]}
	} else {
		s = new(gState)
	}
	s.id, s.status, s.seqGen, s.seq = id, status, gen, 0
	return s
}

func (o *ordering) deleteG(id GoID) {
	if s := o.gs.del(int64(id)); s != nil {
		s.id = noID
		o.free = append(o.free, s)
	}
}

// name is the event type's name in the trace's version, as Go's parser
// words it in messages.
func (o *ordering) name(t gotraceraw.EventType) string {
	if s, ok := o.v.Spec(t); ok {
		return s.Name
	}
	return fmt.Sprintf("Invalid(%d)", t)
}

// seqNext reports whether (gen, seq) comes right after (sgen, sseq).
func seqNext(gen, seq, sgen, sseq uint64) bool { return gen == sgen && seq == sseq+1 }

// Requirements on an execution context.
const (
	mustNot = iota
	may
	must
)

type reqs struct{ m, p, g uint8 }

var userGo = reqs{must, must, must}

// checkUserGo is checkUserGo(c), the common case in line.
func checkUserGo(c schedCtx) error {
	if c.m == NoThread || c.p == NoProc || c.g == NoGoroutine {
		return check(c, userGo)
	}
	return nil
}

func check(c schedCtx, r reqs) error {
	switch {
	case r.m == must && c.m == NoThread:
		return wrapf(ErrState, "expected a thread but didn't have one")
	case r.m == mustNot && c.m != NoThread:
		return wrapf(ErrState, "expected no thread but had one")
	case r.p == must && c.p == NoProc:
		return wrapf(ErrState, "expected a proc but didn't have one")
	case r.p == mustNot && c.p != NoProc:
		return wrapf(ErrState, "expected no proc but had one")
	case r.g == must && c.g == NoGoroutine:
		return wrapf(ErrState, "expected a goroutine but didn't have one")
	case r.g == mustNot && c.g != NoGoroutine:
		return wrapf(ErrState, "expected no goroutine but had one")
	}
	return nil
}

// slot returns where the next event out of the ordering goes: the
// caller's Event when it waits for one, so that the common event is not
// copied twice; the queue's back otherwise. out is set only while the
// queue is empty, and taken by the first event out. Small enough to be
// inlined.
func (o *ordering) slot() *Event {
	if e := o.out; e != nil {
		o.out = nil
		return e
	}
	return o.q.add()
}

// push queues ev as it comes out of the ordering, in context c.
func (o *ordering) push(ev *raw, tab *tables, c schedCtx) *Event {
	e := o.slot()
	e.fill(ev, tab, c)
	return e
}

// fill makes e the event ev in context c; small enough to be inlined.
func (e *Event) fill(ev *raw, tab *tables, c schedCtx) {
	// Field by field: a composite literal is built aside, then copied.
	e.Kind, e.Type, e.Time = info[ev.typ].kind, ev.typ, ev.time
	e.Goroutine, e.Proc, e.Thread = c.g, c.p, c.m
	e.args, e.tab, e.name, e.off = ev.args, tab, "", ev.off
}

// pushMade queues an event the ordering makes up (a GoSwitch's parts, a
// ProcSteal implied by a GoDestroySyscall).
func (o *ordering) pushMade(typ gotraceraw.EventType, t Time, tab *tables, c schedCtx, args ...uint64) *Event {
	e := o.slot()
	*e = Event{Kind: info[typ].kind, Type: typ, Time: t, Goroutine: c.g, Proc: c.p, Thread: c.m, tab: tab, off: o.off}
	copy(e.args[:], args)
	return e
}

// advance decides whether ev, the next event of thread m, can come next.
// When it can, it updates the state and queues the event (and any the
// ordering makes of it) and returns true. false with no error means
// another thread's event must come first; an error means the trace is
// broken.
//
// *msp caches thread m's state between calls (nil: not looked up yet).
func (o *ordering) advance(ev *raw, tab *tables, m ThreadID, gen uint64, msp **mState) (bool, error) {
	if o.initialGen == 0 {
		o.initialGen = gen
	}
	o.off = ev.off
	cur := schedCtx{g: NoGoroutine, p: NoProc, m: m}
	ms := *msp
	if m != NoThread {
		if ms == nil {
			// A thread's state is made when its first event is tried,
			// whether or not it comes next: later events look it up.
			ms = o.ms[m]
			if ms == nil {
				ms = &mState{g: NoGoroutine, p: NoProc}
				o.ms[m] = ms
			}
			*msp = ms
		}
		cur.p, cur.g = ms.p, ms.g
	}
	// The commonest events here, the others in a function apart (the
	// stream's next orders these in line when it can, and comes here for
	// a thread not looked up yet, a goroutine not cached, and errors): a
	// goroutine starts...
	c := cur
	g := c.g // the thread's goroutine after the event
	switch ev.typ {
	case gotraceraw.EvGoStart:
		s := o.gs.get(int64(ev.args[0]))
		if !s.ready(goRunnable, gen, ev.args[1]) {
			return false, nil // maybe later
		}
		if c.m == NoThread || c.p == NoProc || c.g != NoGoroutine {
			return false, check(c, reqs{must, must, mustNot})
		}
		s.take(goRunning, gen, ev.args[1])
		g = GoID(ev.args[0])
		if ms != nil {
			ms.gs = s
		}
	// ...stops, blocks or ends...
	case gotraceraw.EvGoDestroy, gotraceraw.EvGoStop, gotraceraw.EvGoBlock:
		if err := checkUserGo(c); err != nil {
			return false, err
		}
		// The goroutine is most often the one last started here.
		var s *gState
		if ms != nil {
			s = ms.running()
		}
		if s == nil {
			var err error
			if s, err = o.running(ev, c, goRunning); err != nil {
				return false, err
			}
		}
		switch ev.typ {
		case gotraceraw.EvGoDestroy:
			o.deleteG(c.g)
		case gotraceraw.EvGoStop:
			s.status = goRunnable
		case gotraceraw.EvGoBlock:
			s.status = goWaiting
		}
		g = NoGoroutine
	// ...or is unblocked, by anything (sysmon too): no context to check.
	case gotraceraw.EvGoUnblock:
		s := o.gs.get(int64(ev.args[0]))
		if !s.ready(goWaiting, gen, ev.args[1]) {
			return false, nil
		}
		s.take(goRunnable, gen, ev.args[1])
	default:
		next, ok, err := o.advanceOther(ev, tab, gen, c)
		if err == nil && ok && ms != nil {
			ms.p, ms.g = next.p, next.g
		}
		return ok, err
	}
	// push, in line.
	o.slot().fill(ev, tab, c)
	if ms != nil {
		ms.g = g
	}
	return true, nil
}

// advanceOther is advance of the events but the commonest: it returns
// the context after the event.
func (o *ordering) advanceOther(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	switch ev.typ {
	case gotraceraw.EvProcsChange, gotraceraw.EvGoLabel, gotraceraw.EvUserLog:
		return o.annotation(ev, tab, c)
	case gotraceraw.EvProcStart:
		return o.procStart(ev, tab, gen, c)
	case gotraceraw.EvProcStop:
		return o.procStop(ev, tab, c)
	case gotraceraw.EvProcSteal:
		return o.procSteal(ev, tab, gen, c)
	case gotraceraw.EvProcStatus:
		return o.procStatus(ev, tab, gen, c)
	case gotraceraw.EvGoCreate, gotraceraw.EvGoCreateBlocked:
		return o.goCreate(ev, tab, gen, c)
	case gotraceraw.EvGoCreateSyscall:
		return o.goCreateSyscall(ev, tab, gen, c)
	case gotraceraw.EvGoDestroySyscall:
		return o.goDestroySyscall(ev, tab, c)
	case gotraceraw.EvGoSyscallBegin:
		return o.syscallBegin(ev, tab, gen, c)
	case gotraceraw.EvGoSyscallEnd:
		return o.syscallEnd(ev, tab, c)
	case gotraceraw.EvGoSyscallEndBlocked:
		return o.syscallEndBlocked(ev, tab, c)
	case gotraceraw.EvGoStatus, gotraceraw.EvGoStatusStack:
		return o.goStatus(ev, tab, gen, c)
	case gotraceraw.EvSTWBegin, gotraceraw.EvGCMarkAssistBegin:
		return o.goRangeBegin(ev, tab, c)
	case gotraceraw.EvSTWEnd, gotraceraw.EvGCMarkAssistEnd:
		return o.goRangeEnd(ev, tab, c)
	case gotraceraw.EvGCMarkAssistActive:
		return o.goRangeActive(ev, tab, gen, c)
	case gotraceraw.EvGCActive:
		return o.gcActive(ev, tab, gen, c)
	case gotraceraw.EvGCBegin:
		return o.gcBegin(ev, tab, c)
	case gotraceraw.EvGCEnd:
		return o.gcEnd(ev, tab, c)
	case gotraceraw.EvGCSweepActive:
		return o.sweepActive(ev, tab, gen, c)
	case gotraceraw.EvGCSweepBegin:
		return o.sweepBegin(ev, tab, c)
	case gotraceraw.EvGCSweepEnd:
		return o.sweepEnd(ev, tab, c)
	case gotraceraw.EvHeapAlloc, gotraceraw.EvHeapGoal:
		return o.heapMetric(ev, tab, c)
	case gotraceraw.EvUserTaskBegin:
		return o.taskBegin(ev, tab, c)
	case gotraceraw.EvUserTaskEnd:
		return o.taskEnd(ev, tab, c)
	case gotraceraw.EvUserRegionBegin, gotraceraw.EvUserRegionEnd:
		return o.regionBeginEnd(ev, tab, c)
	case gotraceraw.EvGoSwitch, gotraceraw.EvGoSwitchDestroy:
		return o.goSwitch(ev, tab, gen, c)
	default:
		if info[ev.typ].kind != KindExperimental {
			return c, false, wrapf(ErrEvent, "bad event type found while ordering: %v", uint8(ev.typ))
		}
		// Events that may or may not have a P, unvalidated otherwise.
		if err := check(c, reqs{must, may, may}); err != nil {
			return c, false, err
		}
		o.push(ev, tab, c)
		return c, true, nil
	}
}

func (o *ordering) procStatus(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	pid, status := ProcID(ev.args[0]), ev.args[1]
	if b := uint8(status); int(b) >= len(procStatusState) {
		// Go's parser reads a status as a byte, and names that byte.
		return c, false, wrapf(ErrState, "invalid status for proc %d: %d", pid, b)
	}
	if status > 0xff {
		// Go's parser takes a status by its low byte, but go tool trace
		// then crashes printing the P's transition: refused, so that no
		// validating writer writes it.
		return c, false, wrapf(ErrState, "invalid status for proc %d: %d", pid, status)
	}
	old := procStatusState[status]
	if s := o.ps.get(int64(pid)); s != nil {
		switch {
		case status == procSyscallAbandoned && s.status == procSyscall:
			// Abandoned is a kind of Syscall: nothing is lost when the P
			// was seen in a syscall already. It stays one.
			old = ProcRunning
			ev.args[1] = procSyscall
		case status == procSyscallAbandoned && s.status == procSyscallAbandoned:
			old = ProcIdle
			ev.args[1] = procSyscallAbandoned
		case s.status != status:
			return c, false, wrapf(ErrState, "inconsistent status for proc %d: old %v vs. new %v", pid, procStatusName(s.status), procStatusName(status))
		}
		s.seqGen, s.seq = gen, 0
	} else {
		o.ps.set(int64(pid), &pState{status: status, seqGen: gen})
		if gen == o.initialGen {
			old = ProcUndetermined
		} else {
			old = ProcNotExist
		}
	}
	ev.args[2] = uint64(old)
	next := c
	if status == procRunning || status == procSyscall {
		next.p = pid
	}
	// A P running a syscall that is about to be stolen: its status may be
	// written by another thread, but the event belongs to the thread the
	// P is bound to.
	// Where several threads hold the P (a broken trace), Go's parser takes
	// one in map order, at random; the lowest thread here, every time.
	if status == procSyscallAbandoned && old == ProcRunning {
		found := false
		for mid, ms := range o.ms {
			if ms.p == pid && (!found || mid < c.m) {
				c = schedCtx{g: ms.g, p: pid, m: mid}
				found = true
			}
		}
		if !found {
			return c, false, wrapf(ErrState, "failed to find sched context for proc %d that's about to be stolen", pid)
		}
	}
	o.push(ev, tab, c)
	return next, true, nil
}

func (o *ordering) procStart(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	pid := ProcID(ev.args[0])
	s := o.ps.get(int64(pid))
	ok := s != nil
	if !ok || s.status != procIdle || !seqNext(gen, ev.args[1], s.seqGen, s.seq) || c.p != NoProc {
		return c, false, nil // maybe later
	}
	if err := check(c, reqs{must, mustNot, may}); err != nil {
		return c, false, err
	}
	s.status, s.seqGen, s.seq = procRunning, gen, ev.args[1]
	next := c
	next.p = pid
	o.push(ev, tab, c)
	return next, true, nil
}

func (o *ordering) procStop(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	s := o.ps.get(int64(c.p))
	ok := s != nil
	if !ok {
		return c, false, wrapf(ErrState, "event %s for proc (%v) that doesn't exist", o.name(ev.typ), c.p)
	}
	if s.status != procRunning && s.status != procSyscall {
		return c, false, wrapf(ErrState, "%s event for proc that's not Running or Syscall", o.name(ev.typ))
	}
	if err := check(c, reqs{must, must, may}); err != nil {
		return c, false, err
	}
	s.status = procIdle
	next := c
	next.p = NoProc
	o.push(ev, tab, c)
	return next, true, nil
}

func (o *ordering) procSteal(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	pid := ProcID(ev.args[0])
	s := o.ps.get(int64(pid))
	ok := s != nil
	if !ok || (s.status != procSyscall && s.status != procSyscallAbandoned) || !seqNext(gen, ev.args[1], s.seqGen, s.seq) {
		return c, false, nil
	}
	if err := check(c, reqs{must, may, may}); err != nil {
		return c, false, err
	}
	// The status the steal found, for the transition it reports.
	old := s.status
	ev.args[3] = old
	s.status, s.seqGen, s.seq = procIdle, gen, ev.args[1]
	if old == procSyscallAbandoned {
		// The P's thread is unknown: leave the threads alone.
		o.push(ev, tab, c)
		return c, true, nil
	}
	victim := ThreadID(ev.args[2])
	next := c
	if victim == c.m {
		if c.p != pid {
			return c, false, wrapf(ErrState, "tried to self-steal proc %d (thread %d), but got proc %d instead", pid, victim, c.p)
		}
		next.p = NoProc
		o.push(ev, tab, c)
		return next, true, nil
	}
	vs, ok := o.ms[victim]
	if !ok {
		return c, false, wrapf(ErrState, "stole proc from non-existent thread %d", victim)
	}
	if vs.p != pid {
		return c, false, wrapf(ErrState, "tried to steal proc %d from thread %d, but got proc %d instead", pid, victim, vs.p)
	}
	// The victim, in a syscall, loses its P: its GoSyscallEndBlocked may
	// now come.
	vs.p = NoProc
	o.push(ev, tab, c)
	return next, true, nil
}

func (o *ordering) goStatus(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	// Go's parser reads a status as a byte: a GoStatus of 258 is one of
	// 2, and reads and prints so.
	gid, mid, status := GoID(ev.args[0]), ThreadID(ev.args[1]), uint64(uint8(ev.args[2]))
	if status >= uint64(len(goStatusState)) {
		return c, false, wrapf(ErrState, "invalid status for goroutine %d: %d", gid, status)
	}
	old := goStatusState[status]
	if s := o.gs.get(int64(gid)); s != nil {
		if s.status != status {
			return c, false, wrapf(ErrState, "inconsistent status for goroutine %d: old %v vs. new %v", gid, goStatusName(s.status), goStatusName(status))
		}
		s.seqGen, s.seq = gen, 0
	} else if gen == o.initialGen {
		o.gs.set(int64(gid), o.newG(gid, status, gen))
		old = GoUndetermined
	} else {
		return c, false, wrapf(ErrState, "found goroutine status for new goroutine after the first generation: id=%v status=%v", gid, goStatusName(status))
	}
	ev.args[2] = uint64(old)<<32 | status // both states, for the transition
	next := c
	switch status {
	case goRunning:
		next.g = gid
	case goSyscall:
		if mid == NoThread {
			return c, false, wrapf(ErrState, "found goroutine %d in syscall without a thread", gid)
		}
		if mid == c.m {
			if gen != o.initialGen && c.g != gid {
				// After the first generation this binding must have been
				// seen already.
				return c, false, wrapf(ErrState, "inconsistent thread for syscalling goroutine %d: thread has goroutine %d", gid, c.g)
			}
			next.g = gid
			break
		}
		// A goroutine sitting in a syscall on another thread the whole
		// generation: that thread has no P.
		if ms, ok := o.ms[mid]; ok {
			if ms.g != gid {
				return c, false, wrapf(ErrState, "inconsistent thread for syscalling goroutine %d: thread has goroutine %d", gid, ms.g)
			}
			c.g = ms.g
		} else {
			o.ms[mid] = &mState{g: gid, p: NoProc}
		}
		c.m = mid
	}
	o.push(ev, tab, c)
	return next, true, nil
}

func (o *ordering) goCreate(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	if err := check(c, reqs{must, must, may}); err != nil {
		return c, false, err
	}
	if s := o.gs.get(int64(c.g)); s != nil && s.status != goRunning {
		return c, false, wrapf(ErrState, "%s event for goroutine that's not Running", o.name(ev.typ))
	}
	id := GoID(ev.args[0])
	if o.gs.get(int64(id)) != nil {
		return c, false, wrapf(ErrState, "tried to create goroutine (%v) that already exists", id)
	}
	status := uint64(goRunnable)
	if ev.typ == gotraceraw.EvGoCreateBlocked {
		status = goWaiting
	}
	o.gs.set(int64(id), o.newG(id, status, gen))
	o.push(ev, tab, c)
	return c, true, nil
}

// running returns the state of c's goroutine, which must be running (or
// in want, for the syscall events).
func (o *ordering) running(ev *raw, c schedCtx, want uint64) (*gState, error) {
	s := o.gs.get(int64(c.g))
	ok := s != nil
	if !ok {
		return nil, wrapf(ErrState, "event %s for goroutine (%v) that doesn't exist", o.name(ev.typ), c.g)
	}
	if s.status != want {
		return nil, wrapf(ErrState, "%s event for goroutine that's not Running", o.name(ev.typ))
	}
	return s, nil
}

// goSwitch is a coroutine switch: the named goroutine is unblocked, the
// current one blocks (or exits), and the named one starts, on this thread.
func (o *ordering) goSwitch(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	cs, err := o.running(ev, c, goRunning)
	if err != nil {
		return c, false, err
	}
	nextID := GoID(ev.args[0])
	ns := o.gs.get(int64(nextID))
	if !ns.ready(goWaiting, gen, ev.args[1]) {
		return c, false, nil
	}
	o.push(ev, tab, c)
	switch ev.typ {
	case gotraceraw.EvGoSwitch:
		cs.status = goWaiting
		o.pushMade(gotraceraw.EvGoBlock, ev.time, tab, c, 0, 0)
	case gotraceraw.EvGoSwitchDestroy:
		o.deleteG(c.g)
		o.pushMade(gotraceraw.EvGoDestroy, ev.time, tab, c)
	}
	ns.take(goRunning, gen, ev.args[1])
	next := c
	next.g = nextID
	start := c
	start.g = NoGoroutine
	o.pushMade(gotraceraw.EvGoStart, ev.time, tab, start, uint64(nextID), ev.args[1])
	return next, true, nil
}

func (o *ordering) syscallBegin(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	s, err := o.running(ev, c, goRunning)
	if err != nil {
		return c, false, err
	}
	s.status = goSyscall
	ps := o.ps.get(int64(c.p))
	ok := ps != nil
	if !ok {
		return c, false, wrapf(ErrState, "uninitialized proc %d found during %s", c.p, o.name(ev.typ))
	}
	ps.status = procSyscall
	// The P's sequence number tells which syscall a later ProcSteal
	// steals from; on a running P it must be the next one.
	if !seqNext(gen, ev.args[0], ps.seqGen, ps.seq) {
		return c, false, wrapf(ErrState, "failed to advance %s: can't make sequence: %d (gen=%d) -> %d (gen=%d)", o.name(ev.typ), ps.seq, ps.seqGen, ev.args[0], gen)
	}
	ps.seqGen, ps.seq = gen, ev.args[0]
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) syscallEnd(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	s, err := o.running(ev, c, goSyscall)
	if err != nil {
		return c, false, err
	}
	s.status = goRunning
	ps := o.ps.get(int64(c.p))
	ok := ps != nil
	if !ok {
		return c, false, wrapf(ErrState, "uninitialized proc %d found during %s", c.p, o.name(ev.typ))
	}
	if ps.status != procSyscall {
		return c, false, wrapf(ErrState, "expected proc %d in state Syscall, but got %v instead", c.p, procStatusName(ps.status))
	}
	ps.status = procRunning
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) syscallEndBlocked(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	// It waits for its thread to lose the P it had in the syscall (to a
	// ProcStop or a ProcSteal); another P taken since is fine.
	if c.p != NoProc {
		ps := o.ps.get(int64(c.p))
		ok := ps != nil
		if !ok {
			return c, false, wrapf(ErrState, "uninitialized proc %d found during %s", c.p, o.name(ev.typ))
		}
		if ps.status == procSyscall {
			return c, false, nil
		}
	}
	if err := check(c, reqs{must, may, must}); err != nil {
		return c, false, err
	}
	s, err := o.running(ev, c, goSyscall)
	if err != nil {
		return c, false, err
	}
	next := c
	next.g = NoGoroutine
	s.status = goRunnable
	o.push(ev, tab, c)
	return next, true, nil
}

func (o *ordering) goCreateSyscall(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	// A goroutine made for a cgo callback: it starts in a syscall.
	if err := check(c, reqs{must, may, mustNot}); err != nil {
		return c, false, err
	}
	id := GoID(ev.args[0])
	if o.gs.get(int64(id)) != nil {
		return c, false, wrapf(ErrState, "tried to create goroutine (%v) in syscall that already exists", id)
	}
	o.gs.set(int64(id), o.newG(id, goSyscall, gen))
	next := c
	next.g = id
	o.push(ev, tab, c)
	return next, true, nil
}

func (o *ordering) goDestroySyscall(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	// A cgo callback's goroutine goes away; the thread gives up its P too,
	// as its ID may be reused by a new thread.
	if err := check(c, reqs{must, may, must}); err != nil {
		return c, false, err
	}
	s := o.gs.get(int64(c.g))
	ok := s != nil
	if !ok {
		return c, false, wrapf(ErrState, "event %s for goroutine (%v) that doesn't exist", o.name(ev.typ), c.g)
	}
	if s.status != goSyscall {
		return c, false, wrapf(ErrState, "%s event for goroutine that's not Syscall", o.name(ev.typ))
	}
	o.deleteG(c.g)
	next := c
	next.g = NoGoroutine
	if c.p != NoProc {
		ps := o.ps.get(int64(c.p))
		ok := ps != nil
		if !ok {
			return c, false, wrapf(ErrState, "found invalid proc %d during %s", c.p, o.name(ev.typ))
		}
		if ps.status != procSyscall {
			return c, false, wrapf(ErrState, "proc %d in unexpected state %s during %s", c.p, procStatusName(ps.status), o.name(ev.typ))
		}
		ps.status = procSyscallAbandoned
		next.p = NoProc
		// The thread steals its own P back, as far as the trace can tell.
		e := o.pushMade(gotraceraw.EvProcSteal, ev.time, tab, c, uint64(c.p))
		e.args[3] = procSyscall
	}
	o.push(ev, tab, c)
	return next, true, nil
}

func (o *ordering) taskBegin(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	// Tasks may end without a begin and end many times; an ID may be
	// reused after its end. Only a begin of a task in progress is wrong.
	id := TaskID(ev.args[0])
	if _, ok := o.tasks[id]; ok {
		return c, false, wrapf(ErrState, "task ID conflict: %d", id)
	}
	parent := TaskID(ev.args[1])
	if parent == BackgroundTask {
		parent = NoTask // 0 means no parent here
		ev.args[1] = uint64(NoTask)
	}
	name, ok := tab.strs.get(ev.args[2])
	if !ok {
		return c, false, wrapf(ErrTable, "invalid string ID %v for %v event", ev.args[2], uint8(ev.typ))
	}
	o.tasks[id] = taskState{name: name, parent: parent}
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) taskEnd(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	id := TaskID(ev.args[0])
	name := ""
	if t, ok := o.tasks[id]; ok {
		// The begin may be in an earlier generation: its name is carried
		// as a string, its parent in the spare argument.
		ev.args[2] = uint64(t.parent)
		name = t.name
		delete(o.tasks, id)
	} else {
		ev.args[2] = uint64(NoTask)
	}
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c).name = name
	return c, true, nil
}

func (o *ordering) regionBeginEnd(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	name, ok := tab.strs.get(ev.args[1])
	if !ok {
		return c, false, wrapf(ErrTable, "invalid string ID %v for %v event", ev.args[1], uint8(ev.typ))
	}
	s := o.gs.get(int64(c.g))
	if s == nil {
		return c, false, wrapf(ErrState, "encountered %s without known state for current goroutine %d", evName(ev.typ), c.g)
	}
	r := region{task: ev.args[0], name: name}
	if ev.typ == gotraceraw.EvUserRegionBegin {
		s.regions = append(s.regions, r)
	} else if n := len(s.regions); n > 0 {
		// Regions begun before the trace started are not known: an end
		// with none open is fine.
		if top := s.regions[n-1]; top != r {
			return c, false, wrapf(ErrState, "misuse of region in goroutine %v: region end {%d %s} when the inner-most active region start event is {%d %s}", c.g, r.task, r.name, top.task, top.name)
		}
		s.regions = s.regions[:n-1]
	}
	o.push(ev, tab, c)
	return c, true, nil
}

// evName is Go's constant name of an event type, as one message says it.
func evName(t gotraceraw.EventType) string { return "Ev" + t.String() }

func (o *ordering) gcActive(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	seq := ev.args[0]
	if gen == o.initialGen {
		if o.gcState != gcUndetermined {
			return c, false, wrapf(ErrState, "GCActive in the first generation isn't first GC event")
		}
		o.gcSeq, o.gcState = seq, gcRunning
		o.push(ev, tab, c)
		return c, true, nil
	}
	if seq != o.gcSeq+1 {
		return c, false, nil // another cycle's
	}
	if o.gcState != gcRunning {
		return c, false, wrapf(ErrState, "encountered GCActive while GC was not in progress")
	}
	o.gcSeq = seq
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) gcBegin(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	seq := ev.args[0]
	if o.gcState == gcUndetermined {
		o.gcSeq, o.gcState = seq, gcRunning
		o.push(ev, tab, c)
		return c, true, nil
	}
	if seq != o.gcSeq+1 {
		return c, false, nil
	}
	if o.gcState == gcRunning {
		return c, false, wrapf(ErrState, "encountered GCBegin while GC was already in progress")
	}
	o.gcSeq, o.gcState = seq, gcRunning
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) gcEnd(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	seq := ev.args[0]
	if seq != o.gcSeq+1 {
		return c, false, nil
	}
	if o.gcState == gcNotRunning {
		return c, false, wrapf(ErrState, "encountered GCEnd when GC was not in progress")
	}
	if o.gcState == gcUndetermined {
		return c, false, wrapf(ErrState, "encountered GCEnd when GC was in an undetermined state")
	}
	o.gcSeq, o.gcState = seq, gcNotRunning
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) annotation(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) heapMetric(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	if err := check(c, reqs{must, must, may}); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) sweepBegin(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	if err := check(c, reqs{must, must, may}); err != nil {
		return c, false, err
	}
	if err := o.ps.get(int64(c.p)).ranges.begin(rangeOf(ev.typ, 0)); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) sweepActive(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	pid := ProcID(ev.args[0])
	ps := o.ps.get(int64(pid))
	ok := ps != nil
	if !ok {
		return c, false, wrapf(ErrState, "encountered GCSweepActive for unknown proc %d", pid)
	}
	if err := ps.ranges.active(rangeOf(ev.typ, 0), gen == o.initialGen); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) sweepEnd(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	if err := check(c, reqs{must, must, may}); err != nil {
		return c, false, err
	}
	if _, err := o.ps.get(int64(c.p)).ranges.end(ev.typ); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) goRangeBegin(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	desc := uint64(0)
	if ev.typ == gotraceraw.EvSTWBegin {
		desc = ev.args[0]
	}
	s := o.gs.get(int64(c.g))
	ok := s != nil
	if !ok {
		return c, false, wrapf(ErrState, "encountered event of type %d without known state for current goroutine %d", ev.typ, c.g)
	}
	if err := s.ranges.begin(rangeOf(ev.typ, desc)); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) goRangeActive(ev *raw, tab *tables, gen uint64, c schedCtx) (schedCtx, bool, error) {
	// Like a status, about a goroutine that need not be running here.
	id := GoID(ev.args[0])
	s := o.gs.get(int64(id))
	ok := s != nil
	if !ok {
		return c, false, wrapf(ErrState, "uninitialized goroutine %d found during %s", id, o.name(ev.typ))
	}
	if err := s.ranges.active(rangeOf(ev.typ, 0), gen == o.initialGen); err != nil {
		return c, false, err
	}
	o.push(ev, tab, c)
	return c, true, nil
}

func (o *ordering) goRangeEnd(ev *raw, tab *tables, c schedCtx) (schedCtx, bool, error) {
	if err := checkUserGo(c); err != nil {
		return c, false, err
	}
	s := o.gs.get(int64(c.g))
	ok := s != nil
	if !ok {
		return c, false, wrapf(ErrState, "encountered event of type %d without known state for current goroutine %d", ev.typ, c.g)
	}
	desc, err := s.ranges.end(ev.typ)
	if err != nil {
		return c, false, err
	}
	if ev.typ == gotraceraw.EvSTWEnd {
		ev.args[0] = desc // the reason its begin gave
	}
	o.push(ev, tab, c)
	return c, true, nil
}

// queue is a ring of the events the ordering has let through, oldest
// first; it grows only when an advance queues more than it holds.
type queue struct {
	buf        []Event
	head, size int
}

func (q *queue) reset() {
	clear(q.buf)
	q.head, q.size = 0, 0
}

// add makes room for one more event at the back and returns it. Kept
// out of line, so that slot, which takes the caller's Event in the
// common case, is inlined.
//
//go:noinline
func (q *queue) add() *Event {
	if q.size == len(q.buf) {
		nb := make([]Event, max(4, 2*len(q.buf)))
		for i := 0; i < q.size; i++ {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	e := &q.buf[(q.head+q.size)%len(q.buf)]
	q.size++
	return e
}

// pop moves the oldest event into dst.
func (q *queue) pop(dst *Event) bool {
	if q.size == 0 {
		return false
	}
	*dst = q.buf[q.head]
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return true
}
