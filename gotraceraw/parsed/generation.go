package parsed

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/varint"
)

// batchRec is one batch of timed events of the generation being read.
type batchRec struct {
	time uint64
	data []byte // its events, in a chunk of the generation
	off  int64  // stream offset of its events (-1: unknown)
}

// thread is one M's batches, in trace order.
type thread struct {
	m       uint64
	batches []int32 // indexes in generation.batches
}

// cpuSample is a CPU sample waiting for its turn.
type cpuSample struct {
	time  Time // ticks until the generation is complete
	m     uint64
	p, g  uint64
	stack uint64
}

// generation holds one generation while its events are ordered: the
// tables its events refer to, and its batches of timed events by M. Its
// buffers are reused for the next generation; the tables are not.
type generation struct {
	tab     *tables
	gen     uint64
	minTs   uint64
	first   int64 // offset of its first batch
	freqSet bool
	chunks  [][]byte // the batches' bytes; see keep
	chunk   int      // the chunk being filled
	batches []batchRec
	threads []thread
	mIndex  map[uint64]int
	samples []cpuSample
	size    int64 // bytes of batches read, for the limit

	// The tables as read, before they are built.
	strBytes []byte
	strIDs   []uint64
	strEnds  []int
	strSeen  seenIDs
	stkIDs   []uint64
	stkEnds  []int
	stkPCs   []int32 // each frame of the stacks as its PC's index in pcs
	stkSeen  seenIDs
	pcs      pcTable
	expData  []byte // the experimental batches' data, which Sync events give out

	// Scratch of finish, kept for the next generation.
	order  []int
	strVal []string
	stkVal [][]Frame
	pcVal  []Frame
	pcBad  []uint8 // 1: a PC's func string is missing, 2: its file string
}

// seenIDs holds the IDs a generation's strings or stacks took so far,
// each with the index of its entry: in a slice indexed by ID while the IDs
// are dense, as the runtime writes them, and in a map past that. Both are
// reused from one generation to the next.
type seenIDs struct {
	dense []int32 // index+1 by ID; 0: not seen
	n     int     // IDs seen
	big   map[uint64]int
}

func (t *seenIDs) reset() {
	clear(t.dense)
	t.n = 0
	clear(t.big)
}

func (t *seenIDs) get(id uint64) (int, bool) {
	if id < uint64(len(t.dense)) {
		if j := t.dense[id]; j != 0 {
			return int(j) - 1, true
		}
	}
	if len(t.big) == 0 {
		return 0, false
	}
	// The slice may have grown over an ID put in the map before.
	j, ok := t.big[id]
	return j, ok
}

// set records id, not seen yet, at index j.
func (t *seenIDs) set(id uint64, j int) {
	t.n++
	if id >= uint64(len(t.dense)) && id < uint64(2*t.n+1024) && j < math.MaxInt32 {
		// Dense enough to grow the slice: its size stays within twice
		// the IDs seen, and a kilobyte.
		t.dense = slices.Grow(t.dense, int(id)+1-len(t.dense))
		t.dense = t.dense[:cap(t.dense)]
	}
	if id < uint64(len(t.dense)) {
		t.dense[id] = int32(j + 1)
		return
	}
	if t.big == nil {
		t.big = make(map[uint64]int)
	}
	t.big[id] = j
}

// pcFrame is what a generation says of a PC, the first time it says it:
// Go's parser keeps the first and ignores later frames of the same PC.
type pcFrame struct {
	pc       uint64
	fn, file uint64
	line     uint64
}

// pcTable holds a generation's PCs, each with its first frame, in the
// order they come. Stacks repeat their PCs, so each of the generation's
// frames is looked up here: an open-addressed table of indexes, reused
// from one generation to the next, costs less than a map.
type pcTable struct {
	frames []pcFrame
	slots  []int32 // index+1 in frames; 0: empty
	shift  uint    // 64 - log2(len(slots))
	// mult is the hash's multiplier, a random odd number drawn anew as
	// the table grows: the PCs come from the input, and a fixed one
	// would let a trace choose PCs that all want one slot, making a
	// generation's table quadratic to build. Multiplying by a random odd
	// number and keeping the top bits is a universal hash: few PCs
	// share a slot, whichever the trace holds.
	mult uint64
}

// home returns the slot where pc's search starts.
func (t *pcTable) home(pc uint64) int { return int((pc * t.mult) >> t.shift) }

func (t *pcTable) reset() {
	t.frames = t.frames[:0]
	clear(t.slots)
}

// add returns the index of pc's frame, f unless pc came before.
func (t *pcTable) add(f pcFrame) int32 {
	if 2*(len(t.frames)+1) > len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := t.home(f.pc); ; i = (i + 1) & mask {
		j := t.slots[i]
		if j == 0 {
			t.frames = append(t.frames, f)
			t.slots[i] = int32(len(t.frames))
			return int32(len(t.frames) - 1)
		}
		if t.frames[j-1].pc == f.pc {
			return j - 1
		}
	}
}

// grow doubles the slots (at least 64) and places the frames again.
func (t *pcTable) grow() {
	n := max(64, 2*len(t.slots))
	t.slots = make([]int32, n)
	t.shift = uint(64 - bits.TrailingZeros(uint(n)))
	t.mult = rand.Uint64() | 1
	for j, f := range t.frames {
		for i := t.home(f.pc); ; i = (i + 1) & (n - 1) {
			if t.slots[i] == 0 {
				t.slots[i] = int32(j + 1)
				break
			}
		}
	}
}

// reset empties g for generation number gen.
func (g *generation) reset(gen uint64) {
	if g.mIndex == nil {
		g.mIndex = make(map[uint64]int)
	}
	for i := range g.threads {
		g.threads[i].batches = g.threads[i].batches[:0]
	}
	*g = generation{
		tab: &tables{gen: gen}, gen: gen, first: -1,
		chunks: g.chunks, batches: g.batches[:0], threads: g.threads[:0], mIndex: g.mIndex,
		samples: g.samples[:0], strBytes: g.strBytes[:0], strIDs: g.strIDs[:0], strEnds: g.strEnds[:0],
		strSeen: g.strSeen, stkIDs: g.stkIDs[:0], stkEnds: g.stkEnds[:0], stkPCs: g.stkPCs[:0],
		stkSeen: g.stkSeen, pcs: g.pcs, // expData is the tables', new each time
		order: g.order, strVal: g.strVal, stkVal: g.stkVal, pcVal: g.pcVal, pcBad: g.pcBad,
	}
	for i := range g.chunks {
		g.chunks[i] = g.chunks[i][:0]
	}
	clear(g.mIndex)
	g.strSeen.reset()
	g.stkSeen.reset()
	g.pcs.reset()
}

// errf makes an error of the generation with a sentinel.
func (g *generation) errf(off int64, m uint64, sentinel error, format string, args ...any) error {
	return &FormatError{Offset: off, Gen: g.gen, M: ThreadID(m), Err: wrapf(sentinel, format, args...)}
}

// add takes one batch into the generation, as Go's parser does: string,
// stack, CPU sample and sync batches fill the tables, experimental
// batches are kept, and the others are events of their M.
func (g *generation) add(b *gotraceraw.Batch, v gotraceraw.Version) error {
	g.size += int64(len(b.Data))
	if g.first < 0 {
		g.first = b.Offset
	}
	data := b.Data
	off := b.Offset + headerLen(b)
	// An ExperimentalBatch of experiment 0 is no experiment's: Go's
	// parser takes it as an ordinary batch.
	isExp := b.Type == gotraceraw.EvExperimentalBatch && b.Exp != 0
	first := gotraceraw.EvNone
	if len(data) > 0 && !isExp {
		first = gotraceraw.EventType(data[0])
	}
	switch {
	case isExp:
		g.tab.exp = append(g.tab.exp, ExperimentalBatch{Experiment: gotraceraw.Experiment(b.Exp), Thread: ThreadID(b.M)})
		start := len(g.expData)
		g.expData = append(g.expData, data...)
		g.tab.exp[len(g.tab.exp)-1].Data = g.expData[start:len(g.expData):len(g.expData)]
	case first == gotraceraw.EvStrings:
		return g.addStrings(data, off, b.M)
	case first == gotraceraw.EvStacks:
		return g.addStacks(data, off, b.M)
	case first == gotraceraw.EvCPUSamples:
		return g.addSamples(data, off, b.M)
	case first == gotraceraw.EvFrequency && v < gotraceraw.Go125, first == gotraceraw.EvSync && v >= gotraceraw.Go125:
		return g.addSync(data, off, b.M, b.Time, v)
	case first == gotraceraw.EvEndOfGeneration:
		return g.errf(b.Offset, b.M, ErrGeneration, "internal error: unexpectedly processing EndOfGeneration; broken trace?")
	default:
		i, ok := g.mIndex[b.M]
		if !ok {
			i = len(g.threads)
			g.mIndex[b.M] = i
			if i < cap(g.threads) {
				g.threads = g.threads[:i+1]
				g.threads[i].m = b.M
			} else {
				g.threads = append(g.threads, thread{m: b.M})
			}
		}
		g.batches = append(g.batches, batchRec{time: b.Time, data: g.keep(data), off: off})
		g.threads[i].batches = append(g.threads[i].batches, int32(len(g.batches)-1))
	}
	return nil
}

// chunkSize is the size of the chunks that hold a generation's batches:
// chunks, rather than one growing slice, so that a large generation is
// never copied nor left behind as garbage while it grows, and memory
// stays within a chunk of the generation's size.
const chunkSize = 1 << 20

// firstChunk is the size of a Reader's first chunk.
const firstChunk = 64 << 10

// keep copies a batch's events into the generation's chunks.
func (g *generation) keep(data []byte) []byte {
	if len(g.chunks) == 0 {
		g.chunks = append(g.chunks, make([]byte, 0, firstChunk))
	}
	c := g.chunks[g.chunk]
	if len(data) > cap(c)-len(c) {
		g.chunk++
		if g.chunk == len(g.chunks) {
			// Chunks double up to chunkSize: a small trace costs little.
			g.chunks = append(g.chunks, make([]byte, 0, max(min(2*cap(c), chunkSize), len(data))))
		}
		c = g.chunks[g.chunk]
	}
	start := len(c)
	c = append(c, data...)
	g.chunks[g.chunk] = c
	return c[start:len(c):len(c)]
}

// headerLen is the length of a batch's header, for the offset of its data.
func headerLen(b *gotraceraw.Batch) int64 {
	n := 1 + varint.Len(b.Gen) + varint.Len(b.M) + varint.Len(b.Time)
	if b.Type == gotraceraw.EvExperimentalBatch {
		n++
	}
	return int64(n + varint.Len(uint64(len(b.Data))))
}

// byteReader reads a table batch as Go's parser does, with its errors.
type byteReader struct {
	b []byte
	p int
}

var errVarintOverflow = errors.New("binary: varint overflows a 64-bit integer")

// uvarint reads a varint: io.EOF when nothing is left, io.ErrUnexpectedEOF
// when the data ends inside it.
func (r *byteReader) uvarint() (uint64, error) {
	v, n := varint.Consume(r.b[r.p:])
	if n > 0 {
		r.p += n
		return v, nil
	}
	if n < 0 {
		r.p += -n
		return 0, errVarintOverflow
	}
	if r.p == len(r.b) {
		return 0, io.EOF
	}
	r.p = len(r.b)
	return 0, io.ErrUnexpectedEOF
}

func (g *generation) addStrings(data []byte, off int64, m uint64) error {
	r := byteReader{b: data, p: 1}
	for r.p < len(r.b) {
		at := off + int64(r.p)
		if t := r.b[r.p]; t != byte(gotraceraw.EvString) {
			return g.errf(at, m, ErrGeneration, "expected string event, got %d", t)
		}
		r.p++
		id, err := r.uvarint()
		if err != nil {
			return g.errf(at, m, ErrGeneration, "%w", err)
		}
		n, err := r.uvarint()
		if err != nil {
			return g.errf(at, m, ErrGeneration, "%w", err)
		}
		if n > gotraceraw.GoMaxStringLen {
			return g.errf(at, m, ErrGeneration, "invalid string size %d, maximum is %d", n, gotraceraw.GoMaxStringLen)
		}
		if have := len(r.b) - r.p; uint64(have) < n {
			return g.errf(at, m, ErrGeneration, "failed to read full string: read %d but wanted %d", have, n)
		}
		s := r.b[r.p : r.p+int(n)]
		r.p += int(n)
		if id == 0 {
			return g.errf(at, m, ErrTable, "multiple strings with the same ID: id=0, new=%s, existing=", s)
		}
		if j, dup := g.strSeen.get(id); dup {
			return g.errf(at, m, ErrTable, "multiple strings with the same ID: id=%d, new=%s, existing=%s", id, s, g.strAt(j))
		}
		g.strSeen.set(id, len(g.strIDs))
		g.strBytes = append(g.strBytes, s...)
		g.strIDs = append(g.strIDs, id)
		g.strEnds = append(g.strEnds, len(g.strBytes))
	}
	return nil
}

func (g *generation) strAt(j int) []byte {
	start := 0
	if j > 0 {
		start = g.strEnds[j-1]
	}
	return g.strBytes[start:g.strEnds[j]]
}

func (g *generation) stkAt(j int) []int32 {
	start := 0
	if j > 0 {
		start = g.stkEnds[j-1]
	}
	return g.stkPCs[start:g.stkEnds[j]]
}

// stackText prints a stack's PCs as Go's parser prints them in its
// duplicate-ID error.
func (g *generation) stackText(pcs []int32) string {
	var b []byte
	for _, j := range pcs {
		b = append(b, "\t0x"...)
		b = strconv.AppendUint(b, g.pcs.frames[j].pc, 16)
		b = append(b, '\n')
	}
	return string(b)
}

// frame reads a stack frame's four values into f when they are all
// there and none is too long, for the common case without the errors.
func (r *byteReader) frame(f *[4]uint64) bool {
	p := r.p
	for k := range f {
		v, n := varint.Consume(r.b[p:])
		if n <= 0 {
			return false
		}
		f[k], p = v, p+n
	}
	r.p = p
	return true
}

func (g *generation) addStacks(data []byte, off int64, m uint64) error {
	r := byteReader{b: data, p: 1}
	for r.p < len(r.b) {
		at := off + int64(r.p)
		if t := r.b[r.p]; t != byte(gotraceraw.EvStack) {
			return g.errf(at, m, ErrGeneration, "expected stack event, got %d", t)
		}
		r.p++
		id, err := r.uvarint()
		if err != nil {
			return g.errf(at, m, ErrGeneration, "%w", err)
		}
		nf, err := r.uvarint()
		if err != nil {
			return g.errf(at, m, ErrGeneration, "%w", err)
		}
		if nf > gotraceraw.GoMaxFrames {
			return g.errf(at, m, ErrGeneration, "invalid stack size %d, maximum is %d", nf, gotraceraw.GoMaxFrames)
		}
		start := len(g.stkPCs)
		for i := uint64(0); i < nf; i++ {
			var f [4]uint64
			if !r.frame(&f) {
				for k, what := range [...]string{"PC", "funcID", "fileID", "line"} {
					if f[k], err = r.uvarint(); err != nil {
						g.stkPCs = g.stkPCs[:start]
						return g.errf(at, m, ErrGeneration, "reading frame %d's %s for stack %d: %w", i+1, what, id, err)
					}
				}
			}
			g.stkPCs = append(g.stkPCs, g.pcs.add(pcFrame{pc: f[0], fn: f[1], file: f[2], line: f[3]}))
		}
		if id == 0 {
			return g.errf(at, m, ErrTable, "multiple trace.stacks with the same ID: id=0, new=%s, existing=", g.stackText(g.stkPCs[start:]))
		}
		if j, dup := g.stkSeen.get(id); dup {
			return g.errf(at, m, ErrTable, "multiple trace.stacks with the same ID: id=%d, new=%s, existing=%s", id, g.stackText(g.stkPCs[start:]), g.stackText(g.stkAt(j)))
		}
		g.stkSeen.set(id, len(g.stkIDs))
		g.stkIDs = append(g.stkIDs, id)
		g.stkEnds = append(g.stkEnds, len(g.stkPCs))
	}
	return nil
}

func (g *generation) addSamples(data []byte, off int64, m uint64) error {
	r := byteReader{b: data, p: 1}
	for r.p < len(r.b) {
		at := off + int64(r.p)
		if t := r.b[r.p]; t != byte(gotraceraw.EvCPUSample) {
			return g.errf(at, m, ErrGeneration, "expected CPU sample event, got %d", t)
		}
		r.p++
		var f [5]uint64
		for k := range f {
			v, err := r.uvarint()
			if err != nil {
				return g.errf(at, m, ErrGeneration, "%w", err)
			}
			f[k] = v
		}
		g.samples = append(g.samples, cpuSample{time: Time(f[0]), m: f[1], p: f[2], g: f[3], stack: f[4]})
	}
	return nil
}

func (g *generation) addSync(data []byte, off int64, m, base uint64, v gotraceraw.Version) error {
	r := byteReader{b: data}
	if v >= gotraceraw.Go125 {
		r.p = 1 // the Sync byte
	}
	last := base
	t := g.tab
	for r.p < len(r.b) {
		at := off + int64(r.p)
		typ := gotraceraw.EventType(r.b[r.p])
		r.p++
		switch {
		case typ == gotraceraw.EvFrequency:
			if g.freqSet {
				return g.errf(at, m, ErrGeneration, "found multiple frequency events")
			}
			f, err := r.uvarint()
			if err != nil {
				return g.errf(at, m, ErrGeneration, "%w", err)
			}
			// Nanoseconds per tick, computed as Go's parser does, so
			// that every time rounds the same.
			t.setFreq(1.0 / (float64(f) / 1e9))
			g.freqSet = t.freq != 0
		case typ == gotraceraw.EvClockSnapshot && v >= gotraceraw.Go125:
			if t.hasClock {
				return g.errf(at, m, ErrGeneration, "found multiple clock snapshot events")
			}
			t.hasClock = true
			var f [4]uint64
			for k := range f {
				x, err := r.uvarint()
				if err != nil {
					return g.errf(at, m, ErrGeneration, "%w", err)
				}
				f[k] = x
			}
			last += f[0]
			t.clock = ClockSnapshot{Trace: Time(last), Mono: f[1], Wall: wallTime(f[2], f[3])}
		default:
			return g.errf(at, m, ErrGeneration, "expected frequency or clock snapshot event, got %d", typ)
		}
	}
	return nil
}

// finish checks the complete generation and builds its tables, as Go's
// parser does once it has all the batches.
func (g *generation) finish(v gotraceraw.Version) error {
	t := g.tab
	if !g.freqSet {
		return g.errf(g.first, noM, ErrGeneration, "no frequency event found")
	}
	if v >= gotraceraw.Go125 && !t.hasClock {
		return g.errf(g.first, noM, ErrGeneration, "no clock snapshot event found")
	}
	if t.hasClock {
		t.clock.Trace = t.ns(uint64(t.clock.Trace))
	}
	// Strings: one allocation for all their bytes.
	all := string(g.strBytes)
	vals := g.strVal[:0]
	for j := range g.strIDs {
		start := 0
		if j > 0 {
			start = g.strEnds[j-1]
		}
		vals = append(vals, all[start:g.strEnds[j]])
	}
	t.strs.build(g.strIDs, vals)
	g.strVal = vals

	// Each PC's frame, its strings looked up once.
	pcVal, pcBad := g.pcVal[:0], g.pcBad[:0]
	for _, pf := range g.pcs.frames {
		fn, okFn := t.strs.get(pf.fn)
		file, okFile := t.strs.get(pf.file)
		bad := uint8(0)
		if !okFn {
			bad = 1
		} else if !okFile {
			bad = 2
		}
		pcVal = append(pcVal, Frame{PC: pf.pc, Func: fn, File: file, Line: pf.line})
		pcBad = append(pcBad, bad)
	}
	g.pcVal, g.pcBad = pcVal, pcBad

	// Stacks: every frame's strings must exist; Go's parser checks the
	// stacks in ID order, which is mostly the order they come in.
	order := g.order[:0]
	for j := range g.stkIDs {
		order = append(order, j)
	}
	if !slices.IsSorted(g.stkIDs) {
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(g.stkIDs[a], g.stkIDs[b]) })
	}
	g.order = order
	frames := make([]Frame, len(g.stkPCs))
	stacks := slices.Grow(g.stkVal[:0], len(g.stkIDs))[:len(g.stkIDs)]
	for _, j := range order {
		start := 0
		if j > 0 {
			start = g.stkEnds[j-1]
		}
		for k, pj := range g.stkPCs[start:g.stkEnds[j]] {
			switch pcBad[pj] {
			case 1:
				return g.errf(g.first, noM, ErrTable, "found invalid func string ID %d for stack %d", g.pcs.frames[pj].fn, g.stkIDs[j])
			case 2:
				return g.errf(g.first, noM, ErrTable, "found invalid file string ID %d for stack %d", g.pcs.frames[pj].file, g.stkIDs[j])
			}
			frames[start+k] = pcVal[pj]
		}
		stacks[j] = frames[start:g.stkEnds[j]:g.stkEnds[j]]
	}
	t.stacks.build(g.stkIDs, stacks)
	g.stkVal = stacks

	// CPU samples in time order; the sort is Go's, so that samples of
	// equal times come in the same order.
	for i := range g.samples {
		g.samples[i].time = t.ns(uint64(g.samples[i].time))
	}
	slices.SortFunc(g.samples, func(a, b cpuSample) int { return cmp.Compare(a.time, b.time) })
	return nil
}

// wrapf makes an error wrapping sentinel with a formatted message.
func wrapf(sentinel error, format string, args ...any) error {
	return &reason{sentinel: sentinel, err: fmt.Errorf(format, args...)}
}

// noM is NoThread as a batch's M: errors of no one batch.
const noM = ^uint64(0)
