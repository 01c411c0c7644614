package parsed

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// fuzzSeeds returns the traces the fuzzers start from: the traces of the
// repository and the shared fixtures (when present) of up to 32 KB, and
// Go's test corpus in binary form. Larger traces make mutation slow, and
// the small ones hold every version and most event types.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*.trace"))
	root := filepath.Join(testutil.ModuleRoot(f), "..", "shared", "fixtures", "gotrace")
	more, _ := filepath.Glob(filepath.Join(root, "*.trace"))
	old, _ := filepath.Glob(filepath.Join(root, "old", "*.trace"))
	for _, p := range append(append(files, more...), old...) {
		if fi, err := os.Stat(p); err != nil || fi.Size() > 32<<10 {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	return append(seeds, goCorpusTraces(f)...)
}

// goCorpusTraces returns the traces of Go's test corpus in binary form,
// none without a go command.
func goCorpusTraces(t testing.TB) [][]byte {
	r := goRootOrEmpty()
	if r == "" {
		return nil
	}
	var traces [][]byte
	tests, _ := filepath.Glob(filepath.Join(r, "src", "internal", "trace", "testdata", "tests", "*.test"))
	for _, p := range tests {
		archive, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if text, ok := testutil.TxtarSection(archive, "trace"); ok {
			traces = append(traces, textToWire(t, text))
		}
	}
	return traces
}

// goRootOrEmpty is GOROOT of the go command on PATH, or "" without one:
// the fuzzers' seeds do not need it.
func goRootOrEmpty() string {
	cmd := exec.Command("go", "env", "GOROOT")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// FuzzReader reads arbitrary bytes: no panic; the same events and error
// whole, byte by byte, with a reused Reader and with the common events
// ordered by the general path instead of in line; errors are FormatErrors
// within the input; a Validator fed the generations agrees; and whatever
// the Reader accepts, a raw-level round trip (read, then written with
// shortest varints, and again through a validating Writer) is accepted
// and reads as the same events.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	var reused Reader
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := parseText(data)
		if err != nil {
			var fe *FormatError
			if errors.As(err, &fe) && fe.Offset > int64(len(data)) {
				t.Fatalf("error beyond the input: %v", err)
			}
		}
		// Byte by byte, and with a Reader used before.
		if len(data) <= 8<<10 && reused.Reset(iotest.OneByteReader(bytes.NewReader(data))) == nil {
			var again []byte
			var err2 error
			for {
				ev, e := reused.Read()
				if e != nil {
					if e != io.EOF {
						err2 = e
					}
					break
				}
				again = append(ev.AppendText(again), '\n')
			}
			if !bytes.Equal(again, text) || (err == nil) != (err2 == nil) {
				t.Fatalf("byte by byte: %d bytes of text and %v, want %d and %v", len(again), err2, len(text), err)
			}
		}
		agreeInLine(t, data, text, err)
		agreeValidator(t, data, err)
		if err != nil {
			return
		}
		back, err, skip := rawRoundTrip(data, nil)
		if skip {
			return
		}
		if err != nil {
			t.Fatalf("raw round trip: %v", err)
		}
		text2, err := parseText(back)
		if err != nil {
			t.Fatalf("raw round trip: %v", err)
		}
		if !bytes.Equal(text, text2) {
			t.Fatal("raw round trip reads differently")
		}
		v, _ := generationsOf(data)
		if _, err, _ := rawRoundTrip(data, NewValidator(v)); err != nil {
			t.Fatalf("a validating Writer refused a trace the Reader reads: %v", err)
		}
	})
}

// agreeValidator checks a Validator given the trace's generations against
// the Reader's verdict, when the raw level can cut the generations.
func agreeValidator(t *testing.T, data []byte, readErr error) {
	v, gens := generationsOf(data)
	if gens == nil {
		return
	}
	val := NewValidator(v)
	var err error
	for _, g := range gens {
		if err = val.Generation(g); err != nil {
			break
		}
	}
	if (err == nil) != (readErr == nil) {
		t.Fatalf("Validator: %v; Reader: %v", err, readErr)
	}
}

// generationsOf cuts a trace into generations as the Reader reads them;
// nil gens when the batches cannot be framed.
func generationsOf(data []byte) (gotraceraw.Version, [][]byte) {
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		return 0, nil
	}
	v := r.Header().Version
	var gens [][]byte
	start, cur := int64(gotraceraw.HeaderLen), uint64(0)
	for {
		b, err := r.ReadBatch()
		if err == io.EOF {
			break
		}
		if err != nil {
			return v, nil
		}
		switch {
		case b.Type == gotraceraw.EvEndOfGeneration && v >= gotraceraw.Go126:
			gens = append(gens, data[start:r.Offset()])
			start = r.Offset()
			continue
		case v < gotraceraw.Go126 && cur != 0 && b.Gen == cur+1:
			gens = append(gens, data[start:b.Offset])
			start = b.Offset
		case v < gotraceraw.Go126 && cur != 0 && b.Gen != cur:
			return v, nil // Go's parser stops here; a writer would not cut here
		}
		if b.Type != gotraceraw.EvEndOfGeneration {
			cur = b.Gen
		}
	}
	if int(start) < len(data) {
		gens = append(gens, data[start:])
	}
	return v, gens
}

// rawRoundTrip reads data at the raw level and writes it back with the
// shortest varints, through val when not nil. skip is set when the raw
// level cannot read the trace (nor can Go's raw reader) or the Writer
// refuses it for a rule of its own; err is the Validator's refusal.
func rawRoundTrip(data []byte, val *Validator) (out []byte, err error, skip bool) {
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, true
	}
	var buf bytes.Buffer
	w, err := gotraceraw.NewWriter(&buf, r.Header())
	if err != nil {
		return nil, nil, true
	}
	if val != nil {
		w.Validate = val
	}
	for ev, err := range r.All() {
		if err != nil {
			return nil, nil, true
		}
		ev.Widths = nil
		if err := w.Write(ev); err != nil {
			return nil, validatorErr(err), !refusedByValidator(err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, validatorErr(err), !refusedByValidator(err)
	}
	return buf.Bytes(), nil, false
}

func validatorErr(err error) error {
	if refusedByValidator(err) {
		return err
	}
	return nil
}

// refusedByValidator reports whether a Writer's error is the Validator's.
func refusedByValidator(err error) bool {
	var fe *FormatError
	return errors.As(err, &fe)
}
