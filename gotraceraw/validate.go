package gotraceraw

import "fmt"

// A Validator judges a trace one generation at a time for a Writer.
type Validator interface {
	// Generation is given the wire bytes of one complete generation (its whole
	// batches, in the order written, without the trace header), before the
	// Writer writes them. A non-nil error refuses the generation.
	Generation(wire []byte) error
}

// batchKind is what the open batch holds, as Go's parser tells batches
// apart: by their first event.
type batchKind uint8

const (
	batchNew      batchKind = iota // no event yet
	batchEvents                    // timed events, ordered by the parser
	batchStrings                   // Strings, then String events
	batchStacks                    // Stacks, then Stack events
	batchSamples                   // CPUSamples, then CPUSample events
	batchSync                      // Go1.25 on: Sync, then Frequency and ClockSnapshot; before: Frequency
	batchExp                       // an ExperimentalBatch, opaque
	batchEndOfGen                  // EndOfGeneration, alone
)

// genState is what a validating Writer knows of the generation it holds:
// the checks that are cheap to make as each event comes (where an event
// may stand, ids defined twice), and the references to check when the
// generation ends.
type genState struct {
	val      Validator // nil: not validating
	num      uint64    // the generation's number, from its batches
	accepted int       // generations the validator accepted
	last     uint64    // the number of the last one accepted
	kind     batchKind // of the open batch
	freq     bool      // the generation has a Frequency
	clock    bool      // and a ClockSnapshot

	strings, stacks       idTable // ids defined in the generation, by the type defining them
	refStrings, refStacks idTable // ids used, by the first type that used each
}

// idTable maps string or stack ids to event types. The runtime numbers
// them from 1 up in each generation, so small ids go in a slice; larger
// ones, which only an edited trace holds, in a map.
type idTable struct {
	dense  []EventType // by id; EvNone for none
	sparse map[uint64]EventType
}

// maxDense bounds the ids kept in the slice, and so its memory.
const maxDense = 1 << 20

func (m *idTable) get(id uint64) (EventType, bool) {
	if id < uint64(len(m.dense)) {
		return m.dense[id], m.dense[id] != EvNone
	}
	t, ok := m.sparse[id]
	return t, ok
}

// put records id for type t unless it is there already.
func (m *idTable) put(id uint64, t EventType) {
	if id < maxDense {
		if id >= uint64(len(m.dense)) {
			m.dense = append(m.dense, make([]EventType, int(id)+1-len(m.dense))...)
			m.dense = m.dense[:cap(m.dense)]
		}
		if m.dense[id] == EvNone {
			m.dense[id] = t
		}
		return
	}
	if m.sparse == nil {
		m.sparse = map[uint64]EventType{}
	}
	if _, ok := m.sparse[id]; !ok {
		m.sparse[id] = t
	}
}

// clear forgets every id, keeping the memory.
func (m *idTable) clear() {
	clear(m.dense)
	clear(m.sparse)
}

// each calls f with every id, in no particular order.
func (m *idTable) each(f func(id uint64, t EventType)) {
	for id, t := range m.dense {
		if t != EvNone {
			f(uint64(id), t)
		}
	}
	for id, t := range m.sparse {
		f(id, t)
	}
}

// genNum returns the generation number a batch header names.
func genNum(e *Event) uint64 {
	if e.Type == EvExperimentalBatch {
		return e.Args[1]
	}
	return e.Args[0]
}

// clear forgets the generation, keeping the maps' memory.
func (g *genState) clear() {
	g.strings.clear()
	g.stacks.clear()
	g.refStrings.clear()
	g.refStacks.clear()
	g.kind, g.freq, g.clock = batchNew, false, false
}

// open checks the header of a batch that opens generation e's number:
// the runtime never numbers one 0, and before Go1.26 the parser takes
// generations in order only, each numbered one more than the last.
func (g *genState) open(e *Event, v Version) error {
	n := uint64(0) // an EndOfGeneration alone: Go's parser finds no Frequency
	if e.Type != EvEndOfGeneration {
		n = genNum(e)
	}
	if n == 0 && e.Type != EvEndOfGeneration {
		return fmt.Errorf("%w: %v of generation 0, which Go's parser refuses", ErrInvalid, e.Type)
	}
	if v < Go126 && g.accepted > 0 && n != g.last+1 {
		return fmt.Errorf("%w: %v of generation %d after generation %d: Go's parser takes them in order", ErrInvalid, e.Type, n, g.last)
	}
	g.num = n
	return nil
}

// local checks what can be checked of e at once, where it stands in the
// open batch (of kind g.kind) of a version v trace; k is its table flags.
func (g *genState) local(e *Event, k uint8, v Version) error {
	if k&kFrame != 0 {
		return nil // the Writer ends generations at their batches
	}
	want := EvNone // the type the batch takes, EvNone for timed events
	switch g.kind {
	case batchNew:
		switch {
		case e.Type == EvStrings, e.Type == EvStacks, e.Type == EvCPUSamples, e.Type == EvSync && v >= Go125:
			return nil
		case e.Type == EvFrequency && v < Go125:
			return g.syncEvent(e)
		}
	case batchStrings:
		want = EvString
	case batchStacks:
		want = EvStack
	case batchSamples:
		want = EvCPUSample
	case batchSync:
		if e.Type == EvFrequency || e.Type == EvClockSnapshot && v >= Go125 {
			return g.syncEvent(e)
		}
		return fmt.Errorf("%w: %v in a sync batch, which holds only Frequency and ClockSnapshot", ErrInvalid, e.Type)
	}
	if want == EvNone {
		if !specs[e.Type].Timed {
			return fmt.Errorf("%w: %v in a batch of timed events (it goes %s)", ErrInvalid, e.Type, where(e.Type))
		}
		return nil
	}
	if e.Type != want {
		return fmt.Errorf("%w: %v in a batch of %v events", ErrInvalid, e.Type, want)
	}
	switch e.Type {
	case EvString:
		if len(e.Data) > GoMaxStringLen {
			return fmt.Errorf("%w: String %d of %d bytes, over Go's %d", ErrInvalid, e.Args[0], len(e.Data), GoMaxStringLen)
		}
		return defined(&g.strings, e)
	case EvStack:
		if n := e.NumFrames(); n > GoMaxFrames {
			return fmt.Errorf("%w: Stack %d of %d frames, over Go's %d", ErrInvalid, e.Args[0], n, GoMaxFrames)
		}
		return defined(&g.stacks, e)
	}
	return nil
}

// where says where an event that is not timed belongs.
func where(t EventType) string {
	switch t {
	case EvStrings, EvStacks, EvCPUSamples, EvSync:
		return "first in its own batch"
	case EvString:
		return "in a batch that starts with Strings"
	case EvStack:
		return "in a batch that starts with Stacks"
	case EvCPUSample:
		return "in a batch that starts with CPUSamples"
	}
	return "in a sync batch"
}

// syncEvent checks that a generation has one Frequency and one
// ClockSnapshot at most.
func (g *genState) syncEvent(e *Event) error {
	seen := &g.freq
	if e.Type == EvClockSnapshot {
		seen = &g.clock
	}
	if *seen {
		return fmt.Errorf("%w: a second %v in generation %d", ErrInvalid, e.Type, g.num)
	}
	return nil
}

// defined checks that e's id, a string's or a stack's, is new in the
// generation. Go's parser takes id 0 as defined already, as "none".
func defined(ids *idTable, e *Event) error {
	id := e.Args[0]
	if _, ok := ids.get(id); ok || id == 0 {
		return fmt.Errorf("%w: %v id %d is defined twice in the generation", ErrInvalid, e.Type, id)
	}
	return nil
}

// note records what e, written, defines and uses.
func (g *genState) note(e *Event, k uint8, v Version) {
	if k&kFrame != 0 {
		g.kind = batchNew
		switch e.Type {
		case EvExperimentalBatch:
			g.kind = batchExp
		case EvEndOfGeneration:
			g.kind = batchEndOfGen
		}
		return
	}
	if g.kind == batchNew {
		g.kind = batchEvents
		switch {
		case e.Type == EvStrings:
			g.kind = batchStrings
		case e.Type == EvStacks:
			g.kind = batchStacks
		case e.Type == EvCPUSamples:
			g.kind = batchSamples
		case e.Type == EvSync, e.Type == EvFrequency && v < Go125:
			g.kind = batchSync
		}
	}
	switch e.Type {
	case EvFrequency:
		g.freq = true
	case EvClockSnapshot:
		g.clock = g.clock || g.kind == batchSync
	case EvString:
		g.strings.put(e.Args[0], e.Type)
		return
	case EvStack:
		g.stacks.put(e.Args[0], e.Type)
		for i := 2; i+3 < len(e.Args); i += 4 {
			use(&g.refStrings, e.Args[i+1], e.Type)
			use(&g.refStrings, e.Args[i+2], e.Type)
		}
		return
	}
	s := &specs[e.Type]
	for _, i := range s.StringArgs {
		use(&g.refStrings, e.Args[i], e.Type)
	}
	for _, i := range s.StackArgs {
		use(&g.refStacks, e.Args[i], e.Type)
	}
}

// use records a reference to id by an event of type t; 0 means none.
func use(m *idTable, id uint64, t EventType) {
	if id != 0 {
		m.put(id, t)
	}
}

// finish checks, at the generation's end, that every string and stack
// it uses is defined in it, naming the smallest id missing.
func (g *genState) finish() error {
	for _, tab := range []struct {
		what       string
		defs, refs *idTable
	}{{"stack", &g.stacks, &g.refStacks}, {"string", &g.strings, &g.refStrings}} {
		missing, found := uint64(0), false
		tab.refs.each(func(id uint64, _ EventType) {
			if _, ok := tab.defs.get(id); !ok && (!found || id < missing) {
				missing, found = id, true
			}
		})
		if found {
			t, _ := tab.refs.get(missing)
			return fmt.Errorf("%w: %v uses %s %d, which generation %d does not define", ErrInvalid, t, tab.what, missing, g.num)
		}
	}
	return nil
}
