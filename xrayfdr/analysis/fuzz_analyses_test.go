package analysis

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/xrayfdr"
)

const maxFuzzLog = 8 << 10

// FuzzAnalyses reads logs with every analysis: no panic, and an error is
// a *FormatError (a binary log), a *SyntaxError (a YAML trace), a
// *CallError (a record) or ErrNoCalls.
func FuzzAnalyses(f *testing.F) {
	for _, pat := range []string{"testdata/analyses/*.xray", "testdata/analyses/*.yaml", "../testdata/*.xray"} {
		paths, _ := filepath.Glob(pat)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b[:min(len(b), maxFuzzLog)]) // big ones cut short
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzLog {
			// a deep stack's flame output grows with the square of
			// its depth, as llvm-xray's does: small inputs fuzz faster
			t.Skip()
		}
		for _, keep := range []bool{false, true} {
			for _, line := range []string{
				"account --deduce-sibling-calls --sort=count",
				"account --recursive-calls-only --format=csv --sort=func",
				"stack", "stack --aggregate-threads", "stack --per-thread-stacks",
				"stack --all-stacks --stack-format=flame --aggregate-threads",
				"stack --all-stacks --stack-format=folded-self",
				"graph --deduce-sibling-calls --edge-label=99p --vertex-label=min --color-edges=sum --color-vertices=med",
			} {
				if keep {
					line += " --keep-going"
				}
				_, err := runAnalysis(data, nil, 0, line)
				checkAnalysisError(t, err)
			}
			// Spans pairs as Account does
			a := &Account{KeepGoing: keep, DeduceSiblingCalls: true}
			aerr := a.Read(data)
			var calls, ticks uint64
			serr := Spans(data, SpanOptions{KeepGoing: keep, DeduceSiblingCalls: true}, func(s *Span) error {
				calls++
				ticks += absDiff(s.Enter, s.Exit)
				return nil
			})
			checkAnalysisError(t, serr)
			if (aerr == nil) != (serr == nil) {
				t.Fatalf("Account: %v, Spans: %v", aerr, serr)
			}
			if aerr == nil {
				var acalls, aticks uint64
				for _, fn := range a.funcs {
					acalls += uint64(fn.lat.n)
					for _, l := range fn.lat.all() {
						aticks += l
					}
				}
				if calls != acalls || ticks != aticks {
					t.Fatalf("Spans: %d calls, %d ticks; Account: %d, %d", calls, ticks, acalls, aticks)
				}
			}
			p := &Profile{KeepGoing: keep, DeduceSiblingCalls: true}
			err := p.Read(data)
			checkAnalysisError(t, err)
			if err == nil {
				if err := p.WriteProfile(io.Discard, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

func checkAnalysisError(t *testing.T, err error) {
	t.Helper()
	var fe *xrayfdr.FormatError
	var ce *CallError
	var se *xrayfdr.SyntaxError
	if err != nil && !errors.As(err, &fe) && !errors.As(err, &ce) && !errors.As(err, &se) && !errors.Is(err, ErrNoCalls) {
		t.Fatalf("unexpected error %T: %v", err, err)
	}
}

// FuzzPairing feeds arbitrary entries and exits (unbalanced, out of
// order, clocks going backwards, several threads) to every analysis, and
// checks that the profile's totals and calls equal Account's.
func FuzzPairing(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 2, 1, 1})
	f.Add([]byte{0, 1, 0, 2, 0, 3, 1, 1, 0, 4, 2, 4, 1, 9})
	f.Add([]byte{0x10, 1, 0x20, 2, 0x11, 1, 0x21, 2, 0x81, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, deduce := range []bool{false, true} {
			a := &Account{DeduceSiblingCalls: deduce, KeepGoing: true}
			ar := &Account{DeduceSiblingCalls: deduce, RecursiveCallsOnly: true, KeepGoing: true}
			p := &Profile{DeduceSiblingCalls: deduce, KeepGoing: true}
			s := &Stacks{KeepGoing: true}
			g := &Graph{DeduceSiblingCalls: deduce, KeepGoing: true}
			var tsc uint64 = 1000
			for i := 0; i+1 < len(ops); i += 2 {
				op, arg := ops[i], ops[i+1]
				e := &xrayfdr.Event{Kind: xrayfdr.EventKind(op & 3), TID: uint32(op>>4) & 3, FuncID: int32(arg & 7)}
				if op&0x80 != 0 {
					tsc -= uint64(arg) // backwards
				} else {
					tsc += uint64(arg)
				}
				e.TSC = tsc
				for _, add := range []func(*xrayfdr.Event) error{a.add, ar.add, p.Add, s.Add, g.add} {
					if err := add(e); err != nil {
						var ce *CallError
						if !errors.As(err, &ce) {
							t.Fatalf("%T: %v", err, err)
						}
					}
				}
			}
			var sum, calls uint64
			for _, fn := range a.funcs {
				calls += uint64(fn.lat.n)
				for _, l := range fn.lat.all() {
					sum += l
				}
			}
			var psum, pcalls uint64
			for _, n := range p.nodes {
				psum += n.total
				pcalls += n.calls
			}
			if sum != psum || calls != pcalls {
				t.Fatalf("profile: %d calls, %d ticks; account: %d calls, %d ticks", pcalls, psum, calls, sum)
			}
			for _, w := range []func() error{
				func() error { return a.WriteText(io.Discard, nil, AccountFormat{Sort: "99p"}) },
				func() error {
					return ar.WriteCSV(io.Discard, nil, AccountFormat{Sort: "sum", Descending: true, Top: 2})
				},
				func() error { return s.WriteTop(io.Discard, nil, StackFormat{AggregateThreads: true}) },
				func() error { return s.WriteTop(io.Discard, nil, StackFormat{PerThread: true}) },
				func() error { return s.WriteFlame(io.Discard, nil, StackFormat{Count: true}) },
				func() error { return s.WriteFoldedSelf(io.Discard, nil, StackFormat{}) },
				func() error {
					return g.WriteDOT(io.Discard, nil, GraphFormat{EdgeLabel: "med", VertexLabel: "90p", EdgeColor: "min", VertexColor: "count"})
				},
				func() error { return p.WriteProfile(io.Discard, nil) },
			} {
				if err := w(); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
