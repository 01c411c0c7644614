package bitfield

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

func TestNewRejects(t *testing.T) {
	for _, tc := range []struct {
		bits   int
		widths []int
	}{
		{12, []int{4}},
		{8, []int{4, 5}},
		{32, []int{0}},
		{32, []int{-1, 3}},
		{64, make([]int, MaxFields+1)},
	} {
		if _, err := New(tc.bits, LSBFirst, tc.widths...); !errors.Is(err, ErrLayout) {
			t.Errorf("New(%d, %v) = %v, want ErrLayout", tc.bits, tc.widths, err)
		}
	}
	if _, err := New(8, Order(2), 1); !errors.Is(err, ErrLayout) {
		t.Errorf("bad order accepted")
	}
}

func TestPositions(t *testing.T) {
	l := Must(32, LSBFirst, 1, 3, 28)
	m := Must(32, MSBFirst, 1, 3, 28)
	want := [][2]int{{0, 1}, {1, 3}, {4, 28}}
	wantM := [][2]int{{31, 1}, {28, 3}, {0, 28}}
	for i := range want {
		if f := l.Field(i); f.Shift() != want[i][0] || f.Width() != want[i][1] {
			t.Errorf("LSB field %d at %d/%d, want %v", i, f.Shift(), f.Width(), want[i])
		}
		if f := m.Field(i); f.Shift() != wantM[i][0] || f.Width() != wantM[i][1] {
			t.Errorf("MSB field %d at %d/%d, want %v", i, f.Shift(), f.Width(), wantM[i])
		}
	}
	if f := l.Field(3); f.Get(math.MaxUint64) != 0 || f.Width() != 0 {
		t.Errorf("out-of-range field is not empty")
	}
	if l.Len() != 3 || l.Bits() != 32 || m.Order() != MSBFirst {
		t.Errorf("layout accessors wrong")
	}
	full := Must(64, MSBFirst, 64).Field(0)
	if full.Get(math.MaxUint64) != math.MaxUint64 || full.Max() != math.MaxUint64 {
		t.Errorf("64-bit field truncates")
	}
}

func TestSetRefusesOverflow(t *testing.T) {
	f := Must(32, LSBFirst, 1, 3, 28).Field(1)
	w, ok := f.Set(0xffffffff, 8)
	if ok || w != 0xffffffff {
		t.Errorf("Set(8) into 3 bits = %#x, %v", w, ok)
	}
	w, ok = f.Set(0xffffffff, 2)
	if !ok || w != 0xfffffff5 {
		t.Errorf("Set(2) = %#x, %v; want 0xfffffff5", w, ok)
	}
	s := Must(8, MSBFirst, 4, 4).Field(1)
	for _, v := range []int64{-8, -1, 0, 7} {
		w, ok := s.SetSigned(0, v)
		if !ok || s.GetSigned(w) != v {
			t.Errorf("SetSigned(%d) = %#x, %v", v, w, ok)
		}
	}
	for _, v := range []int64{-9, 8} {
		if _, ok := s.SetSigned(0, v); ok {
			t.Errorf("SetSigned(%d) into 4 bits accepted", v)
		}
	}
	l := Must(16, LSBFirst, 4, 4, 8)
	if _, ok := l.Pack(1, 2); ok {
		t.Errorf("Pack with too few values accepted")
	}
	if _, ok := l.Pack(1, 16, 3); ok {
		t.Errorf("Pack with a value too wide accepted")
	}
	w, ok = l.Pack(1, 2, 3)
	dst := make([]uint64, 3)
	if !ok || w != 0x0321 || l.Unpack(w, dst) != 3 || dst[0] != 1 || dst[1] != 2 || dst[2] != 3 {
		t.Errorf("Pack/Unpack = %#x %v %v", w, ok, dst)
	}
}

func TestIntegers(t *testing.T) {
	for _, tc := range []struct {
		b      []byte
		be, le uint64
		bes    int64
		les    int64
	}{
		{nil, 0, 0, 0, 0},
		{[]byte{0x7f}, 0x7f, 0x7f, 127, 127},
		{[]byte{0x80}, 0x80, 0x80, -128, -128},
		{[]byte{0xff}, 0xff, 0xff, -1, -1},
		{[]byte{0x00, 0xff}, 0xff, 0xff00, 255, -256},
		{[]byte{0xff, 0x00}, 0xff00, 0xff, -256, 255},
		{[]byte{0x80, 0, 0, 0, 0, 0, 0, 0}, 1 << 63, 0x80, math.MinInt64, 0x80},
	} {
		if got := BigEndian(tc.b); got != tc.be {
			t.Errorf("BigEndian(%x) = %#x, want %#x", tc.b, got, tc.be)
		}
		if got := LittleEndian(tc.b); got != tc.le {
			t.Errorf("LittleEndian(%x) = %#x, want %#x", tc.b, got, tc.le)
		}
		if got := BigEndianSigned(tc.b); got != tc.bes {
			t.Errorf("BigEndianSigned(%x) = %d, want %d", tc.b, got, tc.bes)
		}
		if got := LittleEndianSigned(tc.b); got != tc.les {
			t.Errorf("LittleEndianSigned(%x) = %d, want %d", tc.b, got, tc.les)
		}
	}
	for _, v := range []int64{0, 1, -1, 127, 128, -128, -129, 32767, -32768, 1 << 40, math.MinInt64, math.MaxInt64} {
		n := SignedLen(v)
		b := AppendBigEndian(nil, uint64(v), n)
		if BigEndianSigned(b) != v || (n > 1 && SignExtend(uint64(v), 8*(n-1)) == v) {
			t.Errorf("SignedLen(%d) = %d is wrong or not minimal", v, n)
		}
		if LittleEndianSigned(AppendLittleEndian(nil, uint64(v), n)) != v {
			t.Errorf("little-endian round trip of %d", v)
		}
	}
	for _, v := range []uint64{0, 0xff, 0x100, 1<<56 - 1, 1 << 56, math.MaxUint64} {
		n := UnsignedLen(v)
		if BigEndian(AppendBigEndian(nil, v, n)) != v || (n > 1 && v>>(8*uint(n-1)) == 0) {
			t.Errorf("UnsignedLen(%#x) = %d is wrong or not minimal", v, n)
		}
	}
	var b8 [8]byte
	binary.BigEndian.PutUint64(b8[:], 0x0102030405060708)
	if BigEndian(b8[:]) != 0x0102030405060708 || LittleEndian(b8[:]) != 0x0807060504030201 {
		t.Errorf("8-byte integers disagree with encoding/binary")
	}
}

func TestNoAllocs(t *testing.T) {
	l := Must(32, LSBFirst, 1, 3, 28)
	f := l.Field(2)
	if n := testing.AllocsPerRun(100, func() {
		w, _ := f.Set(0, 5)
		sink = f.Get(w)
		sink, _ = l.Pack(0, 1, 2)
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func FuzzField(f *testing.F) {
	f.Add(uint64(0), uint64(5), uint8(32), false, uint8(3), uint8(7), uint8(9))
	f.Add(uint64(math.MaxUint64), uint64(1<<30), uint8(64), true, uint8(20), uint8(30), uint8(14))
	f.Fuzz(func(t *testing.T, w, v uint64, bits uint8, msb bool, w0, w1, w2 uint8) {
		order := LSBFirst
		if msb {
			order = MSBFirst
		}
		l, err := New(int(bits), order, int(w0), int(w1), int(w2))
		if err != nil {
			return
		}
		w &= math.MaxUint64 >> (64 - uint(bits))
		for i := 0; i < l.Len(); i++ {
			fi := l.Field(i)
			nw, ok := fi.Set(w, v)
			if ok != (v <= fi.Max()) {
				t.Fatalf("field %d width %d: Set(%#x) ok = %v", i, fi.Width(), v, ok)
			}
			if !ok {
				if nw != w {
					t.Fatalf("refused Set changed the word")
				}
				continue
			}
			if fi.Get(nw) != v {
				t.Fatalf("field %d: Get after Set(%#x) = %#x", i, v, fi.Get(nw))
			}
			for j := 0; j < l.Len(); j++ {
				if j != i && l.Field(j).Get(nw) != l.Field(j).Get(w) {
					t.Fatalf("Set of field %d changed field %d", i, j)
				}
			}
			outside := ^(fi.Max() << uint(fi.Shift()))
			if nw&outside != w&outside {
				t.Fatalf("Set of field %d touched bits outside it: %#x -> %#x", i, w, nw)
			}
		}
	})
}

var sink uint64

// Zero Layouts and Fields are valid: empty, and a field of no bits.
func TestZeroValues(t *testing.T) {
	testutil.CheckZeroValue(t, new(Layout))
	testutil.CheckZeroValue(t, new(Field))
	var o Order
	testutil.CheckZeroValue(t, &o)
}

// FieldAt makes the fields a layout makes, and refuses what does not fit.
func TestFieldAt(t *testing.T) {
	l := Must(64, LSBFirst, 1, 3, 28, 32)
	for i, sw := range [][2]int{{0, 1}, {1, 3}, {4, 28}, {32, 32}} {
		if got, want := FieldAt(sw[0], sw[1]), l.Field(i); got != want {
			t.Errorf("FieldAt(%d, %d) = %+v, want %+v", sw[0], sw[1], got, want)
		}
	}
	if got, want := FieldAt(0, 64), Must(64, LSBFirst, 64).Field(0); got != want {
		t.Errorf("full word: %+v, want %+v", got, want)
	}
	for _, sw := range [][2]int{{-1, 1}, {0, 0}, {60, 5}, {0, 65}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("FieldAt(%d, %d) did not panic", sw[0], sw[1])
				}
			}()
			FieldAt(sw[0], sw[1])
		}()
	}
}
