package instrmap

import (
	"bytes"
	"io"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, and those given a nil pointer or interface
// return an error; a nil Map or Namer names nothing.
func TestNilArguments(t *testing.T) {
	data := testutil.ReadFile(t, "../testdata/fdr_simple.instrmap.yaml")
	m, err := ReadYAML(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{"Demangle": Demangle, "NewNamer": NewNamer, "Open": Open, "ReadELF": ReadELF, "ReadYAML": ReadYAML},
		Types: []any{new(FormatError), new(Map), new(Namer), new(Sled), new(SledKind), new(SyntaxError)},
		Open:  []any{m, NewNamer(m), NewNamer(nil)},
		Samples: map[string][]any{
			"ReadYAML":      {bytes.NewReader(data)},
			"Map.WriteYAML": {io.Discard, false, false},
		},
		AllowNil: []string{"FormatError.Unwrap", "SyntaxError.Unwrap"},
		NotOpen:  ErrNotOpen,
	})
}
