package apitrace

import (
	"math"
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

func TestAppendDumpQuoted(t *testing.T) {
	for _, tc := range []struct {
		in        string
		multiline bool
		want      string
	}{
		{"SGI", true, `"SGI"`},
		{"a\x00b", true, `"a"`},
		{"q\"b\\", true, `"q\"b\\"`},
		{"t\tc\rn\n", true, "\"t\tcn\n\""},
		{"t\tc\rn\n", false, "\"t\tcn\\n\""},
		{"\x01\x08\x1b\x7f\x80\xff", true, `"\1\110\333\777\0\777"`},
		{"é", true, `"\3\551"`},
		{"", true, `""`},
	} {
		if got := string(appendDumpQuoted(nil, []byte(tc.in), tc.multiline)); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := string(appendDumpWide(nil, []uint64{'h', 0xe9, 0x1_0000_0041, '\n', 0x1_0000_0000, 'x'}, false)), `L"h\551A\n"`; got != want {
		t.Errorf("wide: got %q, want %q", got, want)
	}
}

func TestAppendDumpBitmask(t *testing.T) {
	flags := []struct {
		name  string
		value uint64
	}{{"ZERO", 0}, {"A", 1}, {"B", 2}, {"AB", 3}, {"C", 8}}
	flag := func(i int) ([]byte, uint64) { return []byte(flags[i].name), flags[i].value }
	for _, tc := range []struct {
		v    uint64
		n    int
		want string
	}{
		{0, 5, "ZERO"},
		{0, 0, "0x0"},
		{1, 5, "A"},
		{3, 5, "A | B"},
		{0x41, 5, "A | 0x40"},
		{0x40, 5, "0x40"},
		{8, 5, "C"},
	} {
		if got := string(appendDumpBitmask(nil, tc.v, tc.n, flag)); got != tc.want {
			t.Errorf("%#x: got %q, want %q", tc.v, got, tc.want)
		}
	}
	// A zero flag after the first is never printed.
	late := func(i int) ([]byte, uint64) { return [][]byte{[]byte("A"), []byte("Z")}[i], []uint64{1, 0}[i] }
	if got := string(appendDumpBitmask(nil, 0, 2, late)); got != "0x0" {
		t.Errorf("late zero flag: got %q", got)
	}
}

func TestAppendDumpFrame(t *testing.T) {
	libc := []byte("/lib/x86_64-linux-gnu/libc.so.6")
	for _, tc := range []struct {
		got, want string
	}{
		{string(appendDumpFrame(nil, []byte("glxinfo"), nil, nil, true, false, false, 0, true, 0x4449, true)), "glxinfo+0x4449"},
		{string(appendDumpFrame(nil, libc, []byte("__libc_start_main_impl"), []byte("../csu/libc-start.c"), true, true, true, 360, true, 0x84, true)),
			"/lib/x86_64-linux-gnu/libc.so.6: __libc_start_main_impl+0x84: ../csu/libc-start.c:360"},
		{string(appendDumpFrame(nil, nil, nil, nil, false, false, false, 0, true, 0, false)), "?"},
		{string(appendDumpFrame(nil, nil, nil, []byte("f.c"), false, false, true, 1<<31, true, 1<<63, true)), "?: f.c"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestAppendDumpGUID(t *testing.T) {
	// The unknown GUID of apitrace's own guids_test.cpp.
	got := string(appendDumpGUID(nil, 0x01234567, 0x89AB, 0xCDEF, [8]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF}))
	if want := "uuid(01234567-89ab-cdef-0123-456789abcdef)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
