package brotli_test

import (
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/brotli"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, and a nil input is an error.
func TestNilArguments(t *testing.T) {
	testutil.CheckNilArgs(t, testutil.API{
		Funcs:    map[string]any{"NewReader": brotli.NewReader},
		Types:    []any{new(brotli.Reader), new(brotli.FormatError)},
		Open:     []any{brotli.NewReader(nil)},
		AllowNil: []string{"FormatError.Unwrap"},
	})
}
