package timeline

import (
	"io"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, and those given a nil pointer or interface
// return an error.
func TestNilArguments(t *testing.T) {
	w, err := NewWriter(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{"NewWriter": NewWriter},
		Types: []any{new(Writer)},
		Open:  []any{w},
	})
}
