package analysis

import (
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/tracefmt/tracefmt/internal/chromejson"
	"github.com/tracefmt/tracefmt/xrayfdr"
)

// WriteChrome writes the events of t (sorted by TSC) as Chrome
// trace-event JSON, which Perfetto and chrome://tracing open.
//
// Each thread's function calls become nested "B"/"E" spans: an exit (or
// tail exit) closes the spans opened since the matching entry, as
// llvm-xray does; an exit with no open entry (its entry was overwritten
// in a flight-recorder ring) is dropped, and spans still open at the end
// of a thread close at its last timestamp, so spans always nest. Custom
// and typed events become thread-scoped instant events ("i") whose args
// hold the payload ("data", plus "hex" when it is not UTF-8) and the type.
// Call arguments go to the span's args.
//
// Timestamps are microseconds since the first event, computed in integer
// arithmetic and printed with nanosecond digits, so large TSC values lose
// no precision (llvm-xray's own trace_event output goes through a double).
// The first TSC and the cycle frequency are in "otherData". names maps
// function ids to names (see instrmap.Map.Names); ids without one show as "#id".
func WriteChrome(w io.Writer, t *xrayfdr.Trace, names map[int32]string) error {
	if w == nil || t == nil {
		return ErrNotOpen
	}
	h, evs := t.Header, t.Events
	cw := chromejson.NewWriter(w)
	freq := h.CycleFrequency
	if freq == 0 {
		freq = 1e9
	}
	var base uint64
	for i := range evs {
		if i == 0 || evs[i].TSC < base {
			base = evs[i].TSC
		}
	}
	type thread struct{ pid, tid uint32 }
	type frame struct {
		id int32
	}
	stacks := map[thread][]frame{}
	lastTS := map[thread]uint64{}
	var order []thread
	b := make([]byte, 0, 512)
	var err error // the destination's failure: the events after it are not made
	emit := func() { err = cw.Event(b) }
	ts := func(b []byte, tsc uint64) []byte { return chromejson.AppendMicros(b, tsc-base, freq) }
	name := func(b []byte, id int32) []byte {
		if n, ok := names[id]; ok {
			return chromejson.AppendString(b, n)
		}
		b = append(b, `"#`...)
		b = strconv.AppendInt(b, int64(id), 10)
		return append(b, '"')
	}
	head := func(b []byte, ph string, th thread, tsc uint64) []byte {
		b = append(b, `,"ph":"`...)
		b = append(b, ph...)
		b = append(b, `","pid":`...)
		b = strconv.AppendUint(b, uint64(th.pid), 10)
		b = append(b, `,"tid":`...)
		b = strconv.AppendUint(b, uint64(th.tid), 10)
		b = append(b, `,"ts":`...)
		return ts(b, tsc)
	}
	end := func(th thread, id int32, tsc uint64) {
		b = append(b[:0], `{"name":`...)
		b = name(b, id)
		b = head(b, "E", th, tsc)
		b = append(b, '}')
		emit()
	}
	for i := range evs {
		if err != nil {
			return err
		}
		e := &evs[i]
		th := thread{e.PID, e.TID}
		if _, ok := lastTS[th]; !ok {
			order = append(order, th)
		}
		lastTS[th] = e.TSC
		switch e.Kind {
		case xrayfdr.EventEnter, xrayfdr.EventEnterArg:
			stacks[th] = append(stacks[th], frame{e.FuncID})
			b = append(b[:0], `{"name":`...)
			b = name(b, e.FuncID)
			b = append(b, `,"cat":"function"`...)
			b = head(b, "B", th, e.TSC)
			b = append(b, `,"args":{"id":`...)
			b = strconv.AppendInt(b, int64(e.FuncID), 10)
			b = append(b, `,"cpu":`...)
			b = strconv.AppendUint(b, uint64(e.CPU), 10)
			for j, a := range t.Args(e) {
				b = append(b, `,"arg`...)
				b = strconv.AppendInt(b, int64(j), 10)
				b = append(b, `":`...)
				b = strconv.AppendUint(b, a, 10)
			}
			b = append(b, "}}"...)
			emit()
		case xrayfdr.EventExit, xrayfdr.EventTailExit:
			st := stacks[th]
			k := len(st) - 1
			for k >= 0 && st[k].id != e.FuncID {
				k--
			}
			if k < 0 {
				continue // no matching entry
			}
			for j := len(st) - 1; j >= k; j-- {
				end(th, st[j].id, e.TSC)
			}
			stacks[th] = st[:k]
		case xrayfdr.EventCustom, xrayfdr.EventTyped:
			b = append(b[:0], `{"name":"`...)
			b = append(b, e.Kind.String()...)
			b = append(b, `","cat":"event"`...)
			b = head(b, "i", th, e.TSC)
			b = append(b, `,"s":"t","args":{"type":`...)
			b = strconv.AppendUint(b, uint64(e.RecordType), 10)
			b = append(b, `,"cpu":`...)
			b = strconv.AppendUint(b, uint64(e.CPU), 10)
			b = append(b, `,"data":`...)
			data := t.Data(e)
			b = chromejson.AppendString(b, data)
			if !utf8.Valid(data) {
				b = append(b, `,"hex":"`...)
				b = chromejson.AppendHex(b, data)
				b = append(b, '"')
			}
			b = append(b, "}}"...)
			emit()
		}
	}
	for _, th := range order {
		st := stacks[th]
		for j := len(st) - 1; j >= 0; j-- {
			end(th, st[j].id, lastTS[th])
		}
	}
	b = append(b[:0], ",\"displayTimeUnit\":\"ns\",\"otherData\":{\"format\":\"xray\",\"version\":"...)
	b = strconv.AppendUint(b, uint64(h.Version), 10)
	b = append(b, `,"type":`...)
	b = strconv.AppendUint(b, uint64(h.Type), 10)
	b = append(b, `,"cycleFrequency":`...)
	b = strconv.AppendUint(b, freq, 10)
	b = append(b, `,"firstTSC":"`...)
	b = strconv.AppendUint(b, base, 10)
	b = append(b, "\"}"...)
	return cw.End(b)
}
