package gotraceraw

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestGoCorpus reads the text traces of Go's own test corpus,
// $GOROOT/src/internal/trace/testdata/tests/*.test: each round-trips text
// → wire → text byte for byte, and its wire form reads back to the events
// of the text.
func TestGoCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testutil.GoRoot(t), "src", "internal", "trace", "testdata", "tests", "*.test"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go trace tests in GOROOT: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			archive, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text, ok := testutil.TxtarSection(archive, "trace")
			if !ok {
				t.Fatal("no trace section")
			}
			// The writers put the true batch sizes: one broken test
			// claims 50 bytes for an empty batch.
			want, changed := fixTextSizes(t, text)
			if changed > 0 && filepath.Base(f) != "go122-fail-first-gen-first.test" {
				t.Errorf("%d batch sizes are not the length of their events", changed)
			}
			wire, err := toWire(text, false)
			if err != nil {
				t.Fatalf("text to wire: %v", err)
			}
			back, err := toText(wire)
			if err != nil {
				t.Fatalf("wire to text: %v", err)
			}
			testutil.DiffText(t, "text to wire to text", want, back)
			_, fromText := readTextEvents(t, text)
			_, fromWire := readEvents(t, wire)
			testutil.Diff(t, "events", sameBatches(fromText), sameBatches(fromWire))
		})
	}
	// cmd/trace's own test input is a plain text trace of Go 1.22.
	text, err := os.ReadFile(filepath.Join(testutil.GoRoot(t), "src", "cmd", "trace", "testdata", "go122.test"))
	if err != nil {
		t.Skipf("no cmd/trace test trace: %v", err)
	}
	wire, err := toWire(text, false)
	if err != nil {
		t.Fatalf("go122.test: text to wire: %v", err)
	}
	back, err := toText(wire)
	if err != nil {
		t.Fatalf("go122.test: wire to text: %v", err)
	}
	testutil.DiffText(t, "go122.test: text to wire to text", text, back)
}

// goFuzzSeeds returns the inputs of Go's own raw-trace fuzz corpus,
// $GOROOT/src/internal/trace/testdata/fuzz/FuzzReader, when present.
func goFuzzSeeds(t testing.TB) [][]byte {
	files, _ := filepath.Glob(filepath.Join(testutil.GoRoot(t), "src", "internal", "trace", "testdata", "fuzz", "FuzzReader", "*"))
	var seeds [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// "go test fuzz v1" then one line: []byte("...")
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 2 || lines[0] != "go test fuzz v1" {
			t.Fatalf("%s: not a one-value fuzz corpus file", f)
		}
		v := strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")")
		s, err := strconv.Unquote(v)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		seeds = append(seeds, []byte(s))
	}
	return seeds
}
