package analysis

import (
	"io"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/xrayfdr"
)

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, and those given a nil pointer, interface or
// function return an error.
func TestNilArguments(t *testing.T) {
	data := testutil.ReadFile(t, "../testdata/fdr_simple.xray")
	tr, err := xrayfdr.Expand(data, true)
	if err != nil {
		t.Fatal(err)
	}
	var a Account
	var g Graph
	var p Profile
	var s Stacks
	for _, r := range []interface{ Read([]byte) error }{&a, &g, &p, &s} {
		if err := r.Read(data); err != nil {
			t.Fatal(err)
		}
	}
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{"Spans": Spans, "WriteChrome": WriteChrome},
		Types: []any{
			new(Account), new(AccountFormat), new(CallError), new(FuncStats), new(Graph),
			new(GraphField), new(GraphFormat), new(Profile), new(Span), new(SpanOptions),
			new(StackFormat), new(Stacks),
		},
		Open: []any{&a, &g, &p, &s},
		Samples: map[string][]any{
			"Spans":       {data, SpanOptions{}, func(*Span) error { return nil }},
			"WriteChrome": {io.Discard, tr, map[int32]string{}},
		},
		// No names: ids are printed.
		AllowNil: []string{"CallError.Unwrap", "WriteChrome"},
		NotOpen:  ErrNotOpen,
	})
}
