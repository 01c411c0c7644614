package leaktext

import (
	"encoding/binary"
	"io"
	"sort"

	"github.com/tracefmt/tracefmt/internal/pprof"
)

// Profile turns a report into a heap profile of what leaked, which go tool
// pprof reads: per backtrace, the allocations never freed (inuse_objects)
// and their size (inuse_space), as sp-rtrace-postproc -l finds them, so
// that the totals per resource type are those of its "# Resource -" lines.
// The report's memory maps become the profile's mappings, and frames that
// a resolver named get their function, file and line.
//
// Feed it every record a Reader returns, with Add, then call
// WriteProfile. Memory grows with the allocations live at one time and the
// distinct backtraces, not with the report. Like LeakCounter it matches
// calls in reading order, where sp-rtrace-postproc sorts them by timestamp
// first; the two differ only for reports whose timestamps go backwards. As
// in ReadReport, a run of call lines in a compressed report shares the
// backtrace that follows the last of them. The zero value is ready to use.
type Profile struct {
	// Resource keeps only the calls of the resource type of this name
	// ("memory", "fd"); "" keeps them all, each sample labelled
	// "resource" with its type's name (go tool pprof -tagfocus picks one).
	// Set it before the first Add.
	Resource string

	resources []Resource
	maps      []MemoryMap
	mapSeen   map[string]bool
	live      liveSet[*leakAlloc]
	stacks    *pprof.Tally // per (resource type + 1, frame indexes): leaks left behind for good
	frameIdx  map[string]uint64
	frames    []Frame // owned copies
	run       []*leakAlloc
	runCalls  int
	runFrames []uint64 // frame indexes of the open run's backtrace
	key       []byte
	stack     []uint64
}

// leakAlloc is an allocation whose leak the profile may count.
type leakAlloc struct {
	res  int
	size int64
	// stack is its index in the profile's tally, -1 while its run's
	// backtrace is still to come.
	stack int
	// left says a later allocation of its id left it behind (a leak for
	// good) before its stack was known.
	left bool
}

// Add takes the next record of the report.
func (p *Profile) Add(rec *Record) {
	if p == nil || rec == nil {
		return
	}
	if p.stacks == nil {
		p.stacks = pprof.NewTally(2)
		p.frameIdx = map[string]uint64{}
		p.mapSeen = map[string]bool{}
	}
	switch rec.Kind {
	case KindComment:
		if rec.Temporary() {
			return // no end of a run, as in ReadReport
		}
	case KindCall:
		if len(p.runFrames) > 0 {
			p.closeRun()
		}
		p.call(&rec.Call)
		p.addFrames(rec.Call.Frames)
		return
	case KindTrace:
		if p.runCalls > 0 {
			p.addFrames(rec.Call.Frames)
		}
		return
	case KindMemoryMap:
		// A map seen before (a report concatenated to another) is
		// not kept twice.
		p.key = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(append(p.key[:0], rec.Map.Path...), rec.Map.Start), rec.Map.End)
		if !p.mapSeen[string(p.key)] {
			p.mapSeen[string(p.key)] = true
			m := rec.Map
			m.Path = clone(m.Path)
			p.maps = append(p.maps, m)
		}
	case KindResource:
		if resourceIndex(p.resources, rec.Resource.Type) < 0 {
			r := rec.Resource
			p.resources = append(p.resources, Resource{ID: r.ID, Type: clone(r.Type), Desc: clone(r.Desc), Flags: clone(r.Flags)})
		}
	}
	p.closeRun()
}

func (p *Profile) call(c *Call) {
	p.runCalls++
	res := resourceIndex(p.resources, c.Type)
	if p.Resource != "" && (res < 0 || string(p.resources[res].Type) != p.Resource) {
		return
	}
	refcount := res >= 0 && p.resources[res].Refcount()
	k := liveKey{res, c.ID}
	if c.Free {
		p.live.free(k, refcount)
		return
	}
	a := &leakAlloc{res: max(res, 0), size: c.Size, stack: -1}
	kept, left, leftBehind := p.live.alloc(k, refcount, a)
	if kept {
		p.run = append(p.run, a)
	}
	if leftBehind {
		if left.stack < 0 {
			left.left = true
		} else {
			p.stacks.AddAt(left.stack, 1, left.size)
		}
	}
}

func (p *Profile) addFrames(frames []Frame) {
	for _, f := range frames {
		p.key = binary.LittleEndian.AppendUint64(append(p.key[:0], f.Resolved...), f.Addr)
		i, ok := p.frameIdx[string(p.key)]
		if !ok {
			i = uint64(len(p.frames))
			p.frameIdx[string(p.key)] = i
			p.frames = append(p.frames, Frame{Addr: f.Addr, Resolved: clone(f.Resolved)})
		}
		p.runFrames = append(p.runFrames, i)
	}
}

// closeRun gives the calls of the run their backtrace.
func (p *Profile) closeRun() {
	for _, a := range p.run {
		p.stack = append(append(p.stack[:0], uint64(a.res)), p.runFrames...)
		a.stack = p.stacks.Intern(p.stack)
		if a.left {
			p.stacks.AddAt(a.stack, 1, a.size)
		}
	}
	clear(p.run)
	p.run = p.run[:0]
	p.runCalls = 0
	p.runFrames = p.runFrames[:0]
}

// WriteProfile writes the leaks found so far as a gzip-compressed
// profile.proto: sample types inuse_objects (count) and inuse_space
// (the default), one sample per backtrace and resource type. inuse_space
// sums the sizes the report gives, which pprof labels bytes whatever the
// resource type: a report does not say the unit of its other types' sizes.
func (p *Profile) WriteProfile(w io.Writer) error {
	if w == nil || p == nil {
		return ErrNotOpen
	}
	if p.stacks == nil {
		p.stacks = pprof.NewTally(2)
	}
	p.closeRun()
	totals := make([]int64, 2*p.stacks.Len())
	for i := range p.stacks.Len() {
		copy(totals[2*i:], p.stacks.Values(i))
	}
	for _, e := range p.live.m {
		a := e.v
		totals[2*a.stack]++
		totals[2*a.stack+1] += a.size
	}
	enc := pprof.NewEncoder(w, pprof.Header{
		SampleTypes:       []pprof.ValueType{{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"}},
		DefaultSampleType: "inuse_space",
		PeriodType:        pprof.ValueType{Type: "space", Unit: "bytes"},
		Period:            1,
	})
	// Mappings in address order, so that an address finds its own.
	maps := append([]MemoryMap(nil), p.maps...)
	sort.SliceStable(maps, func(i, j int) bool { return maps[i].Start < maps[j].Start })
	mapIDs := make([]uint64, len(maps))
	for i, m := range maps {
		mapIDs[i] = enc.Mapping(pprof.Mapping{Start: m.Start, Limit: m.End, File: string(m.Path)})
	}
	locs := make([]uint64, len(p.frames)) // location id per frame, 0 until used
	var stack, sample []uint64
	var label []pprof.Label
	for i := range p.stacks.Len() {
		v := totals[2*i : 2*i+2]
		if v[0] == 0 {
			continue
		}
		stack = p.stacks.Stack(stack[:0], i)
		sample = sample[:0]
		for _, f := range stack[1:] {
			if locs[f] == 0 {
				locs[f] = p.location(enc, f, maps, mapIDs)
			}
			sample = append(sample, locs[f])
		}
		label = label[:0]
		if p.Resource == "" && int(stack[0]) < len(p.resources) {
			label = append(label, pprof.Label{Key: "resource", Value: string(p.resources[stack[0]].Type)})
		}
		if err := enc.Sample(sample, v, label...); err != nil {
			return err
		}
	}
	return enc.Close()
}

// location adds the location of frame f: its address, the memory map
// holding it, and the function a resolver named.
func (p *Profile) location(enc *pprof.Encoder, f uint64, maps []MemoryMap, ids []uint64) uint64 {
	fr := p.frames[f]
	l := pprof.Location{Address: fr.Addr}
	if i := sort.Search(len(maps), func(i int) bool { return maps[i].Start > fr.Addr }) - 1; i >= 0 && fr.Addr < maps[i].End {
		l.Mapping = ids[i]
	}
	if len(fr.Resolved) > 0 {
		s := ParseResolved(fr.Resolved)
		if len(s.Func) > 0 {
			fn := enc.Function(string(s.Func), "", string(s.File), 0)
			l.Lines = []pprof.Line{{Function: fn, Line: int64(s.Line)}}
		}
	}
	return enc.Location(l)
}
