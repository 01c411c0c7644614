package xrayfdr

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/tracefmt/tracefmt/xrayfdr/internal/llvmorder"
)

// EventKind is the kind of an expanded event.
type EventKind uint8

// Event kinds, with llvm-xray's numbering.
const (
	EventEnter EventKind = iota
	EventExit
	EventTailExit
	EventEnterArg
	EventCustom
	EventTyped
)

var eventKindNames = [...]string{"function-enter", "function-exit", "function-tail-exit",
	"function-enter-arg", "custom-event", "typed-event"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is a function entry or exit, or a custom or typed event, with
// absolute time and its thread, as llvm-xray expands FDR records.
type Event struct {
	// RecordType is the event type of the last typed event of the thread
	// (llvm-xray keeps it on every later event of the thread; 0 before).
	RecordType uint16
	CPU        uint16
	Kind       EventKind
	// FuncID is the function; custom and typed events carry the id of
	// the thread's previous function record, as in llvm-xray.
	FuncID int32
	// extra numbers the event's call arguments and payload in the Trace
	// (1 for the first; 0: none), see Trace.Args and Trace.Data. An Event
	// holds no pointer, so millions of them cost the garbage collector
	// nothing, and takes 32 bytes.
	extra uint32
	TSC   uint64
	TID   uint32
	PID   uint32 // 0 in version 1 logs; the thread id in version 2 logs
}

// eventExtra is where an event's call arguments and payload are.
type eventExtra struct {
	argOff, argN uint32
	dataN        uint32
	dataOff      int64
}

// Trace is an expanded log.
type Trace struct {
	Header Header
	Events []Event
	extras []eventExtra
	args   []uint64
	data   []byte
	names  *nameTable // function names for YAML (WriteYAMLNames)
}

// extraOf returns where e's arguments and payload are, or nil.
func (t *Trace) extraOf(e *Event) *eventExtra {
	if t == nil || e == nil || e.extra == 0 || int(e.extra) > len(t.extras) {
		return nil
	}
	return &t.extras[e.extra-1]
}

// Args returns the call arguments of e (an EventEnterArg).
func (t *Trace) Args(e *Event) []uint64 {
	x := t.extraOf(e)
	if x == nil || x.argN == 0 || uint64(x.argOff)+uint64(x.argN) > uint64(len(t.args)) {
		return nil
	}
	return t.args[x.argOff : x.argOff+x.argN : x.argOff+x.argN]
}

// Data returns the payload of e (a custom or typed event); it points into
// the log's bytes.
func (t *Trace) Data(e *Event) []byte {
	x := t.extraOf(e)
	if x == nil || x.dataN == 0 || x.dataOff < 0 || x.dataOff+int64(x.dataN) > int64(len(t.data)) {
		return nil
	}
	return t.data[x.dataOff : x.dataOff+int64(x.dataN) : x.dataOff+int64(x.dataN)]
}

// Expand reads a whole log (FDR or basic mode) and returns its events the
// way llvm-xray convert does: blocks verified, grouped by process and
// thread in llvm-xray's order, each thread's blocks sorted by wall time
// with llvm-xray's comparator and sort algorithm, expanded, then (when
// sortByTSC) stably sorted by TSC. Event payloads point into data. The
// order is the newest llvm-xray's; LLVM.Expand gives another's.
func Expand(data []byte, sortByTSC bool) (*Trace, error) {
	return expand(data, sortByTSC, LLVM19)
}

func expand(data []byte, sortByTSC bool, llvm LLVM) (*Trace, error) {
	if len(data) < 4 {
		return nil, &FormatError{Offset: 0, Err: io.ErrUnexpectedEOF, LLVM: "File too small for XRay."}
	}
	var (
		h      Header
		evs    []Event
		extras []eventExtra
		args   []uint64
		err    error
	)
	if len(data) >= HeaderSize {
		h = parseHeader(data)
	}
	switch {
	case len(data) >= HeaderSize && h.Type == TypeBasic && h.Version >= 1 && h.Version <= 3:
		evs, extras, args, err = expandBasic(data)
	case len(data) >= HeaderSize && h.Type == TypeFDR && h.Version >= 1 && h.Version <= 5:
		evs, extras, args, err = expandFDR(data, sortByTSC, llvm)
		sortByTSC = false // done
	case len(data) < HeaderSize:
		return nil, &FormatError{Offset: int64(len(data)), Err: io.ErrUnexpectedEOF, LLVM: "Not enough bytes for an XRay log."}
	default:
		msg := ""
		if h.Type == TypeFDR {
			msg = fmt.Sprintf("Unsupported version for FDR Mode logging: %d", h.Version)
		} else if h.Type == TypeBasic {
			msg = fmt.Sprintf("Unsupported version for Basic/Naive Mode logging: %d", h.Version)
		}
		return nil, &FormatError{Offset: 0, Err: ErrHeader, LLVM: msg}
	}
	if err != nil {
		return nil, err
	}
	if sortByTSC {
		evs = sortEvents(evs)
	}
	return &Trace{Header: h, Events: evs, extras: extras, args: args, data: data}, nil
}

func expandBasic(data []byte) ([]Event, []eventExtra, []uint64, error) {
	if len(data) == HeaderSize || len(data)%BasicSize != 0 {
		return nil, nil, nil, &FormatError{Offset: int64(len(data) / BasicSize * BasicSize), Err: io.ErrUnexpectedEOF, LLVM: "Invalid-sized XRay data."}
	}
	rd, err := NewBytesReader(data)
	if err != nil {
		return nil, nil, nil, err
	}
	evs := make([]Event, 0, len(data)/BasicSize)
	var (
		extras []eventExtra
		args   []uint64
	)
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return evs, extras, args, nil
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if rec.Kind == KindCallArg {
			e := &evs[len(evs)-1] // the Reader checked that one precedes
			if e.extra == 0 {
				extras = append(extras, eventExtra{argOff: uint32(len(args))})
				e.extra = uint32(len(extras))
			}
			args = append(args, rec.Arg)
			extras[e.extra-1].argN++
			continue
		}
		evs = append(evs, Event{CPU: rec.CPU, Kind: EventKind(rec.Action), FuncID: rec.FuncID,
			TSC: rec.TSC, TID: uint32(rec.TID), PID: uint32(rec.PID)})
	}
}

func expandFDR(data []byte, sortByTSC bool, llvm LLVM) ([]Event, []eventExtra, []uint64, error) {
	rd := &Reader{}
	if err := rd.ResetBytes(data); err != nil {
		return nil, nil, nil, err
	}
	groups, err := indexBlocks(rd, data, llvm)
	if err != nil {
		return nil, nil, nil, err
	}
	h := rd.h
	br := blockReader(data, h)
	// Blocks are verified while they are expanded, in one pass; on a
	// failure they are verified again in llvm-xray's order so the error
	// reported is the one llvm-xray reports.
	slots := make([]slot, 0, len(data)/FunctionSize)
	x := expander{version: h.Version}
	var v Verifier
	for _, g := range groups {
		blocks := slices.Clone(g.Blocks) // file order stays for verifyGroups
		sortBlocks(blocks)
		x.reset()
		var rec Record
		for i := range blocks {
			v.Reset()
			it := blocks[i].iter(br)
			var err error
			for {
				if act, id, d, off, ok := it.function(); ok {
					if err = v.step(StateFunction, off); err != nil {
						break
					}
					x.function(act, id, d, &slots)
					continue
				}
				var ok bool
				if ok, err = it.next(&rec); !ok {
					break
				}
				if err = v.Next(&rec); err != nil {
					break
				}
				x.visit(&rec, &slots)
			}
			if err == nil {
				err = v.End()
			}
			if err != nil {
				return nil, nil, nil, verifyGroups(br, groups)
			}
		}
		x.emit(&slots)
	}
	var evs []Event
	if sortByTSC {
		evs = sortSlots(slots, x.ctxs)
	} else {
		evs = make([]Event, len(slots))
		for i := range slots {
			slots[i].fill(&evs[i], x.ctxs)
		}
	}
	return evs, x.extras, x.args, nil
}

// slot is an expanded FDR event before the sort, in half the size of an
// Event: its time, its function and kind, and the index of the rest in a
// table of contexts (a thread's CPU, ids and record type change seldom,
// so most events share one). The unsorted events are the larger of the
// two arrays the sort needs.
type slot struct {
	TSC uint64
	fk  uint32 // FuncID (28 bits in FDR logs) | Kind<<28
	ctx uint32
}

// slotCtx is the rest of an Event.
type slotCtx struct {
	RecordType, CPU uint16
	extra           uint32
	TID, PID        uint32
}

const slotIDMask = 1<<28 - 1

func (s *slot) event(ctxs []slotCtx) Event {
	var e Event
	s.fill(&e, ctxs)
	return e
}

// fill sets every field of e, one by one: building the Event whole and
// copying it stores its narrow fields then loads them back wide, which
// stalls.
func (s *slot) fill(e *Event, ctxs []slotCtx) {
	c := &ctxs[s.ctx]
	e.RecordType, e.CPU, e.Kind, e.FuncID = c.RecordType, c.CPU, EventKind(s.fk>>28), int32(s.fk&slotIDMask)
	e.extra, e.TSC, e.TID, e.PID = c.extra, s.TSC, c.TID, c.PID
}

// verifyGroups checks every block, end states included, in llvm-xray's
// order, and returns the first error.
func verifyGroups(br *Reader, groups []Group) error {
	var v Verifier
	for _, g := range groups {
		for i := range g.Blocks {
			v.Reset()
			if err := g.Blocks[i].each(br, v.Next); err != nil {
				return err
			}
			if err := v.End(); err != nil {
				return err
			}
		}
	}
	return nil
}

// expander turns the records of one thread into events with llvm-xray's
// rules, sticky fields included.
type expander struct {
	version  uint16
	cpu      uint16
	base     uint64
	pid, tid uint32
	ignoring bool
	building bool
	cur      Event
	ext      eventExtra // the pending event's arguments and payload
	extras   []eventExtra
	args     []uint64
	ctxs     []slotCtx
}

func (x *expander) reset() {
	v, extras, args, ctxs := x.version, x.extras, x.args, x.ctxs
	*x = expander{version: v, extras: extras, args: args, ctxs: ctxs}
}

// emit finishes the pending event.
func (x *expander) emit(slots *[]slot) {
	if x.building {
		c := slotCtx{RecordType: x.cur.RecordType, CPU: x.cur.CPU, TID: x.cur.TID, PID: x.cur.PID}
		if x.ext.argN > 0 || x.ext.dataN > 0 {
			x.extras = append(x.extras, x.ext)
			c.extra = uint32(len(x.extras))
		}
		if n := len(x.ctxs); n == 0 || x.ctxs[n-1] != c {
			x.ctxs = append(x.ctxs, c)
		}
		*slots = append(*slots, slot{TSC: x.cur.TSC, fk: uint32(x.cur.FuncID)&slotIDMask | uint32(x.cur.Kind)<<28, ctx: uint32(len(x.ctxs) - 1)})
	}
	x.building = false
	x.ext.argN, x.ext.dataN = 0, 0
}

func (x *expander) visit(rec *Record, evs *[]slot) {
	switch rec.Kind {
	case KindNewCPU:
		x.cpu, x.base = rec.CPU, rec.TSC
	case KindTSCWrap:
		x.base = rec.TSC
	case KindCustomEvent, KindTypedEvent:
		x.emit(evs)
		if x.ignoring {
			return
		}
		if rec.Kind == KindCustomEvent && x.version < 5 {
			x.cur.TSC, x.cur.CPU = rec.TSC, rec.CPU
			x.cur.Kind = EventCustom
		} else {
			x.base += uint64(rec.Delta)
			x.cur.TSC, x.cur.CPU = x.base, x.cpu
			x.cur.Kind = EventCustom
			if rec.Kind == KindTypedEvent {
				x.cur.RecordType = rec.EventType
				x.cur.Kind = EventTyped
			}
		}
		x.cur.PID, x.cur.TID = x.pid, x.tid
		x.ext.dataOff, x.ext.dataN = rec.Offset+MetadataSize, uint32(len(rec.Data))
		x.building = true
	case KindCallArg:
		if x.ext.argN == 0 {
			x.ext.argOff = uint32(len(x.args))
		}
		x.args = append(x.args, rec.Arg)
		x.ext.argN++
		x.cur.Kind = EventEnterArg
	case KindPid:
		x.pid = uint32(rec.PID)
	case KindNewBuffer:
		x.ignoring = false
		x.tid = uint32(rec.TID)
		if x.version == 2 {
			x.pid = x.tid
		}
	case KindEndOfBuffer:
		x.ignoring = true
		x.emit(evs)
	case KindFunction:
		x.function(rec.Action, rec.FuncID, uint32(rec.Delta), evs)
	}
}

func (x *expander) function(act Action, id int32, delta uint32, evs *[]slot) {
	x.emit(evs)
	if x.ignoring {
		return
	}
	x.base += uint64(delta)
	x.cur.Kind = EventKind(act)
	x.cur.FuncID = id
	x.cur.TSC = x.base
	x.cur.PID, x.cur.TID, x.cur.CPU = x.pid, x.tid, x.cpu
	x.building = true
}

// blockLess is llvm-xray's block comparator; it is not a strict weak
// order, so the result depends on the sort algorithm, reproduced below.
func blockLess(l, r *Block) bool {
	return l.Seconds < r.Seconds && l.Micros < r.Micros
}

// sortBlocks sorts as llvm-xray's std::sort with blockLess does.
func sortBlocks(b []Block) { llvmorder.Sort(b, blockLess) }

// sortEvents sorts stably by TSC. A log is mostly in order already (one
// ordered run per thread block), so the runs are merged in one pass with a
// heap; ties go to the earlier run, which keeps the sort stable. Inputs
// with many short runs use the library's stable sort.
func sortEvents(evs []Event) []Event {
	var starts []int
	merge := true
	for i := range evs {
		if i == 0 || evs[i].TSC < evs[i-1].TSC {
			if starts = append(starts, i); manyRuns(len(starts), len(evs)) {
				merge = false
				break
			}
		}
	}
	if !merge {
		slices.SortStableFunc(evs, func(a, b Event) int { return cmp.Compare(a.TSC, b.TSC) })
		return evs
	}
	if len(starts) <= 1 {
		return evs
	}
	m := newRunMerge(starts, len(evs), func(i int) uint64 { return evs[i].TSC })
	out := make([]Event, len(evs))
	for o := range out {
		r := m.heap[0]
		out[o] = evs[m.pos[r]]
		if m.pos[r]++; m.pos[r] == m.end[r] {
			m.drop()
		} else {
			m.head[r] = evs[m.pos[r]].TSC
		}
		m.down(0)
	}
	return out
}

// sortSlots is sortEvents for the slots of an FDR log, which it turns into
// events on the way (in order when it need not sort).
func sortSlots(slots []slot, ctxs []slotCtx) []Event {
	var starts []int
	merge := true
	for i := range slots {
		if i == 0 || slots[i].TSC < slots[i-1].TSC {
			if starts = append(starts, i); manyRuns(len(starts), len(slots)) {
				merge = false
				break
			}
		}
	}
	if !merge {
		slices.SortStableFunc(slots, func(a, b slot) int { return cmp.Compare(a.TSC, b.TSC) })
	}
	out := make([]Event, len(slots))
	if !merge || len(starts) <= 1 {
		for i := range slots {
			slots[i].fill(&out[i], ctxs)
		}
		return out
	}
	m := newRunMerge(starts, len(slots), func(i int) uint64 { return slots[i].TSC })
	for o := range out {
		r := m.heap[0]
		slots[m.pos[r]].fill(&out[o], ctxs)
		if m.pos[r]++; m.pos[r] == m.end[r] {
			m.drop()
		} else {
			m.head[r] = slots[m.pos[r]].TSC
		}
		m.down(0)
	}
	return out
}

// manyRuns reports whether k runs of n elements are too many to merge.
func manyRuns(k, n int) bool { return k > 64 && k > n/16 }

// runMerge is a heap of ascending runs (of n elements, starting at
// starts) by the TSC at their head, the earlier run first on ties.
type runMerge struct {
	pos, end []int    // of each run
	head     []uint64 // TSC at pos
	heap     []int    // run numbers
}

func newRunMerge(starts []int, n int, tsc func(i int) uint64) *runMerge {
	k := len(starts)
	m := &runMerge{pos: make([]int, k), end: make([]int, k), head: make([]uint64, k), heap: make([]int, k)}
	for r := range starts {
		m.pos[r] = starts[r]
		m.end[r] = n
		if r+1 < k {
			m.end[r] = starts[r+1]
		}
		m.head[r] = tsc(m.pos[r])
		m.heap[r] = r
	}
	for i := k/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m
}

func (m *runMerge) less(a, b int) bool {
	return m.head[a] < m.head[b] || m.head[a] == m.head[b] && a < b
}

// drop takes the run at the top, used up, out of the heap.
func (m *runMerge) drop() {
	m.heap[0] = m.heap[len(m.heap)-1]
	m.heap = m.heap[:len(m.heap)-1]
}

func (m *runMerge) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(m.heap) {
			return
		}
		if c+1 < len(m.heap) && m.less(m.heap[c+1], m.heap[c]) {
			c++
		}
		if !m.less(m.heap[c], m.heap[i]) {
			return
		}
		m.heap[i], m.heap[c] = m.heap[c], m.heap[i]
		i = c
	}
}

// LLVMRecord formats e as llvm-xray prints a record it cannot account
// ("{type: 0; cpu: 0; record-type: exit; function-id: 3; ...}").
func (e *Event) LLVMRecord() string {
	if e == nil {
		return "<nil>"
	}
	b := make([]byte, 0, 128)
	b = append(b, "{type: "...)
	b = strconv.AppendUint(b, uint64(e.RecordType), 10)
	b = append(b, "; cpu: "...)
	b = strconv.AppendUint(b, uint64(e.CPU), 10)
	b = append(b, "; record-type: "...)
	b = append(b, llvmTypeName(e.Kind)...)
	b = append(b, "; function-id: "...)
	b = strconv.AppendInt(b, int64(e.FuncID), 10)
	b = append(b, "; tsc: "...)
	b = strconv.AppendUint(b, e.TSC, 10)
	b = append(b, "; thread-id: "...)
	b = strconv.AppendUint(b, uint64(e.TID), 10)
	b = append(b, "; process-id: "...)
	b = strconv.AppendUint(b, uint64(e.PID), 10)
	b = append(b, "}}"...)
	return string(b)
}

func llvmTypeName(k EventKind) string {
	switch k {
	case EventEnter:
		return "enter"
	case EventEnterArg:
		return "enter-arg"
	case EventExit:
		return "exit"
	case EventTailExit:
		return "tail-exit"
	case EventCustom:
		return "custom-event"
	case EventTyped:
		return "typed-event"
	}
	return k.String()
}
