package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

var atd = filepath.Join("..", "..", "xrayfdr", "analysis", "testdata", "analyses")

// Every llvm-xray-14 golden of the analyses, through the command line
// (flag spellings as llvm-xray's, in several forms; --llvm=14 right after
// the subcommand's name).
func TestAnalysesGoldens(t *testing.T) {
	f, err := os.Open(filepath.Join(atd, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if strings.HasPrefix(fields[0], "fixture:") || strings.HasSuffix(fields[0], ".yaml") {
			continue // the library's tests cover these
		}
		log, bin, golden, args := fields[0]+".xray", fields[1], fields[2], fields[3:]
		want, err := os.ReadFile(filepath.Join(atd, golden))
		if err != nil {
			continue // gzip'ed or hashed: the library's tests cover these
		}
		// alternate the spellings: --x=v, -x=v, --x v, -x v
		var argv []string
		for i, a := range args {
			k, v, ok := strings.Cut(a, "=")
			switch {
			case !ok || i%4 == 0:
				argv = append(argv, a)
			case i%4 == 1:
				argv = append(argv, k[1:]+"="+v)
			case i%4 == 2:
				argv = append(argv, k, v)
			default:
				argv = append(argv, k[1:], v)
			}
		}
		// flags before and after the log
		argv = append(argv[:1], append([]string{"--llvm=14", "--instr_map", filepath.Join(atd, bin)}, argv[1:]...)...)
		argv = append(argv, filepath.Join(atd, log))
		var got, stderr bytes.Buffer
		if code := run(argv, &got, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", argv, code, stderr.String())
		}
		testutil.DiffText(t, strings.Join(argv, " "), want, got.Bytes())
		n++
	}
	if n < 50 {
		t.Errorf("only %d cases", n)
	}
}

func TestAnalysesExitStatus(t *testing.T) {
	log := filepath.Join(atd, "st.xray")
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"account", "-h"}, 0, "usage:"},
		{[]string{"stack", "--help"}, 0, "usage:"},
		{[]string{"graph", "-h"}, 0, "usage:"},
		{[]string{"account", "--bogus", log}, 2, "bogus"},
		{[]string{"account", "--sort=nope", log}, 2, "--sort=nope"},
		{[]string{"graph", "--edge-label=nope", log}, 2, "nope"},
		{[]string{"stack", "--per-thread-stacks", "--aggregate-threads", log}, 2, "Can't specify"},
		{[]string{"stack", "--stack-format=flame", log}, 2, "non-human format without -all-stacks"},
		{[]string{"stack", "--all-stacks", log}, 2, "must specify a non-human format"},
		{[]string{"account", log, log}, 2, "want one log"},
		{[]string{"account", "/nonexistent/x.xray"}, 1, "/nonexistent/x.xray"},
		{[]string{"graph", "--instr_map=/nonexistent/bin", log}, 1, "/nonexistent/bin"},
		{[]string{"account", filepath.Join(atd, "mt.xray")}, 0, ""},
		{[]string{"convert", "--output-format=pprof", log}, 2, "-o"},
	} {
		var out, stderr bytes.Buffer
		if code := run(c.args, &out, &stderr); code != c.code || !strings.Contains(stderr.String(), c.err) {
			t.Errorf("%v: exit %d, want %d; stderr %q, want %q in it", c.args, code, c.code, stderr.String(), c.err)
		}
	}
}

func TestConvertPprof(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.pb.gz")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"convert", "--output-format=pprof", "--instr_map", filepath.Join(atd, "prog"), "-o", out, filepath.Join(atd, "mt.xray")}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil || len(b) < 20 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("not a gzip file: %v % x", err, b[:min(len(b), 4)])
	}
}

func TestStackFoldedSelf(t *testing.T) {
	var got, stderr bytes.Buffer
	if code := run([]string{"stack", "--all-stacks", "--stack-format=folded-self", "--instr_map", filepath.Join(atd, "prog"), filepath.Join(atd, "mt.xray")}, &got, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	// flamegraph.pl's folded format: "frame;frame value", no trailing ';'
	for _, l := range strings.Split(strings.TrimSpace(got.String()), "\n") {
		i := strings.LastIndexByte(l, ' ')
		if i < 0 || strings.HasSuffix(l[:i], ";") || !strings.HasPrefix(l, "thread_") {
			t.Fatalf("bad folded line %q", l)
		}
	}
}
