package bitfield

import (
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics.
func TestNilArguments(t *testing.T) {
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{
			"AppendBigEndian": AppendBigEndian, "AppendLittleEndian": AppendLittleEndian,
			"BigEndian": BigEndian, "BigEndianSigned": BigEndianSigned, "FieldAt": FieldAt,
			"LittleEndian": LittleEndian, "LittleEndianSigned": LittleEndianSigned,
			"Must": Must, "New": New, "SignExtend": SignExtend, "SignedLen": SignedLen,
			"UnsignedLen": UnsignedLen,
		},
		Types:    []any{new(Field), new(Layout), new(Order)},
		Open:     []any{ptr(Must(32, MSBFirst, 8, 24))},
		MayPanic: []string{"Must", "FieldAt"},
	})
}

func ptr[T any](v T) *T { return &v }
