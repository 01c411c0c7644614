package snappy

import (
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics.
func TestNilArguments(t *testing.T) {
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{
			"Decode": Decode, "DecodePrefix": DecodePrefix, "DecodedLen": DecodedLen,
			"MaxEncodedLen": MaxEncodedLen,
		},
		Types: []any{new(Encoder)},
		// An empty input is a corrupt block; the zero Encoder encodes.
		AllowNil: []string{"Encoder.Encode"},
	})
}
