package varint_test

import (
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/varint"
)

// TestNilArguments calls every exported function with nil and zero
// arguments: none panics, and Read and ReadWidth refuse a nil reader.
func TestNilArguments(t *testing.T) {
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{
			"Append": varint.Append, "AppendPadded": varint.AppendPadded, "Consume": varint.Consume,
			"Len": varint.Len, "Read": varint.Read, "ReadWidth": varint.ReadWidth,
		},
	})
}
