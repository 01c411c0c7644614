package bitfield

import (
	"math/rand"
	"testing"
)

var (
	xrayLE   = Must(32, LSBFirst, 1, 3, 28)
	funcType = xrayLE.Field(1)
	funcID   = xrayLE.Field(2)
)

func words() []uint64 {
	rng := rand.New(rand.NewSource(1))
	w := make([]uint64, 4096)
	for i := range w {
		w[i] = uint64(rng.Uint32())
	}
	return w
}

// BenchmarkGet compares Field.Get with the shift and mask a programmer
// would write by hand for the XRay function record.
func BenchmarkGet(b *testing.B) {
	ws := words()
	b.Run("field", func(b *testing.B) {
		b.SetBytes(int64(4 * len(ws)))
		b.ReportAllocs()
		var s uint64
		// Hot loops copy their fields into locals, as one would keep
		// hand-written shifts in constants.
		typ, id := funcType, funcID
		for i := 0; i < b.N; i++ {
			for _, w := range ws {
				s += typ.Get(w) + id.Get(w)
			}
		}
		sink = s
	})
	b.Run("hand", func(b *testing.B) {
		b.SetBytes(int64(4 * len(ws)))
		b.ReportAllocs()
		var s uint64
		for i := 0; i < b.N; i++ {
			for _, w := range ws {
				s += w>>1&7 + w>>4&0xfffffff
			}
		}
		sink = s
	})
	// A reader that learns the byte order from the file header chooses
	// its shifts at run time; this is what it would write by hand.
	b.Run("hand-runtime", func(b *testing.B) {
		b.SetBytes(int64(4 * len(ws)))
		b.ReportAllocs()
		var s uint64
		ts, tm, is, im := uint(funcType.Shift())&63, funcType.Max(), uint(funcID.Shift())&63, funcID.Max()
		for i := 0; i < b.N; i++ {
			for _, w := range ws {
				s += w>>ts&tm + w>>is&im
			}
		}
		sink = s
	})
}

func BenchmarkSet(b *testing.B) {
	ws := words()
	b.SetBytes(int64(4 * len(ws)))
	b.ReportAllocs()
	var s uint64
	for i := 0; i < b.N; i++ {
		for _, w := range ws {
			n, _ := funcID.Set(w, w&0xffff)
			s += n
		}
	}
	sink = s
}
