package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/cbf"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

func runCmd(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// Vectors E13, E19 and E20 of ../shared/fixtures/cbf/vectors.md, then a
// 32-bit record (D18).
const streamHex = "02 22 40 13 79 21 fe ce 00 02 21 10 00 88 09 00 02 10 10 01 01 18 10 00"

const streamText = `ra 0x401379
ra 0x401247
end

ra 0x1000
rep 9
end

pc 0x10
trunc

word 32
pc 0x10
end
`

func TestDump(t *testing.T) {
	out, errs, code := runCmd(t, streamHex, "-hex", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	testutil.DiffText(t, "dump", []byte(streamText), []byte(out))

	// From a binary file, repeats expanded.
	dir := t.TempDir()
	bin := filepath.Join(dir, "x.cbf")
	enc, _, code := runCmd(t, streamText, "-encode")
	if code != 0 {
		t.Fatal("encode failed")
	}
	if err := os.WriteFile(bin, []byte(enc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ = runCmd(t, "", "-expand", bin)
	if n := strings.Count(out, "ra 0x1000\n"); n != 10 {
		t.Errorf("-expand: %d copies of ra 0x1000", n)
	}
	// Damage: by default Swift's frames (the record ends with trunc), then
	// the error with its offset; -strict gives the error without trunc;
	// the old -lenient is the default.
	for _, c := range []struct {
		hex   string
		flags []string
		out   string
		err   string
	}{
		{"02 10 10 02 10", nil, "pc 0x10\ntrunc\n", "offset 3: reserved instruction"},
		{"02 10 10 02 10", []string{"-strict"}, "pc 0x10\n", "offset 3: reserved instruction"},
		{"02 10 10 02 10", []string{"-lenient"}, "pc 0x10\ntrunc\n", "offset 3: reserved instruction"},
		{"02 10 10", nil, "pc 0x10\ntrunc\n", "offset 3: unexpected EOF"},
		{"02 10 10", []string{"-lenient"}, "pc 0x10\ntrunc\n", "offset 3: unexpected EOF"},
		{"02 10 10", []string{"-strict"}, "pc 0x10\n", "offset 3: unexpected EOF"},
	} {
		out, errs, code := runCmd(t, c.hex, append([]string{"-hex"}, c.flags...)...)
		want := "cbfdump: standard input: cbf: " + c.err + "\n"
		if code != 1 || out != c.out || errs != want {
			t.Errorf("%s %v: exit %d, out %q, stderr %q; want 1, %q, %q", c.hex, c.flags, code, out, errs, c.out, want)
		}
	}
}

// The command line behaves as every example's does.
func TestCommandLine(t *testing.T) {
	_, errs, code := runCmd(t, "", "-h")
	if code != 0 || !strings.HasPrefix(errs, usage+"\n") || !strings.Contains(errs, "-strict") {
		t.Errorf("-h: exit %d, stderr %q", code, errs)
	}
	for _, args := range [][]string{{"-bogus"}, {"-word", "24"}, {"a", "b"}} {
		_, errs, code := runCmd(t, "", args...)
		first, rest, _ := strings.Cut(errs, "\n")
		if code != 2 || !strings.HasPrefix(first, "cbfdump: ") || !strings.HasPrefix(rest, usage+"\n") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing.cbf")
	_, errs, code = runCmd(t, "", missing)
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "cbfdump: ") || !strings.Contains(errs, missing) {
		t.Errorf("missing file: exit %d, stderr %q", code, errs)
	}
	// A file that does not decode is named too.
	bad := filepath.Join(t.TempDir(), "bad.cbf")
	if err := os.WriteFile(bad, []byte{0x03}, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code = runCmd(t, "", bad)
	if code != 1 || errs != "cbfdump: "+bad+": cbf: offset 0: not CBF data: info byte 0x03: reserved word size\n" {
		t.Errorf("bad file: exit %d, stderr %q", code, errs)
	}
}

func TestEncode(t *testing.T) {
	out, errs, code := runCmd(t, streamText, "-encode", "-hex")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "02 22 40 13 79 21 fe ce 00\n02 21 10 00 88 09 00\n02 10 10 01\n01 10 10 00\n" // canonical: relative first frame
	testutil.DiffText(t, "encode", []byte(want), []byte(out))
	// Expanded frames, -word, an implicit end at the end of the input.
	out, _, _ = runCmd(t, "pc 0x8000\npc 0x8000\npc 0x8000\n", "-encode", "-hex", "-word", "16")
	testutil.DiffText(t, "16-bit", []byte("00 11 80 00 81 00\n"), []byte(out))
	for _, bad := range []string{"pc 0x10000\n", "omit 0\n", "bogus\n", "rep 1\n", "pc 0x1\ntrunc\nrep 2\n"} {
		if _, _, code := runCmd(t, bad, "-encode", "-word", "16"); code != 1 {
			t.Errorf("%q: exit %d", bad, code)
		}
	}
}

// twoJSONText is what cbfdump prints for testdata/two.json: Swift's JSON
// backtraces, their architecture and image map as comments.
const twoJSONText = `# architecture x86_64
# image map: platform linux, 64-bit, 4 images
# image 0x555555554000-0x555555559000 /home/user/demo/.build/debug/demo build-id 6b1f2e9011d43c7a05b28841e90c735da624f013
# image 0x7ffff7800000-0x7ffff7b9c000 /usr/lib/swift/linux/libswiftCore.so
# image 0x7ffff7c00000-0x7ffff7d95000 /usr/lib/x86_64-linux-gnu/libc.so.6 build-id c289da5062b826a107382b2e850cd4e2b03e9e2b
# image 0x7ffff7fc3000-0x7ffff7fef000 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
pc 0x555555555a3c
ra 0x555555555c11
ra 0x555555555d80
rep 5
ra 0x7ffff7a31c44
ra 0x555555556002
ra 0x7ffff7c29d90
ra 0x7ffff7c29e40
ra 0x555555555145
end

# architecture x86_64
# image map: platform linux, 64-bit, 4 images
# image 0x555555554000-0x555555559000 /home/user/demo/.build/debug/demo build-id 6b1f2e9011d43c7a05b28841e90c735da624f013
# image 0x7ffff7800000-0x7ffff7b9c000 /usr/lib/swift/linux/libswiftCore.so
# image 0x7ffff7c00000-0x7ffff7d95000 /usr/lib/x86_64-linux-gnu/libc.so.6 build-id c289da5062b826a107382b2e850cd4e2b03e9e2b
# image 0x7ffff7fc3000-0x7ffff7fef000 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
pc 0x7ffff7c91b2e
ra 0x7ffff7a30a10
omit 12
ra 0x555555555c11
trunc
`

// A JSON input, from a file or standard input, prints as text that
// -encode turns back into the backtraces' CBF records; the flags keep
// their meaning there.
func TestDumpJSON(t *testing.T) {
	path := filepath.Join("testdata", "two.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out, errs, code := runCmd(t, "", path); code != 0 || out != twoJSONText {
		t.Errorf("cbfdump %s: exit %d, %q\n%s", path, code, errs, out)
	}
	if out, errs, code := runCmd(t, "\n  "+string(data)); code != 0 || out != twoJSONText {
		t.Errorf("cbfdump of standard input: exit %d, %q\n%s", code, errs, out)
	}
	if out, _, code := runCmd(t, string(data), "-expand"); code != 0 || strings.Count(out, "ra 0x555555555d80\n") != 6 {
		t.Errorf("-expand: exit %d\n%s", code, out)
	}
	if out, _, code := runCmd(t, string(data), "-word", "32"); code != 0 || strings.Count(out, "/ld-linux-x86-64.so.2\nword 64\npc ") != 2 {
		t.Errorf("-word 32: exit %d\n%s", code, out)
	}
	bin, errs, code := runCmd(t, twoJSONText, "-encode")
	if code != 0 {
		t.Fatalf("-encode: exit %d, %q", code, errs)
	}
	var want []byte
	for _, line := range strings.SplitAfter(strings.TrimSpace(string(data)), "\n") {
		var bt cbf.Backtrace
		if err := json.Unmarshal([]byte(line), &bt); err != nil {
			t.Fatal(err)
		}
		want = append(want, bt.Backtrace...)
	}
	if !bytes.Equal([]byte(bin), want) {
		t.Errorf("-encode gives % x, the backtraces hold % x", bin, want)
	}
	cut := string(data[:len(data)-30])
	if _, errs, code := runCmd(t, cut); code != 1 || !strings.HasPrefix(errs, "cbfdump: standard input: JSON backtrace 1 at offset ") {
		t.Errorf("cut JSON: exit %d, %q", code, errs)
	}
}
