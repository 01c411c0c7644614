package leaktext

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tracefmt/tracefmt/internal/randcase"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// The random writer test: sequences of records made by mutating real
// reports — drops, duplicates, swaps, records of other reports, made-up
// records of every kind with random fields — are written; whatever the
// Writer accepts must read back as the same records, and a refusal must
// leave a report that holds every record accepted before it.

type randomReport struct {
	hdr  Header
	recs []*Record
}

var randomReports struct {
	once sync.Once
	list []randomReport
}

// loadRandomReports reads the committed real reports and, when present,
// the shared collection of reports from sp-rtrace's history.
func loadRandomReports(t testing.TB) []randomReport {
	s := &randomReports
	s.once.Do(func() {
		names, _ := globFixtures()
		ext, _ := filepath.Glob(filepath.Join(testutil.ModuleRoot(t), "..", "shared", "external", "leaktext", "real", "*.txt"))
		for _, name := range append(names, ext...) {
			data, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			rd, err := NewReader(bytes.NewReader(data))
			if err != nil {
				continue
			}
			var rr randomReport
			for rec, err := range rd.All() {
				if err != nil {
					break
				}
				rr.recs = append(rr.recs, rec.Clone())
			}
			rr.hdr = rd.Header()
			if len(rr.recs) > 0 {
				s.list = append(s.list, rr)
			}
		}
	})
	if len(s.list) < 20 {
		t.Fatalf("%d real reports found", len(s.list))
	}
	return s.list
}

type gen struct {
	*randcase.Source
	reports []randomReport
}

// text returns bytes for a name, a value or a line: words of the format,
// its separators, and now and then any bytes.
func (g *gen) text() []byte {
	if g.Intn(8) == 0 {
		return g.Bytes(g.Intn(8))
	}
	parts := []string{"malloc", "free", "a", "0x1f", "12", " ", "\t", ",", "=", "(", ")", "<", ">", "[", "]",
		"\r", "@", "#", "$", ":", " : ", " = ", " => ", "-", ".", "[00:00:01.000]", "fd", "main() at a.c:3", "\n"}
	var b []byte
	for range 1 + g.Intn(4) {
		b = append(b, parts[g.Intn(len(parts))]...)
	}
	return b
}

// maybe returns nil, empty or text.
func (g *gen) maybe() []byte {
	switch g.Intn(6) {
	case 0:
		return nil
	case 1:
		return []byte{}
	}
	return g.text()
}

func (g *gen) number() int64 {
	switch g.Intn(6) {
	case 0:
		return []int64{-1, 0, math.MaxInt32, math.MaxInt32 + 1, -math.MaxInt32 - 1, -math.MaxInt32 - 2, math.MaxInt64, math.MinInt64}[g.Intn(8)]
	case 1:
		return int64(g.Uint64())
	}
	return int64(g.Intn(5000))
}

func (g *gen) sample() *Record {
	r := &g.reports[g.Intn(len(g.reports))]
	return r.recs[g.Intn(len(r.recs))]
}

func (g *gen) frame() Frame {
	f := Frame{Addr: uint64(g.number()), Resolved: g.maybe()}
	if g.Intn(6) == 0 {
		f.Verbatim = g.text()
	}
	return f
}

func (g *gen) arg() Arg { return Arg{Name: g.maybe(), Value: g.maybe()} }

// call changes fields of c, or makes one up.
func (g *gen) call(c Call) Call {
	for range 1 + g.Intn(3) {
		switch g.Intn(14) {
		case 0:
			c.Index = g.number()
		case 1:
			c.Context = uint32(g.number())
		case 2:
			c.HasTime = !c.HasTime
		case 3:
			c.Time = g.number()
		case 4:
			c.Func = g.maybe()
		case 5:
			c.Type = g.maybe()
		case 6:
			c.Free = !c.Free
		case 7:
			c.Size = g.number()
		case 8:
			c.ID = uint64(g.number())
		case 9:
			c.Args = append(append([]Arg(nil), c.Args...), g.arg())
		case 10:
			c.Frames = append(append([]Frame(nil), c.Frames...), g.frame())
		case 11:
			c.Verbatim = g.maybe()
		case 12:
			if len(c.Frames) > 0 {
				c.Frames = append([]Frame(nil), c.Frames...)
				c.Frames[g.Intn(len(c.Frames))] = g.frame()
			}
		case 13:
			c.Frames = nil
		}
	}
	return c
}

// record makes up a record of any kind, or changes one.
func (g *gen) record(from *Record) *Record {
	r := from.Clone()
	if g.Intn(3) == 0 {
		r = &Record{Kind: Kind(g.Intn(10))}
	}
	switch r.Kind {
	case KindMemoryMap:
		r.Map = MemoryMap{Path: g.maybe(), Start: uint64(g.number()), End: uint64(g.number())}
	case KindContext:
		r.Context = Context{ID: uint32(g.number()), Name: g.maybe()}
	case KindResource:
		r.Resource = Resource{ID: uint32(g.number()), Type: g.maybe(), Desc: g.maybe(), Flags: g.maybe()}
	case KindAttachment:
		r.Attachment = Attachment{Name: g.maybe(), Path: g.maybe()}
	case KindCall, KindTrace:
		r.Call = g.call(r.Call)
	case KindComment:
		r.Text = g.maybe()
	}
	return r
}

func (g *gen) header(h Header) Header {
	h.Fields = append([]Field(nil), h.Fields...)
	switch g.Intn(10) {
	case 0:
		h.CRLF = !h.CRLF
	case 1:
		h.Fields = append(h.Fields, Field{string(g.text()), string(g.maybe())})
	case 2:
		h.Verbatim = g.maybe()
	case 3:
		if len(h.Fields) > 0 {
			h.Fields[g.Intn(len(h.Fields))].Value = string(g.maybe())
		}
	case 4:
		h.Fields = append(h.Fields, Field{KeyBacktraceDepth, fmt.Sprint(g.Intn(4))})
	}
	return h
}

func (g *gen) records() (Header, []*Record) {
	rep := &g.reports[g.Intn(len(g.reports))]
	start := g.Intn(len(rep.recs))
	seq := append([]*Record(nil), rep.recs[start:min(len(rep.recs), start+1+g.Intn(60))]...)
	for range g.Intn(16) {
		seq = randcase.Edit(g.Source, seq, g.sample, func() *Record { return g.record(g.sample()) }, g.record)
	}
	return g.header(rep.hdr), seq
}

// writerCase writes the case data describes and reads the report back; it
// returns what went wrong, or "".
func writerCase(t testing.TB, data []byte) string {
	g := &gen{Source: randcase.New(data), reports: loadRandomReports(t)}
	h, recs := g.records()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h)
	if err != nil {
		if !errors.Is(err, ErrInvalid) {
			return fmt.Sprintf("NewWriter: %v, not a refusal", err)
		}
		if buf.Len() > 0 {
			return fmt.Sprintf("NewWriter refused the header (%v) after writing %d bytes", err, buf.Len())
		}
		return ""
	}
	ok, refusal, failure := randcase.Writes(g.Source, recs, w.Check, w.Write, func(err error) bool { return errors.Is(err, ErrInvalid) }, &rules)
	if failure != nil {
		return failure.Error()
	}
	if err := w.Close(); err != refusal {
		return fmt.Sprintf("Close after refusal %v: %v", refusal, err)
	}
	rules.Checked()
	return checkBack(buf.Bytes(), h, ok)
}

// rules counts the rules cases broke, for -v runs.
var rules randcase.Rules

// recordText spells out what a record says, as the Writer reads its
// fields: a line kept verbatim stands for itself.
func recordText(r *Record) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%v ", r.Kind)
	switch r.Kind {
	case KindMemoryMap:
		fmt.Fprintf(&sb, "%q %x %x", r.Map.Path, r.Map.Start, r.Map.End)
	case KindContext:
		fmt.Fprintf(&sb, "%x %q", r.Context.ID, r.Context.Name)
	case KindResource:
		fmt.Fprintf(&sb, "%x %q %q %q %v", r.Resource.ID, r.Resource.Type, r.Resource.Desc, r.Resource.Flags, r.Resource.Flags == nil)
	case KindAttachment:
		fmt.Fprintf(&sb, "%q %q", r.Attachment.Name, r.Attachment.Path)
	case KindComment:
		fmt.Fprintf(&sb, "%q", r.Text)
	case KindCall, KindTrace:
		c := &r.Call
		if r.Kind == KindCall {
			v := c.Verbatim
			if bytes.Equal(v, AppendCall(nil, *c)) {
				v = nil // the canonical line reads back as fields alone
			}
			fmt.Fprintf(&sb, "%d @%x time %v %d %q <%q %v> free %v size %d id %x verbatim %q", c.Index, c.Context, c.HasTime, c.Time,
				c.Func, c.Type, c.Type == nil, c.Free, c.Size, c.ID, v)
		}
		for _, a := range c.Args {
			fmt.Fprintf(&sb, "\n\targ %q = %q", a.Name, a.Value)
		}
		for _, f := range c.Frames {
			v := f.Verbatim
			if v != nil && bytes.Equal(v, AppendFrame(nil, Frame{Addr: f.Addr, Resolved: f.Resolved})[1:]) {
				v = nil
			}
			fmt.Fprintf(&sb, "\n\tframe %x %q %v verbatim %q", f.Addr, f.Resolved, f.Resolved == nil, v)
		}
	}
	return sb.String()
}

// checkBack reads the report back and compares it with what was written.
func checkBack(data []byte, h Header, written []*Record) string {
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Sprintf("NewReader: %v\n%q", err, data)
	}
	got := rd.Header()
	if h.Verbatim != nil {
		// The fields are what the line says; a line in the canonical
		// form reads back as fields alone.
		h.Fields = parseHeader(h.Verbatim).Fields
		if got.Verbatim == nil {
			got.Verbatim = appendHeader(nil, got.Fields)
		}
	}
	if fmt.Sprintf("%q %v %q", got.Fields, got.CRLF, got.Verbatim) != fmt.Sprintf("%q %v %q", h.Fields, h.CRLF, h.Verbatim) {
		return fmt.Sprintf("header read back %+v, written %+v", got, h)
	}
	var back []*Record
	for rec, err := range rd.All() {
		if err != nil {
			var se *SyntaxError
			near := ""
			if errors.As(err, &se) {
				lines := strings.SplitAfter(string(data), "\n")
				near = fmt.Sprintf("%q", lines[max(0, se.Line-3):min(len(lines), se.Line+1)])
			}
			return fmt.Sprintf("reading back record %d: %v\nnear %s", len(back), err, near)
		}
		back = append(back, rec.Clone())
	}
	for i := range max(len(back), len(written)) {
		var w, b string
		if i < len(written) {
			w = recordText(written[i])
		}
		if i < len(back) {
			b = recordText(back[i])
		}
		if w != b {
			return fmt.Sprintf("%d records written, %d read; record %d differs:\nwritten %s\nread    %s\nreport %q", len(written), len(back), i, w, b, data)
		}
	}
	return ""
}

// TestWriterRandom runs random cases, and every kept failing case, through
// the Writer and back through the Reader.
func TestWriterRandom(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	randcase.Run(t, "FuzzWriterRandom", n, func(data []byte) string { return writerCase(t, data) })
	rules.Log(t)
}

// FuzzWriterRandom is TestWriterRandom for longer runs.
func FuzzWriterRandom(f *testing.F) {
	randcase.Seed(f, 20)
	f.Fuzz(func(t *testing.T, data []byte) {
		if msg := writerCase(t, data); msg != "" {
			t.Fatal(msg)
		}
	})
}
