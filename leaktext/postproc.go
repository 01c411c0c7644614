package leaktext

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// SortOrder orders the groups of a compressed report (sp-rtrace-postproc
// -s). The zero value is the real tool's default.
type SortOrder uint8

const (
	SortSizeAsc  SortOrder = iota // -s size-asc (default): total size, smallest first
	SortSize                      // -s size: total size, largest first
	SortCount                     // -s count: number of calls, most first
	SortCountAsc                  // -s count-asc: number of calls, fewest first
)

// ParseSortOrder reads a -s argument.
func ParseSortOrder(s string) (SortOrder, error) {
	switch s {
	case "size-asc":
		return SortSizeAsc, nil
	case "size":
		return SortSize, nil
	case "count":
		return SortCount, nil
	case "count-asc":
		return SortCountAsc, nil
	}
	return 0, fmt.Errorf("leaktext: unknown sort order %q (size, size-asc, count, count-asc)", s)
}

// Options select what PostProcess does, as sp-rtrace-postproc's options.
type Options struct {
	Leaks    bool      // -l: keep only allocations never freed
	Compress bool      // -c: group calls by backtrace
	Sort     SortOrder // -s, with Compress
	// FilterContext and ContextMask are -C mask: keep calls whose context
	// mask shares a bit with ContextMask (with a mask of 0, calls with no
	// context) and the registry entries that do.
	FilterContext bool
	ContextMask   uint32
	// ResourceMask is -R mask: keep the resource types whose bit is in
	// it and their calls; 0 keeps all.
	ResourceMask uint32
	// Trim and Depth are -b depth: print at most Depth frames per
	// backtrace (calls stay grouped by their whole backtrace, as in the
	// real tool) and set the header's backtrace depth.
	Trim  bool
	Depth int
	// BinaryOrder writes the comments that came before any other record
	// (heap status and "## tracing module" lines) right after the header,
	// where the real tool writes them when its input is the binary log,
	// instead of before the first call, where it writes them for text
	// input.
	BinaryOrder bool
}

// TrimBacktraces keeps at most depth frames of every backtrace and sets
// the header's backtrace depth.
func (rep *Report) TrimBacktraces(depth int) {
	if rep == nil {
		return
	}
	depth = max(depth, 0)
	for _, t := range rep.traces {
		if len(t.Frames) > depth {
			t.Frames = t.Frames[:depth]
		}
	}
	rep.setField(KeyBacktraceDepth, strconv.Itoa(depth))
}

func (rep *Report) setField(key, value string) {
	for i, f := range rep.Header.Fields {
		if f.Key == key {
			rep.Header.Fields[i].Value = value
			return
		}
	}
	rep.Header.Fields = append(rep.Header.Fields, Field{Key: key, Value: value})
}

// removeEvents drops the events for which drop is true.
func (rep *Report) removeEvents(drop func(*Event) bool) {
	rep.Events = slices.DeleteFunc(rep.Events, drop)
}

// FilterResources keeps the resource types whose bit (1<<(n-1) for the
// n-th type) is in mask, and the calls of those types (and of unknown
// types).
func (rep *Report) FilterResources(mask uint32) {
	if rep == nil {
		return
	}
	keep := make([]bool, len(rep.Resources))
	var kept []Resource
	remap := make([]int, len(rep.Resources))
	for i, r := range rep.Resources {
		n := ordinal(r.ID)
		keep[i] = n <= 32 && mask&(1<<(n-1)) != 0
		remap[i] = -1
		if keep[i] {
			remap[i] = len(kept)
			kept = append(kept, r)
		}
	}
	rep.removeEvents(func(e *Event) bool { return e.Res >= 0 && !keep[e.Res] })
	for _, e := range rep.Events {
		if e.Res >= 0 {
			e.Res = remap[e.Res]
		}
	}
	rep.Resources = kept
}

// FilterLeaks removes every free and every allocation a later free
// released, matching them by resource type and id in event order:
//   - a free releases the most recent live allocation of its id; a free
//     with none is dropped all the same;
//   - an id allocated again while live leaves the older allocation as a
//     leak (realloc writes a free of the old block, then an allocation);
//   - for reference-counted types ("[refcount]") a further allocation of
//     a live id adds a reference (and is dropped), a free removes one, and
//     the allocation goes when none is left.
func (rep *Report) FilterLeaks() {
	if rep == nil {
		return
	}
	var live liveSet[*Event]
	drop := map[*Event]bool{}
	for _, e := range rep.Events {
		k := liveKey{e.Res, e.Call.ID}
		refcount := e.Res >= 0 && rep.Resources[e.Res].Refcount()
		if !e.Call.Free {
			if kept, _, _ := live.alloc(k, refcount, e); !kept {
				drop[e] = true
			}
			continue
		}
		if released, ok := live.free(k, refcount); ok {
			drop[released] = true
		}
		drop[e] = true
	}
	rep.removeEvents(func(e *Event) bool { return drop[e] })
}

// FilterContext keeps the calls whose context mask shares a bit with mask
// (with mask 0: the calls with no context) and the registry entries whose
// id is in mask.
func (rep *Report) FilterContext(mask uint32) {
	if rep == nil {
		return
	}
	rep.Contexts = slices.DeleteFunc(rep.Contexts, func(c Context) bool { return c.ID&mask == 0 })
	rep.removeEvents(func(e *Event) bool {
		if mask == 0 {
			return e.Call.Context != 0
		}
		return e.Call.Context&mask == 0
	})
}

// Group is the calls that share a backtrace.
type Group struct {
	Trace  *Trace
	Events []*Event
	// Count is len(Events); Size is the sum of their sizes (frees count 0).
	Count int
	Size  int64
}

// Groups returns the calls grouped by backtrace, in the order of the real
// tool's compressed output for order: groups that tie are in the order of
// its backtrace hash table (bucket, then first appearance).
func (rep *Report) Groups(order SortOrder) []Group {
	if rep == nil {
		return nil
	}
	byTrace := map[*Trace]int{}
	var groups []Group
	for _, e := range rep.Events {
		i, ok := byTrace[e.Trace]
		if !ok {
			i = len(groups)
			byTrace[e.Trace] = i
			groups = append(groups, Group{Trace: e.Trace})
		}
		g := &groups[i]
		g.Events = append(g.Events, e)
		g.Count++
		if !e.Call.Free {
			g.Size += e.Call.Size
		}
	}
	// Within a group the real tool lists calls in reading order.
	for _, g := range groups {
		slices.SortStableFunc(g.Events, func(a, b *Event) int { return a.order - b.order })
	}
	slices.SortFunc(groups, func(a, b Group) int {
		if a.Trace.hash != b.Trace.hash {
			return cmpInt(int64(a.Trace.hash), int64(b.Trace.hash))
		}
		return cmpInt(int64(a.Trace.seq), int64(b.Trace.seq))
	})
	slices.SortStableFunc(groups, func(a, b Group) int {
		switch order {
		case SortSize:
			return cmpInt(b.Size, a.Size)
		case SortCount:
			return cmpInt(int64(b.Count), int64(a.Count))
		case SortCountAsc:
			return cmpInt(int64(a.Count), int64(b.Count))
		}
		return cmpInt(a.Size, b.Size)
	})
	return groups
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// LeakSum is the allocations left of one resource type.
type LeakSum struct {
	Resource Resource
	Count    int
	Size     int64
}

// LeakSums counts the allocations left per resource type (calls of an
// unknown type count as the first type, as in the real tool).
func (rep *Report) LeakSums() []LeakSum {
	if rep == nil {
		return nil
	}
	sums := make([]LeakSum, len(rep.Resources))
	for i, r := range rep.Resources {
		sums[i].Resource = r
	}
	for _, e := range rep.Events {
		if e.Call.Free || len(sums) == 0 {
			continue
		}
		i := max(e.Res, 0)
		sums[i].Count++
		sums[i].Size += e.Call.Size
	}
	return sums
}

// PostProcess applies opt to rep (which it changes) in the real tool's
// order (-b, -R, -l, -C) and writes the report sp-rtrace-postproc writes
// with those options for a text input, except where the real tool is
// wrong (below).
//
// It writes what sp-rtrace-postproc (HEAD cb26c5e) writes for a
// text input, byte for byte on the real pairs in our tests, but for the
// Reader's losses (see Reader) and these defects of the tool:
//
//   - Per-type leak sums of multi-type reports: it stores the sums of the
//     n-th type at n-1 but reads them at ffs(n)-1, so the third type
//     prints the first type's sums. We print each type's own.
//   - Context names: reading text, it prints "@ 0 : (null)" for every
//     context; we print the entries as read.
//   - The header time: it re-reads it through mktime with tm_isdst set
//     from the zone, which can move it by an hour; we print it as read. A
//     protocol 1.0 "time=" is written as "timestamp=".
//
// Followed as the tool does: the version is written as "2.0"; unknown
// header keys are dropped; "filter" keeps "leaks" and "resolve" and adds
// "compress" for -c; temporary comments are dropped; persistent comments
// are written before the first call whose index exceeds that of the call
// they followed (Options.BinaryOrder writes the leading ones after the
// header, as the tool does for a binary log); calls are sorted by
// timestamp then index; groups that tie come in the order of the tool's
// backtrace hash table; -b trims printed frames but groups stay keyed by
// the whole backtrace; a single remaining resource type is registered as
// "<1>" and not named on calls; lines end in LF. Not done: -r (resolving
// needs the ELF files), --include and --exclude.
func PostProcess(w io.Writer, rep *Report, opt Options) error {
	switch {
	case w == nil:
		return ErrNotOpen
	case rep == nil:
		return fmt.Errorf("%w: a nil *Report", ErrInvalid)
	}
	if opt.Trim {
		rep.TrimBacktraces(opt.Depth)
	}
	if opt.ResourceMask != 0 {
		rep.FilterResources(opt.ResourceMask)
	}
	if opt.Leaks {
		rep.FilterLeaks()
	}
	if opt.FilterContext {
		rep.FilterContext(opt.ContextMask)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	p := &printer{w: bw, rep: rep, single: len(rep.Resources) == 1}
	p.header(opt)
	for _, a := range rep.Attachments {
		p.line(appendAttachment(p.b[:0], a))
	}
	comments := rep.Comments
	if opt.BinaryOrder {
		for _, c := range comments[:rep.Leading] {
			p.line(c.Text)
		}
		comments = comments[rep.Leading:]
	}
	p.comments = comments
	for _, c := range rep.Contexts {
		p.line(AppendContext(p.b[:0], c))
	}
	for _, r := range rep.Resources {
		if p.single {
			r.ID = 1
		}
		if r.Refcount() {
			r.Flags = []byte("refcount")
		} else {
			r.Flags = nil
		}
		p.line(AppendResource(p.b[:0], r))
	}
	for _, m := range rep.Maps {
		p.line(AppendMemoryMap(p.b[:0], m))
	}
	if opt.Compress {
		for _, g := range rep.Groups(opt.Sort) {
			for _, e := range g.Events {
				p.call(e)
			}
			p.line(fmt.Appendf(p.b[:0], "# allocation summary: %d block(s) with total size %d", g.Count, g.Size))
			p.frames(g.Trace)
		}
	} else {
		for _, e := range rep.Events {
			p.call(e)
			p.frames(e.Trace)
		}
	}
	for _, c := range p.comments {
		p.line(c.Text)
	}
	if opt.Leaks {
		for _, s := range rep.LeakSums() {
			p.line(fmt.Appendf(p.b[:0], "# Resource - %s (%s):", s.Resource.Type, s.Resource.Desc))
			p.line(fmt.Appendf(p.b[:0], "# %d block(s) leaked with total size of %d bytes", s.Count, s.Size))
		}
	}
	return bw.Flush()
}

type printer struct {
	w        *bufio.Writer
	rep      *Report
	b        []byte
	single   bool
	comments []Comment
}

func (p *printer) line(b []byte) {
	p.b = b
	p.w.Write(b)
	p.w.WriteByte('\n')
}

func (p *printer) call(e *Event) {
	for len(p.comments) > 0 && p.comments[0].After < e.Call.Index {
		p.line(p.comments[0].Text)
		p.comments = p.comments[1:]
	}
	c := e.Call
	c.HasTime = c.HasTime && c.Time != 0 // the formatter omits a zero time
	c.Type = nil
	if !p.single && e.Res >= 0 {
		c.Type = p.rep.Resources[e.Res].Type
	}
	p.line(AppendCall(p.b[:0], c))
	for _, a := range c.Args {
		p.line(AppendArg(p.b[:0], a))
	}
}

func (p *printer) frames(t *Trace) {
	for _, f := range t.Frames {
		p.line(AppendFrame(p.b[:0], Frame{Addr: f.Addr, Resolved: f.Resolved}))
	}
	p.line(p.b[:0])
}

// header writes the header the real tool writes: its own protocol
// version, the input's arch, timestamp (re-printed as Y.M.D), process,
// pid, backtrace depth and origin, and the filter list recomputed.
func (p *printer) header(opt Options) {
	h := p.rep.Header
	get := func(k string) (string, bool) { return h.Get(k) }
	var b []byte
	add := func(k, v string) {
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, v...)
		b = append(b, ", "...)
	}
	add(KeyVersion, "2.0")
	if v, ok := get(KeyArch); ok {
		add(KeyArch, v)
	}
	ts, ok := get(KeyTimestamp)
	if !ok {
		ts, ok = get(KeyTime)
	}
	if ok {
		if t, ok := reformatTime(ts); ok {
			add(KeyTimestamp, t)
		}
	}
	if v, ok := get(KeyProcess); ok {
		add(KeyProcess, v)
	}
	v, _ := get(KeyPID)
	add(KeyPID, strconv.Itoa(atoi(v)))
	filter, _ := get(KeyFilter)
	var names []string
	has := func(n string) bool { return slices.Contains(strings.Split(filter, "|"), n) }
	if opt.Leaks || has("leaks") {
		names = append(names, "leaks")
	}
	if opt.Compress {
		names = append(names, "compress")
	}
	if has("resolve") {
		names = append(names, "resolve")
	}
	if len(names) > 0 {
		add(KeyFilter, strings.Join(names, "|"))
	}
	if v, ok := get(KeyBacktraceDepth); ok {
		add(KeyBacktraceDepth, strconv.Itoa(atoi(v)))
	}
	if v, ok := get(KeyOrigin); ok {
		add(KeyOrigin, v)
	}
	p.line(b)
}

// atoi reads a leading decimal number as C's atoi does (0 when none).
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t")
	neg := strings.HasPrefix(s, "-")
	if neg || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	// Digits past 2^40 are ignored, so the sum cannot overflow; int64
	// keeps that bound on 32-bit platforms too.
	var n int64
	for i := 0; i < len(s) && s[i]-'0' < 10 && n < 1<<40; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return int(n)
}

// reformatTime reads "Y.M.D h:m:s" and prints it "%d.%d.%d %02d:%02d:%02d".
func reformatTime(s string) (string, bool) {
	var y, mo, d, h, mi, sec int
	if n, _ := fmt.Sscanf(s, "%d.%d.%d %d:%d:%d", &y, &mo, &d, &h, &mi, &sec); n != 6 {
		return "", false
	}
	return fmt.Sprintf("%d.%d.%d %02d:%02d:%02d", y, mo, d, h, mi, sec), true
}
