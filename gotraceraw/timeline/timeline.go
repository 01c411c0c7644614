// Package timeline writes Go execution traces as timelines: Chrome
// trace-event JSON, which Perfetto's UI (ui.perfetto.dev) and
// chrome://tracing open.
//
// A Writer takes the events of a trace as package parsed's Reader returns
// them and writes each as it comes, so memory does not grow with the trace,
// only with what is open at one time (goroutines alive, ranges, tasks and
// regions not yet ended). What it shows:
//
//   - Goroutines: a track per goroutine, named by its start function, with
//     its states as spans: "running", "runnable", "blocked: REASON" (the
//     runtime's words: "chan receive", "sync", "sleep"…), "syscall"; its
//     log messages and CPU profile samples as instant events.
//   - Procs: a track per P, with the goroutines that ran on it.
//   - Threads: a track per M, with the goroutines it ran or held in a
//     syscall.
//   - GC: the trace's ranges (GC phases, stop-the-world pauses, mark
//     assists, sweeps) as async spans, each saying the goroutine or P it
//     belongs to where it has one; the runtime's metrics (heap size and
//     goal, GOMAXPROCS) as counters.
//   - Tasks: user tasks as async spans; Regions: a track per goroutine
//     with its user regions, nested.
//
// The JSON is about forty times the size of the trace (a busy program's),
// more than a browser takes in for a long trace: cut a large trace first
// (gotracefilter -gens, -from and -to keep whole generations).
//
// Every span that begins ends: what is still open when the trace ends is
// closed at the trace's last timestamp, and an end whose begin came before
// the trace (a task or region already open) is left out. Times are
// microseconds from the trace's first event, printed with nanosecond
// digits: exactly the trace's own nanoseconds.
package timeline

import (
	"cmp"
	"errors"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/internal/chromejson"
)

// Process ids of the timeline's groups of tracks.
const (
	pidGoroutines = 1 + iota
	pidProcs
	pidThreads
	pidGC
	pidTasks
	pidRegions
)

var pidNames = [...]string{pidGoroutines: "Goroutines", pidProcs: "Procs", pidThreads: "Threads", pidGC: "GC and ranges", pidTasks: "Tasks", pidRegions: "Regions"}

// maxReasons bounds the names of blocking reasons kept (the runtime has
// a few dozen).
const maxReasons = 256

// rangeIDs sets ranges' async ids apart from tasks', which are the
// tasks' own ids.
const rangeIDs = 1 << 62

// maxSampleFrames is how many frames of a CPU sample's stack its instant
// event lists.
const maxSampleFrames = 32

// ErrClosed means Write or Close was called after Close.
var ErrClosed = errors.New("timeline: writer closed")

// ErrNotOpen means a zero or nil Writer, or a nil destination.
var ErrNotOpen = errors.New("timeline: not open (use NewWriter)")

// Writer writes one trace's timeline.
type Writer struct {
	cw      *chromejson.Writer
	b       []byte
	started bool
	t0      parsed.Time // time of the first event: the timeline's zero
	last    parsed.Time
	gs      map[parsed.GoID]*goTrack
	ps      map[parsed.ProcID]*slot
	ms      map[parsed.ThreadID]*slot
	ranges  map[rangeKey]uint64 // open ranges -> async id
	tasks   map[parsed.TaskID]string
	blocked map[string]string // "blocked: REASON" by reason
	scratch []byte
	nextID  uint64
	err     error
	closed  bool
}

// goTrack is a goroutine's open spans.
type goTrack struct {
	name    string
	state   string // the open state span's name, "" when none
	regions []string
	// regionTrack says its track of regions is named.
	regionTrack bool
	proc        parsed.ProcID
	thread      parsed.ThreadID
}

// slot is a P's or M's open span: the goroutine it runs.
type slot struct {
	open  bool
	owner parsed.GoID
}

type rangeKey struct {
	name  string
	scope parsed.ResourceID
}

// NewWriter starts a timeline on w.
func NewWriter(w io.Writer) (*Writer, error) {
	if w == nil {
		return nil, ErrNotOpen
	}
	tw := &Writer{
		cw:      chromejson.NewWriter(w),
		gs:      map[parsed.GoID]*goTrack{},
		ps:      map[parsed.ProcID]*slot{},
		ms:      map[parsed.ThreadID]*slot{},
		ranges:  map[rangeKey]uint64{},
		tasks:   map[parsed.TaskID]string{},
		blocked: map[string]string{},
	}
	for pid := pidGoroutines; pid < len(pidNames); pid++ {
		tw.b = append(tw.b[:0], `{"name":"process_name","ph":"M","pid":`...)
		tw.b = strconv.AppendInt(tw.b, int64(pid), 10)
		tw.b = append(tw.b, `,"args":{"name":`...)
		tw.b = chromejson.AppendString(tw.b, pidNames[pid])
		tw.b = append(tw.b, `}},{"name":"process_sort_index","ph":"M","pid":`...)
		tw.b = strconv.AppendInt(tw.b, int64(pid), 10)
		tw.b = append(tw.b, `,"args":{"sort_index":`...)
		tw.b = strconv.AppendInt(tw.b, int64(pid), 10)
		tw.b = append(tw.b, "}}"...)
		tw.cw.Event(tw.b)
	}
	return tw, nil
}

// head starts an event: name, phase, track and time.
func (w *Writer) head(name string, ph byte, pid int, tid int64, t parsed.Time) {
	w.headName(chromejson.AppendString(append(w.b[:0], `{"name":`...), name), ph, pid, tid, t)
}

// headName is head with the event's start, through its name, in b.
func (w *Writer) headName(b []byte, ph byte, pid int, tid int64, t parsed.Time) {
	b = append(b, `,"ph":"`...)
	b = append(b, ph)
	b = append(b, `","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, tid, 10)
	b = append(b, `,"ts":`...)
	w.b = chromejson.AppendMicros(b, uint64(t-w.t0), 1e9)
}

// emit ends the event being built and writes it.
func (w *Writer) emit() {
	w.b = append(w.b, '}')
	w.put(w.b)
}

// put writes one whole event, keeping the destination's first failure for
// Write to return.
func (w *Writer) put(b []byte) {
	if err := w.cw.Event(b); err != nil && w.err == nil {
		w.err = err
	}
}

func (w *Writer) begin(name string, pid int, tid int64, t parsed.Time) {
	w.head(name, 'B', pid, tid, t)
	w.emit()
}

func (w *Writer) end(pid int, tid int64, t parsed.Time) {
	w.head("", 'E', pid, tid, t)
	w.emit()
}

// threadName names a track.
func (w *Writer) threadName(pid int, tid int64, name string) {
	b := append(w.b[:0], `{"name":"thread_name","ph":"M","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, tid, 10)
	b = append(b, `,"args":{"name":`...)
	b = chromejson.AppendString(b, name)
	w.b = append(b, "}}"...)
	w.put(w.b)
}

// async writes a nestable async begin or end ('b', 'e').
func (w *Writer) async(ph byte, cat, name string, pid int, id uint64, t parsed.Time, args func(b []byte) []byte) {
	w.head(name, ph, pid, 0, t)
	w.b = append(w.b, `,"cat":`...)
	w.b = chromejson.AppendString(w.b, cat)
	w.b = append(w.b, `,"id":"0x`...)
	w.b = strconv.AppendUint(w.b, id, 16)
	w.b = append(w.b, '"')
	if args != nil {
		w.b = append(w.b, `,"args":{`...)
		w.b = args(w.b)
		w.b = append(w.b, '}')
	}
	w.emit()
}

// Write adds one event of the trace, in the order the Reader gives them.
func (w *Writer) Write(ev *parsed.Event) error {
	switch {
	case w == nil || w.cw == nil:
		return ErrNotOpen
	case w.closed:
		return ErrClosed
	case w.err != nil:
		return w.err
	case ev == nil:
		return errors.New("timeline: nil event")
	}
	if !w.started {
		w.started, w.t0 = true, ev.Time
	}
	if ev.Time < w.last {
		// The Reader's events never go back; a caller's might.
		w.err = errors.New("timeline: event " + strconv.FormatInt(int64(ev.Time), 10) + " goes back in time")
		return w.err
	}
	w.last = ev.Time
	switch ev.Kind {
	case parsed.KindStateTransition:
		st := ev.StateTransition()
		switch st.Resource.Kind {
		case parsed.ResourceGoroutine:
			w.goTransition(ev, parsed.GoID(st.Resource.ID), st)
		}
	case parsed.KindRangeBegin, parsed.KindRangeActive:
		r := ev.Range()
		k := rangeKey{r.Name, r.Scope}
		if _, open := w.ranges[k]; open {
			break // a range still active at a new generation
		}
		w.nextID++
		id := rangeIDs | w.nextID
		w.ranges[k] = id
		w.async('b', "range", r.Name, pidGC, id, ev.Time, func(b []byte) []byte {
			if r.Scope.Kind == parsed.ResourceNone {
				return append(b, `"scope":"trace"`...)
			}
			b = append(b, `"scope":`...)
			return chromejson.AppendString(b, r.Scope.String())
		})
	case parsed.KindRangeEnd:
		r := ev.Range()
		k := rangeKey{r.Name, r.Scope}
		if id, open := w.ranges[k]; open {
			delete(w.ranges, k)
			w.async('e', "range", r.Name, pidGC, id, ev.Time, nil)
		}
	case parsed.KindTaskBegin:
		tk := ev.Task()
		if _, open := w.tasks[tk.ID]; !open {
			w.tasks[tk.ID] = tk.Type
			w.async('b', "task", tk.Type, pidTasks, uint64(tk.ID), ev.Time, func(b []byte) []byte {
				b = append(b, `"id":`...)
				b = strconv.AppendUint(b, uint64(tk.ID), 10)
				if tk.Parent != parsed.NoTask {
					b = append(b, `,"parent":`...)
					b = strconv.AppendUint(b, uint64(tk.Parent), 10)
				}
				return b
			})
		}
	case parsed.KindTaskEnd:
		tk := ev.Task()
		if name, open := w.tasks[tk.ID]; open {
			delete(w.tasks, tk.ID)
			w.async('e', "task", name, pidTasks, uint64(tk.ID), ev.Time, nil)
		}
	case parsed.KindRegionBegin:
		g := w.goroutine(ev.Goroutine, ev)
		if g == nil {
			break
		}
		r := ev.Region()
		if !g.regionTrack {
			g.regionTrack = true
			w.threadName(pidRegions, int64(ev.Goroutine), g.name)
		}
		g.regions = append(g.regions, r.Type)
		w.begin(r.Type, pidRegions, int64(ev.Goroutine), ev.Time)
	case parsed.KindRegionEnd:
		if g := w.gs[ev.Goroutine]; g != nil && len(g.regions) > 0 {
			g.regions = g.regions[:len(g.regions)-1]
			w.end(pidRegions, int64(ev.Goroutine), ev.Time)
		}
	case parsed.KindLog:
		l := ev.Log()
		w.head(l.Message, 'i', pidGoroutines, int64(ev.Goroutine), ev.Time)
		w.b = append(w.b, `,"s":"t","cat":"log","args":{"category":`...)
		w.b = chromejson.AppendString(w.b, l.Category)
		w.b = append(w.b, `,"message":`...)
		w.b = chromejson.AppendString(w.b, l.Message)
		w.b = append(w.b, '}')
		w.emit()
	case parsed.KindMetric:
		m := ev.Metric()
		w.head(m.Name, 'C', pidGC, 0, ev.Time)
		w.b = append(w.b, `,"args":{"value":`...)
		w.b = strconv.AppendUint(w.b, m.Value, 10)
		w.b = append(w.b, '}')
		w.emit()
	case parsed.KindStackSample:
		frames := ev.Stack().Frames()
		name := "CPU sample"
		if len(frames) > 0 {
			name = frames[0].Func
		}
		tid := int64(ev.Goroutine)
		pid := pidGoroutines
		if ev.Goroutine == parsed.NoGoroutine {
			pid, tid = pidThreads, int64(ev.Thread)
		}
		w.head(name, 'i', pid, tid, ev.Time)
		w.b = append(w.b, `,"s":"t","cat":"cpu","args":{"stack":`...)
		s := w.scratch[:0]
		for i, f := range frames {
			if i == maxSampleFrames {
				s = append(s, "\n…"...)
				break
			}
			if i > 0 {
				s = append(s, '\n')
			}
			s = append(s, f.Func...)
		}
		w.scratch = s
		w.b = chromejson.AppendString(w.b, s)
		w.b = append(w.b, '}')
		w.emit()
	}
	return w.err
}

// goroutine returns the track of g, naming it the first time.
func (w *Writer) goroutine(id parsed.GoID, ev *parsed.Event) *goTrack {
	if id == parsed.NoGoroutine {
		return nil
	}
	g := w.gs[id]
	if g == nil {
		g = &goTrack{proc: parsed.NoProc, thread: parsed.NoThread}
		w.gs[id] = g
		name := "G" + strconv.FormatInt(int64(id), 10)
		if st := ev.StateTransition(); st.Resource.Kind == parsed.ResourceGoroutine && parsed.GoID(st.Resource.ID) == id {
			// The root of its stack is the function it started in.
			if fr := st.Stack.Frames(); len(fr) > 0 {
				name += " " + fr[len(fr)-1].Func
			}
		}
		g.name = name
		w.threadName(pidGoroutines, int64(id), name)
	}
	return g
}

// goTransition moves a goroutine's state span, and its spans on the P and
// M tracks.
func (w *Writer) goTransition(ev *parsed.Event, id parsed.GoID, st parsed.StateTransition) {
	from, to := st.Goroutine()
	if from == to && from != parsed.GoUndetermined {
		return
	}
	g := w.goroutine(id, ev)
	t := ev.Time
	if g.state != "" {
		w.end(pidGoroutines, int64(id), t)
		g.state = ""
	}
	w.leave(id, g, t)
	switch to {
	case parsed.GoRunning:
		g.state = "running"
	case parsed.GoRunnable:
		g.state = "runnable"
	case parsed.GoWaiting:
		// one string per reason, not one per event
		var ok bool
		if g.state, ok = w.blocked[st.Reason]; !ok {
			g.state = "blocked"
			if st.Reason != "" {
				g.state += ": " + st.Reason
			}
			if len(w.blocked) < maxReasons {
				w.blocked[st.Reason] = g.state
			}
		}
	case parsed.GoSyscall:
		g.state = "syscall"
	case parsed.GoNotExist:
		for range g.regions {
			w.end(pidRegions, int64(id), t)
		}
		delete(w.gs, id)
		return
	}
	w.begin(g.state, pidGoroutines, int64(id), t)
	if to == parsed.GoRunning || to == parsed.GoSyscall {
		// Where it runs: the P and M of the event, or for a goroutine
		// started by another's event (GoStart has none), the same.
		name := strconv.AppendInt(append(w.scratch[:0], 'G'), int64(id), 10)
		if to == parsed.GoSyscall {
			name = append(name, " syscall"...)
		}
		w.scratch = name
		if ev.Proc != parsed.NoProc && to == parsed.GoRunning {
			g.proc = ev.Proc
			w.occupy(slotOf(w, w.ps, ev.Proc, pidProcs, "P"), id, pidProcs, int64(ev.Proc), name, t)
		}
		if ev.Thread != parsed.NoThread {
			g.thread = ev.Thread
			w.occupy(slotOf(w, w.ms, ev.Thread, pidThreads, "M"), id, pidThreads, int64(ev.Thread), name, t)
		}
	}
}

// leave ends a goroutine's spans on its P and M, where they are still
// its own.
func (w *Writer) leave(id parsed.GoID, g *goTrack, t parsed.Time) {
	if g.proc != parsed.NoProc {
		if s := w.ps[g.proc]; s != nil && s.open && s.owner == id {
			s.open = false
			w.end(pidProcs, int64(g.proc), t)
		}
		g.proc = parsed.NoProc
	}
	if g.thread != parsed.NoThread {
		if s := w.ms[g.thread]; s != nil && s.open && s.owner == id {
			s.open = false
			w.end(pidThreads, int64(g.thread), t)
		}
		g.thread = parsed.NoThread
	}
}

// slotOf returns the track of a P or M, naming it the first time.
func slotOf[K ~int64](w *Writer, m map[K]*slot, k K, pid int, prefix string) *slot {
	s := m[k]
	if s == nil {
		s = &slot{}
		m[k] = s
		w.threadName(pid, int64(k), prefix+strconv.FormatInt(int64(k), 10))
	}
	return s
}

// occupy starts a goroutine's span on a P or M track, ending the one open
// there.
func (w *Writer) occupy(s *slot, owner parsed.GoID, pid int, tid int64, name []byte, t parsed.Time) {
	if s.open {
		w.end(pid, tid, t)
	}
	s.open, s.owner = true, owner
	w.headName(chromejson.AppendString(append(w.b[:0], `{"name":`...), name), 'B', pid, tid, t)
	w.emit()
}

// Close ends every span still open at the trace's last time, finishes the
// JSON and flushes it. It does not close the underlying writer.
func (w *Writer) Close() error {
	switch {
	case w == nil || w.cw == nil:
		return ErrNotOpen
	case w.closed:
		return ErrClosed
	}
	w.closed = true
	t := w.last
	for _, id := range slices.Sorted(maps.Keys(w.gs)) {
		g := w.gs[id]
		if g.state != "" {
			w.end(pidGoroutines, int64(id), t)
		}
		for range g.regions {
			w.end(pidRegions, int64(id), t)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(w.ps)) {
		if w.ps[id].open {
			w.end(pidProcs, int64(id), t)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(w.ms)) {
		if w.ms[id].open {
			w.end(pidThreads, int64(id), t)
		}
	}
	// ranges in the order they began
	open := make([]rangeKey, 0, len(w.ranges))
	for k := range w.ranges {
		open = append(open, k)
	}
	slices.SortFunc(open, func(a, b rangeKey) int { return cmp.Compare(w.ranges[a], w.ranges[b]) })
	for _, k := range open {
		w.async('e', "range", k.name, pidGC, w.ranges[k], t, nil)
	}
	for _, id := range slices.Sorted(maps.Keys(w.tasks)) {
		w.async('e', "task", w.tasks[id], pidTasks, uint64(id), t, nil)
	}
	b := append(w.b[:0], `,"displayTimeUnit":"ns","otherData":{"format":"go execution trace","firstTime":`...)
	b = strconv.AppendInt(b, int64(w.t0), 10)
	b = append(b, '}')
	if err := w.cw.End(b); err != nil {
		return err
	}
	return w.err
}
