package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// jsonFixture is a file of Swift's JSON backtraces made with the cbf
// package (see its directory's README).
func jsonFixture(t *testing.T, name string) string {
	return filepath.Join(testutil.ModuleRoot(t), "examples", "cbfdump", "testdata", name)
}

// Swift's JSON backtraces are told by themselves and summarised, with or
// without -format cbf.
func TestSummarizeCBFJSON(t *testing.T) {
	crash, two := jsonFixture(t, "crash.json"), jsonFixture(t, "two.json")
	for _, args := range [][]string{{crash, two}, {"-format", "cbf", crash, two}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("tracecat %q exits %d: %s", args, code, stderr.String())
		}
		for _, want := range []string{
			crash + ": cbf\n  Swift JSON backtraces: 1, architecture x86_64; 1 with an image map; the first: platform linux, 4 images, the first /home/user/demo/.build/debug/demo\n  1 records (1 64-bit), 0 truncated, 47 bytes\n",
			"  #0 64-bit, 9 frames: pc 0x555555555a3c ra 0x555555555c11 ra 0x555555555d80 rep 5 ra 0x7ffff7a31c44 ra 0x555555556002 …\n",
			two + ": cbf\n  Swift JSON backtraces: 2, architecture x86_64; 2 with an image map;",
			"  #1 64-bit, 5 frames: pc 0x7ffff7c91b2e ra 0x7ffff7a30a10 omit 12 ra 0x555555555c11 trunc\n",
		} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("tracecat %q prints\n%s\nwant\n%s", args, stdout.String(), want)
			}
		}
	}
}

// The profile of JSON backtraces has their image map as its mappings,
// each address in the image that holds it.
func TestPprofCBFJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.pb.gz")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-pprof", out, jsonFixture(t, "two.json")}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	gz, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	prof := testutil.DecodeProfile(t, gz)
	if len(prof.Samples) != 2 || prof.Totals()[0] != 2 {
		t.Errorf("%d samples, total %v, want 2 backtraces", len(prof.Samples), prof.Totals())
	}
	want := []testutil.ProfileMapping{
		{Start: 0x555555554000, Limit: 0x555555559000, File: "/home/user/demo/.build/debug/demo", BuildID: "6b1f2e9011d43c7a05b28841e90c735da624f013"},
		{Start: 0x7ffff7800000, Limit: 0x7ffff7b9c000, File: "/usr/lib/swift/linux/libswiftCore.so"},
		{Start: 0x7ffff7c00000, Limit: 0x7ffff7d95000, File: "/usr/lib/x86_64-linux-gnu/libc.so.6", BuildID: "c289da5062b826a107382b2e850cd4e2b03e9e2b"},
		{Start: 0x7ffff7fc3000, Limit: 0x7ffff7fef000, File: "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
	}
	if len(prof.Mappings) != len(want) {
		t.Fatalf("mappings %+v, want %+v", prof.Mappings, want)
	}
	for i := range want {
		if prof.Mappings[i] != want[i] {
			t.Errorf("mapping %d: %+v, want %+v", i, prof.Mappings[i], want[i])
		}
	}
	// Backtraces with different image maps make no one profile.
	data, err := os.ReadFile(jsonFixture(t, "two.json"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	other := strings.Replace(lines[1], `"imageMap":"AgVsaW51eAQ`, `"imageMap":"AgVsaW51eAM`, 1)
	if other == lines[1] {
		t.Fatal("no image map to change in two.json")
	}
	mixed := filepath.Join(t.TempDir(), "mixed.json")
	if err := os.WriteFile(mixed, []byte(lines[0]+other), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run([]string{"-pprof", out, mixed}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "JSON backtrace 1 at offset ") || !strings.Contains(stderr.String(), "an image map other than the first backtrace's") {
		t.Errorf("two image maps: exit %d, %q", code, stderr.String())
	}
}
