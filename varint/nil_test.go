package varint

import (
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestNilArguments calls every exported function with nil and zero
// arguments: none panics, and Read and ReadWidth refuse a nil reader.
func TestNilArguments(t *testing.T) {
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{
			"Append": Append, "AppendPadded": AppendPadded, "Consume": Consume,
			"Len": Len, "Read": Read, "ReadWidth": ReadWidth,
		},
	})
}
