package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	// Errors name the offset; -lenient yields Swift's frames.
	out, errs, code = runCmd(t, "02 10 10 02 10", "-hex")
	if code != 1 || !strings.Contains(errs, "offset 3") || out != "pc 0x10\n" {
		t.Errorf("bad input: exit %d, out %q, err %q", code, out, errs)
	}
	out, _, _ = runCmd(t, "02 10 10", "-hex", "-lenient")
	if out != "pc 0x10\ntrunc\n" {
		t.Errorf("-lenient: %q", out)
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
