package cbf

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// vectors.md C.1: the stored Swift encoder's 7-bit counts, and the doc's
// minimal forms, which decode too.
func TestCounts(t *testing.T) {
	for _, c := range []struct {
		v              uint64
		swift, minimal string
	}{
		{0, "00", "00"}, {1, "01", "01"}, {63, "3f", "3f"}, {64, "8040", "40"}, {127, "807f", "7f"},
		{128, "8100", "8100"}, {129, "8101", "8101"}, {700, "853c", "853c"}, {1234, "8952", "8952"},
		{16383, "80ff7f", "ff7f"}, {16384, "818000", "818000"}, {65535, "83ff7f", "83ff7f"},
		{2097152, "81808000", "81808000"},
	} {
		if got := hex.EncodeToString(appendCount(nil, c.v)); got != c.swift {
			t.Errorf("appendCount(%d) = %s, Swift writes %s", c.v, got, c.swift)
		}
		for _, form := range []string{c.swift, c.minimal} {
			b := unhex(t, form)
			z := imageDecoder{b: b}
			v, err := z.count()
			if err != nil || v != c.v || z.pos != len(b) {
				t.Errorf("count(%s) = %d, %v after %d bytes; want %d", form, v, err, z.pos, c.v)
			}
		}
	}
}

// vectors.md C.4: the doc's paths, as the stored Swift encoder writes
// them in this order (108 bytes; the doc's form takes 122).
func TestDocPaths(t *testing.T) {
	paths := []struct{ path, hex string }{
		{"/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit", "84 45 43 41 70 70 4b 69 74"},
		{"/System/Library/Frameworks/Photos.framework/Versions/A/Photos", "84 45 41 50 68 6f 74 6f 73"},
		{"/usr/lib/libobjc.A.dylib", "81 80 0c" + hexOf("objc.A.dylib") + "00"},
		{"/usr/lib/libz.1.dylib", "81 80 09" + hexOf("z.1.dylib") + "00"},
		{"/usr/lib/swift/libswiftCore.dylib", "81 19" + hexOf("/swift/libswiftCore.dylib") + "00"},
		{"/usr/lib/libSystem.B.dylib", "81 80 0e" + hexOf("System.B.dylib") + "00"},
		{"/usr/lib/libc++.1.dylib", "81 80 0b" + hexOf("c++.1.dylib") + "00"},
	}
	var pe pathEncoder
	total := 0
	m := ImageMap{Platform: "macosx", Word: Word64}
	for i, p := range paths {
		got := pe.append(nil, p.path, Image{Path: p.path}.Name())
		testutil.Diff(t, p.path, strings.ReplaceAll(p.hex, " ", ""), hex.EncodeToString(got))
		total += len(got)
		base := uint64(0x100000 * (i + 1))
		m.Images = append(m.Images, Image{Base: base, EndOfText: base + 0x1000, Path: p.path})
	}
	if total != 108 {
		t.Errorf("%d path bytes, want 108", total)
	}
	// The whole map decodes back, and so does the doc's form of the
	// paths, which ends framework paths with 00 inside str-free paths.
	data, err := AppendImageMap(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeImageMap(data)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "round trip", m, got)
	doc := unhex(t, "02 00 01 00 00 10 00"+"81 10"+hexOf("/libobjc.A.dylib")+"00")
	dm, err := DecodeImageMap(doc)
	if err != nil || dm.Images[0].Path != "/usr/lib/libobjc.A.dylib" {
		t.Errorf("doc form: %+v, %v", dm, err)
	}
}

func hexOf(s string) string { return " " + hex.EncodeToString([]byte(s)) + " " }

// Builders after Swift's test/Backtracing/CompactImageMapFormat.swift.
func cif(platform string, count int, images ...string) string {
	s := "02 " + hex.EncodeToString(append([]byte{byte(len(platform))}, platform...)) + " " + hex.EncodeToString(appendCount(nil, uint64(count)))
	for _, im := range images {
		s += " " + im
	}
	return s
}

func str(s string) string { return hex.EncodeToString(append([]byte{byte(len(s))}, s...)) }

// image: header (relative flag, 2-byte base, 2-byte end offset), no build ID.
func image2(rel bool, base, end uint16, path string) string {
	h := "09"
	if rel {
		h = "89"
	}
	return h + hex.EncodeToString([]byte{byte(base >> 8), byte(base), byte(end >> 8), byte(end)}) + " 00 " + path
}

func TestSwiftImageMapCases(t *testing.T) {
	letters := ""
	for c := 'A'; c <= 'Z'; c++ {
		letters += "/" + string(c)
	}
	for c := 'a'; c < 'a'+14; c++ {
		letters += "/" + string(c)
	}
	long := []byte(letters)
	for _, c := range []struct {
		name   string
		hex    string
		swift  bool   // Swift decodes it (and so does the default mode)
		strict error  // our strict error, nil when it decodes too
		check  string // "index:path" or "index:base=…"
	}{
		{"basic", "02" + hexOf("\x06macosx") + "01 39 0000555500001000 2000 04 deadbeef " + str("/usr/lib/libfoo.dylib") + " 00",
			true, nil, "0:/usr/lib/libfoo.dylib"},
		{"no path", cif("test", 1, image2(false, 0x1000, 0x100, "00")), true, nil, "0:"},
		{"fixed prefix", cif("test", 1, image2(false, 0x1000, 0x100, "80 "+str("/libbar.so")+" 00")), true, nil, "0:/lib/libbar.so"},
		{"dynamic prefix", cif("test", 2, image2(false, 0x1000, 0x100, str("/swift/linux/x86_64/libfoo.so")+" 00"),
			image2(true, 0x100, 0x100, "a1 "+str("/libbar.so")+" 00")), true, nil, "1:/swift/linux/libbar.so"},
		{"framework", cif("test", 1, image2(false, 0x1000, 0x100, "84 45 43 "+hex.EncodeToString([]byte("AppKit")))),
			true, nil, "0:/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit"},
		{"shallow framework", cif("test", 1, image2(false, 0x1000, 0x100, "84 48 01 "+hex.EncodeToString([]byte("IOSurface")))),
			true, nil, "0:/System/Library/Frameworks/IOSurface.framework/IOSurface"},
		{"extended expand", cif("test", 2, image2(false, 0x1000, 0x100, str(string(long[:63]))+" "+str(string(long[63:]))+" 00"),
			image2(true, 0x100, 0x100, "c0 00 "+str("/extra.so")+" 00")), true, nil, "1:/A/B/C/D/E/F/G/H/I/J/K/L/M/N/O/P/Q/R/S/T/U/V/W/X/Y/Z/a/b/c/d/e/f/g/extra.so"},
		{"empty", "", false, io.ErrUnexpectedEOF, ""},
		{"version 1", "06", false, ErrVersion, ""},
		{"reserved size", "03", false, ErrWordSize, ""},
		{"after info byte", "02", false, io.ErrUnexpectedEOF, ""},
		{"platform truncated", "02 05 41 42", false, io.ErrUnexpectedEOF, ""},
		{"platform utf8", "02 01 ff 00", false, ErrUTF8, ""},
		{"count over max", cif("test", 1048577), false, ErrTooLarge, ""},
		{"count overflow", "02 04 74657374 ff ff ff ff ff ff ff ff ff 7f", false, ErrOverflow, ""},
		{"zero images", cif("test", 0), true, nil, ""},
		{"build ID over max", cif("test", 1, "00 10 10 "+hex.EncodeToString(appendCount(nil, 1025))), false, ErrTooLarge, ""},
		{"build ID overflow", cif("test", 1, "00 10 10 ff ff ff ff ff ff ff ff ff 7f"), false, ErrOverflow, ""},
		{"zero end of text", cif("test", 1, "08 10 00 00 00 00"), false, ErrRange, ""},
		{"negative end of text", cif("test", 1, "08 10 00 ff 00 00"), false, ErrRange, ""},
		{"count beyond data", cif("test", 5), false, io.ErrUnexpectedEOF, ""},
		{"path str truncated", cif("test", 1, image2(false, 0x1000, 0x100, "0a 41 42")), true, io.ErrUnexpectedEOF, "0:"},
		{"framework truncated", cif("test", 1, image2(false, 0x1000, 0x100, "53 41 78")), true, io.ErrUnexpectedEOF, "0:"},
		{"str overruns", cif("test", 2, image2(false, 0x1000, 0x100, "14 41 42 43"), image2(false, 0x9999, 0x10, str("/Z")+" 00")),
			false, io.ErrUnexpectedEOF, ""},
		{"path utf8", cif("test", 1, image2(false, 0x1000, 0x100, "01 ff 00")), true, ErrUTF8, "0:"},
		{"reserved code", cif("test", 1, image2(false, 0x1000, 0x100, "94 00")), true, ErrPath, "0:"},
		{"undefined code", cif("test", 1, image2(false, 0x1000, 0x100, "a8 00")), true, ErrPath, "0:"},
		{"code overflow", cif("test", 1, image2(false, 0x1000, 0x100, "c7 7f ff ff ff ff ff ff c0")), true, ErrPath, "0:"},
		{"extended code truncated", cif("test", 1, image2(false, 0x1000, 0x100, "c3 00 00")), true, io.ErrUnexpectedEOF, "0:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := unhex(t, c.hex)
			lm, _, lerr := ImageMapDecoder{}.Decode(data)
			if (lerr == nil) != c.swift {
				t.Errorf("default mode: %v, Swift decodes it: %v", lerr, c.swift)
			}
			sm, _, serr := ImageMapDecoder{Strict: true}.Decode(data)
			if !errors.Is(serr, c.strict) || (c.strict == nil) != (serr == nil) {
				t.Errorf("strict: %v, want %v", serr, c.strict)
			}
			if c.check != "" {
				i, want, _ := strings.Cut(c.check, ":")
				m := lm
				if serr == nil {
					m = sm
				}
				idx := int(i[0] - '0')
				if idx >= len(m.Images) {
					t.Fatalf("%d images", len(m.Images))
				}
				testutil.Diff(t, "path", want, m.Images[idx].Path)
			}
			if c.swift && lerr == nil {
				// What decodes re-encodes to something that decodes the same.
				again, err := AppendImageMap(nil, lm)
				if err != nil {
					t.Fatal(err)
				}
				m2, err := DecodeImageMap(again)
				if err != nil {
					t.Fatal(err)
				}
				testutil.Diff(t, "re-decoded", lm, m2)
			}
		})
	}
}

func TestImageMapSwiftBytes(t *testing.T) {
	// Base tie goes absolute; relative when strictly shorter; sign
	// extension for 32-bit maps; build IDs; end offsets.
	m := ImageMap{Platform: "linux", Word: Word32, Images: []Image{
		{Base: 0x1000, EndOfText: 0x1800, BuildID: []byte{1, 2, 3}, Path: "/usr/lib/a.so"},
		{Base: 0x1100, EndOfText: 0x1200, Path: "/usr/lib/b.so"},
		{Base: 0x7fff0000, EndOfText: 0x80010000, Path: "/opt/lib/x/y"},
		{Base: 0xffff0000, EndOfText: 0xffff1000},
	}}
	got, err := AppendImageMap(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	want := "01 05" + hexOf("linux") + "04" +
		// 0x1000 abs (2 bytes, delta also 2: tie → absolute), end +0x800
		"09 1000 0800 03 010203 81 " + str("/a.so") + "00" +
		// delta 0x100 (2 bytes) vs 0x1100 (2): absolute
		"09 1100 0100 00 81 " + str("/b.so") + "00" +
		// 0x7fff0000 (4 bytes) vs delta 0x7ffeef00 (4): absolute; end offset
		// of sign-extended values 0xffffffff80010000-0x7fff0000 takes 5 bytes
		"1c 7fff0000 ff00020000 00 83 " + str("/x/y") + "00" +
		// 0xffff0000 sign-extends to -0x10000 (3 bytes) vs delta
		// -0x7fff0000-0x10000 (5): absolute
		"11 ff0000 1000 00 00"
	testutil.Diff(t, "bytes", strings.ReplaceAll(want, " ", ""), hex.EncodeToString(got))
	back, err := DecodeImageMap(got)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "decoded", m, back)
	for _, c := range []struct {
		addr uint64
		want int
	}{{0xfff, -1}, {0x1000, 0}, {0x10ff, 0}, {0x1100, 1}, {0x11ff, 1}, {0x1200, -1}, {0x80000000, 2}, {0xffff0fff, 3}, {0xffff1000, -1}} {
		if i, _ := back.Lookup(c.addr); i != c.want {
			t.Errorf("Lookup(%#x) = %d, want %d", c.addr, i, c.want)
		}
	}
	for _, bad := range []struct {
		m   ImageMap
		err error
	}{
		{ImageMap{Word: 8}, ErrWordSize},
		{ImageMap{Word: Word64, Platform: strings.Repeat("x", 256)}, errLong},
		{ImageMap{Word: Word64, Images: make([]Image, DefaultMaxImages+1)}, errLong},
		{ImageMap{Word: Word64, Images: []Image{{Base: 5, EndOfText: 6, BuildID: make([]byte, DefaultMaxBuildID+1)}}}, errLong},
		{ImageMap{Word: Word64, Images: []Image{{Base: 5, EndOfText: 6, Path: "/" + strings.Repeat("x", DefaultMaxPath)}}}, errLong},
		{ImageMap{Word: Word16, Images: []Image{{Base: 0x10000, EndOfText: 0x10001}}}, errAddr},
		{ImageMap{Word: Word64, Images: []Image{{Base: 5, EndOfText: 5}}}, ErrRange},
		{ImageMap{Word: Word64, Images: []Image{{Base: 5, EndOfText: 6, Path: "\xff"}}}, ErrUTF8},
	} {
		if _, err := AppendImageMap(nil, bad.m); !errors.Is(err, ErrInvalid) || !errors.Is(err, bad.err) {
			t.Errorf("%.60v: %v, want ErrInvalid and %v", bad.m, err, bad.err)
		}
	}
	// At the limits it writes what decodes back.
	at := ImageMap{Word: Word64, Images: []Image{{Base: 5, EndOfText: 6, BuildID: make([]byte, DefaultMaxBuildID), Path: "/" + strings.Repeat("x", DefaultMaxPath-1)}}}
	enc, err := AppendImageMap(nil, at)
	if err != nil {
		t.Fatal(err)
	}
	if back, _, err := (ImageMapDecoder{Strict: true}).Decode(enc); err != nil || back.Images[0].Path != at.Images[0].Path {
		t.Errorf("at the limits: %v", err)
	}
	_ = bytes.Equal
}

func TestImageMapEdges(t *testing.T) {
	// A prefix defined earlier in the same path (Swift defines it at once).
	data := unhex(t, cif("t", 1, image2(false, 0x1000, 0x100, str("/ab/c")+" a0 00")))
	m, err := DecodeImageMap(data)
	if err != nil || m.Images[0].Path != "/ab/c/ab" {
		t.Errorf("in-path prefix: %+v %v", m, err)
	}
	// Expansion is bounded by MaxPath: when Strict an error, by default no path.
	imgs := []string{"", image2(true, 0x100, 0x100, strings.Repeat("a0 ", 80)+"00")}
	// "/xxx…/y" defines the 61-byte prefix 32; 80 expansions of it pass
	// MaxPath.
	imgs[0] = image2(false, 0x1000, 0x100, str("/"+strings.Repeat("x", 60)+"/y")+" 00")
	data = unhex(t, cif("t", 2, imgs...))
	if _, _, err := (ImageMapDecoder{MaxPath: 1000, Strict: true}).Decode(data); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxPath: %v", err)
	}
	lm, _, err := ImageMapDecoder{MaxPath: 1000}.Decode(data)
	if err != nil || lm.Images[1].Path != "" || lm.Images[0].Path == "" {
		t.Errorf("default-mode MaxPath: %+v %v", lm, err)
	}
	m.Images = nil
	if _, ok := m.Lookup(5); ok {
		t.Error("Lookup in an empty map")
	}
	if (Image{Path: `C:\Windows\System32\kernel32.dll`}).Name() != "kernel32.dll" || (Image{Path: "plain"}).Name() != "plain" {
		t.Error("Name")
	}
	// Windows paths: the fixed prefix, then backslashes define prefixes.
	w := ImageMap{Platform: "windows", Word: Word64, Images: []Image{
		{Base: 0x10000, EndOfText: 0x20000, Path: `C:\Windows\System32\drivers\a.sys`},
		{Base: 0x30000, EndOfText: 0x40000, Path: `C:\Windows\System32\drivers\b.sys`},
	}}
	enc, err := AppendImageMap(nil, w)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(enc, unhex(t, "8a a0 06"+hexOf(`\b.sys`)+"00")) {
		t.Errorf("second path not through prefix 32: % x", enc)
	}
	back, err := DecodeImageMap(enc)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "windows", w, back)
	// Prefix codes from 64 on use the extended form, with all their bytes:
	// 400 directories define codes 32-431, then /p350 is code 382, 318
	// after 64, two bytes (Swift's encoder would write one, c0 3e).
	var many ImageMap
	many.Word = Word64
	for i := range 401 {
		p := fmt.Sprintf("/p%03d/f", i)
		if i == 400 {
			p = "/p350/g"
		}
		many.Images = append(many.Images, Image{Base: uint64(i+1) << 16, EndOfText: uint64(i+1)<<16 + 1, Path: p})
	}
	enc, err = AppendImageMap(nil, many)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(enc, unhex(t, "c1 01 3e 02 2f 67 00")) {
		t.Errorf("code 382: % x", enc[len(enc)-8:])
	}
	back, err = DecodeImageMap(enc)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "many prefixes", many, back)
}

// Shallow (iOS-style) framework paths, written as Swift's encoder writes
// them since swiftlang/swift#92334: the longest known prefix, then the
// framework instruction 40|(len(name)-1), the version byte 1 and the name,
// with no closing 00 and no new prefix; with NoShallowFrameworks, as
// before #92334: 63-byte strings that define a prefix at each slash. As
// for macOS's form, only what follows a known prefix can be a framework.
func TestShallowFrameworks(t *testing.T) {
	app := "/private/var/containers/Bundle/Application/X/My.app/Frameworks"
	paths := []struct{ path, newest, old string }{
		{"/System/Library/Frameworks/UIKit.framework/UIKit",
			"84 44 01" + hexOf("UIKit"),
			"84 16" + hexOf("/UIKit.framework/UIKit") + "00"},
		// The prefix the old form defined above (code 32) is used.
		{"/System/Library/Frameworks/UIKit.framework/UIKitCore",
			"84 1a" + hexOf("/UIKit.framework/UIKitCore") + "00",
			"84 a0 0a" + hexOf("/UIKitCore") + "00"},
		{"/System/Library/PrivateFrameworks/IOSurface.framework/IOSurface",
			"85 48 01" + hexOf("IOSurface"),
			"85 1e" + hexOf("/IOSurface.framework/IOSurface") + "00"},
		// An app's frameworks: the first defines the prefixes (in the
		// newest form 33 to 41, the app's Frameworks folder being 40; in
		// the old form, after /IOSurface.framework, 34 to 42 and 41), so
		// the second is a framework.
		{app + "/Kit.framework/Kit",
			"3f" + hexOf(app+"/") + "11" + hexOf("Kit.framework/Kit") + "00",
			"3f" + hexOf(app+"/") + "11" + hexOf("Kit.framework/Kit") + "00"},
		{app + "/Other.framework/Other",
			"a8 44 01" + hexOf("Other"),
			"a9 16" + hexOf("/Other.framework/Other") + "00"},
		// macOS's form is unchanged.
		{"/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit",
			"84 45 43" + hexOf("AppKit"),
			"84 45 43" + hexOf("AppKit")},
		// Not frameworks: another name inside, nothing after the bundle.
		{"/Library/Frameworks/A.framework/B",
			"87 0e" + hexOf("/A.framework/B") + "00",
			"87 0e" + hexOf("/A.framework/B") + "00"},
		{"/Library/Frameworks/Kit.framework/",
			"87 0f" + hexOf("/Kit.framework/") + "00",
			"87 0f" + hexOf("/Kit.framework/") + "00"},
	}
	for _, e := range []ImageMapEncoder{{}, {NoShallowFrameworks: true}} {
		pe := pathEncoder{shallow: !e.NoShallowFrameworks}
		m := ImageMap{Platform: "ios", Word: Word64}
		var all []byte
		for i, p := range paths {
			want := p.newest
			if e.NoShallowFrameworks {
				want = p.old
			}
			got := pe.append(nil, p.path, Image{Path: p.path}.Name())
			testutil.Diff(t, fmt.Sprintf("%+v %s", e, p.path), strings.ReplaceAll(want, " ", ""), hex.EncodeToString(got))
			all = append(all, got...)
			base := uint64(0x100000 * (i + 1))
			m.Images = append(m.Images, Image{Base: base, EndOfText: base + 0x1000, Path: p.path})
		}
		// The whole map is the header, then per image its 7 bytes of
		// addresses and build ID count and its path, and reads back.
		data, err := e.Append(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		if n := 1 + 1 + len("ios") + 1 + 7*len(paths) + len(all); len(data) != n {
			t.Errorf("%+v: map of %d bytes, want %d", e, len(data), n)
		}
		back, _, err := ImageMapDecoder{Strict: true}.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		testutil.Diff(t, fmt.Sprintf("%+v round trip", e), m, back)
	}
}
