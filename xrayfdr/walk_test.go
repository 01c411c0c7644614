package xrayfdr

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// walkBoth walks data on the fast path (when it takes the log) and on
// the general one, and reports a difference in events or errors.
func walkBoth(data []byte) string {
	type rec struct {
		e   Event
		err string
	}
	collect := func(slow bool) []rec {
		var out []rec
		w := Walker{slow: slow}
		err := w.walk(data, func(e *Event) error { out = append(out, rec{e: *e}); return nil })
		if err != nil {
			out = append(out, rec{err: err.Error()})
		}
		return out
	}
	if _, _, ok := (&Walker{}).fastIndex(data, parseHeaderIfAny(data)); !ok {
		return ""
	}
	fast, slow := collect(false), collect(true)
	if len(fast) != len(slow) {
		return fmt.Sprintf("fast path: %d events, general: %d", len(fast), len(slow))
	}
	for i := range fast {
		if fast[i] != slow[i] {
			return fmt.Sprintf("event %d: fast path %+v, general %+v", i, fast[i], slow[i])
		}
	}
	return ""
}

func parseHeaderIfAny(data []byte) Header {
	if len(data) < HeaderSize {
		return Header{}
	}
	return parseHeader(data)
}

func TestFastWalk(t *testing.T) {
	paths, _ := filepath.Glob("analysis/testdata/analyses/*.xray")
	more, _ := filepath.Glob("testdata/*.xray")
	fast := 0
	for _, p := range append(paths, more...) {
		data := testutil.ReadFile(t, p)
		if _, _, ok := (&Walker{}).fastIndex(data, parseHeaderIfAny(data)); ok {
			fast++
		}
		if d := walkBoth(data); d != "" {
			t.Errorf("%s: %s", p, d)
		}
	}
	if fast < 3 {
		t.Errorf("the fast path took %d logs", fast)
	}
}

// FuzzWalk walks logs on the fast path and on the general one (seeded
// with the analyses' logs): both give the same events and errors.
func FuzzWalk(f *testing.F) {
	for _, pat := range []string{"analysis/testdata/analyses/*.xray", "testdata/*.xray"} {
		paths, _ := filepath.Glob(pat)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b[:min(len(b), 8<<10)]) // big ones cut short
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if d := walkBoth(data); d != "" {
			t.Fatal(d)
		}
	})
}
