package apitrace

import (
	"math"
	"strconv"
	"testing"
)

func TestAppendDumpFloat(t *testing.T) {
	for _, tc := range []struct {
		f    float32
		want string
	}{
		// Values and their text from tri.trace's dump.
		{0.3, "0.3"}, {-0.9, "-0.9"}, {1000, "1000"}, {-0.5, "-0.5"}, {0, "0"},
		{float32(math.Copysign(0, -1)), "-0"},
		{1e10, "1e+10"}, {1.5e-7, "1.5e-07"}, {123456789, "1.234568e+08"},
		{float32(math.NaN()), "nan"}, {-float32(math.NaN()), "-nan"},
		{float32(math.Inf(1)), "inf"}, {float32(math.Inf(-1)), "-inf"},
	} {
		if got := string(appendDumpFloat(nil, tc.f)); got != tc.want {
			t.Errorf("float %v: got %q, want %q", tc.f, got, tc.want)
		}
	}
	for _, tc := range []struct {
		d    float64
		want string
	}{
		{1, "1"}, {0.1, "0.1"}, {1.0 / 3, "0.3333333333333333"}, {1e100, "1e+100"},
		{math.NaN(), "nan"}, {math.Copysign(math.NaN(), -1), "-nan"}, {math.Inf(-1), "-inf"},
	} {
		if got := string(appendDumpDouble(nil, tc.d)); got != tc.want {
			t.Errorf("double %v: got %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestAppendDumpFloatFastPath checks the whole-number shortcut against the
// general %.7g path on every whole float from -2e7 to 2e7 in steps of 7, and
// around the cut-over.
func TestAppendDumpFloatFastPath(t *testing.T) {
	check := func(f float32) {
		if got, want := string(appendDumpFloat(nil, f)), string(appendDumpG(nil, float64(f), 7)); got != want {
			t.Fatalf("%v: %q, want %q", f, got, want)
		}
	}
	for i := -20_000_000; i <= 20_000_000; i += 7 {
		check(float32(i))
	}
	for _, f := range []float32{9_999_999, 10_000_000, -9_999_999, -10_000_000, 0.5, -0.5, 1e-30, 2147483647, -2147483648, 4e9} {
		check(f)
	}
}

// TestAppendDumpFloatFixed checks the integer %.7g of fractional floats
// against strconv's on a sample of every binary exponent it takes (and
// those around), ties included.
func TestAppendDumpFloatFixed(t *testing.T) {
	fixed := 0
	check := func(f float32) {
		t.Helper()
		want := string(appendDumpG(nil, float64(f), 7))
		got, ok := appendDumpFloatFixed(nil, f)
		if ok {
			fixed++
		}
		if ok && string(got) != want {
			t.Fatalf("%v (%#x): %q, want %q", f, math.Float32bits(f), got, want)
		}
		if !ok && len(got) > 0 {
			t.Fatalf("%v: %q appended without ok", f, got)
		}
	}
	for e := uint32(100); e < 160; e++ {
		for m := uint32(0); m < 1<<23; m += 4093 {
			b := e<<23 | m
			check(math.Float32frombits(b))
			check(math.Float32frombits(b | 1<<31))
			check(math.Float32frombits(b + 1))
			check(math.Float32frombits(b + 4092))
		}
	}
	for _, f := range []float32{
		// ties at the seventh digit, to even both ways
		1234567.5, 1234568.5, -1234567.5, 0.5, 0.25, 0.125, 1.5, 2.5, 9999999.5, 999999.94, 999999.96,
		// carries into one more digit, and the edges of the fixed notation
		9.9999999, 0.99999997, 0.0001, 0.00009999999, 0.000099999997, 1e-4, 9.999999e-5, 1e6 + 0.5, 8388607.5,
		3.1, -3.1, 4.2, -16.98643, 4.028213, 1.0 / 3,
	} {
		check(f)
	}
	// Exponents 114 to 149 of the 60 take the integer path (from 2^-13,
	// whose decimal exponent is -4, to 2^23, the first with no fraction).
	if min := 36 * 2049 * 4; fixed < min {
		t.Errorf("%d floats took the integer path, want at least %d", fixed, min)
	}
}

func TestAppendDumpQuoted(t *testing.T) {
	for _, tc := range []struct {
		in   string
		nl   string
		want string
	}{
		{"SGI", dumpNewline, `"SGI"`},
		{"a\x00b", dumpNewline, `"a"`},
		{"q\"b\\", dumpNewline, `"q\"b\\"`},
		{"t\tc\rn\n", dumpNewline, "\"t\tcn\n\""},
		{"t\tc\rn\n", dumpNewlineFlat, "\"t\tcn\\n\""},
		{"a\nb", dumpNewlineColor, "\"a\x1b[0m\n\x1b[34mb\""},
		{"\x01\x08\x1b\x7f\x80\xff", dumpNewline, `"\1\110\333\777\0\777"`},
		{"é", dumpNewline, `"\3\551"`},
		{"", dumpNewline, `""`},
	} {
		if got := string(appendDumpQuoted(nil, []byte(tc.in), tc.nl)); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
	var units []Value
	for _, u := range []uint64{'h', 0xe9, 0x1_0000_0041, '\n', 0x1_0000_0000, 'x'} {
		units = append(units, Uint(u))
	}
	if got, want := string(appendDumpWide(nil, units, dumpNewlineFlat)), `"h\551A\n"`; got != want {
		t.Errorf("wide: got %q, want %q", got, want)
	}
}

func TestAppendDumpBitmask(t *testing.T) {
	flags := []BitmaskFlag{{"ZERO", 0}, {"A", 1}, {"B", 2}, {"AB", 3}, {"C", 8}}
	for _, tc := range []struct {
		v     uint64
		flags []BitmaskFlag
		want  string
	}{
		{0, flags, "ZERO"},
		{0, nil, "0x0"},
		{1, flags, "A"},
		{3, flags, "A | B"},
		{0x41, flags, "A | 0x40"},
		{0x40, flags, "0x40"},
		{8, flags, "C"},
		// A zero flag after the first is never printed.
		{0, []BitmaskFlag{{"A", 1}, {"Z", 0}}, "0x0"},
	} {
		if got := string(appendDumpBitmask(nil, tc.v, tc.flags, "", "")); got != tc.want {
			t.Errorf("%#x: got %q, want %q", tc.v, got, tc.want)
		}
	}
	if got, want := string(appendDumpBitmask(nil, 0x41, flags, "<", ">")), "<A> | <0x40>"; got != want {
		t.Errorf("colour: got %q, want %q", got, want)
	}
}

func TestAppendDumpFrame(t *testing.T) {
	for _, tc := range []struct {
		f    Frame
		want string
	}{
		{Frame{Has: HasModule | HasLine | HasOffset, Module: "glxinfo", Offset: 0x4449}, "glxinfo+0x4449"},
		{Frame{Has: HasModule | HasFunction | HasFile | HasLine | HasOffset, Module: "/lib/x86_64-linux-gnu/libc.so.6",
			Function: "__libc_start_main_impl", File: "../csu/libc-start.c", Line: 360, Offset: 0x84},
			"/lib/x86_64-linux-gnu/libc.so.6: __libc_start_main_impl+0x84: ../csu/libc-start.c:360"},
		{Frame{Has: HasLine}, "?"},
		{Frame{}, "?"},
		{Frame{Has: HasFile | HasLine | HasOffset, File: "f.c", Line: 1 << 31, Offset: 1 << 63}, "?: f.c"},
	} {
		if got := string(appendDumpFrame(nil, &tc.f)); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestAppendDumpGUID(t *testing.T) {
	// The unknown GUID of apitrace's own guids_test.cpp.
	got := string(appendDumpGUID(nil, [16]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF}))
	if want := "uuid(01234567-89ab-cdef-0123-456789abcdef)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAppendCallNo checks the call numbers counted up in place against
// strconv, across carries, jumps back and forth, and the wrap of uint32.
func TestAppendCallNo(t *testing.T) {
	var d Dumper
	check := func(n uint32) {
		t.Helper()
		if got, want := string(d.appendCallNo(nil, n)), strconv.FormatUint(uint64(n), 10); got != want {
			t.Fatalf("%d: got %q", n, got)
		}
	}
	for n := uint32(0); n < 100_100; n++ {
		check(n)
	}
	for _, n := range []uint32{7, 8, 999_999_998, 999_999_999, 1_000_000_000, 1_000_000_001, 5, 99, 100, 101,
		math.MaxUint32 - 1, math.MaxUint32, 0, 1, 0, 0, 9, 10} {
		check(n)
	}
}
