package gotraceraw

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strconv"
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
func readEvents(t testing.TB, data []byte) (Version, []*Event) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return r.Header().Version, collect(t, r.All())
}

// readTextEvents reads a whole text trace, cloning every event.
func readTextEvents(t testing.TB, text []byte) (Version, []*Event) {
	t.Helper()
	r, err := NewTextReader(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return r.Header().Version, collect(t, r.All())
}

func collect(t testing.TB, events iter.Seq2[*Event, error]) []*Event {
	t.Helper()
	var evs []*Event
	for ev, err := range events {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev.Clone())
	}
	return evs
}

// convert reads a trace in one form and writes it in another: fromText
// picks the reader, toText the writer, pad sets PadBatchLengths.
func convert(in []byte, fromText, toText, pad bool) ([]byte, error) {
	var (
		v    Version
		read func() (*Event, error)
	)
	if fromText {
		r, err := NewTextReader(bytes.NewReader(in))
		if err != nil {
			return nil, err
		}
		v, read = r.Header().Version, r.Read
	} else {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			return nil, err
		}
		v, read = r.Header().Version, r.Read
	}
	var out bytes.Buffer
	var w interface {
		Write(*Event) error
		Close() error
	}
	if toText {
		tw, err := NewTextWriter(&out, Header{Version: v})
		if err != nil {
			return nil, err
		}
		w = tw
	} else {
		ww, err := NewWriter(&out, Header{Version: v})
		if err != nil {
			return nil, err
		}
		ww.PadBatchLengths = pad
		w = ww
	}
	for ev, err := range all(read) {
		if err != nil {
			w.Close()
			return out.Bytes(), err
		}
		if err := w.Write(ev); err != nil {
			return nil, err
		}
	}
	err := w.Close()
	return out.Bytes(), err
}

// toText converts a binary trace to text with Reader and TextWriter.
func toText(data []byte) ([]byte, error) { return convert(data, false, true, false) }

// toWire converts a text trace to binary with TextReader and Writer.
func toWire(text []byte, pad bool) ([]byte, error) { return convert(text, true, false, pad) }

// wireToWire reads a binary trace and writes it back.
func wireToWire(data []byte) ([]byte, error) { return convert(data, false, false, false) }

// textToText reads a text trace and writes it back.
func textToText(text []byte) ([]byte, error) { return convert(text, true, true, false) }

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

// sameBatches returns evs with the size of every EventBatch (and the
// widths of its varints) zeroed: what the writers recompute.
func sameBatches(evs []*Event) []*Event {
	out := make([]*Event, len(evs))
	for i, e := range evs {
		if e.Type == EvEventBatch && len(e.Args) == 4 {
			e = e.Clone()
			e.Args[3], e.Widths = 0, nil
		}
		out[i] = e
	}
	return out
}

// fixTextSizes returns text with the size of each EventBatch line set to
// the canonical wire length of the events after it, computed here from
// the events' values, and how many sizes it changed.
func fixTextSizes(t testing.TB, text []byte) ([]byte, int) {
	t.Helper()
	_, evs := readTextEvents(t, text)
	var sizes []uint64
	open := false
	for _, e := range evs {
		switch e.Type {
		case EvEventBatch:
			sizes, open = append(sizes, 0), true
		case EvExperimentalBatch, EvEndOfGeneration:
			open = false
		default:
			if !open {
				t.Fatalf("%v outside a batch", e.Type)
			}
			n := 1
			for _, a := range e.Args {
				n += len(binaryUvarint(a))
			}
			if s, _ := e.Spec(); s.HasData {
				n += len(binaryUvarint(uint64(len(e.Data)))) + len(e.Data)
			}
			sizes[len(sizes)-1] += uint64(n)
		}
	}
	lines := bytes.SplitAfter(text, []byte("\n"))
	changed, k := 0, 0
	for i, l := range lines {
		if !bytes.HasPrefix(l, []byte("EventBatch ")) {
			continue
		}
		j := bytes.LastIndex(l, []byte(" size="))
		end := len(l) - len(bytes.TrimLeft(l[j+6:], "0123456789")) // after the digits
		fixed := append(append(append([]byte{}, l[:j+6]...), strconv.FormatUint(sizes[k], 10)...), l[end:]...)
		if !bytes.Equal(fixed, l) {
			changed++
		}
		lines[i] = fixed
		k++
	}
	return bytes.Join(lines, nil), changed
}
