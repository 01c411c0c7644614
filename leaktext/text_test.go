package leaktext

import (
	"os"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

func TestParseResolved(t *testing.T) {
	type sym struct {
		Func, Module, File string
		Line               int
	}
	for in, want := range map[string]sym{
		"main() at cxx.cpp:12":                           {Func: "main()", File: "cxx.cpp", Line: 12},
		"app::Cache::add(char const*, int) at cxx.cpp:7": {Func: "app::Cache::add(char const*, int)", File: "cxx.cpp", Line: 7},
		"zero() from /scratchbox/tests/bin/shmseg_test":  {Func: "zero()", Module: "/scratchbox/tests/bin/shmseg_test"},
		"from /usr/lib/x86_64-linux-gnu/libc.so.6":       {Module: "/usr/lib/x86_64-linux-gnu/libc.so.6"},
		"in ??":         {},
		"in name+0x1a":  {Func: "name+0x1a"},
		"<unknown>":     {},
		"f() at weird":  {Func: "f() at weird"},
		"g() at a:b:99": {Func: "g()", File: "a:b", Line: 99},
	} {
		s := ParseResolved([]byte(in))
		testutil.Diff(t, in, want, sym{string(s.Func), string(s.Module), string(s.File), s.Line})
	}
}

// TestResolvedFixtures: every resolved frame of the real reports takes
// apart into a function, a module or a source position.
func TestResolvedFixtures(t *testing.T) {
	for _, name := range []string{"generated-x86_64/cxx.resolved.txt", "upstream-v1.3/alloc.r.txt", "upstream-v2.0/shmsysv.r.txt", "upstream-v1.0-x86_64/alloc.lcr.txt"} {
		data, _ := os.ReadFile("testdata/" + name)
		_, recs := readAll(t, data, true)
		n := 0
		for _, r := range recs {
			for _, f := range r.Call.Frames {
				s := ParseResolved(f.Resolved)
				n++
				if strings.Contains(string(f.Resolved), " at ") && s.File == nil {
					t.Errorf("%s: %q: no source position", name, f.Resolved)
				}
				if strings.Contains(string(f.Resolved), "from /") && s.Module == nil {
					t.Errorf("%s: %q: no module", name, f.Resolved)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no frames", name)
		}
	}
}
