package parsed

import (
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/varint"
)

// TestFixtures compares our text with `go tool trace -d=parsed` on the
// traces of the repository (every version, Go 1.22 to 1.26) and checks
// what every valid trace satisfies.
func TestFixtures(t *testing.T) {
	for _, f := range fixtureTraces(t, false) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, data)
			compareWithGo(t, f)
		})
	}
}

// TestSharedFixtures does the same on the shared fixtures.
func TestSharedFixtures(t *testing.T) {
	for _, f := range fixtureTraces(t, true) {
		t.Run(filepath.Base(f), func(t *testing.T) { compareWithGo(t, f) })
	}
}

// TestRuntimeLostStatus reads a trace in which Go 1.26's runtime left out
// a goroutine's status (see the package doc): it is rejected where Go's
// parser rejects it, after the same events, with the same message.
func TestRuntimeLostStatus(t *testing.T) {
	file := filepath.Join("..", "testdata", "rejected", "go126-lost-status.trace")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, err = parseText(data)
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrOrder) || fe.Gen < 2 {
		t.Fatalf("got %v, want an ordering error past the first generation", err)
	}
	if failure := compareWithGo(t, file); failure == "" {
		t.Errorf("Go's parser takes %s: it no longer shows the runtime's lost status", file)
	}
}

// TestGoCorpus reads Go's own test traces,
// $GOROOT/src/internal/trace/testdata/tests/*.test: each is a text trace
// and the outcome Go's parser must reach, success or an error matching a
// pattern. We reach the same, and print what Go's tool prints.
func TestGoCorpus(t *testing.T) {
	root, _ := goRootAndVersion(t)
	files, err := filepath.Glob(filepath.Join(root, "src", "internal", "trace", "testdata", "tests", "*.test"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go trace tests in %s: %v", root, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			archive, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			expect, ok1 := testutil.TxtarSection(archive, "expect")
			text, ok2 := testutil.TxtarSection(archive, "trace")
			if !ok1 || !ok2 {
				t.Fatal("no expect or trace section")
			}
			wire := textToWire(t, text)
			_, err = parseText(wire)
			exp := string(bytes.TrimSpace(expect))
			switch {
			case exp == "SUCCESS":
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
			case len(exp) > 8 && exp[:8] == "FAILURE ":
				pattern, uerr := strconv.Unquote(exp[8:])
				if uerr != nil {
					t.Fatalf("expectation %q: %v", exp, uerr)
				}
				if err == nil {
					t.Fatalf("want failure matching %q, got success", pattern)
				}
				if !regexp.MustCompile(pattern).MatchString(reasonOf(err)) {
					t.Fatalf("error %q does not match %q", reasonOf(err), pattern)
				}
			default:
				t.Fatalf("unknown expectation %q", exp)
			}
			file := filepath.Join(t.TempDir(), "t.trace")
			if err := os.WriteFile(file, wire, 0o644); err != nil {
				t.Fatal(err)
			}
			compareWithGo(t, file)
		})
	}
}

// textToWire converts a text trace to the binary form.
func textToWire(t testing.TB, text []byte) []byte {
	t.Helper()
	r, err := gotraceraw.NewTextReader(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return writeEvents(t, r.Header(), r.All(), nil)
}

// writeEvents writes the events in the binary form, each passed to edit
// first when edit is not nil.
func writeEvents(t testing.TB, h gotraceraw.Header, events iter.Seq2[*gotraceraw.Event, error], edit func(*gotraceraw.Event)) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := gotraceraw.NewWriter(&out, h)
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range events {
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(ev)
		}
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestRecordHere records a trace in this test process, with the toolchain
// the tests run under, and reads it: a test a fresh clone can run.
func TestRecordHere(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("tracing is on already: %v", err)
	}
	workload()
	trace.Stop()
	n := checkInvariants(t, buf.Bytes())
	t.Logf("%s: %d bytes, %d events", runtime.Version(), buf.Len(), n)
	file := filepath.Join(t.TempDir(), "here.trace")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	v, gens := generations(t, buf.Bytes())
	checkValidator(t, v, gens, nil)
	compareWithGo(t, file)
}

// workload makes goroutines block, unblock, sleep, collect garbage, and
// use tasks, regions and logs.
func workload() {
	ctx, task := trace.NewTask(context.Background(), "test")
	var wg sync.WaitGroup
	ch := make(chan int)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			trace.WithRegion(ctx, "work", func() {
				for v := range ch {
					trace.Logf(ctx, "got", "%d", v)
				}
			})
		}()
	}
	for i := 0; i < 100; i++ {
		ch <- i
	}
	close(ch)
	wg.Wait()
	runtime.GC()
	task.End()
}

// TestRecorded records traces with each toolchain from Go 1.22 to the
// local one (fetched through the module proxy) and compares our text with
// `go tool trace -d=parsed`.
func TestRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("records traces with several toolchains")
	}
	if !strings.HasPrefix(runtime.Version(), "go1.26") {
		// CI runs the tests under Go 1.23 as well: once is enough.
		t.Skipf("records with every toolchain once, in the run under Go 1.26 (this one is %s)", runtime.Version())
	}
	prog := filepath.Join("..", "testdata", "recordprog")
	for _, tc := range testutil.GoToolchains {
		for _, mode := range []struct{ name, arg, godebug string }{
			{"all", "all", ""},
			{"allocfree-gens", "light", "GODEBUG=traceallocfree=1,traceadvanceperiod=2000000"},
		} {
			t.Run(tc+"/"+mode.name, func(t *testing.T) {
				if tc == "go1.22.12" && mode.godebug != "" {
					t.Skip("Go 1.22 has no allocfree experiment")
				}
				// Now and then (about 1 in 100 recordings with generations of
				// 2 ms, seen with Go 1.26.8) the runtime leaves out a
				// goroutine's status in a generation, and Go's parser rejects
				// its own trace. Ours must reject it the same way; then the
				// checks below need a trace that is valid, so record again.
				for attempt := 1; ; attempt++ {
					file := testutil.RecordGoTrace(t, tc, prog, []string{mode.godebug}, mode.arg, "OUT")
					if failure := compareWithGo(t, file); failure != "" {
						if attempt == 3 {
							t.Fatalf("Go rejects 3 recordings in a row, the last with %q", failure)
						}
						t.Logf("recording %d: Go rejects it, and so do we: %s", attempt, firstLine(failure))
						continue
					}
					data, err := os.ReadFile(file)
					if err != nil {
						t.Fatal(err)
					}
					n := checkInvariants(t, data)
					v, gens := generations(t, data)
					checkValidator(t, v, gens, nil)
					t.Logf("%v: %d bytes, %d events, %d generations", v, len(data), n, len(gens))
					break
				}
			})
		}
	}
}

// TestErrorsStick checks that an error comes back from every later Read,
// and that the zero Reader refuses to read.
func TestErrorsStick(t *testing.T) {
	var zero Reader
	if _, err := zero.Read(); !errors.Is(err, ErrNotOpen) {
		t.Fatalf("zero Reader: %v, want ErrNotOpen", err)
	}
	if err := zero.Reset(nil); !errors.Is(err, ErrNotOpen) {
		t.Fatalf("Reset(nil): %v", err)
	}
	data, err := os.ReadFile(filepath.Join("..", "testdata", "basic.trace"))
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:len(data)/2]
	r, err := NewReader(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	var first error
	for {
		if _, err := r.Read(); err != nil {
			first = err
			break
		}
	}
	if !errors.Is(first, io.ErrUnexpectedEOF) {
		t.Fatalf("cut trace: %v, want io.ErrUnexpectedEOF", first)
	}
	if _, err := r.Read(); err != first {
		t.Fatalf("second Read: %v, want %v", err, first)
	}
	// Reset reads a new trace with the same Reader.
	if err := r.Reset(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if _, err := NewReader(bytes.NewReader([]byte("not a trace at all"))); !errors.Is(err, gotraceraw.ErrHeader) {
		t.Fatalf("not a trace: %v", err)
	}
}

// TestTruncations cuts small traces of each version at every byte: each
// cut ends cleanly, as Go's parser would end, or with an error, never a
// panic.
func TestTruncations(t *testing.T) {
	for _, name := range []string{"go122-basic", "go123-coro", "go125-light", "basic"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "testdata", name+".trace"))
			if err != nil {
				t.Fatal(err)
			}
			step := 1
			if testing.Short() {
				step = 7
			}
			for n := 0; n < len(data); n += step {
				out, err := parseText(data[:n])
				if err == nil {
					continue
				}
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("cut at %d: %T %v", n, err, err)
				}
				if fe.Offset > int64(n) {
					t.Fatalf("cut at %d: error at offset %d", n, fe.Offset)
				}
				_ = out
			}
		})
	}
}

// TestAllocs checks that reading makes no allocation per event in the
// steady state, and a few per generation (its string and stack tables).
func TestAllocs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "allocfree.trace"))
	if err != nil {
		t.Fatal(err)
	}
	var r Reader
	if err := r.Reset(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(10000, func() {
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per event", a)
	}

	// A whole trace with a reused Reader: a few allocations per generation.
	data, err = os.ReadFile(filepath.Join("..", "testdata", "gcgens.trace"))
	if err != nil {
		t.Fatal(err)
	}
	read := func() {
		if err := r.Reset(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := r.Read(); err == io.EOF {
				return
			} else if err != nil {
				t.Fatal(err)
			}
		}
	}
	read()
	allocs := testing.AllocsPerRun(10, read)
	_, gens := generations(t, data)
	if perGen := allocs / float64(len(gens)); perGen > 32 {
		t.Errorf("%.0f allocations in %d generations", allocs, len(gens))
	}
	t.Logf("%.0f allocations for %d generations", allocs, len(gens))
}

// TestStrict reads a Go 1.22 trace with an ExperimentalBatch added, and
// one of an experiment no runtime has: Go's parser takes both, as the
// Reader does by default; Strict refuses them, and so does the Validator,
// as `go tool trace` crashes printing a batch of an unknown experiment.
func TestStrict(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "go122-basic.trace"))
	if err != nil {
		t.Fatal(err)
	}
	for _, exp := range []byte{1, 9} {
		// ExperimentalBatch exp gen=1 m=0 time=1 size=1, "x"
		batch := []byte{byte(gotraceraw.EvExperimentalBatch), exp, 1, 0, 1, 1, 'x'}
		trace := append(append(append([]byte(nil), data[:gotraceraw.HeaderLen]...), batch...), data[gotraceraw.HeaderLen:]...)
		var r Reader
		if err := r.Reset(bytes.NewReader(trace)); err != nil {
			t.Fatal(err)
		}
		found := false
		for ev, err := range r.All() {
			if err != nil {
				t.Fatalf("experiment %d: %v", exp, err)
			}
			for _, b := range ev.Sync().ExperimentalBatches {
				found = found || (b.Experiment == gotraceraw.Experiment(exp) && string(b.Data) == "x")
			}
		}
		if !found {
			t.Errorf("experiment %d: the batch is not in a Sync", exp)
		}
		r.Strict = true
		if err := r.Reset(bytes.NewReader(trace)); err != nil {
			t.Fatal(err)
		}
		for _, err = range r.All() {
			if err != nil {
				break
			}
		}
		if !errors.Is(err, ErrGeneration) {
			t.Errorf("experiment %d, Strict: %v, want ErrGeneration", exp, err)
		}
		v, gens := generations(t, trace)
		val := NewValidator(v)
		for _, g := range gens {
			if err = val.Generation(g); err != nil {
				break
			}
		}
		if !errors.Is(err, ErrGeneration) {
			t.Errorf("experiment %d, Validator: %v, want ErrGeneration", exp, err)
		}
	}
}

// TestCloneKeeps checks that a cloned event stays whole after the Reader
// moves on to other generations: its strings, stacks and a Sync's
// experimental batches.
func TestCloneKeeps(t *testing.T) {
	// gcgens's three generations, each given an experimental batch
	// of its own data.
	orig, err := os.ReadFile(filepath.Join("..", "testdata", "gcgens.trace"))
	if err != nil {
		t.Fatal(err)
	}
	v, gens := generations(t, orig)
	data := header(v)
	trace := data[:]
	for i, g := range gens {
		first := batchSpans(t, v, g)[0]
		h := header(v)
		rr, err := gotraceraw.NewReader(bytes.NewReader(append(h[:], g[first[0]:first[1]]...)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := rr.ReadBatch()
		if err != nil {
			t.Fatal(err)
		}
		batch := append([]byte{byte(gotraceraw.EvExperimentalBatch), 1}, varint.Append(nil, b.Gen)...)
		batch = append(batch, 0, 1, 3, 'x', 'y', byte('a'+i))
		trace = append(append(trace, batch...), g...)
	}
	r, err := NewReader(bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	type kept struct {
		ev   *Event
		text string
		exp  [][]byte
	}
	var all []kept
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == KindSync || len(all) < 50 {
			k := kept{ev: ev.Clone(), text: ev.String()}
			for _, b := range ev.Sync().ExperimentalBatches {
				k.exp = append(k.exp, append([]byte(nil), b.Data...))
			}
			all = append(all, k)
		}
	}
	syncsWithData := 0
	for i, k := range all {
		if got := k.ev.String(); got != k.text {
			t.Fatalf("kept event %d: %q, was %q", i, got, k.text)
		}
		bs := k.ev.Sync().ExperimentalBatches
		if len(bs) != len(k.exp) {
			t.Fatalf("kept event %d: %d batches, was %d", i, len(bs), len(k.exp))
		}
		for j, b := range bs {
			if !bytes.Equal(b.Data, k.exp[j]) {
				t.Fatalf("kept event %d: batch %d changed", i, j)
			}
		}
		if len(bs) > 0 {
			syncsWithData++
		}
	}
	if syncsWithData < 2 {
		t.Fatalf("%d Syncs with experimental batches, want several generations' worth", syncsWithData)
	}
}
