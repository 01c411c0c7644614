package gotraceraw

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// wireSeeds adds the committed traces (the smaller ones whole, the others
// cut short) and Go's own fuzz corpus.
func wireSeeds(f *testing.F) {
	traces, _ := filepath.Glob("testdata/*.trace")
	for _, p := range traces {
		data := testutil.ReadFile(f, p)
		f.Add(data[:min(len(data), 8<<10)])
	}
	for _, s := range goFuzzSeeds(f) {
		f.Add(s)
	}
}

func textSeeds(f *testing.F) {
	texts, _ := filepath.Glob("testdata/*.txt.gz")
	for _, p := range texts {
		data := testutil.ReadFile(f, p)
		f.Add(data[:min(len(data), 8<<10)])
	}
	tests, _ := filepath.Glob(filepath.Join(testutil.GoRoot(f), "src", "internal", "trace", "testdata", "tests", "*.test"))
	for _, p := range tests {
		archive, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if text, ok := testutil.TxtarSection(archive, "trace"); ok {
			f.Add(text[:min(len(text), 8<<10)])
		}
	}
	f.Add([]byte(canonical))
}

// checkWireError checks what every wire error must be: a FormatError with
// an offset inside the input, wrapping a sentinel.
func checkWireError(t *testing.T, data []byte, err error) {
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is not a FormatError", err)
	}
	if fe.Offset < 0 || fe.Offset > int64(len(data)) {
		t.Fatalf("offset %d outside %d bytes", fe.Offset, len(data))
	}
	for _, s := range []error{io.ErrUnexpectedEOF, ErrHeader, ErrVersion, ErrV1, ErrEventType, ErrTooLarge, ErrOverflow} {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %v wraps no sentinel", err)
}

// FuzzReader reads any bytes: no panic, errors of the documented kinds,
// and every input read without error writes back byte for byte when its
// batch sizes are right, or else to the same events with right sizes.
// The writer may refuse an input Go's parser would misread (events
// outside batches).
func FuzzReader(f *testing.F) {
	wireSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		back, err := wireToWire(data)
		if errors.Is(err, ErrInvalid) {
			return
		}
		if err != nil {
			checkWireError(t, data, err)
			return
		}
		checkSizes(t, back)
		claimed, actual := batchSizes(t, data)
		if slices.Equal(claimed, actual) {
			if !bytes.Equal(back, data) {
				t.Fatalf("round trip changed the bytes:\n% x\n% x", data, back)
			}
			return
		}
		_, evs := readEvents(t, data)
		_, evs2 := readEvents(t, back)
		testutil.Diff(t, "events", sameBatches(evs), sameBatches(evs2))
	})
}

// checkSizes fails the test when a batch size of a written trace is not
// the length of the events after it.
func checkSizes(t *testing.T, data []byte) {
	t.Helper()
	claimed, actual := batchSizes(t, data)
	testutil.Diff(t, "batch sizes written", actual, claimed)
}

// FuzzRoundTrip takes any readable binary trace through the text form:
// wire → text → wire gives the canonical encoding of the same events,
// whose text converts back to itself.
func FuzzRoundTrip(f *testing.F) {
	wireSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := toText(data)
		if err != nil {
			return
		}
		wire, err := toWire(text, false)
		if err != nil {
			t.Fatalf("text of a readable trace does not read: %v\n%s", err, text)
		}
		checkSizes(t, wire)
		text2, err := toText(wire)
		if err != nil {
			t.Fatal(err)
		}
		wire2, err := toWire(text2, false)
		if err != nil {
			t.Fatal(err)
		}
		if text3, err := toText(wire2); err != nil || !bytes.Equal(text2, text3) || !bytes.Equal(wire, wire2) {
			t.Fatalf("canonical text → wire → text: %v\n%s\n---\n%s", err, text2, text3)
		}
		_, evs := readEvents(t, data)
		_, evs2 := readEvents(t, wire)
		for i := range evs {
			evs[i].Widths = nil
		}
		testutil.Diff(t, "events", sameBatches(evs), sameBatches(evs2))
	})
}

// FuzzTextReader reads any text: no panic, SyntaxErrors wrapping a
// sentinel, and a text that reads writes a text that reads to the same
// events (but for batch sizes, which the writers compute), in both forms.
// Events decode alike, slices included, whichever form they come from.
func FuzzTextReader(f *testing.F) {
	textSeeds(f)
	f.Fuzz(func(t *testing.T, text []byte) {
		var r TextReader
		r.MaxLineLen = 1 << 20
		if err := r.Reset(bytes.NewReader(text)); err != nil {
			checkTextError(t, err)
			return
		}
		var evs []*Event
		for ev, err := range r.All() {
			if err != nil {
				checkTextError(t, err)
				return
			}
			if ev.Args == nil {
				t.Fatalf("%v with nil Args", ev.Type) // the wire reader never returns nil
			}
			evs = append(evs, ev.Clone())
		}
		out, err := textToText(text)
		if errors.Is(err, ErrInvalid) {
			return // events outside batches
		}
		if err != nil {
			t.Fatal(err)
		}
		_, evs2 := readTextEvents(t, out)
		testutil.Diff(t, "text → text", sameBatches(evs), sameBatches(evs2))
		again, err := textToText(out)
		if err != nil || !bytes.Equal(out, again) {
			t.Fatalf("written text does not write back the same: %v", err)
		}
		wire, err := toWire(text, false)
		if err != nil {
			t.Fatal(err)
		}
		checkSizes(t, wire)
		_, evs3 := readEvents(t, wire)
		for i := range evs {
			if len(evs[i].Data) == 0 {
				evs[i].Data = nil // the wire does not tell data="" from no data line
			}
		}
		testutil.Diff(t, "text → wire", sameBatches(evs), sameBatches(evs3))
	})
}

func checkTextError(t *testing.T, err error) {
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line < 0 {
		t.Fatalf("error %v is not a SyntaxError", err)
	}
	for _, s := range []error{io.ErrUnexpectedEOF, ErrHeader, ErrVersion, ErrV1, ErrEventType, ErrTooLarge, ErrSyntax} {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %v wraps no sentinel", err)
}

// FuzzQuote checks that data prints as strconv.Quote prints it.
func FuzzQuote(f *testing.F) {
	f.Add([]byte("héllo\x00\xff\u200b🚀\"\\"))
	f.Fuzz(func(t *testing.T, s []byte) {
		if got, want := string(appendQuote(nil, s)), strconv.Quote(string(s)); got != want {
			t.Fatalf("appendQuote(%q) = %s, want %s", s, got, want)
		}
	})
}

// TestSeeds checks that the committed traces seeding the fuzzers read.
func TestSeeds(t *testing.T) {
	for _, s := range goFuzzSeeds(t) {
		// Go's corpus holds valid and broken traces: each reads, or
		// fails as documented.
		if _, err := toText(s); err != nil {
			checkWireError(t, s, err)
		}
	}
}

// FuzzParseArgs checks the text reader's one-pass argument parser against
// the general one, on lines whose bytes after the end (which the fast
// parser may load but must ignore) are arbitrary.
func FuzzParseArgs(f *testing.F) {
	f.Add([]byte(" dt=5 g=300 g_seq=2 stack=7"), []byte("\n"), uint8(EvGoUnblock))
	f.Add([]byte("\tpc=4242 func=1 file=2 line=10"), []byte("xxxxxxxx"), uint8(EvStack))
	f.Add([]byte(" dt=99999999999999999999"), []byte(" "), uint8(EvProcStop))
	f.Fuzz(func(t *testing.T, line, after []byte, typ uint8) {
		t0 := EventType(typ)
		if int(t0) >= len(specs) || specs[t0].Name == "" {
			return
		}
		names, prefixes := specs[t0].Args, argPrefixes[t0]
		if t0 == EvStack {
			names, prefixes = FrameFields[:], framePrefixes
		}
		l := append(append([]byte{}, line...), after...)[:len(line)]
		got, err1 := parseArgs(nil, l, names, prefixes)
		want, err2 := parseArgsSlow(nil, line, names)
		if (err1 == nil) != (err2 == nil) || (err1 == nil && !slices.Equal(got, want)) {
			t.Fatalf("%q: fast %v, %v; slow %v, %v", line, got, err1, want, err2)
		}
	})
}
