package xrayfdr

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
// with the analyses' logs): both give the same events and errors. It
// walks llvm-xray's YAML traces too, which have one path.
func FuzzWalk(f *testing.F) {
	for _, pat := range []string{"analysis/testdata/analyses/*.xray", "testdata/*.xray", "testdata/*.yaml"} {
		paths, _ := filepath.Glob(pat)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b[:min(len(b), 8<<10)]) // big ones cut short
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		Walk(data, func(*Event) error { return nil }) // must not panic
		if d := walkBoth(data); d != "" {
			t.Fatal(d)
		}
	})
}

// TestWalkYAMLRequiredKeys checks that a YAML trace without a key
// llvm-xray requires (the header and its five keys, the records, a
// record's type, cpu, kind and tsc), or with a key given twice, is an
// ErrYAMLTrace naming the key, as llvm-xray convert refuses it, and not a
// trace with made-up values (a header without its type was an FDR log of
// version 0). With llvm-xray-19 present, it refuses each too.
func TestWalkYAMLRequiredKeys(t *testing.T) {
	const (
		head = "---\nheader:\n  version: 1\n  type: 0\n  constant-tsc: true\n  nonstop-tsc: true\n  cycle-frequency: 1\n"
		rec  = "  - { type: 0, func-id: 1, function: '1', cpu: 0, thread: 1, process: 1, kind: function-enter, tsc: 5, data: '' }\n"
	)
	for _, c := range []struct{ name, yaml, want string }{
		{"no records", head + "...\n", "missing required key 'records'"},
		{"no header", "---\nrecords:\n" + rec + "...\n", "missing required key 'header'"},
		{"header without type", "---\nheader:\n  version: 1\n  constant-tsc: true\n  nonstop-tsc: true\n  cycle-frequency: 1\nrecords:\n" + rec, "missing required key 'type'"},
		{"header without cycle-frequency", "---\nheader:\n  version: 1\n  type: 0\n  constant-tsc: true\n  nonstop-tsc: true\nrecords:\n" + rec, "missing required key 'cycle-frequency'"},
		{"version twice", "---\nheader:\n  version: 1\n  version: 1\n  type: 0\n  constant-tsc: true\n  nonstop-tsc: true\n  cycle-frequency: 1\nrecords:\n" + rec, "duplicated mapping key 'version'"},
		{"header twice", head + head[4:] + "records:\n" + rec, "duplicated mapping key 'header'"},
		{"unknown header key", head + "  extra-key: 3\nrecords:\n" + rec, "unknown key"},
		{"record without cpu", head + "records:\n  - { type: 0, func-id: 1, thread: 1, kind: function-enter, tsc: 5 }\n", "missing"},
		{"record without type", head + "records:\n  - { func-id: 1, cpu: 0, kind: function-enter, tsc: 5 }\n", "missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			err := Walk([]byte(c.yaml), func(*Event) error { n++; return nil })
			var se *SyntaxError
			if !errors.Is(err, ErrYAMLTrace) || !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Walk: %v after %d events, want a *SyntaxError wrapping ErrYAMLTrace saying %q", err, n, c.want)
			}
			t.Run("llvm-xray-19", func(t *testing.T) {
				tool := testutil.Tool(t, "llvm-xray-19")
				path := filepath.Join(t.TempDir(), "trace.yaml")
				if err := os.WriteFile(path, []byte(c.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
				if out, err := exec.Command(tool, "convert", "--output-format=yaml", path).CombinedOutput(); err == nil {
					t.Errorf("llvm-xray-19 convert reads it:\n%s", out)
				}
			})
		})
	}
	// The same with every key, and no records, is an empty trace.
	if err := Walk([]byte(head+"records: []\n...\n"), func(*Event) error { return nil }); err != nil {
		t.Errorf("empty trace: %v", err)
	}
}
