package gotraceraw_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

var editCases = flag.Int("editcases", 500, "TestRandomEdits writes this many random edits of the fixtures")

// editFixtures are the traces edits start from: one per version and
// producer kind, small enough for many cases.
var editFixtures = []string{
	"gotest", "annotations", "gcgens", "cpuprofile", "allocfree",
	"go122-basic", "go122-cgocallback", "go123-coro", "go123-allocfree", "go124-annotations", "go125-light",
}

type fixtureEvents struct {
	v   gotraceraw.Version
	evs []*gotraceraw.Event
}

var editInputs struct {
	once sync.Once
	fx   []fixtureEvents
	err  error
}

// loadEditFixtures reads the fixtures edits start from, once.
func loadEditFixtures(t testing.TB) []fixtureEvents {
	t.Helper()
	editInputs.once.Do(func() {
		for _, name := range editFixtures {
			data, err := os.ReadFile(filepath.Join("testdata", name+".trace"))
			if err != nil {
				editInputs.err = err
				return
			}
			r, err := gotraceraw.NewReader(bytes.NewReader(data))
			if err != nil {
				editInputs.err = err
				return
			}
			fx := fixtureEvents{v: r.Header().Version}
			for e, err := range r.All() {
				if err != nil {
					editInputs.err = fmt.Errorf("%s: %w", name, err)
					return
				}
				fx.evs = append(fx.evs, e.Clone())
			}
			editInputs.fx = append(editInputs.fx, fx)
		}
	})
	if editInputs.err != nil {
		t.Fatal(editInputs.err)
	}
	return editInputs.fx
}

// choices reads the decisions of an edit from bytes, as a fuzzer gives
// them; past their end every decision is 0.
type choices struct{ b []byte }

func (c *choices) byte() byte {
	if len(c.b) == 0 {
		return 0
	}
	x := c.b[0]
	c.b = c.b[1:]
	return x
}

// n returns a number below n (n > 0).
func (c *choices) n(n int) int {
	x := int(c.byte()) | int(c.byte())<<8 | int(c.byte())<<16
	return x % n
}

// value returns an argument value: often one the trace holds in the same
// place (an id, a generation, a sequence number), else a small or any
// number.
func (c *choices) value(pool []uint64) uint64 {
	switch c.byte() % 8 {
	case 0:
		return 0
	case 1:
		return uint64(c.byte() % 8)
	case 2:
		var b [8]byte
		for i := range b {
			b[i] = c.byte()
		}
		return binary.LittleEndian.Uint64(b[:]) >> (c.byte() % 64)
	case 3:
		if len(pool) > 0 {
			return pool[c.n(len(pool))] + 1
		}
	}
	if len(pool) > 0 {
		return pool[c.n(len(pool))]
	}
	return uint64(c.byte())
}

// edit applies the edits ops describes to a copy of fx's events: drops,
// duplicates, swaps, events of every type inserted, and argument values
// changed, with values from the trace or not.
func edit(fx fixtureEvents, ops []byte) []*gotraceraw.Event {
	c := &choices{ops}
	evs := append([]*gotraceraw.Event(nil), fx.evs...)
	// The values the trace holds, per type and argument.
	pools := map[[2]int][]uint64{}
	for _, e := range evs {
		for i, a := range e.Args {
			if i < 8 {
				k := [2]int{int(e.Type), i}
				if len(pools[k]) < 64 {
					pools[k] = append(pools[k], a)
				}
			}
		}
	}
	types := fx.v.Types()
	for nops := 1 + int(c.byte()%4); nops > 0 && len(evs) > 0; nops-- {
		i := c.n(len(evs))
		switch c.byte() % 6 {
		case 0: // drop
			evs = append(evs[:i:i], evs[i+1:]...)
		case 1: // duplicate
			evs = append(evs[:i+1:i+1], evs[i:]...)
		case 2: // swap with a near one or any
			j := i + 1 + c.n(3)
			if c.byte()%2 == 0 {
				j = c.n(len(evs))
			}
			if j < len(evs) {
				evs[i], evs[j] = evs[j], evs[i]
			}
		case 3, 4: // insert an event of any type
			typ := types[c.n(len(types))]
			s, _ := fx.v.Spec(typ)
			e := &gotraceraw.Event{Version: fx.v, Type: typ, Args: make([]uint64, len(s.Args))}
			for k := range e.Args {
				e.Args[k] = c.value(pools[[2]int{int(typ), k}])
			}
			if s.IsStack {
				nf := c.n(4)
				e.Args[1] = uint64(nf)
				for f := 0; f < nf*4; f++ {
					e.Args = append(e.Args, c.value(pools[[2]int{int(typ), 2 + f%4}]))
				}
			}
			if n := c.n(20); s.HasData && n > 0 {
				// Empty data stays nil, as the wire form cannot tell
				// empty from none and the text form can.
				e.Data = []byte(strings.Repeat("x", n))
			}
			evs = append(evs[:i:i], append([]*gotraceraw.Event{e}, evs[i:]...)...)
		case 5: // change an argument
			e := evs[i].Clone()
			e.Widths = nil
			if len(e.Args) > 0 {
				k := c.n(len(e.Args))
				e.Args[k] = c.value(pools[[2]int{int(e.Type), min(k, 7)}])
				if e.Type == gotraceraw.EvStack && k == 1 {
					e.Args[1] = uint64(len(e.Args)-2) / 4 // keep the frame count, as check wants
				}
			}
			evs[i] = e
		}
	}
	return evs
}

var parsedTool struct {
	once sync.Once
	path string
	err  error
}

// parsedCheck runs Go 1.26's `go tool trace -d=parsed` on file and
// returns its complaint, or nil. The test is skipped where the go command
// is older.
func parsedCheck(t testing.TB, file string) error {
	t.Helper()
	gocmd := testutil.Tool(t, "go")
	if n := testutil.GoMinor(t); n < 26 {
		t.Skipf("needs Go 1.26's `go tool trace -d=parsed`; the go command here is Go 1.%d", n)
	}
	parsedTool.once.Do(func() {
		out, err := exec.Command(gocmd, "tool", "-n", "trace").Output()
		parsedTool.path, parsedTool.err = string(bytes.TrimSpace(out)), err
	})
	if parsedTool.err != nil {
		t.Fatalf("go tool -n trace: %v", parsedTool.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, parsedTool.path, "-d=parsed", file)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 400 {
			msg = msg[:400] + "..."
		}
		return fmt.Errorf("%v: %s", err, msg)
	}
	return nil
}

// writeEdit writes evs through a Writer that validates with the parsed
// level, to the end or to the first refusal, and checks the refusal's
// form. It returns the output and whether every event was accepted.
func writeEdit(t testing.TB, v gotraceraw.Version, evs []*gotraceraw.Event) ([]byte, bool) {
	t.Helper()
	var b bytes.Buffer
	w, err := gotraceraw.NewWriter(&b, gotraceraw.Header{Version: v})
	if err != nil {
		t.Fatal(err)
	}
	w.Validate = parsed.NewValidator(v)
	for _, e := range evs {
		if err = w.Write(e); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Close()
	} else if cerr := w.Close(); !errors.Is(cerr, err) && cerr != err {
		t.Errorf("Close after the refusal %v: %v", err, cerr)
	}
	if err != nil && !errors.Is(err, gotraceraw.ErrInvalid) {
		t.Errorf("refusal %v does not wrap ErrInvalid", err)
	}
	whole := err == nil
	out := b.Bytes()

	// The TextWriter, validating as well, prints the text of the same
	// output.
	var tb bytes.Buffer
	tw, err := gotraceraw.NewTextWriter(&tb, gotraceraw.Header{Version: v})
	if err != nil {
		t.Fatal(err)
	}
	tw.Validate = parsed.NewValidator(v)
	var terr error
	for _, e := range evs {
		if terr = tw.Write(e); terr != nil {
			break
		}
	}
	if terr == nil {
		terr = tw.Close()
	}
	if (terr == nil) != whole {
		t.Errorf("the Writer says %v, the TextWriter %v", err, terr)
	}
	if want := textOf(t, out); !bytes.Equal(tb.Bytes(), want) {
		t.Errorf("the validating TextWriter printed %d bytes, want the %d of the Writer's output", tb.Len(), len(want))
	}
	return out, whole
}

// textOf returns the text form of a binary trace.
func textOf(t testing.TB, data []byte) []byte {
	t.Helper()
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := gotraceraw.NewTextWriter(&b, r.Header())
	if err != nil {
		t.Fatal(err)
	}
	for e, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var headerOnly = regexp.MustCompile(`^go 1\.2[2-5] trace\x00+$`)

// checkEdit writes one edit and has Go's parser read the output: what
// the Writer writes, all of the edit or the generations before its
// refusal, Go's parser must read (but a trace of Go 1.22 to 1.25 with no
// generation, which it refuses as empty).
func checkEdit(t testing.TB, fx fixtureEvents, ops []byte, dir string) (whole, checked bool) {
	t.Helper()
	evs := edit(fx, ops)
	out, whole := writeEdit(t, fx.v, evs)
	if headerOnly.Match(out) {
		return whole, false
	}
	f, err := os.CreateTemp(dir, "edit*.trace")
	if err != nil {
		t.Fatal(err)
	}
	file := f.Name()
	defer os.Remove(file)
	_, err = f.Write(out)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := parsedCheck(t, file); err != nil {
		t.Errorf("edit %q of a %v trace (written whole: %v): Go's parser refuses the output: %v", ops, fx.v, whole, err)
	}
	return whole, true
}

// TestRandomEdits writes random edits of real traces (events dropped,
// duplicated, swapped, inserted of every type, arguments changed)
// through the validating Writer, and has `go tool trace -d=parsed` read
// every output. -editcases sets how many; FuzzEdits goes on from there.
func TestRandomEdits(t *testing.T) {
	fxs := loadEditFixtures(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, uint64(*editCases)))
	n := *editCases
	if testing.Short() {
		n = min(n, 30)
	}
	wholes, checks := 0, 0
	for i := 0; i < n; i++ {
		ops := make([]byte, 48)
		for k := range ops {
			ops[k] = byte(rng.Uint32())
		}
		fx := fxs[i%len(fxs)]
		whole, checked := checkEdit(t, fx, ops, dir)
		wholes += btoi(whole)
		checks += btoi(checked)
		if t.Failed() {
			t.Logf("fuzz seed: go test fuzz v1\nuint8(%d)\n[]byte(%s)", i%len(fxs), strconv.Quote(string(ops)))
			return
		}
	}
	t.Logf("%d edits: %d written whole, %d refused; %d outputs read by Go's parser", n, wholes, n-wholes, checks)
	if wholes == 0 || wholes == n {
		t.Errorf("the edits were all refused or all accepted: they test nothing")
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FuzzEdits is TestRandomEdits for longer runs: the input picks the
// fixture and the edits. Crashers stay in testdata/fuzz/FuzzEdits.
func FuzzEdits(f *testing.F) {
	fxs := loadEditFixtures(f)
	for i := range fxs {
		f.Add(uint8(i), []byte{byte(i), 3, 1, 2, 5, 0, 7, 9})
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, which uint8, ops []byte) {
		checkEdit(t, fxs[int(which)%len(fxs)], ops, dir)
	})
}

// BenchmarkValidatingWriter writes real traces through a Writer that the
// parsed level validates: what validation costs a filter.
func BenchmarkValidatingWriter(b *testing.B) {
	fxs := loadEditFixtures(b)
	for i, name := range editFixtures {
		if name != "gcgens" && name != "allocfree" {
			continue
		}
		fx := fxs[i]
		b.Run(name, func(b *testing.B) {
			var size bytes.Buffer
			w, _ := gotraceraw.NewWriter(&size, gotraceraw.Header{Version: fx.v})
			for _, e := range fx.evs {
				w.Write(e)
			}
			w.Close()
			b.SetBytes(int64(size.Len()))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w, err := gotraceraw.NewWriter(io.Discard, gotraceraw.Header{Version: fx.v})
				if err != nil {
					b.Fatal(err)
				}
				w.Validate = parsed.NewValidator(fx.v)
				for _, e := range fx.evs {
					if err := w.Write(e); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(fx.evs)), "ns/event")
		})
	}
}
