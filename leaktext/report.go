package leaktext

import (
	"io"
	"math/bits"
	"slices"
	"sort"
)

// Report is a whole report in memory, held as sp-rtrace-postproc holds a
// text report it has read: registries, memory maps, calls with their
// (shared) backtraces, and persistent comments placed by call index.
// Unlike Reader, a Report owns all its memory.
type Report struct {
	Header      Header
	Attachments []Attachment
	Contexts    []Context
	Resources   []Resource
	Maps        []MemoryMap
	// Events are the calls in the order the real tool keeps them: sorted
	// by timestamp, then index (see ReadReport).
	Events []*Event
	// Comments are the persistent comments (temporary "# " ones are
	// dropped on reading, as the real tool does).
	Comments []Comment
	// Leading is how many of Comments came before any other record: where
	// a binary log's heap-status and module records are written.
	Leading int

	traces  map[string]*Trace
	ntraces int
}

// Event is one call of a Report.
type Event struct {
	// Call holds the call line's fields and its arguments; its Frames are
	// nil: the backtrace is Trace, shared by every call with the same
	// addresses.
	Call Call
	// Trace is the call's backtrace (empty, never nil, for calls without).
	Trace *Trace
	// Res is the index of the call's resource type in Report.Resources,
	// -1 when the type is unknown.
	Res int

	order int // position in the input
}

// Trace is a backtrace shared by the calls that have the same frame
// addresses.
type Trace struct {
	Frames []Frame
	hash   uint32
	seq    int
}

// Comment is a persistent comment line and the index of the last call
// read before it (0 before any call).
type Comment struct {
	After int64
	Text  []byte
}

// ReadReport reads a whole report as sp-rtrace-postproc reads a text one
// (but for what its reader loses, listed in the package documentation):
//   - a run of call lines shares the frames that follow the last of them
//     (compressed reports); an empty line, or any record other than a
//     temporary comment, ends the run;
//   - arguments go to the last call of the run;
//   - frames and arguments with no call before them are ignored;
//   - a call's resource type is the registry entry named by its "<type>",
//     or the first entry when the call names none;
//   - a repeated resource type name is ignored;
//   - events are sorted by timestamp (milliseconds, as printed), then by
//     index. A report whose timestamps wrap at midnight is thus reordered
//     as the real tool reorders it.
func ReadReport(r io.Reader) (*Report, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	rep := &Report{Header: rd.Header(), traces: map[string]*Trace{}}
	rep.Header.Verbatim = clone(rep.Header.Verbatim)
	var pending []*Event
	var frames []Frame
	var lastIndex int64
	leading := true
	closeRun := func() {
		if len(pending) == 0 {
			return
		}
		t := rep.trace(frames)
		for _, e := range pending {
			e.Trace = t
		}
		pending = pending[:0]
		frames = frames[:0]
	}
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if rec.Kind == KindComment && rec.Temporary() {
			continue
		}
		if rec.Kind != KindComment {
			leading = false
		}
		switch rec.Kind {
		case KindCall:
			if len(frames) > 0 {
				closeRun()
			}
			c := rec.Call.Clone()
			c.Frames = nil
			e := &Event{Call: c, Res: rep.resourceOf(c.Type), order: len(rep.Events)}
			rep.Events = append(rep.Events, e)
			pending = append(pending, e)
			lastIndex = c.Index
			for _, f := range rec.Call.Frames {
				frames = append(frames, Frame{Addr: f.Addr, Resolved: clone(f.Resolved)})
			}
			continue
		case KindTrace:
			if len(pending) == 0 {
				continue
			}
			last := pending[len(pending)-1]
			for _, a := range rec.Call.Args {
				last.Call.Args = append(last.Call.Args, Arg{Name: clone(a.Name), Value: clone(a.Value)})
			}
			for _, f := range rec.Call.Frames {
				frames = append(frames, Frame{Addr: f.Addr, Resolved: clone(f.Resolved)})
			}
			continue
		}
		closeRun()
		switch rec.Kind {
		case KindComment:
			rep.Comments = append(rep.Comments, Comment{After: lastIndex, Text: clone(rec.Text)})
			if leading {
				rep.Leading++
			}
		case KindMemoryMap:
			m := rec.Map
			m.Path = clone(m.Path)
			rep.Maps = append(rep.Maps, m)
		case KindContext:
			rep.Contexts = append(rep.Contexts, Context{ID: rec.Context.ID, Name: clone(rec.Context.Name)})
		case KindResource:
			if rep.resourceOf(rec.Resource.Type) < 0 {
				res := rec.Resource
				rep.Resources = append(rep.Resources, Resource{ID: res.ID, Type: clone(res.Type), Desc: clone(res.Desc), Flags: clone(res.Flags)})
			}
		case KindAttachment:
			rep.Attachments = append(rep.Attachments, Attachment{Name: clone(rec.Attachment.Name), Path: clone(rec.Attachment.Path)})
		}
	}
	closeRun()
	// Calls read before their type's registry line keep Res -1 only when
	// they named a type that never came; those without a name take the
	// first type.
	for _, e := range rep.Events {
		if e.Res < 0 {
			e.Res = rep.resourceOf(e.Call.Type)
		}
	}
	sort.SliceStable(rep.Events, func(i, j int) bool {
		a, b := rep.Events[i].Call, rep.Events[j].Call
		if a.Time != b.Time {
			return a.Time < b.Time
		}
		return a.Index < b.Index
	})
	return rep, nil
}

// resourceOf returns the index of the named type, or of the first type
// when name is nil.
func (rep *Report) resourceOf(name []byte) int { return resourceIndex(rep.Resources, name) }

// resourceIndex returns the index of the named type in resources, or of
// the first type when name is nil; -1 when there is none.
func resourceIndex(resources []Resource, name []byte) int {
	if name == nil {
		if len(resources) > 0 {
			return 0
		}
		return -1
	}
	for i, r := range resources {
		if string(r.Type) == string(name) {
			return i
		}
	}
	return -1
}

// trace returns the shared trace with the frames' addresses, making it on
// first use.
func (rep *Report) trace(frames []Frame) *Trace {
	key := make([]byte, 0, 8*len(frames))
	for _, f := range frames {
		key = append(key, byte(f.Addr), byte(f.Addr>>8), byte(f.Addr>>16), byte(f.Addr>>24),
			byte(f.Addr>>32), byte(f.Addr>>40), byte(f.Addr>>48), byte(f.Addr>>56))
	}
	if t, ok := rep.traces[string(key)]; ok {
		return t
	}
	t := &Trace{Frames: slices.Clone(frames), hash: traceHash(frames), seq: rep.ntraces}
	rep.ntraces++
	rep.traces[string(key)] = t
	return t
}

// traceHash is the real tool's backtrace hash: it decides, through its
// hash table's bucket order, how groups of equal size are ordered.
func traceHash(frames []Frame) uint32 {
	var h uint64
	for _, f := range frames {
		for v := f.Addr; v != 0; v >>= 3 {
			h ^= v & 0xffff
		}
	}
	return uint32(h)
}

// ordinal returns a resource type's number n (its registry line shows the
// bit 1<<(n-1)).
func ordinal(id uint32) int { return bits.TrailingZeros32(id) + 1 }

// AddressMap finds the memory map holding an address.
type AddressMap struct {
	maps []MemoryMap
}

// NewAddressMap indexes maps (copied) by start address.
func NewAddressMap(maps []MemoryMap) *AddressMap {
	m := &AddressMap{maps: slices.Clone(maps)}
	slices.SortStableFunc(m.maps, func(a, b MemoryMap) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	return m
}

// Lookup returns the mapping [Start, End) holding addr and addr's offset
// from the mapping's start. The offset is not yet an address inside the
// ELF file: the report records only the executable mapping, not its file
// offset or the segment's p_vaddr; sp-rtrace treats shared objects and
// PIE programs as relative (offset from Start) and non-PIE programs as
// absolute (addr itself), which is right only when the code is mapped
// from file offset 0 (true of the 2010-era i686 reports, not of modern
// separate-code binaries).
func (m *AddressMap) Lookup(addr uint64) (MemoryMap, uint64, bool) {
	if m == nil {
		return MemoryMap{}, 0, false
	}
	i := sort.Search(len(m.maps), func(i int) bool { return m.maps[i].Start > addr })
	for i > 0 {
		i--
		if mm := m.maps[i]; addr < mm.End {
			return mm, addr - mm.Start, true
		}
	}
	return MemoryMap{}, 0, false
}
