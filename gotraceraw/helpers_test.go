package gotraceraw

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// fixture is a runtime-written trace and the text Go's toolchain printed
// for it.
type fixture struct {
	name       string
	trace, txt string // paths
}

// fixtures lists the traces committed in testdata and, with shared set,
// those of ../shared/fixtures/gotrace (skipping the test when absent
// outside CI).
func fixtures(t *testing.T, shared bool) []fixture {
	t.Helper()
	dirs := []string{"testdata"}
	if shared {
		root := testutil.SharedFixture(t, "gotrace")
		dirs = []string{root, filepath.Join(root, "old")}
	}
	var fs []fixture
	for _, d := range dirs {
		traces, err := filepath.Glob(filepath.Join(d, "*.trace"))
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range traces {
			base := strings.TrimSuffix(tr, ".trace")
			txt := base + ".txt"
			if _, err := os.Stat(txt); err != nil {
				txt += ".gz"
				if _, err := os.Stat(txt); err != nil {
					continue // no golden text: a benchmark input such as large.trace
				}
			}
			fs = append(fs, fixture{name: filepath.Base(base), trace: tr, txt: txt})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].name < fs[j].name })
	if len(fs) == 0 {
		t.Fatalf("no fixtures in %v", dirs)
	}
	return fs
}

// readEvents reads a whole binary trace, cloning every event.
func readEvents(t testing.TB, data []byte) (Version, []Event) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev.Clone())
	}
	return r.Version(), evs
}

// readTextEvents reads a whole text trace, cloning every event.
func readTextEvents(t testing.TB, text []byte) (Version, []Event) {
	t.Helper()
	r, err := NewTextReader(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev.Clone())
	}
	return r.Version(), evs
}

// toText converts a binary trace to text with Reader and TextWriter.
func toText(data []byte) ([]byte, error) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	w, err := NewTextWriter(&out, r.Version())
	if err != nil {
		return nil, err
	}
	for ev, err := range r.All() {
		if err != nil {
			return out.Bytes(), err
		}
		if err := w.Write(ev); err != nil {
			return nil, err
		}
	}
	err = w.Flush()
	return out.Bytes(), err
}

// toWire converts a text trace to binary with TextReader and Writer.
func toWire(text []byte, pad bool) ([]byte, error) {
	r, err := NewTextReader(bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	w, err := NewWriter(&out, r.Version())
	if err != nil {
		return nil, err
	}
	w.PadBatchLengths = pad
	for ev, err := range r.All() {
		if err != nil {
			return nil, err
		}
		if err := w.Write(ev); err != nil {
			return nil, err
		}
	}
	err = w.Flush()
	return out.Bytes(), err
}

// wireToWire reads a binary trace and writes it back.
func wireToWire(data []byte) ([]byte, error) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	w, err := NewWriter(&out, r.Version())
	if err != nil {
		return nil, err
	}
	for ev, err := range r.All() {
		if err != nil {
			return nil, err
		}
		if err := w.Write(ev); err != nil {
			return nil, err
		}
	}
	err = w.Flush()
	return out.Bytes(), err
}

// textToText reads a text trace and writes it back.
func textToText(text []byte) ([]byte, error) {
	r, err := NewTextReader(bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	w, err := NewTextWriter(&out, r.Version())
	if err != nil {
		return nil, err
	}
	for ev, err := range r.All() {
		if err != nil {
			return nil, err
		}
		if err := w.Write(ev); err != nil {
			return nil, err
		}
	}
	err = w.Flush()
	return out.Bytes(), err
}

// readAllWire reads every event of a binary trace, as CheckTruncations
// wants.
func readAllWire(rd io.Reader) error {
	r, err := NewReader(rd)
	if err != nil {
		return err
	}
	for {
		if _, err := r.Read(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

func errOffset(err error) (int64, bool) {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Offset, true
	}
	return 0, false
}
