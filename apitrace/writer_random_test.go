package apitrace

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tracefmt/tracefmt/internal/randcase"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// The random writer test: sequences of events (or calls) made by mutating
// the real fixtures — drops, duplicates, swaps, events of other traces,
// made-up events of every kind with random fields — are written; whatever
// the Writer accepts must read back as written with our Reader, and print
// with the real `apitrace dump` without an error, a warning or a crash,
// and exactly as our Dumper prints it. A refusal must leave a trace that
// holds every event accepted before it.

// randomSamples are the events and calls of the real traces the cases
// mutate, read once.
var randomSamples struct {
	once sync.Once
	err  error
	list []randomSample
}

type randomSample struct {
	name   string
	hdr    Header
	events []*Event
	calls  []*Call
}

// randomFixtures are the shared fixtures mutated: every stream version
// apitrace wrote (1, 2, 4, 5, 6), backtraces, interleaved threads.
var randomFixtures = []string{
	"zlib-no-eof.trace", "incomplete-call.trace", "tri.trace", "glxsimple.trace",
	"tri_glsl.trace", "tri.trim.trace", "glxinfo-brief-backtrace.trace",
	"es2_info.trace", "glthreads.trace",
}

func loadRandomSamples(t testing.TB) []randomSample {
	t.Helper()
	paths := make([]string, len(randomFixtures))
	for i, name := range randomFixtures {
		paths[i] = testutil.SharedFixture(t, "apitrace/"+name)
	}
	s := &randomSamples
	s.once.Do(func() {
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				s.err = err
				return
			}
			var sm randomSample
			sm.name = filepath.Base(p)
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				s.err = fmt.Errorf("%s: %v", p, err)
				return
			}
			sm.hdr = r.Header()
			for ev, err := range r.All() {
				if err != nil {
					break // zlib-no-eof is cut short: keep what it holds
				}
				sm.events = append(sm.events, ev.Clone())
			}
			cr, _ := NewCallReader(bytes.NewReader(data))
			for c, err := range cr.All() {
				if err != nil {
					break
				}
				sm.calls = append(sm.calls, c.Clone())
			}
			s.list = append(s.list, sm)
		}
	})
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.list
}

// gen makes the records of one case from the bytes of a randcase.Source.
type gen struct {
	*randcase.Source
	samples []randomSample
	funcs   []*FunctionSig // signatures made up so far, to use again
	structs []*StructSig
	frames  []*Frame
	nesting int // composite values made in this value tree
}

var sigNames = []string{"glFoo", "glGetError", "f", "glXSwapBuffers", "", "glGetError\x00x", "glBegin", "eglSwapBuffers"}

// id returns a signature or frame id: small mostly, else near the Writer's
// bound or huge.
func (g *gen) id() uint64 {
	switch g.Intn(8) {
	case 0:
		return MaxWriteID - 1 + uint64(g.Intn(3))
	case 1:
		return 1<<40 + uint64(g.Intn(2))
	case 2:
		return math.MaxUint64 - uint64(g.Intn(2))
	}
	return uint64(g.Intn(12))
}

func (g *gen) name() string {
	if g.Intn(6) == 0 {
		return string(g.Bytes(g.Intn(5)))
	}
	return []string{"x", "y", "", "target", "a\x00b", "count"}[g.Intn(6)]
}

func (g *gen) funcSig() *FunctionSig {
	if len(g.funcs) > 0 && g.Intn(3) == 0 {
		return g.funcs[g.Intn(len(g.funcs))]
	}
	if g.Intn(3) == 0 {
		ev := g.sampleEvent()
		if ev.Sig != nil {
			return ev.Sig
		}
	}
	s := &FunctionSig{ID: g.id(), Name: sigNames[g.Intn(len(sigNames))]}
	for range g.Intn(4) {
		s.ArgNames = append(s.ArgNames, g.name())
	}
	g.funcs = append(g.funcs, s)
	return s
}

func (g *gen) frame() *Frame {
	if len(g.frames) > 0 && g.Intn(3) == 0 {
		return g.frames[g.Intn(len(g.frames))]
	}
	f := &Frame{ID: g.id(), Has: FrameDetails(g.Intn(32))}
	if g.Intn(10) == 0 {
		f.Has |= FrameDetails(1 << (5 + g.Intn(3)))
	}
	f.Module, f.Function, f.File = g.name(), g.name(), g.name()
	f.Line = g.number()
	f.Offset = g.number()
	g.frames = append(g.frames, f)
	return f
}

// number returns an integer: small, at a boundary of 32 or 64 bits, or
// any.
func (g *gen) number() uint64 {
	switch g.Intn(6) {
	case 0:
		return []uint64{math.MaxInt32, math.MaxInt32 + 1, math.MaxUint32, math.MaxUint32 + 1,
			math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64}[g.Intn(7)]
	case 1:
		return g.Uint64()
	}
	return uint64(g.Intn(300))
}

func (g *gen) sampleEvent() *Event {
	s := &g.samples[g.Intn(len(g.samples))]
	return s.events[g.Intn(len(s.events))]
}

func (g *gen) sampleCall() *Call {
	s := &g.samples[g.Intn(len(g.samples))]
	return s.calls[g.Intn(len(s.calls))]
}

// value makes a value of any kind, valid or not, depth levels down.
func (g *gen) value(depth int) Value {
	if g.Intn(5) == 0 {
		// a value from a real trace
		ev := g.sampleEvent()
		if len(ev.Args) > 0 {
			return ev.Args[g.Intn(len(ev.Args))].Value
		}
		if ev.Ret.Kind() != KindNone {
			return ev.Ret
		}
	}
	k := ValueKind(g.Intn(int(KindWString) + 2))
	if depth > 3 || g.nesting > 40 {
		k = KindUInt
	}
	switch k {
	case KindSInt, KindUInt, KindPointer, KindDouble, KindFloat:
		bits := g.number()
		if k == KindFloat && g.Intn(4) > 0 {
			bits &= math.MaxUint32
		}
		return Scalar(k, bits)
	case KindString:
		return String(g.Bytes(g.Intn(9)))
	case KindBlob:
		return Blob(g.Bytes(g.Intn(9)))
	case KindEnum:
		var sig *EnumSig
		if g.Intn(8) > 0 {
			sig = &EnumSig{ID: g.id()}
			for range g.Intn(4) {
				sig.Values = append(sig.Values, EnumValue{g.name(), int64(g.number())})
			}
		}
		return Enum(sig, int64(g.number()))
	case KindBitmask:
		var sig *BitmaskSig
		if g.Intn(8) > 0 {
			sig = &BitmaskSig{ID: g.id()}
			for range g.Intn(4) {
				f := BitmaskFlag{g.name(), uint64(1) << g.Intn(8)}
				if g.Intn(3) == 0 {
					f.Value = 0
				}
				sig.Flags = append(sig.Flags, f)
			}
		}
		return Bitmask(sig, g.number())
	case KindArray:
		g.nesting++
		if g.Intn(30) == 0 {
			return g.deep()
		}
		var elems []Value
		for range g.Intn(4) {
			elems = append(elems, g.value(depth+1))
		}
		return Array(elems...)
	case KindStruct:
		g.nesting++
		return g.structValue(depth)
	case KindRepr:
		g.nesting++
		if g.Intn(8) == 0 {
			// a repr that holds nothing, which no stream has
			return Scalar(KindRepr, 0)
		}
		return Repr(g.value(depth+1), g.value(depth+1))
	case KindWString:
		var units []Value
		for range g.Intn(5) {
			e := Uint(uint64(' ' + g.Intn(0x300)))
			switch g.Intn(10) {
			case 0:
				e = Uint(g.number())
			case 1:
				e = g.value(depth + 1)
			}
			units = append(units, e)
		}
		return WString(units...)
	}
	return Scalar(k, 0) // KindNull, KindFalse, KindTrue, KindNone and a kind beyond the last
}

// deep returns arrays nested around 64 deep, the Reader's limit.
func (g *gen) deep() Value {
	v := Uint(1)
	for range 60 + g.Intn(8) {
		v = Array(v)
	}
	return v
}

func (g *gen) structValue(depth int) Value {
	var s *StructSig
	if len(g.structs) > 0 && g.Intn(3) == 0 {
		s = g.structs[g.Intn(len(g.structs))]
	} else if g.Intn(8) > 0 {
		s = &StructSig{ID: g.id(), Name: []string{"S", "GUID", "GUID\x00x", "", "T"}[g.Intn(5)]}
		n := g.Intn(5)
		if s.Name != "S" && g.Intn(2) == 0 {
			n = 4
		}
		for range n {
			s.Members = append(s.Members, g.name())
		}
		g.structs = append(g.structs, s)
	}
	if s == nil {
		return Struct(nil)
	}
	var members []Value
	n := len(s.Members)
	if g.Intn(10) == 0 {
		n = g.Intn(5)
	}
	for k := range n {
		switch {
		case len(s.Members) == 4 && k < 3 && g.Intn(3) > 0:
			members = append(members, Uint(g.number()))
		case len(s.Members) == 4 && k == 3 && g.Intn(3) > 0:
			var a []Value
			for range 8 - 1 + g.Intn(3) {
				a = append(a, Uint(uint64(g.Intn(256))))
			}
			members = append(members, Array(a...))
		case k < len(s.Members) && s.Members[k] == "" && g.Intn(2) == 0:
			members = append(members, g.structValue(depth+1))
		default:
			members = append(members, g.value(depth+1))
		}
	}
	return Struct(s, members...)
}

// event makes up an event; calls are the caller's numbers used so far, for
// leaves that pair.
func (g *gen) event(calls []uint64) *Event {
	g.nesting = 0
	ev := &Event{Kind: Enter}
	switch g.Intn(10) {
	case 0, 1, 2, 3:
		ev.Kind = Leave
	case 4:
		if g.Intn(4) == 0 {
			ev.Kind = Kind(2 + g.Intn(3))
		}
	}
	if len(calls) > 0 && g.Intn(4) > 0 {
		ev.Call = calls[g.Intn(len(calls))]
	} else {
		ev.Call = g.number()
	}
	if ev.Kind == Enter {
		ev.Thread = g.number() % 4
		if g.Intn(10) == 0 {
			ev.Thread = g.number()
		}
		if g.Intn(20) > 0 {
			ev.Sig = g.funcSig()
		}
	}
	if g.Intn(4) == 0 {
		ev.Flags = CallFlags(g.number())
	}
	if g.Intn(4) == 0 {
		ev.Backtrace = []*Frame{}
		for range g.Intn(4) {
			if g.Intn(20) == 0 {
				ev.Backtrace = append(ev.Backtrace, nil)
			} else {
				ev.Backtrace = append(ev.Backtrace, g.frame())
			}
		}
	}
	argc := 3
	if ev.Sig != nil {
		argc = len(ev.Sig.ArgNames)
	}
	for range g.Intn(4) {
		i := g.Intn(argc + 2) // mostly an index the signature names
		if g.Intn(8) == 0 {
			i = g.Intn(8) - 1
		}
		ev.Args = append(ev.Args, Arg{Index: i, Value: g.value(0)})
	}
	if g.Intn(2) == 0 {
		ev.Ret = g.value(0)
	}
	return ev
}

// mutate returns a copy of ev with one field changed.
func (g *gen) mutate(ev *Event, calls []uint64) *Event {
	c := ev.Clone()
	other := g.event(calls)
	switch g.Intn(9) {
	case 0:
		c.Call = other.Call
	case 1:
		c.Thread = other.Thread
	case 2:
		c.Sig = other.Sig
	case 3:
		c.Flags = other.Flags
	case 4:
		c.Backtrace = other.Backtrace
	case 5:
		c.Args = append(c.Args, other.Args...)
	case 6:
		if len(c.Args) > 0 {
			a := &c.Args[g.Intn(len(c.Args))]
			if g.Intn(4) == 0 {
				a.Index = g.Intn(8) - 1
			} else {
				a.Value = g.value(0)
			}
		}
	case 7:
		c.Ret = other.Ret
	case 8:
		c.Kind = other.Kind
	}
	return c
}

// header returns h, sometimes changed.
func (g *gen) header(h Header) Header {
	h.Properties = append([]Property(nil), h.Properties...)
	switch g.Intn(12) {
	case 0:
		h.Version = uint64(g.Intn(8))
	case 1:
		h.SemanticVersion = uint64(g.Intn(8))
	case 2:
		h.Properties = append(h.Properties, Property{g.name(), g.name()})
	case 3:
		if len(h.Properties) > 0 {
			h.Properties = append(h.Properties, h.Properties[0])
		}
	}
	if g.Intn(4) == 0 {
		h.Container = Gzip
	} else {
		h.Container = Snappy
	}
	return h
}

// events makes a case for the event Writer.
func (g *gen) events() (Header, []*Event) {
	s := &g.samples[g.Intn(len(g.samples))]
	start := g.Intn(len(s.events))
	seq := append([]*Event(nil), s.events[start:min(len(s.events), start+1+g.Intn(80))]...)
	var calls []uint64
	for _, ev := range seq {
		calls = append(calls, ev.Call)
	}
	for range g.Intn(24) {
		seq = randcase.Edit(g.Source, seq, g.sampleEvent,
			func() *Event { return g.event(calls) },
			func(ev *Event) *Event { return g.mutate(ev, calls) })
	}
	return g.header(s.hdr), seq
}

// calls makes a case for the CallWriter.
func (g *gen) calls() (Header, []*Call) {
	s := &g.samples[g.Intn(len(g.samples))]
	start := g.Intn(len(s.calls))
	seq := append([]*Call(nil), s.calls[start:min(len(s.calls), start+1+g.Intn(40))]...)
	for range g.Intn(8) {
		if len(seq) == 0 {
			seq = append(seq, g.sampleCall())
			continue
		}
		i, j := g.Intn(len(seq)), g.Intn(len(seq)+1)
		switch g.Intn(5) {
		case 0:
			seq = append(seq[:i], seq[i+1:]...)
		case 1:
			seq = randcase.Insert(seq, j, seq[i])
		case 2:
			seq = randcase.Insert(seq, j, g.sampleCall())
		case 3:
			ev := g.event(nil)
			c := &Call{Thread: ev.Thread, Sig: ev.Sig, Flags: ev.Flags, Backtrace: ev.Backtrace,
				Ret: ev.Ret, Incomplete: g.Intn(5) == 0}
			for _, a := range ev.Args {
				if a.Index >= 0 {
					for len(c.Args) <= a.Index {
						c.Args = append(c.Args, Value{})
					}
					c.Args[a.Index] = a.Value
				}
			}
			seq = randcase.Insert(seq, j, c)
		case 4:
			c := seq[i].Clone()
			switch g.Intn(4) {
			case 0:
				c.Incomplete = !c.Incomplete
			case 1:
				c.Args = append(c.Args, g.value(0))
			case 2:
				if len(c.Args) > 0 {
					c.Args[g.Intn(len(c.Args))] = g.value(0)
				}
			case 3:
				c.Ret = g.value(0)
			}
			seq[i] = c
		}
	}
	return g.header(s.hdr), seq
}

// writerCase writes the case the bytes data describe and checks the
// result; tool is the path of apitrace, or "" to check with our Reader
// only. It returns a description of what went wrong, or "".
func writerCase(t testing.TB, data []byte, tool string) string {
	g := &gen{Source: randcase.New(data), samples: loadRandomSamples(t)}
	var buf bytes.Buffer
	var check func() string
	if g.Intn(3) == 0 {
		h, calls := g.calls()
		w, err := NewCallWriter(&buf, h)
		if err != nil {
			return headerRefused(err, &buf)
		}
		ok, refusal, failure := randcase.Writes(g.Source, calls, w.Check, w.Write, isRefusal, &rules)
		if failure != nil {
			return failure.Error()
		}
		if err := w.Close(); err != refusal {
			return fmt.Sprintf("Close after refusal %v: %v", refusal, err)
		}
		check = func() string { return checkCalls(buf.Bytes(), h, ok) }
	} else {
		h, events := g.events()
		w, err := NewWriter(&buf, h)
		if err != nil {
			return headerRefused(err, &buf)
		}
		ok, refusal, failure := randcase.Writes(g.Source, events, w.Check, w.Write, isRefusal, &rules)
		if failure != nil {
			return failure.Error()
		}
		if err := w.Close(); err != refusal {
			return fmt.Sprintf("Close after refusal %v: %v", refusal, err)
		}
		check = func() string { return checkEvents(buf.Bytes(), h, ok) }
	}
	if msg := check(); msg != "" {
		return msg
	}
	if tool == "" {
		return ""
	}
	rules.Checked()
	return checkRealDump(t, tool, buf.Bytes())
}

func isRefusal(err error) bool { return errors.Is(err, ErrInvalid) }

// rules counts the rules cases broke, for -v runs.
var rules randcase.Rules

func headerRefused(err error, buf *bytes.Buffer) string {
	if !errors.Is(err, ErrInvalid) {
		return fmt.Sprintf("NewWriter: %v, not a refusal", err)
	}
	if buf.Len() > 0 {
		return fmt.Sprintf("NewWriter refused the header (%v) after writing %d bytes", err, buf.Len())
	}
	return ""
}

// sigSpelling says how valueText spells a signature: by id, by content
// (names, values and members) or both.
type sigSpelling uint8

const (
	byID sigSpelling = 1 << iota
	// byContent leaves the id out: a Writer may change it.
	byContent
)

// valueText spells out a value tree, its signatures as how says.
func valueText(sb *strings.Builder, v *Value, how sigSpelling) {
	fmt.Fprintf(sb, "%v:%x:%q", v.Kind(), v.Bits(), v.Bytes())
	if s := v.Enum(); s != nil {
		if how&byID != 0 {
			fmt.Fprintf(sb, "enum%d", s.ID)
		}
		if how&byContent != 0 {
			fmt.Fprintf(sb, "enum%v", s.Values)
		}
	}
	if s := v.Bitmask(); s != nil {
		if how&byID != 0 {
			fmt.Fprintf(sb, "bitmask%d", s.ID)
		}
		if how&byContent != 0 {
			fmt.Fprintf(sb, "bitmask%v", s.Flags)
		}
	}
	if s := v.Struct(); s != nil {
		if how&byID != 0 {
			fmt.Fprintf(sb, "struct%d", s.ID)
		}
		if how&byContent != 0 {
			fmt.Fprintf(sb, "struct%q%q", s.Name, s.Members)
		}
	}
	if elems := v.Elems(); len(elems) > 0 {
		sb.WriteByte('{')
		for i := range elems {
			valueText(sb, &elems[i], how)
			sb.WriteByte(',')
		}
		sb.WriteByte('}')
	}
}

func detailText(sb *strings.Builder, sig *FunctionSig, flags CallFlags, bt []*Frame) {
	if sig != nil {
		fmt.Fprintf(sb, "%q%q ", sig.Name, sig.ArgNames)
	}
	fmt.Fprintf(sb, "flags %x ", flags)
	if bt != nil {
		sb.WriteString("bt[")
		for _, f := range bt {
			// Only the details Has names are written.
			x := Frame{Has: f.Has}
			if f.Has&HasModule != 0 {
				x.Module = f.Module
			}
			if f.Has&HasFunction != 0 {
				x.Function = f.Function
			}
			if f.Has&HasFile != 0 {
				x.File = f.File
			}
			if f.Has&HasLine != 0 {
				x.Line = f.Line
			}
			if f.Has&HasOffset != 0 {
				x.Offset = f.Offset
			}
			fmt.Fprintf(sb, "%x %q %q %q %d %d,", x.Has, x.Module, x.Function, x.File, x.Line, x.Offset)
		}
		sb.WriteString("] ")
	}
}

func eventText(ev *Event) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%v %d thread %d ", ev.Kind, ev.Call, ev.Thread)
	detailText(&sb, ev.Sig, ev.Flags, ev.Backtrace)
	for i := range ev.Args {
		fmt.Fprintf(&sb, "arg %d ", ev.Args[i].Index)
		valueText(&sb, &ev.Args[i].Value, byContent)
		sb.WriteString(" ")
	}
	sb.WriteString("ret ")
	valueText(&sb, &ev.Ret, byContent)
	return sb.String()
}

func callText(c *Call) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d thread %d incomplete %v ", c.No, c.Thread, c.Incomplete)
	detailText(&sb, c.Sig, c.Flags, c.Backtrace)
	n := len(c.Args)
	for n > 0 && c.Args[n-1].Kind() == KindNone {
		n-- // the CallReader pads to the signature's length
	}
	for i := range c.Args[:n] {
		fmt.Fprintf(&sb, "arg %d ", i)
		valueText(&sb, &c.Args[i], byContent)
		sb.WriteString(" ")
	}
	sb.WriteString("ret ")
	valueText(&sb, &c.Ret, byContent)
	return sb.String()
}

func checkHeaderBack(got, want Header) string {
	if want.Version < 6 {
		want.SemanticVersion = want.Version
	}
	if got.Version != want.Version || got.SemanticVersion != want.SemanticVersion ||
		fmt.Sprint(got.Properties) != fmt.Sprint(want.Properties) && len(got.Properties)+len(want.Properties) > 0 {
		return fmt.Sprintf("header read back %+v, written %+v", got, want)
	}
	return ""
}

// checkEvents reads the trace back and compares its events with the ones
// the Writer accepted, numbered and paired as the Writer numbers them.
func checkEvents(data []byte, h Header, written []*Event) string {
	var want []string
	pending := map[uint64]uint64{}
	var next uint64
	for _, ev := range written {
		c := *ev
		if ev.Kind == Enter {
			pending[ev.Call] = next
			c.Call = next
			next++
		} else {
			no, ok := pending[ev.Call]
			if !ok {
				continue // dropped
			}
			delete(pending, ev.Call)
			c.Call = no
			c.Thread, c.Sig = 0, nil // enter details, not written with a leave
		}
		want = append(want, eventText(&c))
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Sprintf("NewReader: %v", err)
	}
	if msg := checkHeaderBack(r.Header(), h); msg != "" {
		return msg
	}
	var got []string
	for ev, err := range r.All() {
		if err != nil {
			return fmt.Sprintf("reading back event %d: %v", len(got), err)
		}
		got = append(got, eventText(ev))
	}
	return diffLines("events read back", want, got)
}

// checkCalls reads the trace back and compares its calls with the ones the
// CallWriter accepted: renumbered, and the incomplete ones last.
func checkCalls(data []byte, h Header, written []*Call) string {
	var want, incomplete []string
	for i, c := range written {
		cc := *c
		cc.No = uint64(i)
		if c.Incomplete {
			incomplete = append(incomplete, callText(&cc))
		} else {
			want = append(want, callText(&cc))
		}
	}
	want = append(want, incomplete...)
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Sprintf("NewCallReader: %v", err)
	}
	if msg := checkHeaderBack(cr.Header(), h); msg != "" {
		return msg
	}
	var got []string
	for c, err := range cr.All() {
		if err != nil {
			return fmt.Sprintf("reading back call %d: %v", len(got), err)
		}
		got = append(got, callText(c))
	}
	return diffLines("calls read back", want, got)
}

func diffLines(what string, want, got []string) string {
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("%s: %d written, %d read; first difference at %d:\nwritten %s\nread    %s", what, len(want), len(got), i, cut(w), cut(g))
		}
	}
	return ""
}

// checkRealDump runs apitrace dump on the trace: it must succeed, print
// nothing on stderr, and print what our Dumper prints.
func checkRealDump(t testing.TB, tool string, data []byte) string {
	path := filepath.Join(t.TempDir(), "case.trace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tool, "dump", "--color=never", "-v", "--thread-ids", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		return fmt.Sprintf("apitrace dump: %v: %s", err, stderr.Bytes())
	}
	var ours bytes.Buffer
	d := NewDumper(&ours, DumpOptions{Verbose: true, ThreadIDs: true})
	if err := d.Trace(bytes.NewReader(data)); err != nil {
		return fmt.Sprintf("our Dumper: %v", err)
	}
	if !bytes.Equal(stdout.Bytes(), ours.Bytes()) {
		return "apitrace dump and our Dumper differ:\n" + firstDiff(stdout.String(), ours.String())
	}
	return ""
}

// cut shortens a record's text for a message.
func cut(s string) string {
	if len(s) > 1500 {
		return s[:1500] + "..."
	}
	return s
}

func firstDiff(a, b string) string {
	la, lb := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\napitrace %q\nours     %q", i+1, cut(x), cut(y))
		}
	}
	return ""
}

// TestWriterRandom runs random cases, and every kept failing case, through
// both writers, the Reader and the real apitrace dump.
func TestWriterRandom(t *testing.T) {
	tool := testutil.Tool(t, "apitrace")
	n := 400
	if testing.Short() {
		n = 40
	}
	randcase.Run(t, "FuzzWriterRandom", n, func(data []byte) string { return writerCase(t, data, tool) })
	rules.Log(t)
}

// FuzzWriterRandom is TestWriterRandom for longer runs; it runs apitrace
// dump on each case only when TRACEFMT_FUZZ_TOOLS is set (it then costs a
// process per case).
func FuzzWriterRandom(f *testing.F) {
	tool := randcase.FuzzTool(f, "apitrace")
	randcase.Seed(f, 20)
	f.Fuzz(func(t *testing.T, data []byte) {
		if msg := writerCase(t, data, tool); msg != "" {
			t.Fatal(msg)
		}
	})
}
