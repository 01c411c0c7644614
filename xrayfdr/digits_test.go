package xrayfdr

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

func TestDigits(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var c tscCache
	vals := []uint64{0, 9, 10, 99, 100, 999, 1000, 9999, 10000, 999999999, 1e9, 1e9 + 1, math.MaxUint64, 1795282106007886855}
	for i := 0; i < 10000; i++ {
		vals = append(vals, rng.Uint64()>>uint(rng.Intn(64)))
	}
	for _, v := range vals {
		want := strconv.FormatUint(v, 10)
		if got := string(appendUint(nil, v)); got != want {
			t.Fatalf("appendUint(%d) = %s", v, got)
		}
		if got := string(c.appendTSC(nil, v)); got != want {
			t.Fatalf("appendTSC(%d) = %s", v, got)
		}
	}
}
