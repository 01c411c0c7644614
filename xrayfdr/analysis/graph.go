package analysis

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/llvmorder"
)

// Graph collects the call graph of a log, as llvm-xray graph does: a
// vertex per function, an edge per caller and callee (functions called
// with nothing instrumented above them hang from vertex 0), each with the
// count and the latency figures of the calls. Feed it a log with Read (or
// events with Add), then print with WriteDOT.
//
// An exit must match the innermost open call of its thread (or, with
// DeduceSiblingCalls, a call further out, which closes the calls opened
// since). The latency of every call is kept for exact percentiles: 8 bytes
// per call.
type Graph struct {
	// DeduceSiblingCalls closes, at an exit that does not match the
	// innermost call, the calls opened since the matching one.
	DeduceSiblingCalls bool
	// KeepGoing skips records that cannot be accounted (reporting each
	// to OnError) instead of failing.
	KeepGoing bool
	// OnError, if set, receives each record skipped with KeepGoing.
	OnError func(*CallError)
	// LLVM is the llvm-xray release whose order to follow where releases
	// differ (the threads' order; for a graph, its edges'); 0 is the
	// newest.
	LLVM xrayfdr.LLVM
	// Header is the log's header (Read sets it).
	Header xrayfdr.Header

	th     threads[[]gframe]
	edges  []graphEdge
	verts  []graphVertex
	vertIx funcIndex
	seq    uint64
	curTSC uint64
	w      xrayfdr.Walker
}

// graphStat is llvm-xray's TimeStat.
type graphStat struct {
	count                           int64
	min, median, p90, p99, max, sum float64
}

type graphEdge struct {
	from, to int32
	stamp    stamp
	lat      latencies
	s        graphStat
}

type graphVertex struct {
	id    int32
	named bool
	stamp stamp
	s     graphStat
	out   []int32         // edges from this vertex
	outIx map[int32]int32 // callee -> edge, once there are many
}

// gframe is an open call: its function, entry time and vertex (-1:
// none yet, for function id 0, which llvm-xray gives no vertex at entry).
type gframe struct {
	id  int32
	vi  int32
	tsc uint64
}

// stamp orders first insertions as llvm-xray makes them: it walks all
// records sorted by time (stable: ties in its thread-by-thread order),
// while we walk thread by thread, so the earliest touch of a key counts.
type stamp struct{ tsc, seq uint64 }

// Read adds the calls of the log in data.
//
// llvm-xray's graph sorts all records by time, stably, before pairing
// them. Where the time of a thread goes back (a NewCPU record behind the
// records before it, as after a move between CPUs whose clocks disagree),
// that sort moves records, and llvm-xray pairs them in their sorted
// order; so does Read, which then holds that thread's events (32 bytes
// each) to sort them.
func (g *Graph) Read(data []byte) error {
	g.w.LLVM = g.LLVM
	g.w.SortBack = true
	if err := g.w.Walk(data, g.add); err != nil {
		return err
	}
	g.Header = g.w.Header()
	return nil
}

func (g *Graph) add(e *xrayfdr.Event) error {
	err := g.Add(e)
	if err != nil && g.KeepGoing {
		if g.OnError != nil {
			g.OnError(err.(*CallError))
		}
		return nil
	}
	return err
}

// vertex returns the index of the vertex of id, touched at st.
func (g *Graph) vertex(id int32, st stamp) int {
	i, ok := g.vertIx.get(id)
	if !ok {
		i = len(g.verts)
		g.vertIx.set(id, i)
		g.verts = append(g.verts, graphVertex{id: id, stamp: st})
		return i
	}
	if v := &g.verts[i]; cmpStamp(st, v.stamp) < 0 {
		v.stamp = st
	}
	return i
}

// call records a call of to from from lasting d ticks. It touches the
// edge, then both vertices, as llvm-xray's graph does.
//
// The vertices of the calls on the stack were touched at their entry,
// earlier, so only vertex 0 (the root caller) is touched here.
func (g *Graph) call(from, to gframe, d uint64) {
	g.seq += 3
	est := stamp{g.curTSC, g.seq - 2}
	fi, ti := int(from.vi), int(to.vi)
	if fi < 0 {
		fi = g.vertex(from.id, stamp{g.curTSC, g.seq - 1})
	}
	if ti < 0 {
		ti = g.vertex(to.id, stamp{g.curTSC, g.seq})
	}
	ei := -1
	fv := &g.verts[fi]
	if fv.outIx != nil {
		if r, ok := fv.outIx[to.id]; ok {
			ei = int(r)
		}
	} else {
		for _, r := range fv.out {
			if g.edges[r].to == to.id {
				ei = int(r)
				break
			}
		}
	}
	if ei < 0 {
		ei = len(g.edges)
		g.edges = append(g.edges, graphEdge{from: from.id, to: to.id, stamp: est})
		fv.out = append(fv.out, int32(ei))
		switch {
		case fv.outIx != nil:
			fv.outIx[to.id] = int32(ei)
		case len(fv.out) > 16:
			// many callees: a map keeps the lookups constant
			fv.outIx = make(map[int32]int32, 2*len(fv.out))
			for _, r := range fv.out {
				fv.outIx[g.edges[r].to] = r
			}
		}
	}
	e := &g.edges[ei]
	if cmpStamp(est, e.stamp) < 0 {
		e.stamp = est
	}
	e.lat.add(d)
	updateStat(&e.s, d)
	updateStat(&g.verts[ti].s, d)
}

func updateStat(s *graphStat, l uint64) {
	s.count++
	v := float64(int64(l))
	if s.min > v || s.min == 0 {
		s.min = v
	}
	if s.max < v {
		s.max = v
	}
	s.sum += v
}

// Add accounts one record. It returns a *CallError for a record it
// cannot account (the record is then ignored).
func (g *Graph) Add(e *xrayfdr.Event) error {
	if e == nil {
		return errNilEvent
	}
	g.curTSC = e.TSC
	tsp, _ := g.th.get(e.TID)
	ts := *tsp
	switch e.Kind {
	case xrayfdr.EventEnter, xrayfdr.EventEnterArg:
		f := gframe{id: e.FuncID, vi: -1, tsc: e.TSC}
		if e.FuncID != 0 {
			g.seq++
			f.vi = int32(g.vertex(e.FuncID, stamp{g.curTSC, g.seq}))
			g.verts[f.vi].named = true
		}
		*tsp = append(ts, f)
	case xrayfdr.EventExit, xrayfdr.EventTailExit:
		n := len(ts)
		if n == 0 || ts[n-1].id != e.FuncID {
			i := n - 1
			for i >= 0 && ts[i].id != e.FuncID {
				i--
			}
			if !g.DeduceSiblingCalls || i < 0 {
				ce := &CallError{Event: *e, Err: ErrNoEntry}
				for _, f := range ts {
					ce.Stack = append(ce.Stack, f.id)
				}
				return ce
			}
			for n-1 > i {
				top := ts[n-1]
				n--
				g.call(ts[n-1], top, absDiff(top.tsc, e.TSC))
			}
		}
		top := ts[n-1]
		n--
		caller := gframe{vi: -1} // vertex 0: no caller
		if n > 0 {
			caller = ts[n-1]
		}
		g.call(caller, top, absDiff(top.tsc, e.TSC))
		*tsp = ts[:n]
	}
	return nil
}

// order statistics as llvm-xray's graph computes them
func graphStats(lat []uint64, s *graphStat) {
	if len(lat) == 0 {
		return
	}
	n := s.count
	med, p90, p99 := llvmorder.OrderStats(lat, int(n/2), int(n*9/10), int(n*99/100))
	s.median = float64(int64(med))
	s.p90 = float64(int64(p90))
	s.p99 = float64(int64(p99))
}

func maxStat(s graphStat, m *graphStat) {
	m.count = max(m.count, s.count)
	m.min = max(m.min, s.min)
	m.median = max(m.median, s.median)
	m.p90 = max(m.p90, s.p90)
	m.p99 = max(m.p99, s.p99)
	m.max = max(m.max, s.max)
	m.sum = max(m.sum, s.sum)
}

func (s *graphStat) div(f float64) {
	s.min /= f
	s.median /= f
	s.p90 /= f
	s.p99 /= f
	s.max /= f
	s.sum /= f
}

// GraphField is a figure of an edge or vertex that labels or colors it:
// "none", "count", "min", "med", "90p", "99p", "max" or "sum", as
// llvm-xray graph names them.
type GraphField string

func (s *graphStat) field(f GraphField) (float64, bool) {
	switch f {
	case "count":
		return float64(s.count), true
	case "min":
		return s.min, true
	case "med":
		return s.median, true
	case "90p":
		return s.p90, true
	case "99p":
		return s.p99, true
	case "max":
		return s.max, true
	case "sum":
		return s.sum, true
	}
	return 0, false
}

func (s *graphStat) appendField(b []byte, f GraphField) []byte {
	if f == "count" {
		return strconv.AppendInt(b, s.count, 10)
	}
	if v, ok := s.field(f); ok {
		return appendCDouble(b, v)
	}
	return b
}

// GraphFormat says how WriteDOT labels and colors the graph.
type GraphFormat struct {
	EdgeLabel, VertexLabel, EdgeColor, VertexColor GraphField
}

func validField(f GraphField) bool {
	switch f {
	case "", "none", "count", "min", "med", "90p", "99p", "max", "sum":
		return true
	}
	return false
}

// WriteDOT prints the graph in Graphviz's DOT language as llvm-xray graph
// does, naming functions with m.
func (g *Graph) WriteDOT(w io.Writer, m *instrmap.Map, f GraphFormat) error {
	if w == nil {
		return ErrNotOpen
	}
	for _, x := range []GraphField{f.EdgeLabel, f.VertexLabel, f.EdgeColor, f.VertexColor} {
		if !validField(x) {
			return fmt.Errorf("analysis: unknown graph field %q", x)
		}
	}
	names := instrmap.NewNamer(m)
	// figures
	var edgeMax, vertMax graphStat
	in := map[int32][]int{}
	for i := range g.edges {
		e := &g.edges[i]
		graphStats(e.lat.all(), &e.s)
		maxStat(e.s, &edgeMax)
		in[e.to] = append(in[e.to], i)
	}
	var tmp []uint64
	for i := range g.verts {
		v := &g.verts[i]
		if v.id == 0 {
			continue
		}
		tmp = tmp[:0]
		for _, j := range in[v.id] {
			tmp = append(tmp, g.edges[j].lat.all()...)
		}
		graphStats(tmp, &v.s)
		maxStat(v.s, &vertMax)
	}
	if freq := float64(g.Header.CycleFrequency); freq != 0 {
		for i := range g.edges {
			g.edges[i].s.div(freq)
		}
		for i := range g.verts {
			g.verts[i].s.div(freq)
		}
		edgeMax.div(freq)
		vertMax.div(freq)
	}
	// llvm-xray's hash order, from the insertions in its record order
	var em llvmorder.Map[[2]int32]
	ei := make([]int, len(g.edges))
	for i := range ei {
		ei[i] = i
	}
	slices.SortFunc(ei, func(a, b int) int { return cmpStamp(g.edges[a].stamp, g.edges[b].stamp) })
	for _, i := range ei {
		e := &g.edges[i]
		em.Insert([2]int32{e.from, e.to}, llvmorder.HashPair(g.LLVM.Is19(), uint32(e.from), uint32(e.to)), i)
	}
	var vm llvmorder.Map[int32]
	vi := make([]int, len(g.verts))
	for i := range vi {
		vi[i] = i
	}
	slices.SortFunc(vi, func(a, b int) int { return cmpStamp(g.verts[a].stamp, g.verts[b].stamp) })
	for _, i := range vi {
		vm.Insert(g.verts[i].id, llvmorder.HashInt(uint32(g.verts[i].id)), i)
	}

	bw := bufio.NewWriter(w)
	bw.WriteString("digraph xray {\n")
	labelV := f.VertexLabel != "" && f.VertexLabel != "none"
	if labelV {
		bw.WriteString("node [shape=record];\n")
	}
	var b []byte
	em.Each(func(_ [2]int32, i int) {
		e := &g.edges[i]
		b = append(b[:0], 'F')
		b = strconv.AppendInt(b, int64(e.from), 10)
		b = append(b, " -> F"...)
		b = strconv.AppendInt(b, int64(e.to), 10)
		b = append(b, " [label=\""...)
		b = e.s.appendField(b, f.EdgeLabel)
		b = append(b, '"')
		b = appendColor(b, &e.s, &edgeMax, f.EdgeColor)
		b = append(b, "];\n"...)
		bw.Write(b)
	})
	vm.Each(func(_ int32, i int) {
		v := &g.verts[i]
		if v.id == 0 {
			return
		}
		b = append(b[:0], 'F')
		b = strconv.AppendInt(b, int64(v.id), 10)
		b = append(b, " [label=\""...)
		if labelV {
			b = append(b, '{')
		}
		name := ""
		if v.named {
			name = names.Name(v.id)
		}
		if len(name) > 40 {
			name = name[:40] + "..."
		}
		b = appendDOTEscaped(b, name)
		if labelV {
			b = append(b, '|')
			b = v.s.appendField(b, f.VertexLabel)
			b = append(b, "}\""...)
		} else {
			b = append(b, '"')
		}
		b = appendColor(b, &v.s, &vertMax, f.VertexColor)
		b = append(b, "];\n"...)
		bw.Write(b)
	})
	bw.WriteString("}\n")
	return bw.Flush()
}

func cmpStamp(a, b stamp) int {
	if c := cmp.Compare(a.tsc, b.tsc); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

func appendColor(b []byte, s, m *graphStat, f GraphField) []byte {
	v, ok := s.field(f)
	if !ok {
		return b
	}
	mv, _ := m.field(f)
	b = append(b, " color=\""...)
	b = appendOrRd(b, math.Sqrt(v/mv))
	return append(b, '"')
}

func appendDOTEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b = append(b, "&amp;"...)
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// orRd is colorbrewer's OrRd sequential scheme, which llvm-xray graph
// interpolates in HSV.
var orRd = [9][3]uint8{{255, 247, 236}, {254, 232, 200}, {253, 212, 158}, {253, 187, 132},
	{252, 141, 89}, {239, 101, 72}, {215, 48, 31}, {179, 0, 0}, {127, 0, 0}}

// appendOrRd appends "#RRGGBB" for p in [0, 1] as llvm-xray's color
// helper computes it. A p that is not a number (0/0: every value zero),
// where llvm-xray's result is undefined, takes the color of 0.
func appendOrRd(b []byte, p float64) []byte {
	var c [3]uint8
	switch {
	case math.IsNaN(p):
		c = orRd[0]
	case p < 0:
		c = orRd[0]
	case p > 1:
		c = orRd[8]
	default:
		const maxIndex = 8
		width := 1.0 / maxIndex
		sec := int(math.Floor(p / width))
		t := (p - float64(sec)*width) / width
		h0, s0, v0 := toHSV(orRd[sec])
		h1, s1, v1 := toHSV(orRd[min(sec+1, maxIndex)])
		c = toRGB(interpolateHue(h0, h1, t), s0+t*(s1-s0), v0+t*(v1-v0))
	}
	const hex = "0123456789ABCDEF"
	b = append(b, '#')
	for _, x := range c {
		b = append(b, hex[x>>4], hex[x&15])
	}
	return b
}

func toHSV(c [3]uint8) (h, s, v float64) {
	sc := [3]float64{float64(c[0]) / 255.0, float64(c[1]) / 255.0, float64(c[2]) / 255.0}
	mn, mx := 0, 0
	for i := 1; i < 3; i++ {
		if sc[i] < sc[mn] {
			mn = i
		}
		if sc[i] > sc[mx] {
			mx = i
		}
	}
	chroma := sc[mx] - sc[mn]
	hp := 0.0
	if chroma != 0 {
		hp = (sc[(mx+1)%3] - sc[(mx+2)%3]) / chroma
	}
	hp += 2.0 * float64(mx)
	if hp < 0 {
		h = (hp + 6.0) * 60
	} else {
		h = hp * 60
	}
	v = sc[mx]
	if v != 0 {
		s = chroma / v
	}
	return h, s, v
}

func unit8(x float64) uint8 {
	x = math.Min(math.Max(x, 0), 1)
	return uint8(255*x + 0.5)
}

func toRGB(h, s, v float64) [3]uint8 {
	c := v * s
	hp := h / 60
	x := c * (1 - math.Abs(math.Mod(hp, 2.0)-1))
	var rgb [3]float64
	hi := int(hp)
	if hi%2 == 0 {
		rgb[(hi/2)%3] = c
		rgb[(hi/2+1)%3] = x
		rgb[(hi/2+2)%3] = 0
	} else {
		rgb[(hi/2)%3] = x
		rgb[(hi/2+1)%3] = c
		rgb[(hi/2+2)%3] = 0
	}
	m := v - c
	return [3]uint8{unit8(rgb[0] + m), unit8(rgb[1] + m), unit8(rgb[2] + m)}
}

func interpolateHue(h0, h1, t float64) float64 {
	d := h1 - h0
	if h0 > h1 {
		h0, h1 = h1, h0
		d = -d
		t = 1 - t
	}
	if d <= 180 {
		return h0 + t*(h1-h0)
	}
	h0 += 360
	return math.Mod(h0+t*(h1-h0)+720, 360)
}
