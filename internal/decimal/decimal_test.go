package decimal

import (
	"encoding/binary"
	"math"
	"strconv"
	"testing"
)

func TestLen(t *testing.T) {
	if Len(0) != 0 {
		t.Fatalf("Len(0) = %d, want 0", Len(0))
	}
	check := func(v uint64) {
		if got, want := Len(v), len(strconv.FormatUint(v, 10)); got != want {
			t.Fatalf("Len(%d) = %d, want %d", v, got, want)
		}
	}
	for p := uint64(10); p <= math.MaxUint64/10; p *= 10 {
		check(p - 1)
		check(p)
		check(p + 1)
	}
	for s := 0; s < 64; s++ {
		check(1 << s)
		if s > 0 {
			check(1<<s - 1)
		}
	}
	check(math.MaxUint64)
}

func TestPairs(t *testing.T) {
	var b [2]byte
	for v := range 100 {
		want := strconv.Itoa(v)
		if len(want) == 1 {
			want = "0" + want
		}
		if got := Pairs[2*v : 2*v+2]; got != want {
			t.Errorf("Pairs of %d = %q, want %q", v, got, want)
		}
		binary.LittleEndian.PutUint16(b[:], Pair[v])
		if string(b[:]) != want {
			t.Errorf("Pair[%d] = %q, want %q", v, b[:], want)
		}
		binary.LittleEndian.PutUint16(b[:], Small[v])
		if got := string(b[:len(strconv.Itoa(v))]); got != strconv.Itoa(v) {
			t.Errorf("Small[%d] = %q, want %q", v, got, strconv.Itoa(v))
		}
	}
}

func TestPut(t *testing.T) {
	var w Window
	for _, v := range []uint64{10, 99, 100, 101, 999, 1000, 123456789, math.MaxUint32, 1e19, math.MaxUint64} {
		want := strconv.FormatUint(v, 10)
		for _, p := range []int{0, 7, 200, WindowMask + 1 - len(want)} {
			w = Window{}
			end := Put(&w, p, v)
			if end != p+len(want) {
				t.Fatalf("Put(%d) at %d ends at %d, want %d", v, p, end, p+len(want))
			}
			if got := w[p:end]; string(got) != want {
				t.Fatalf("Put(%d) at %d wrote %q", v, p, got)
			}
		}
	}
}
