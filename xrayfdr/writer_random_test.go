package xrayfdr

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

// The random writer test: sequences of records made by mutating the real
// logs — drops, duplicates, swaps, records of other logs and versions,
// made-up records of every kind with random fields — are written; whatever
// the Writer accepts must read back with our Reader as written, pass our
// Verify, and pass llvm-xray-14 fdr-dump -verify and convert, whose YAML
// must be ours. A refusal must leave a log that holds every record
// accepted before it.

type sampleLog struct {
	name string
	h    Header
	recs []Record
	// starts are the indexes of the records a thread buffer or block
	// starts at, where most cases begin.
	starts []int
}

var sampleLogs struct {
	once sync.Once
	list []sampleLog
	err  error
}

// randomFixtures are the real logs mutated: the runtime's FDR v5 and
// basic-mode logs, and LLVM's own writer's FDR v1, v2, v3 and v5.
var randomFixtures = []string{"fdr_simple", "fdr_typed", "fdr_threads", "basic_simple",
	"synthetic-v1", "synthetic-v2", "synthetic-v3", "synthetic-v5"}

func loadSampleLogs(t testing.TB) []sampleLog {
	paths := make([]string, len(randomFixtures))
	for i, n := range randomFixtures {
		paths[i] = testutil.SharedFixture(t, "xray/"+n+".xray")
	}
	s := &sampleLogs
	s.once.Do(func() {
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				s.err = err
				return
			}
			rd, err := NewBytesReader(data)
			if err != nil {
				s.err = fmt.Errorf("%s: %v", p, err)
				return
			}
			l := sampleLog{name: filepath.Base(p), h: rd.Header()}
			for rec, err := range rd.All() {
				if err != nil {
					s.err = fmt.Errorf("%s: %v", p, err)
					return
				}
				if rec.Kind == KindBufferExtents || rec.Kind == KindNewBuffer && (len(l.starts) == 0 || l.recs[len(l.recs)-1].Kind != KindBufferExtents) {
					l.starts = append(l.starts, len(l.recs))
				}
				l.recs = append(l.recs, *rec.Clone())
			}
			if len(l.starts) == 0 {
				l.starts = []int{0}
			}
			s.list = append(s.list, l)
		}
	})
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.list
}

type xgen struct {
	*randcase.Source
	logs []sampleLog
}

func (g *xgen) number() uint64 {
	switch g.Intn(6) {
	case 0:
		return []uint64{0, 1, 1<<28 - 1, 1 << 28, math.MaxInt32, 1 << 31, math.MaxUint32, 1 << 32, math.MaxInt64, math.MaxUint64}[g.Intn(10)]
	case 1:
		return g.Uint64()
	}
	return uint64(g.Intn(5000))
}

func (g *xgen) sample() Record {
	l := &g.logs[g.Intn(len(g.logs))]
	return l.recs[g.Intn(len(l.recs))]
}

// record makes up a record of any kind (or changes one), fields random.
func (g *xgen) record(r Record) Record {
	if g.Intn(3) == 0 {
		r = Record{Kind: Kind(g.Intn(int(KindPid) + 2))}
	} else {
		r = *r.Clone()
	}
	if g.Intn(2) == 0 {
		r.Raw = nil
	}
	for range 1 + g.Intn(3) {
		switch g.Intn(13) {
		case 0:
			r.TID = int32(g.number())
		case 1:
			r.PID = int32(g.number())
		case 2:
			r.CPU = uint16(g.number())
		case 3:
			r.TSC = g.number()
		case 4:
			r.Seconds, r.Micros = g.number(), uint32(g.number())
		case 5:
			r.Arg = g.number()
		case 6:
			r.FuncID = int32(g.number())
		case 7:
			r.Delta = int64(g.number())
		case 8:
			r.Action = Action(g.Intn(6))
		case 9:
			r.Data = g.Bytes(g.Intn(24))
		case 10:
			r.EventType = uint16(g.number())
		case 11:
			r.Extents = g.number()
		case 12:
			r.Skipped = g.Bytes(g.Intn(20))
		}
	}
	return r
}

func (g *xgen) records() (Header, []Record) {
	l := &g.logs[g.Intn(len(g.logs))]
	start := l.starts[g.Intn(len(l.starts))]
	if g.Intn(5) == 0 {
		start = g.Intn(len(l.recs))
	}
	seq := append([]Record(nil), l.recs[start:min(len(l.recs), start+1+g.Intn(150))]...)
	for range g.Intn(12) {
		seq = randcase.Edit(g.Source, seq, g.sample, func() Record { return g.record(g.sample()) }, g.record)
	}
	h := l.h
	if g.Intn(8) == 0 {
		if h.Type == TypeFDR {
			h.Version = uint16(1 + g.Intn(5))
		} else {
			h.Version = uint16(1 + g.Intn(3))
		}
	}
	return h, seq
}

// recordText is what a record says in a log of header h: the fields its
// kind writes. Derived ones (buffer extents, offsets, raw bytes) are left
// out.
func recordText(h Header, r *Record) string {
	if h.Type == TypeBasic {
		if r.Kind == KindCallArg {
			return fmt.Sprintf("arg %d %d %d %x", r.FuncID, r.TID, r.PID, r.Arg)
		}
		return fmt.Sprintf("%v cpu %d %v %d tsc %d %d %d", r.Kind, r.CPU, r.Action, r.FuncID, r.TSC, r.TID, r.PID)
	}
	s := r.Kind.String()
	switch r.Kind {
	case KindFunction:
		s += fmt.Sprintf(" %v %d %d", r.Action, r.FuncID, r.Delta)
	case KindNewBuffer:
		s += fmt.Sprintf(" %d", r.TID)
	case KindNewCPU:
		s += fmt.Sprintf(" %d %d", r.CPU, r.TSC)
	case KindTSCWrap:
		s += fmt.Sprintf(" %d", r.TSC)
	case KindWallTime:
		s += fmt.Sprintf(" %d %d", r.Seconds, r.Micros)
	case KindCallArg:
		s += fmt.Sprintf(" %x", r.Arg)
	case KindPid:
		s += fmt.Sprintf(" %d", r.PID)
	case KindBufferExtents:
		s += fmt.Sprintf(" skipped %q", r.Skipped)
	case KindCustomEvent:
		if h.Version >= 5 {
			s += fmt.Sprintf(" %d %q", r.Delta, r.Data)
		} else {
			s += fmt.Sprintf(" %d %d %q", r.TSC, r.CPU, r.Data)
		}
	case KindTypedEvent:
		s += fmt.Sprintf(" %d %d %q", r.Delta, r.EventType, r.Data)
	}
	return s
}

// xrayCase writes the case data describes and checks the log; tool is the
// path of llvm-xray-14, or "" to check with our own reader only.
func xrayCase(t *testing.T, data []byte, tool string) string {
	g := &xgen{Source: randcase.New(data), logs: loadSampleLogs(t)}
	h, recs := g.records()
	var buf bytes.Buffer
	wr, err := NewWriter(&buf, h)
	if err != nil {
		return fmt.Sprintf("NewWriter(%+v): %v", h, err)
	}
	ptrs := make([]*Record, len(recs))
	for i := range recs {
		ptrs[i] = &recs[i]
	}
	written, refusal, failure := randcase.Writes(g.Source, ptrs, wr.Check, wr.Write, func(err error) bool { return errors.Is(err, ErrInvalid) }, &rules)
	if failure != nil {
		return failure.Error()
	}
	var ok []Record
	for _, r := range written {
		ok = append(ok, *r)
	}
	cerr := wr.Close()
	if cerr != nil && refusal == nil {
		rules.Refused(cerr)
	}
	switch {
	case refusal != nil && cerr != refusal:
		return fmt.Sprintf("Close after the refusal %v: %v", refusal, cerr)
	case cerr != nil && !errors.Is(cerr, ErrInvalid):
		return fmt.Sprintf("Close: %v", cerr)
	}
	ok = closed(h, ok)
	out := buf.Bytes()
	if msg := checkBack(h, out, ok); msg != "" {
		return msg
	}
	if empty(h, ok) {
		if cerr == nil {
			return "Close took a log without records"
		}
		return "" // written as its header alone, which llvm-xray refuses
	}
	if h.Type == TypeFDR {
		if err := Verify(out); err != nil {
			return fmt.Sprintf("Verify: %v", err)
		}
	}
	if tool == "" {
		return ""
	}
	rules.Checked()
	return checkLLVM(t, tool, h, out)
}

// closed returns the records that Close keeps of those written: less a
// last block that never got past its preamble; of an FDR log with no
// block, none (its header alone).
func closed(h Header, recs []Record) []Record {
	if h.Type != TypeFDR {
		return recs
	}
	if endsInPreamble(recs) {
		recs = dropPreamble(h, recs)
	}
	if empty(h, recs) {
		return nil
	}
	return recs
}

// endsInPreamble reports whether the last block of recs has no record
// past its NewBuffer, WallTime and Pid records.
func endsInPreamble(recs []Record) bool {
	for i := len(recs) - 1; i >= 0; i-- {
		switch recs[i].Kind {
		case KindNewBuffer:
			return true
		case KindWallTime, KindPid, KindBufferExtents:
		default:
			return false
		}
	}
	return false
}

// dropPreamble drops the last block, and its thread buffer's
// BufferExtents record when the block was the buffer's only one, as the
// Writer's Close does with a block that never got past its preamble. A
// version 1 log has no thread buffers: a BufferExtents record in one is a
// record like another, which Close keeps.
func dropPreamble(h Header, recs []Record) []Record {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Kind == KindNewBuffer {
			if i > 0 && recs[i-1].Kind == KindBufferExtents && h.Version >= 2 {
				i--
			}
			return recs[:i]
		}
	}
	return recs
}

// empty reports whether a log of recs has nothing llvm-xray convert takes:
// no block in an FDR log, no record in a basic-mode one.
func empty(h Header, recs []Record) bool {
	for i := range recs {
		if h.Type == TypeBasic || recs[i].Kind == KindNewBuffer {
			return false
		}
	}
	return true
}

// checkBack reads the log back and compares its records with those
// written.
func checkBack(h Header, out []byte, written []Record) string {
	rd, err := NewBytesReader(out)
	if err != nil {
		return fmt.Sprintf("NewBytesReader: %v", err)
	}
	var got []string
	for rec, err := range rd.All() {
		if err != nil {
			return fmt.Sprintf("reading back record %d: %v", len(got), err)
		}
		got = append(got, recordText(h, rec))
	}
	for i := range max(len(got), len(written)) {
		var w, g string
		if i < len(written) {
			w = recordText(h, &written[i])
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("%d records written, %d read back; record %d differs:\nwritten %s\nread    %s", len(written), len(got), i, w, g)
		}
	}
	return ""
}

// checkLLVM runs llvm-xray-14 fdr-dump -verify (FDR) and convert on the
// log: both must succeed, and convert's YAML must be ours.
func checkLLVM(t *testing.T, tool string, h Header, out []byte) string {
	path := filepath.Join(t.TempDir(), "case.xray")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if h.Type == TypeFDR {
		if msg := run(tool, "fdr-dump", "-verify", path); msg != "" {
			return "llvm-xray-14 fdr-dump -verify: " + msg
		}
	}
	var yaml bytes.Buffer
	cmd := exec.Command(tool, "convert", "--output-format=yaml", "--symbolize=false", path)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &yaml, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Sprintf("llvm-xray-14 convert: %v: %s", err, stderr.Bytes())
	}
	tr, err := LLVM14.Expand(out, true) // in llvm-xray-14's order
	if err != nil {
		return fmt.Sprintf("llvm-xray-14 converts, our Expand fails: %v", err)
	}
	var ours bytes.Buffer
	if err := WriteYAML(&ours, tr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(yaml.Bytes(), ours.Bytes()) {
		a, b := strings.SplitAfter(yaml.String(), "\n"), strings.SplitAfter(ours.String(), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				return fmt.Sprintf("convert YAML differs at line %d:\nllvm-xray %q\nours      %q", i+1, a[i], b[i])
			}
		}
		return fmt.Sprintf("convert YAML: %d lines, ours %d", len(a), len(b))
	}
	return ""
}

// run runs a command and returns its error and stderr, or "".
func run(name string, args ...string) string {
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Sprintf("%v: %s", err, stderr.Bytes())
	}
	return ""
}

// TestWriterRandom runs random cases, and every kept failing case, through
// the Writer, back through the Reader and Verify, and through llvm-xray-14
// fdr-dump -verify and convert.
func TestWriterRandom(t *testing.T) {
	tool := testutil.Tool(t, "llvm-xray-14")
	n := 200
	if testing.Short() {
		n = 30
	}
	randcase.Run(t, "FuzzWriterRandom", n, func(data []byte) string { return xrayCase(t, data, tool) })
	rules.Log(t)
}

// rules counts the rules cases broke, for -v runs.
var rules randcase.Rules

// FuzzWriterRandom is TestWriterRandom for longer runs; it runs
// llvm-xray-14 on each case only when TRACEFMT_FUZZ_TOOLS is set (two
// processes per case).
func FuzzWriterRandom(f *testing.F) {
	tool := randcase.FuzzTool(f, "llvm-xray-14")
	randcase.Seed(f, 20)
	f.Fuzz(func(t *testing.T, data []byte) {
		if msg := xrayCase(t, data, tool); msg != "" {
			t.Fatal(msg)
		}
	})
}
