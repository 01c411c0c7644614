package parsed

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// checkValidator feeds the generations to a new Validator and checks its
// verdict against want (nil: every generation accepted).
func checkValidator(t *testing.T, v gotraceraw.Version, gens [][]byte, want error) {
	t.Helper()
	val := NewValidator(v)
	var got error
	for _, g := range gens {
		if got = val.Generation(g); got != nil {
			break
		}
	}
	if (got == nil) != (want == nil) {
		t.Fatalf("Validator: %v; Reader: %v", got, want)
	}
	if got != nil && reasonOf(got) != reasonOf(want) {
		// The Validator is given the generations as the writer cut
		// them, which may not be where Go's parser would.
		t.Logf("Validator says %q, Reader %q", reasonOf(got), reasonOf(want))
	}
}

// join makes a trace of a header and generations.
func join(v gotraceraw.Version, gens [][]byte) []byte {
	h := header(v)
	out := append([]byte(nil), h[:]...)
	for _, g := range gens {
		out = append(out, g...)
	}
	return out
}

// TestValidatorAgrees checks that the Validator accepts exactly what the
// Reader reads without error: the fixtures whole, and each with one
// batch dropped (the string or stack table, the frequency, a thread's
// events), which Go's parser often rejects.
func TestValidatorAgrees(t *testing.T) {
	for _, name := range []string{"go122-basic", "go123-coro", "go125-light", "gcgens", "annotations"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "testdata", name+".trace"))
			if err != nil {
				t.Fatal(err)
			}
			v, gens := generations(t, data)
			checkValidator(t, v, gens, nil)
			rejected := 0
			for gi, g := range gens {
				for _, b := range batchSpans(t, v, g) {
					mutated := make([][]byte, len(gens))
					copy(mutated, gens)
					mutated[gi] = append(append([]byte(nil), g[:b[0]]...), g[b[1]:]...)
					_, err := parseText(join(v, mutated))
					if err != nil {
						rejected++
					}
					checkValidator(t, v, mutated, err)
				}
			}
			t.Logf("%d generations, %d one-batch drops rejected", len(gens), rejected)
		})
	}
}

// batchSpans returns the start and end of each batch in a generation's
// bytes.
func batchSpans(t *testing.T, v gotraceraw.Version, gen []byte) [][2]int {
	h := header(v)
	r, err := gotraceraw.NewReader(bytes.NewReader(append(h[:], gen...)))
	if err != nil {
		t.Fatal(err)
	}
	var spans [][2]int
	for {
		b, err := r.ReadBatch()
		if err != nil {
			break
		}
		spans = append(spans, [2]int{int(b.Offset) - gotraceraw.HeaderLen, int(r.Offset()) - gotraceraw.HeaderLen})
	}
	return spans
}

func TestValidatorErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "basic.trace"))
	if err != nil {
		t.Fatal(err)
	}
	v, gens := generations(t, data)
	val := NewValidator(v)
	if err := val.Generation(gens[0][:len(gens[0])-1]); err == nil {
		t.Fatal("a generation without its end accepted")
	} else if !errors.Is(err, ErrGeneration) {
		t.Fatalf("generation without its end: %v", err)
	}
	if err2 := val.Generation(gens[0]); err2 == nil {
		t.Fatal("error did not stick")
	}
	if err := NewValidator(7).Generation(gens[0]); !errors.Is(err, gotraceraw.ErrVersion) {
		t.Fatalf("version 7: %v", err)
	}
}

// TestValidatorAllocs checks that validating costs no allocation per
// event: a trace of 18 k events is validated with a few allocations per
// generation.
func TestValidatorAllocs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "allocfree.trace"))
	if err != nil {
		t.Fatal(err)
	}
	v, gens := generations(t, data)
	events := checkInvariants(t, data)
	allocs := testing.AllocsPerRun(5, func() {
		val := NewValidator(v)
		for _, g := range gens {
			if err := val.Generation(g); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs > float64(events)/50 {
		t.Errorf("%.0f allocations to validate %d events in %d generations", allocs, events, len(gens))
	}
	t.Logf("%.0f allocations to validate %d events in %d generations", allocs, events, len(gens))
}

// TestZeroValidator: a Validator not made by NewValidator says so, where
// it said the generation had no trace header.
func TestZeroValidator(t *testing.T) {
	var val Validator
	_, gens := generations(t, testutil.ReadFile(t, "../testdata/basic.trace"))
	for i := 0; i < 2; i++ {
		if err := val.Generation(gens[0]); !errors.Is(err, ErrNotOpen) {
			t.Fatalf("call %d: %v, want ErrNotOpen", i+1, err)
		}
	}
}
