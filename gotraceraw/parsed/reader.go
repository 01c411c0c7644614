package parsed

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/varint"
)

// DefaultMaxGenerationSize bounds the bytes of one generation, where a
// Reader's MaxGenerationSize is 0. The runtime starts a new generation
// every second or so; a generation's size is what the program traced in
// that time.
const DefaultMaxGenerationSize = 1 << 30

// Reader reads the events of a binary trace in the order Go's parser
// gives them, checking them as it does.
//
// Events returned by Read belong to the Reader and are valid until the
// next call to Read or Reset. The zero Reader is ready for Reset; before
// it, Read returns ErrNotOpen.
type Reader struct {
	// MaxGenerationSize limits the bytes of one generation, which the
	// Reader holds whole; 0 means DefaultMaxGenerationSize. Set it before
	// the first Read.
	MaxGenerationSize int64
	// Strict also refuses what Go's parser takes but no runtime writes:
	// ExperimentalBatches in Go1.22 traces, experiments other than
	// AllocFree. Set it before the first Read.
	Strict bool

	raw gotraceraw.Reader
	v   gotraceraw.Version
	s   stream
	ev  Event
}

// stream is the parser's state between events: the generation being
// ordered, its threads' cursors, and what carries over generations.
type stream struct {
	v        gotraceraw.Version
	err      error   // sticky: every later next returns it
	settings *Reader // whose settings to take before the first generation; nil: keep them
	strict   bool
	maxGen   int64
	gen      generation
	hasGen   bool // a generation has been read (Go's r.gen != nil)
	cursors  []cursor
	frontier []*cursor
	samples  []cpuSample
	// limit is the latest time of an event next may order in line: the
	// next CPU sample's (the largest Time without one); the earliest Time,
	// which none may have, while events are queued.
	limit      Time
	o          ordering
	syncs      int
	lastTs     Time
	done       bool
	readGenErr error

	// Before Go 1.26 a generation ends where a batch of the next one
	// starts: that batch, kept here, begins the next generation.
	spill        spilled
	spillErr     error
	spillErrSync bool
}

type spilled struct {
	ok   bool
	b    gotraceraw.Batch
	data []byte
}

// NewReader reads the header from r and returns a Reader for the events
// that follow.
func NewReader(r io.Reader) (*Reader, error) {
	rd := new(Reader)
	if err := rd.Reset(r); err != nil {
		return nil, err
	}
	return rd, nil
}

// Reset makes the Reader read a new trace from r, keeping its buffers and
// settings, and reads the header.
func (r *Reader) Reset(rd io.Reader) error {
	r.v = 0
	err := ErrNotOpen
	if rd != nil {
		if err = r.raw.Reset(rd); err != nil {
			err = fromRaw(err, 0)
		} else {
			r.v = r.raw.Header().Version
		}
	}
	r.s.reset(r.v, r.Strict, limitOr(r.MaxGenerationSize, DefaultMaxGenerationSize))
	r.s.err, r.s.settings = err, r
	return err
}

func limitOr(v, def int64) int64 {
	if v > 0 {
		return v
	}
	return def
}

func (s *stream) reset(v gotraceraw.Version, strict bool, maxGen int64) {
	s.o.reset(v)
	*s = stream{
		v: v, strict: strict, maxGen: maxGen, gen: s.gen, cursors: s.cursors[:0], frontier: s.frontier[:0],
		o: s.o, spill: spilled{data: s.spill.data[:0]},
	}
}

// Header returns what the trace's header says.
func (r *Reader) Header() gotraceraw.Header { return gotraceraw.Header{Version: r.v} }

// Read returns the next event. After the last it returns io.EOF. A trace
// Go's parser rejects gives a *FormatError, after the events Go's parser
// gives before its error. Errors are sticky.
//
// The Event belongs to the Reader and is valid until the next call to
// Read or Reset; Clone keeps one.
func (r *Reader) Read() (*Event, error) {
	// Small enough to be inlined: the stream keeps the errors and the
	// settings, and its next has the common case in line.
	return r.s.next(&r.raw, &r.ev)
}

// All returns an iterator over the remaining events: each event with a nil
// error, then, when reading stops early, the error. Each event is valid
// only until the next iteration.
func (r *Reader) All() iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		for {
			ev, err := r.Read()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// next puts the next event into e, as Go's parser would return it: its
// string and stack IDs checked and its time made later than the last.
func (s *stream) next(src *gotraceraw.Reader, e *Event) (*Event, error) {
	// Order's common case first, all in line, as a call costs more than
	// the ordering of an event: nothing queued, no CPU sample due, and the
	// earliest thread's event can come next. An event that cannot come
	// yet changes nothing, so order may try it again. (When the trace is
	// done the frontier is empty.)
	if len(s.frontier) != 0 && s.frontier[0].ev.time <= s.limit && s.limit != math.MinInt64 {
		c := s.frontier[0]
		ev := &c.ev
		ok, checked := false, false
		// advance's commonest cases, on a thread whose state it has looked up
		// and in the context they need: a goroutine starts, blocks or stops,
		// or is unblocked, their string and stack IDs checked here too (a
		// test holds them to the table the other events' checks read).
		// advance takes the others, lookups and errors.
		if ms := c.ms; ms != nil {
			switch ev.typ {
			case gotraceraw.EvGoStart:
				if ms.p != NoProc && ms.g == NoGoroutine {
					if gs := s.o.gs.get(int64(ev.args[0])); gs.ready(goRunnable, s.gen.gen, ev.args[1]) {
						gs.take(goRunning, s.gen.gen, ev.args[1])
						e.fill(ev, s.gen.tab, schedCtx{g: NoGoroutine, p: ms.p, m: c.m})
						ms.g, ms.gs = GoID(ev.args[0]), gs
						ok, checked = true, true // no IDs
					}
				}
			case gotraceraw.EvGoBlock, gotraceraw.EvGoStop:
				if tab := s.gen.tab; ms.p != NoProc && ms.g != NoGoroutine && tab.stacks.has(ev.args[1]) && tab.strs.has(ev.args[0]) {
					if gs := ms.running(); gs != nil {
						gs.status = goWaiting
						if ev.typ == gotraceraw.EvGoStop {
							gs.status = goRunnable
						}
						e.fill(ev, s.gen.tab, schedCtx{g: ms.g, p: ms.p, m: c.m})
						ms.g = NoGoroutine
						ok, checked = true, true
					}
				}
			case gotraceraw.EvGoUnblock:
				if gs := s.o.gs.get(int64(ev.args[0])); gs.ready(goWaiting, s.gen.gen, ev.args[1]) && s.gen.tab.stacks.has(ev.args[2]) {
					gs.take(goRunnable, s.gen.gen, ev.args[1])
					e.fill(ev, s.gen.tab, schedCtx{g: ms.g, p: ms.p, m: c.m})
					ok, checked = true, true
				}
			case gotraceraw.EvHeapAlloc, gotraceraw.EvHeapGoal:
				// A metric of the heap needs a thread and a P.
				if ms.p != NoProc {
					e.fill(ev, s.gen.tab, schedCtx{g: ms.g, p: ms.p, m: c.m})
					ok = true
				}
			default:
				// An experiment's event (allocations and frees) needs
				// only a thread.
				if info[ev.typ].kind == KindExperimental {
					e.fill(ev, s.gen.tab, schedCtx{g: ms.g, p: ms.p, m: c.m})
					ok = true
				}
			}
		}
		if !ok {
			s.o.out = e // the queue is empty: the first event out goes to e
			var err error
			if ok, err = s.o.advance(ev, s.gen.tab, c.m, s.gen.gen, &c.ms); err != nil {
				return nil, s.fail(&FormatError{Offset: ev.off, Gen: s.gen.gen, M: c.m, Err: err})
			}
			if !ok {
				s.o.out = nil
				goto order
			}
			if s.o.q.size != 0 {
				s.limit = math.MinInt64 // it made more events than e
			}
		}
		// The thread's next event. The common one in line: a known timed
		// type whose values take one to three bytes each (a sequence number
		// passes 2^14 in a busy goroutine's generation), all in the batch,
		// after the batch's first event; the cursor takes the others.
		more := true
		var err error
		if pos, data := c.pos, c.data; pos < len(data) && c.lastTs != 0 {
			if ti := &info[data[pos]]; ti.timed && len(data)-pos >= 1+3*(1+int(ti.nargs)) {
				dt, p := short(data, pos+1)
				if p == 0 {
					goto cursor
				}
				args := c.ev.args[:ti.nargs]
				for i := range args {
					v, n := short(data, p)
					if n == 0 {
						goto cursor
					}
					args[i], p = v, n
				}
				c.ev.typ, c.ev.off = gotraceraw.EventType(data[pos]), c.base+int64(pos)
				// A short delta in integers when the tick is whole
				// nanoseconds: the float conversions cost more than the
				// multiply.
				if w := s.gen.tab.whole; w != 0 {
					c.ev.time = Time(dt)*w + c.lastTs
				} else {
					c.ev.time = s.gen.tab.ns(dt) + c.lastTs
				}
				c.lastTs = c.ev.time
				c.pos = p
				goto heap
			}
		}
	cursor:
		if more, err = c.next(&s.gen); err != nil {
			return nil, s.fail(err) // before the event, as Go's parser
		}
	heap:
		if more {
			// The root's time only grew; mostly it stays the root, which the
			// first children tell without a call.
			h := s.frontier
			if t := c.ev.time; len(h) > 1 && h[1].ev.time < t || len(h) > 2 && h[2].ev.time < t {
				siftDown(h, 0)
			}
		} else {
			s.frontier = heapRemove(s.frontier, 0)
		}
		if checked {
			goto clamp
		}
		goto check
	}
order:
	if err := s.order(src, e); err != nil {
		return nil, s.fail(err)
	}
	s.relimit()
check:
	// The event's string and stack IDs must be in its generation's
	// tables. A Sync's type (EvNone) has none, nor a CPU sample's, whose
	// stack is checked apart.
	if ti := &info[e.Type]; ti.nids != 0 {
		for _, r := range ti.ids[:ti.nids] {
			id := e.args[r&idIndex]
			if r&idStack != 0 && !e.tab.stacks.has(id) || r&idStack == 0 && !e.tab.strs.has(id) {
				return nil, s.fail(s.badID(e, r))
			}
		}
	} else if e.Type == gotraceraw.EvCPUSample {
		if err := s.checkSample(e); err != nil {
			return nil, s.fail(err)
		}
	}
clamp:
	if e.Time <= s.lastTs {
		e.Time = s.lastTs + 1
	}
	s.lastTs = e.Time
	return e, nil
}

// fail makes err the stream's sticky error. The frontier empties, so that
// next goes to order, which returns it.
func (s *stream) fail(err error) error {
	s.err, s.frontier = err, s.frontier[:0]
	return err
}

// checkSample checks a CPU sample's stack. Go's parser misses it, and
// then fails printing the sample: a sample's stack must exist too.
func (s *stream) checkSample(e *Event) error {
	if !e.tab.stacks.has(e.args[0]) {
		return s.eventErr(e, ErrTable, "found invalid stack ID %d for event CPUSample", e.args[0])
	}
	return nil
}

// badID is the error of an ID missing from its table; apart, so that the
// check's loop stays small.
//
//go:noinline
func (s *stream) badID(e *Event, r uint8) error {
	what := "string"
	if r&idStack != 0 {
		what = "stack"
	}
	return s.eventErr(e, ErrTable, "found invalid %s ID %d for event %s", what, e.args[r&idIndex], e.Type)
}

func (s *stream) eventErr(e *Event, sentinel error, format string, args ...any) error {
	return &FormatError{Offset: e.off, Gen: s.gen.gen, M: e.Thread, Err: wrapf(sentinel, format, args...)}
}

// sync makes a Sync event.
func (s *stream) sync(e *Event, tab *tables, t Time) {
	s.syncs++
	*e = Event{Kind: KindSync, Time: t, Goroutine: NoGoroutine, Proc: NoProc, Thread: NoThread, tab: tab, off: -1}
	e.args[0] = uint64(s.syncs)
}

// inLine is false only in tests, which hold the stream's next's in-line
// ordering and decoding to order's path: every event then takes order's.
var inLine = true

// relimit sets limit from the queue and the samples left.
func (s *stream) relimit() {
	s.limit = math.MinInt64
	if s.o.q.size == 0 && inLine {
		s.limit = math.MaxInt64
		if len(s.samples) > 0 {
			s.limit = s.samples[0].time
		}
	}
}

// order puts the next event in Go's order into e.
func (s *stream) order(src *gotraceraw.Reader, e *Event) error {
	if s.err != nil {
		return s.err
	}
	if s.v == 0 {
		return ErrNotOpen // the zero Reader
	}
	if s.done {
		return io.EOF
	}
	if s.o.q.pop(e) {
		return nil
	}
	if len(s.frontier) == 0 && len(s.samples) == 0 {
		if !s.hasGen && s.settings != nil {
			// The settings may change until the first Read: they are
			// taken before the first generation is read.
			s.strict, s.maxGen = s.settings.Strict, limitOr(s.settings.MaxGenerationSize, DefaultMaxGenerationSize)
		}
		if s.v < gotraceraw.Go126 {
			return s.nextGenWithSpill(src, e)
		}
		if s.readGenErr != nil {
			return s.readGenErr
		}
		ok, err := s.readGeneration(src)
		if err != nil {
			// The error comes after a Sync, on the next call.
			s.readGenErr = err
			s.hasGen = false
			s.sync(e, nil, s.lastTs)
			return nil
		}
		return s.install(ok, e)
	}
	if len(s.samples) > 0 && (len(s.frontier) == 0 || s.samples[0].time < s.frontier[0].ev.time) {
		c := &s.samples[0]
		g := GoID(c.g)
		if c.g == 0 {
			g = NoGoroutine
		}
		*e = Event{Kind: KindStackSample, Type: gotraceraw.EvCPUSample, Time: c.time, Goroutine: g, Proc: ProcID(c.p),
			Thread: ThreadID(c.m), tab: s.gen.tab, off: -1}
		e.args[0] = c.stack
		s.samples = s.samples[1:]
		return nil
	}
	s.o.out = e // the first event advanced goes straight to e
	ok, err := s.tryAdvance(0)
	if err != nil {
		return err
	}
	if !ok {
		// Try the other threads in time order. A sorted heap is still a
		// heap; the sort is Go's, so threads of equal times are tried
		// in the same order.
		slices.SortFunc(s.frontier, func(a, b *cursor) int { return cmp.Compare(a.ev.time, b.ev.time) })
		for i := 1; i < len(s.frontier) && !ok; i++ {
			if ok, err = s.tryAdvance(i); err != nil {
				return err
			}
		}
		if !ok {
			return s.stuck()
		}
	}
	if s.o.out == nil {
		return nil // in e already
	}
	s.o.out = nil
	if !s.o.q.pop(e) {
		return errors.New("parsed: internal error: an event advanced but none is queued")
	}
	return nil
}

// tryAdvance advances thread i of the frontier if its event can come next.
func (s *stream) tryAdvance(i int) (bool, error) {
	c := s.frontier[i]
	ok, err := s.o.advance(&c.ev, s.gen.tab, c.m, s.gen.gen, &c.ms)
	if err != nil {
		return false, &FormatError{Offset: c.ev.off, Gen: s.gen.gen, M: c.m, Err: err}
	}
	if !ok {
		return false, nil
	}
	more, err := c.next(&s.gen)
	if err != nil {
		return false, err
	}
	if more {
		heapFix(s.frontier, i)
	} else {
		s.frontier = heapRemove(s.frontier, i)
	}
	return true, nil
}

// stuck is the error of a frontier where no thread can advance, with the
// state Go's parser shows.
func (s *stream) stuck() error {
	var b strings.Builder
	fmt.Fprintf(&b, "broken trace: failed to advance: frontier:\n[gen=%d]\n\n", s.gen.gen)
	for _, c := range s.frontier {
		spec, _ := gotraceraw.Go126.Spec(c.ev.typ)
		fmt.Fprintf(&b, "M %d [%s time=%d", c.m, spec.Name, c.ev.time)
		for i, a := range spec.Args[1:] {
			fmt.Fprintf(&b, " %s=%d", a, c.ev.args[i])
		}
		b.WriteString("]\n")
	}
	b.WriteString("\n")
	b.WriteString(s.o.dump())
	off := int64(-1)
	m := NoThread
	if len(s.frontier) > 0 {
		off, m = s.frontier[0].ev.off, s.frontier[0].m
	}
	return &FormatError{Offset: off, Gen: s.gen.gen, M: m, Err: &reason{sentinel: ErrOrder, err: errors.New(b.String())}}
}

// dump prints the state as Go's parser does when it is stuck, in ID order
// (Go's order is its maps').
func (o *ordering) dump() string {
	var b strings.Builder
	var ids []int64
	o.gs.each(func(id int64, _ *gState) { ids = append(ids, id) })
	slices.Sort(ids)
	for _, id := range ids {
		s := o.gs.get(id)
		fmt.Fprintf(&b, "G %d [status=%s seq=%d (gen=%d)]\n", id, goStatusName(s.status), s.seq, s.seqGen)
	}
	b.WriteString("\n")
	ids = ids[:0]
	o.ps.each(func(id int64, _ *pState) { ids = append(ids, id) })
	slices.Sort(ids)
	for _, id := range ids {
		s := o.ps.get(id)
		fmt.Fprintf(&b, "P %d [status=%s seq=%d (gen=%d)]\n", id, procStatusName(s.status), s.seq, s.seqGen)
	}
	b.WriteString("\n")
	mids := make([]ThreadID, 0, len(o.ms))
	for id := range o.ms {
		mids = append(mids, id)
	}
	sort.Slice(mids, func(i, j int) bool { return mids[i] < mids[j] })
	for _, id := range mids {
		s := o.ms[id]
		fmt.Fprintf(&b, "M %d [g=%d p=%d]\n", id, s.g, s.p)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "GC %d %s\n", o.gcSeq, gcStateNames[o.gcState])
	return b.String()
}

// nextGenWithSpill reads the next generation of a trace before Go 1.26,
// whose generations end where the next begins.
func (s *stream) nextGenWithSpill(src *gotraceraw.Reader, e *Event) error {
	if s.spillErr != nil {
		if s.spillErrSync {
			return s.spillErr
		}
		s.spillErrSync = true
		s.sync(e, nil, s.lastTs)
		return nil
	}
	if s.hasGen && !s.spill.ok {
		// Nothing of a next generation: the trace is over.
		s.done = true
		s.sync(e, nil, s.lastTs)
		return nil
	}
	ok, err := s.readGenerationWithSpill(src)
	if !ok {
		s.hasGen = false
		s.spillErr, s.spillErrSync = err, true
		s.sync(e, nil, s.lastTs)
		return nil
	}
	s.spillErr = err
	return s.install(true, e)
}

// install starts ordering the generation just read (none: the trace is
// over) and makes its Sync event.
func (s *stream) install(ok bool, e *Event) error {
	if !ok {
		s.hasGen = false
		s.done = true
		s.sync(e, nil, s.lastTs)
		return nil
	}
	s.hasGen = true
	g := &s.gen
	s.samples = g.samples
	s.relimit()
	if cap(s.cursors) < len(g.threads) {
		s.cursors = make([]cursor, len(g.threads))
	}
	s.cursors = s.cursors[:len(g.threads)]
	s.frontier = s.frontier[:0]
	for i := range g.threads {
		th := &g.threads[i]
		c := &s.cursors[i]
		*c = cursor{m: ThreadID(th.m), batches: th.batches}
		more, err := c.next(g)
		if err != nil {
			return err
		}
		if more {
			s.frontier = heapInsert(s.frontier, c)
		}
	}
	s.sync(e, g.tab, g.tab.ns(g.minTs))
	return nil
}

// fromRaw turns an error of the raw level into a FormatError of this
// package, keeping what it wraps.
func fromRaw(err error, gen uint64) error {
	var fe *gotraceraw.FormatError
	if errors.As(err, &fe) {
		return &FormatError{Offset: fe.Offset, Gen: gen, M: NoThread, Err: fe.Err}
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &FormatError{Offset: -1, Gen: gen, M: NoThread, Err: err}
}

// isEnd reports whether b ends a generation: an EndOfGeneration, or what
// Go's parser takes for one, a batch of no experiment starting with it.
func isEnd(b *gotraceraw.Batch) bool {
	if b.Type == gotraceraw.EvEndOfGeneration {
		return true
	}
	noExp := b.Type == gotraceraw.EvEventBatch || b.Exp == 0
	return noExp && len(b.Data) > 0 && gotraceraw.EventType(b.Data[0]) == gotraceraw.EvEndOfGeneration
}

// readGeneration reads a generation of a Go 1.26 trace, which ends with an
// EndOfGeneration. It reports false at the end of the trace.
func (s *stream) readGeneration(src *gotraceraw.Reader) (bool, error) {
	g := &s.gen
	g.reset(0)
	for {
		b, err := src.ReadBatch()
		if err == io.EOF {
			if len(g.threads) != 0 {
				return false, g.errf(-1, noM, ErrGeneration, "incomplete generation found; trace likely truncated: %w", io.ErrUnexpectedEOF)
			}
			return false, nil
		}
		if err != nil {
			return false, fromRaw(err, g.gen)
		}
		gen := b.Gen
		if g.gen == 0 {
			g.gen, g.tab.gen = gen, gen
		}
		if isEnd(b) {
			break
		}
		if gen == 0 {
			return false, g.errf(b.Offset, b.M, ErrGeneration, "invalid generation number %d", gen)
		}
		if gen != g.gen {
			return false, g.errf(b.Offset, b.M, ErrGeneration, "broken trace: missing end-of-generation event, or generations are interleaved")
		}
		if err := s.take(g, b); err != nil {
			return false, err
		}
	}
	return true, g.finish(s.v)
}

// take adds batch b to the generation being read.
func (s *stream) take(g *generation, b *gotraceraw.Batch) error {
	if g.minTs == 0 || b.Time < g.minTs {
		g.minTs = b.Time
	}
	if s.strict {
		if err := s.strictBatch(g, b); err != nil {
			return err
		}
	}
	if err := g.add(b, s.v); err != nil {
		return err
	}
	if g.size > s.maxGen {
		return g.errf(b.Offset, b.M, ErrTooLarge, "generation of over %d bytes", s.maxGen)
	}
	return nil
}

// strictBatch refuses what Strict refuses in a batch.
func (s *stream) strictBatch(g *generation, b *gotraceraw.Batch) error {
	if b.Type == gotraceraw.EvExperimentalBatch && b.Exp != 0 && gotraceraw.Experiment(b.Exp) != gotraceraw.AllocFree {
		return g.errf(b.Offset, b.M, ErrGeneration, "batch of unknown experiment %d", b.Exp)
	}
	if b.Type == gotraceraw.EvExperimentalBatch && s.v < gotraceraw.Go123 {
		return g.errf(b.Offset, b.M, ErrGeneration, "ExperimentalBatch in a %v trace", s.v)
	}
	return nil
}

// readGenerationWithSpill reads a generation of a trace before Go 1.26,
// starting with the batch spilled from the last. It reports false when it
// could not read one, with the error; true with an error when the error
// came after the generation (reading what would be the next one).
func (s *stream) readGenerationWithSpill(src *gotraceraw.Reader) (bool, error) {
	g := &s.gen
	g.reset(0)
	if s.spill.ok {
		b := &s.spill.b
		b.Data = s.spill.data
		g.gen, g.tab.gen = b.Gen, b.Gen
		g.minTs = b.Time
		s.spill.ok = false
		if err := s.take(g, b); err != nil {
			return false, err
		}
		g.minTs = b.Time
	}
	var spillErr error
	for {
		b, err := src.ReadBatch()
		if err == io.EOF {
			break
		}
		if err != nil {
			if g.gen != 0 {
				// Perhaps the first batch of the next generation is
				// broken: this one is whole, it comes first.
				spillErr = fromRaw(err, g.gen+1)
				break
			}
			return false, fromRaw(err, 0)
		}
		if b.Gen == 0 {
			return false, g.errf(b.Offset, b.M, ErrGeneration, "invalid generation number %d", b.Gen)
		}
		if g.gen == 0 {
			g.gen, g.tab.gen = b.Gen, b.Gen
		}
		if b.Gen == g.gen+1 {
			s.spill.ok = true
			s.spill.b = *b
			s.spill.data = append(s.spill.data[:0], b.Data...)
			break
		}
		if b.Gen != g.gen {
			return false, g.errf(b.Offset, b.M, ErrGeneration, "generations out of order")
		}
		if err := s.take(g, b); err != nil {
			return false, err
		}
	}
	if err := g.finish(s.v); err != nil {
		return false, err
	}
	return true, spillErr
}

// cursor reads one thread's events across its batches.
type cursor struct {
	m       ThreadID
	ms      *mState // the thread's state, once looked up
	data    []byte  // the current batch
	pos     int     // where its next event starts: an index, as a slice's pointer costs a write barrier
	base    int64   // stream offset of data[0]
	btime   Time    // the current batch's time
	lastTs  Time
	ev      raw // the thread's next event
	batches []int32
	idx     int // the batch after the current one
}

// next reads the thread's next event into c.ev; false when there is none.
// The stream's next reads the common events in line, apart from the
// batch's first.
func (c *cursor) next(g *generation) (bool, error) {
	for c.pos == len(c.data) {
		// The batch is done (or empty): the next one starts from its
		// own time.
		if c.idx == len(c.batches) {
			return false, nil
		}
		b := &g.batches[c.batches[c.idx]]
		c.idx++
		c.data, c.pos, c.base = b.data, 0, b.off
		c.btime = g.tab.ns(b.time)
		c.lastTs = 0
	}
	if c.lastTs == 0 {
		// Go's parser starts from the batch's time whenever the last
		// time is 0, within a batch too.
		c.lastTs = c.btime
	}
	data := c.data[c.pos:]
	c.ev.off = c.base + int64(c.pos)
	n, dt, err := decode(data, &c.ev)
	if err != nil {
		return false, &FormatError{Offset: c.ev.off, Gen: g.gen, M: c.m, Err: err}
	}
	c.ev.time = g.tab.ns(dt) + c.lastTs
	c.lastTs = c.ev.time
	c.pos += n
	return true, nil
}

// short reads the value at data[p], of one to three bytes, which data
// holds; it returns where the value ends, or 0 when it is longer.
func short(data []byte, p int) (uint64, int) {
	b0 := data[p]
	if b0 < 0x80 {
		return uint64(b0), p + 1
	}
	b1 := data[p+1]
	if b1 < 0x80 {
		return uint64(b0&0x7f) | uint64(b1)<<7, p + 2
	}
	b2 := data[p+2]
	if b2 >= 0x80 {
		return 0, 0
	}
	return uint64(b0&0x7f) | uint64(b1&0x7f)<<7 | uint64(b2)<<14, p + 3
}

// decode reads a timed event from the start of data, which holds at
// least one byte, into ev; it returns its length and time delta.
func decode(data []byte, ev *raw) (int, uint64, error) {
	t := gotraceraw.EventType(data[0])
	ti := &info[t]
	if !ti.timed {
		if !ti.known {
			return 0, 0, wrapf(ErrEvent, "found invalid event type: %d", t)
		}
		return 0, 0, wrapf(ErrEvent, "found event without a timestamp: type=%d", t)
	}
	ev.typ = t
	var dt uint64
	p := 1
	if len(data) > 1 && data[1] < 0x80 {
		dt, p = uint64(data[1]), 2
	} else {
		v, n := varint.Consume(data[1:])
		if n <= 0 {
			return 0, 0, wrapf(ErrEvent, "found invalid uvarint for timestamp")
		}
		dt, p = v, 1+n
	}
	args := ev.args[:ti.nargs]
	for i := range args {
		if p < len(data) && data[p] < 0x80 {
			args[i] = uint64(data[p])
			p++
			continue
		}
		v, n := varint.Consume(data[p:])
		if n <= 0 {
			return 0, 0, wrapf(ErrEvent, "found invalid uvarint")
		}
		args[i] = v
		p += n
	}
	return p, dt, nil
}

// The frontier is a min-heap of the threads by the time of their next
// event. Which of two threads of equal times comes first decides the
// order of the events, so the heap moves entries exactly as Go's does.

func heapInsert(h []*cursor, c *cursor) []*cursor {
	h = append(h, c)
	siftUp(h, len(h)-1)
	return h
}

func heapFix(h []*cursor, i int) {
	if siftUp(h, i) == i {
		siftDown(h, i)
	}
}

func heapRemove(h []*cursor, i int) []*cursor {
	// Bubble i to the root whatever its time, then drop the root.
	for i > 0 {
		p := (i - 1) / 2
		h[p], h[i] = h[i], h[p]
		i = p
	}
	last := len(h) - 1
	h[0], h[last] = h[last], h[0]
	h = h[:last]
	siftDown(h, 0)
	return h
}

func siftUp(h []*cursor, i int) int {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].ev.time <= h[i].ev.time {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	return i
}

func siftDown(h []*cursor, i int) {
	for {
		m := i
		if m >= len(h) {
			return
		}
		t := h[m].ev.time
		if l := 2*i + 1; l < len(h) && h[l].ev.time < t {
			m, t = l, h[l].ev.time
		}
		if r := 2*i + 2; r < len(h) && h[r].ev.time < t {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
