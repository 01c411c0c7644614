package cbf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/tracefmt/tracefmt/internal/randcase"
)

// The random writer test: streams of records made by mutating real
// backtraces and the test vectors — frames dropped, duplicated, swapped,
// made up of every kind with random addresses and counts, word sizes
// changed — are written whole or frame by frame; whatever the Writer
// accepts must read back with our Reader (Swift's decoder rules) as the
// same frames, and a refusal must leave a stream that holds every record
// finished before it.

type cbfGen struct {
	*randcase.Source
	pool []Record
}

// randomPool is the records the cases start from: the encode vectors and
// the real x86-64 backtraces.
func randomPool(t testing.TB) []Record {
	var pool []Record
	for _, v := range encodeVectors {
		pool = append(pool, Record{Word: v.word, Frames: parseFrames(t, v.frames)})
	}
	for _, bts := range spRtraceBacktraces(t) {
		for _, bt := range bts {
			var fs []Frame
			for _, a := range bt {
				fs = append(fs, Frame{Kind: RA, Addr: a})
			}
			pool = append(pool, Record{Word: Word64, Frames: fs})
		}
	}
	return pool
}

func (g *cbfGen) count() uint64 {
	switch g.Intn(8) {
	case 0:
		return []uint64{0, 1, 8, 9, 31, 32, MaxRepeatRun, MaxRepeatRun + 1, DefaultMaxRepeat + 1,
			math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64, 1 << 41, 1 << 42}[g.Intn(14)]
	case 1:
		return g.Uint64()
	}
	return uint64(1 + g.Intn(40))
}

func (g *cbfGen) frame(w WordSize) Frame {
	k := Kind(g.Intn(8)) // 0 and 7 are no kind
	f := Frame{Kind: k}
	switch {
	case k.HasAddr():
		switch g.Intn(4) {
		case 0:
			f.Addr = g.Uint64()
		case 1:
			f.Addr = w.mask() - uint64(g.Intn(3))
		default:
			f.Addr = uint64(g.Intn(1 << 16))
		}
		if g.Intn(10) == 0 {
			f.Count = g.count() // ignored for addresses
		}
	case k == Omitted || k == Repeat:
		f.Count = g.count()
		if g.Intn(10) == 0 {
			f.Addr = g.Uint64() // ignored for counts
		}
	}
	return f
}

func (g *cbfGen) record() Record {
	base := g.pool[g.Intn(len(g.pool))]
	rec := Record{Word: base.Word, Frames: append([]Frame(nil), base.Frames...)}
	if g.Intn(8) == 0 {
		rec.Word = []WordSize{Word16, Word32, Word64, 0, 8}[g.Intn(5)]
	}
	for range g.Intn(10) {
		fs := rec.Frames
		i, j := g.Intn(len(fs)+1), g.Intn(len(fs)+1)
		switch g.Intn(6) {
		case 0:
			if i < len(fs) {
				fs = append(fs[:i], fs[i+1:]...)
			}
		case 1:
			if i < len(fs) {
				fs = randcase.Insert(fs, j, fs[i])
			}
		case 2:
			if i < len(fs) && j < len(fs) {
				fs[i], fs[j] = fs[j], fs[i]
			}
		case 3, 4:
			fs = randcase.Insert(fs, j, g.frame(rec.Word))
		case 5:
			if i < len(fs) {
				fs[i] = g.frame(rec.Word)
			}
		}
		rec.Frames = fs
	}
	return rec
}

// run is a frame and how many times it occurs in a row.
type run struct {
	f Frame
	n uint64
}

// runs turns frames into runs of equal frames, Repeat frames adding to
// the run before them: how the same backtrace is told whatever its
// encoding. ok is false when a count overflows (such records are refused).
func runs(fs []Frame) (out []run, ok bool) {
	for _, f := range fs {
		if f.Kind == Repeat {
			if len(out) == 0 {
				return nil, false
			}
			last := &out[len(out)-1]
			if last.n+f.Count < last.n {
				return nil, false
			}
			last.n += f.Count
			continue
		}
		f = f.norm()
		if len(out) > 0 && out[len(out)-1].f == f {
			out[len(out)-1].n++
			continue
		}
		out = append(out, run{f, 1})
	}
	return out, true
}

func cbfCase(data []byte) string {
	g := &cbfGen{Source: randcase.New(data), pool: cbfPool}
	var buf bytes.Buffer
	z := openWriter(&buf)
	skip := g.Intn(2) == 0
	var ok []Record
	var refusal error
	for range 1 + g.Intn(6) {
		rec := g.record()
		byFrame := g.Intn(3) == 0
		checked := skip || g.Intn(3) == 0
		var cerr error
		if checked {
			cerr = z.Check(&rec)
		}
		if skip && cerr != nil {
			if !errors.Is(cerr, ErrInvalid) {
				return fmt.Sprintf("Check: %v, not a refusal", cerr)
			}
			rules.Refused(cerr)
			continue
		}
		var err error
		if byFrame {
			err = z.Begin(rec.Word)
			for i := 0; err == nil && i < len(rec.Frames); i++ {
				err = z.WriteFrame(rec.Frames[i])
				if err == nil && rec.Frames[i].Kind == Truncated && i+1 < len(rec.Frames) {
					// The trunc finished the record: it stays when
					// the frame after it is refused.
					ok = append(ok, Record{Word: rec.Word, Frames: rec.Frames[:i+1]})
				}
			}
			if err == nil {
				err = z.End()
			}
		} else {
			err = z.Write(&rec)
		}
		if checked && (cerr == nil) != (err == nil) {
			return fmt.Sprintf("Check says %v, Write %v (frame by frame %v) for %v %v", cerr, err, byFrame, rec.Word, rec.Frames)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				return fmt.Sprintf("Write: %v, not a refusal", err)
			}
			refusal = err
			rules.Refused(err)
			break
		}
		ok = append(ok, rec)
	}
	if err := z.Close(); err != refusal {
		return fmt.Sprintf("Close after refusal %v: %v", refusal, err)
	}
	// Strict: Swift's encoder never writes what Strict refuses.
	back, err := readAll(buf.Bytes(), nil)
	if err != nil {
		return fmt.Sprintf("reading back: %v\n% x", err, buf.Bytes())
	}
	if len(back) != len(ok) {
		return fmt.Sprintf("%d records written, %d read back (refusal %v): % x", len(ok), len(back), refusal, buf.Bytes())
	}
	for i := range ok {
		want, wok := runs(ok[i].Frames)
		got, gok := runs(back[i].Frames)
		if !wok || !gok || back[i].Word != ok[i].Word || fmt.Sprint(want) != fmt.Sprint(got) {
			return fmt.Sprintf("record %d: written %v %v, read back %v %v", i, ok[i].Word, cut(ok[i].Frames), back[i].Word, cut(back[i].Frames))
		}
	}
	// Swift's decoder, repeats expanded, yields the same frames.
	r := openReader(bytes.NewReader(buf.Bytes()))
	r.Expand, r.MaxFrames = true, 1<<22
	for i := range ok {
		want, _ := runs(ok[i].Frames)
		var total uint64
		for _, x := range want {
			total += x.n
		}
		if total > 1<<22 {
			return "" // too many to expand in a test
		}
		rec, err := r.Read()
		if err != nil {
			return fmt.Sprintf("reading back record %d expanded: %v", i, err)
		}
		if uint64(len(rec.Frames)) != total {
			return fmt.Sprintf("record %d expanded: %d frames, want %d", i, len(rec.Frames), total)
		}
	}
	if _, err := r.Read(); err != io.EOF {
		return fmt.Sprintf("after the last record: %v", err)
	}
	rules.Checked()
	return ""
}

// rules counts the rules cases broke, for -v runs.
var rules randcase.Rules

func cut(fs []Frame) []Frame {
	if len(fs) > 12 {
		return fs[:12]
	}
	return fs
}

var cbfPool []Record

// TestWriterRandom runs random cases, and every kept failing case, through
// the Writer (whole records and frame by frame) and back through the
// Reader.
func TestWriterRandom(t *testing.T) {
	cbfPool = randomPool(t)
	n := 3000
	if testing.Short() {
		n = 300
	}
	randcase.Run(t, "FuzzWriterRandom", n, cbfCase)
	rules.Log(t)
}

// FuzzWriterRandom is TestWriterRandom for longer runs.
func FuzzWriterRandom(f *testing.F) {
	cbfPool = randomPool(f)
	randcase.Seed(f, 20)
	f.Fuzz(func(t *testing.T, data []byte) {
		if msg := cbfCase(data); msg != "" {
			t.Fatal(msg)
		}
	})
}
