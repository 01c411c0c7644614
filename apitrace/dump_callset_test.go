package apitrace

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCallSet(t *testing.T) {
	type probe struct {
		no    uint64
		flags NameFlags
		want  bool
	}
	for _, tc := range []struct {
		set    string
		last   uint32
		probes []probe
	}{
		{"0-4,20-30/3", 30, []probe{{0, 0, true}, {4, 0, true}, {5, 0, false}, {20, 0, true}, {23, 0, true}, {24, 0, false}, {29, 0, true}, {31, 0, false}}},
		{"*/frame", ^uint32(0), []probe{{7, NameEndFrame, true}, {7, 0, false}, {8, nameSwapBuffers, true}}},
		{"frame", ^uint32(0), []probe{{7, NameEndFrame, true}, {7, NameVerbose, false}}},
		{"10-/fbo", ^uint32(0), []probe{{9, NameEndFrame, false}, {10, NameSwapRenderTarget, true}, {11, NameRender, false}}},
		{"5-20/draw", 20, []probe{{6, NameRender, true}, {6, 0, false}}},
		{" 1 - 3  7 ", 7, []probe{{2, 0, true}, {7, 0, true}, {5, 0, false}}},
		{"5-3", ^uint32(0), []probe{{4, 0, false}}},
		{"", ^uint32(0), []probe{{0, 0, false}}},
		{"4294967297", 1, []probe{{1, 0, true}}},
	} {
		c, err := ParseCallSet(tc.set)
		if err != nil {
			t.Errorf("%q: %v", tc.set, err)
			continue
		}
		if got := c.Last(); got != tc.last {
			t.Errorf("%q: Last() = %d, want %d", tc.set, got, tc.last)
		}
		for _, p := range tc.probes {
			if got := c.Contains(p.no, p.flags); got != p.want {
				t.Errorf("%q: Contains(%d, %#x) = %v, want %v", tc.set, p.no, p.flags, got, p.want)
			}
		}
	}
	for _, bad := range []string{"x", "1/0", "1/", "1-2-", "frames", "*/nope", ")"} {
		if _, err := ParseCallSet(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestCallSetMerge(t *testing.T) {
	var c CallSet
	if !c.Contains(123, 0) || c.Last() != ^uint32(0) {
		t.Fatal("the zero CallSet must hold every call")
	}
	if err := c.Merge("500-"); err != nil {
		t.Fatal(err)
	}
	if err := c.Merge("7"); err != nil {
		t.Fatal(err)
	}
	if c.Contains(8, 0) || !c.Contains(7, 0) || !c.Contains(600, 0) {
		t.Errorf("merged set %s", c.String())
	}
	f := filepath.Join(t.TempDir(), "calls.txt")
	if err := os.WriteFile(f, []byte("1,3\n9-10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ParseCallSet("@" + f + ",20")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.String(), "1,3,9-10,20"; got != want {
		t.Errorf("from file: %s, want %s", got, want)
	}
	if _, err := ParseCallSet("@" + f + ".missing"); err == nil {
		t.Error("missing call set file: no error")
	}
}
