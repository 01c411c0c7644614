package gotraceraw

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// recorder is a Validator that keeps what it is given and refuses the
// generations numbered in refuse (counting from 1).
type recorder struct {
	gens   [][]byte
	refuse map[int]bool
}

var errRefused = errors.New("refused by the test")

func (r *recorder) Generation(wire []byte) error {
	r.gens = append(r.gens, bytes.Clone(wire))
	if r.refuse[len(r.gens)] {
		return errRefused
	}
	return nil
}

// generations splits a binary trace's events into its generations, as a
// validating Writer does: at a batch of another generation number, after
// an EndOfGeneration.
func generations(evs []*Event) [][]*Event {
	var gens [][]*Event
	var cur []*Event
	var num uint64
	for _, e := range evs {
		if (e.Type == EvEventBatch || e.Type == EvExperimentalBatch) && len(cur) > 0 && genNum(e) != num {
			gens, cur = append(gens, cur), nil
		}
		if e.Type == EvEventBatch || e.Type == EvExperimentalBatch {
			num = genNum(e)
		}
		cur = append(cur, e)
		if e.Type == EvEndOfGeneration {
			gens, cur = append(gens, cur), nil
		}
	}
	if len(cur) > 0 {
		gens = append(gens, cur)
	}
	return gens
}

// writeAll writes evs with a validating writer of the given form and
// returns the output and the first error.
func writeAll(t *testing.T, v Version, evs []*Event, val Validator, text bool) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	var w eventWriter
	if text {
		tw, err := NewTextWriter(&b, Header{Version: v})
		if err != nil {
			t.Fatal(err)
		}
		tw.Validate = val
		w = tw
	} else {
		ww, err := NewWriter(&b, Header{Version: v})
		if err != nil {
			t.Fatal(err)
		}
		ww.Validate = val
		w = ww
	}
	for _, e := range evs {
		if err := w.Write(e); err != nil {
			if cerr := w.Close(); !errors.Is(cerr, err) {
				t.Errorf("Close after %v: %v", err, cerr)
			}
			return b.Bytes(), err
		}
	}
	err := w.Close()
	return b.Bytes(), err
}

// TestValidateFixtures writes every fixture through validating writers:
// the checks accept every real trace, the output is the input byte for
// byte, and the Validator sees each generation's wire bytes exactly.
func TestValidateFixtures(t *testing.T) {
	for _, shared := range []bool{false, true} {
		for _, fx := range fixtures(t, shared) {
			data := testutil.ReadFile(t, fx.trace)
			v, evs := readEvents(t, data)
			gens := generations(evs)
			var rec recorder
			out, err := writeAll(t, v, evs, &rec, false)
			if err != nil {
				t.Errorf("%s: %v", fx.name, err)
				continue
			}
			if !bytes.Equal(out, data) {
				t.Errorf("%s: output differs from the input", fx.name)
			}
			if len(rec.gens) != len(gens) {
				t.Errorf("%s: validator saw %d generations, want %d", fx.name, len(rec.gens), len(gens))
				continue
			}
			if got := append(data[:16:16], bytes.Join(rec.gens, nil)...); !bytes.Equal(got, data) {
				t.Errorf("%s: the generations given to the validator are not the trace", fx.name)
			}
			// The text form: the same generations on the wire, the text
			// Go prints.
			var trec recorder
			text, err := writeAll(t, v, evs, &trec, true)
			if err != nil {
				t.Errorf("%s text: %v", fx.name, err)
				continue
			}
			want, err := toText(data)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(text, want) {
				t.Errorf("%s: validating TextWriter's text differs", fx.name)
			}
			if len(trec.gens) != len(rec.gens) {
				t.Errorf("%s: text validator saw %d generations, want %d", fx.name, len(trec.gens), len(rec.gens))
			}
		}
	}
}

// TestValidateRefusalKeepsEarlier refuses each generation in turn: the
// output is the generations before it, whole, and nothing else.
func TestValidateRefusalKeepsEarlier(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/gcgens.trace")
	v, evs := readEvents(t, data)
	gens := generations(evs)
	if len(gens) < 3 {
		t.Fatalf("%d generations, want several", len(gens))
	}
	for n := 1; n <= len(gens); n++ {
		for _, text := range []bool{false, true} {
			rec := recorder{refuse: map[int]bool{n: true}}
			out, err := writeAll(t, v, evs, &rec, text)
			if !errors.Is(err, ErrInvalid) || !errors.Is(err, errRefused) {
				t.Fatalf("refusing generation %d: %v", n, err)
			}
			if !strings.Contains(err.Error(), "refused by the test") || strings.Count(err.Error(), "gotraceraw") != 1 {
				t.Errorf("refusal message %q", err)
			}
			var kept []*Event
			for _, g := range gens[:n-1] {
				kept = append(kept, g...)
			}
			want, werr := writeAll(t, v, kept, nil, text)
			if werr != nil {
				t.Fatal(werr)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("refusing generation %d (text %v): %d bytes written, want the %d of the generations before it", n, text, len(out), len(want))
			}
		}
	}
}

// gen26 is a small valid-looking Go1.26 generation: what the local
// checks need around the event under test.
func gen26(num uint64, body ...*Event) []*Event {
	evs := []*Event{
		{Type: EvEventBatch, Args: []uint64{num, 1, 100, 0}},
		{Type: EvSync},
		{Type: EvFrequency, Args: []uint64{1e9}},
		{Type: EvClockSnapshot, Args: []uint64{1, 2, 3, 4}},
		{Type: EvEventBatch, Args: []uint64{num, 1, 100, 0}},
		{Type: EvStrings},
		{Type: EvString, Args: []uint64{1}, Data: []byte("main.main")},
		{Type: EvEventBatch, Args: []uint64{num, 1, 100, 0}},
		{Type: EvStacks},
		{Type: EvStack, Args: []uint64{1, 1, 0x1000, 1, 1, 10}},
		{Type: EvEventBatch, Args: []uint64{num, 1, 100, 0}},
	}
	evs = append(evs, body...)
	return append(evs, &Event{Type: EvEndOfGeneration})
}

// TestValidateLocal checks the refusals the Writer makes itself, each at
// the event that breaks the trace.
func TestValidateLocal(t *testing.T) {
	ev := func(typ EventType, args ...uint64) *Event { return &Event{Type: typ, Args: args} }
	str := func(id uint64, s string) *Event { return &Event{Type: EvString, Args: []uint64{id}, Data: []byte(s)} }
	bat := func(gen uint64) *Event { return ev(EvEventBatch, gen, 1, 100, 0) }
	for _, tc := range []struct {
		name string
		v    Version
		evs  []*Event
		want string // in the refusal; "" for none
	}{
		{"valid", Go126, gen26(1, ev(EvGoLabel, 1, 1)), ""},
		{"two generations", Go126, append(gen26(1), gen26(2)...), ""},
		{"GoStart in strings", Go126, []*Event{bat(1), ev(EvStrings), ev(EvGoStart, 1, 1, 1)}, "GoStart in a batch of String events"},
		{"String in events", Go126, []*Event{bat(1), ev(EvProcStop, 1), str(5, "x")}, "String in a batch of timed events"},
		{"Strings second", Go126, []*Event{bat(1), ev(EvProcStop, 1), ev(EvStrings)}, "Strings in a batch of timed events"},
		{"Stack in strings", Go126, []*Event{bat(1), ev(EvStrings), ev(EvStack, 1, 0)}, "Stack in a batch of String events"},
		{"duplicate string", Go126, []*Event{bat(1), ev(EvStrings), str(3, "a"), bat(1), ev(EvStrings), str(3, "b")}, "String id 3 is defined twice"},
		{"string 0", Go126, []*Event{bat(1), ev(EvStrings), str(0, "a")}, "String id 0 is defined twice"},
		{"duplicate stack", Go126, []*Event{bat(1), ev(EvStacks), ev(EvStack, 2, 0), ev(EvStack, 2, 0)}, "Stack id 2 is defined twice"},
		{"long string", Go126, []*Event{bat(1), ev(EvStrings), str(1, strings.Repeat("x", 1025))}, "over Go's 1024"},
		{"deep stack", Go126, []*Event{bat(1), ev(EvStacks), ev(EvStack, append([]uint64{1, 129}, make([]uint64, 4*129)...)...)}, "over Go's 128"},
		{"undefined string", Go126, gen26(1, ev(EvGoLabel, 1, 9)), "GoLabel uses string 9, which generation 1 does not define"},
		{"undefined stack", Go126, gen26(1, ev(EvGoStop, 1, 0, 7)), "GoStop uses stack 7, which generation 1 does not define"},
		{"undefined frame string", Go126, gen26(1, bat(1), ev(EvStacks), ev(EvStack, 4, 1, 0x10, 1, 8, 1)), "Stack uses string 8"},
		{"string of the generation before", Go126, append(gen26(1), bat(2), ev(EvGoLabel, 1, 1)), "GoLabel uses string 1, which generation 2 does not define"},
		{"two frequencies", Go126, []*Event{bat(1), ev(EvSync), ev(EvFrequency, 1), ev(EvFrequency, 1)}, "a second Frequency"},
		{"GoStart in sync", Go126, []*Event{bat(1), ev(EvSync), ev(EvGoStart, 1, 1, 1)}, "GoStart in a sync batch"},
		{"two frequencies 1.23", Go123, []*Event{bat(1), ev(EvFrequency, 1), bat(1), ev(EvFrequency, 1)}, "a second Frequency"},
		{"generation 0", Go126, []*Event{bat(0)}, "generation 0"},
		{"EndOfGeneration alone", Go126, []*Event{ev(EvEndOfGeneration), ev(EvEndOfGeneration)}, ""},
		{"generations out of order", Go123, []*Event{bat(1), ev(EvFrequency, 1), bat(3)}, "generation 3 after generation 1"},
	} {
		for _, text := range []bool{false, true} {
			_, err := writeAll(t, tc.v, tc.evs, &recorder{}, text)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s (text %v): %v", tc.name, text, err)
			case tc.want != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(fmt.Sprint(err), tc.want)):
				t.Errorf("%s (text %v): %v, want ErrInvalid saying %q", tc.name, text, err, tc.want)
			}
		}
	}
}

// TestRefusalKeepsBatches refuses an event in the middle of a trace
// written without a Validator: the batches before it are written, and
// the open batch's events before it, with the size they make.
func TestRefusalKeepsBatches(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/gcgens.trace")
	v, evs := readEvents(t, data)
	bad := &Event{Type: EvProcStop, Args: []uint64{1, 2}} // one argument too many
	for _, text := range []bool{false, true} {
		for _, at := range []int{1, len(evs) / 3, len(evs) - 1} {
			var refused bytes.Buffer
			w := newEventWriter(t, &refused, Header{Version: v}, text)
			for _, e := range evs[:at] {
				if err := w.Write(e); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Write(bad); !errors.Is(err, ErrInvalid) {
				t.Fatalf("bad event: %v", err)
			}
			if err := w.Close(); !errors.Is(err, ErrInvalid) {
				t.Errorf("Close: %v", err)
			}
			var want bytes.Buffer
			w = newEventWriter(t, &want, Header{Version: v}, text)
			for _, e := range evs[:at] {
				w.Write(e)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(refused.Bytes(), want.Bytes()) {
				t.Errorf("refused after %d events (text %v): %d bytes written, want the %d of the events before", at, text, refused.Len(), want.Len())
			}
		}
	}
}

// TestValidateFlush: Flush writes the generations accepted, not the one
// held.
func TestValidateFlush(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/gcgens.trace")
	v, evs := readEvents(t, data)
	gens := generations(evs)
	var b bytes.Buffer
	w, err := NewWriter(&b, Header{Version: v})
	if err != nil {
		t.Fatal(err)
	}
	w.Validate = &recorder{}
	held := append(append([]*Event(nil), gens[0]...), gens[1][:len(gens[1])/2]...)
	for _, e := range held {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want, err := writeAll(t, v, gens[0], nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("Flush in generation 2 wrote %d bytes, want generation 1's %d", b.Len(), len(want))
	}
}

// TestValidateReset reuses validating writers for several traces, a
// refused one among them: Reset starts each afresh.
func TestValidateReset(t *testing.T) {
	var wb, tb bytes.Buffer
	w, tw := new(Writer), new(TextWriter)
	for i, name := range []string{"gcgens", "go122-basic", "gcgens", "allocfree"} {
		data := testutil.ReadFile(t, "testdata/"+name+".trace")
		v, evs := readEvents(t, data)
		wb.Reset()
		tb.Reset()
		if err := w.Reset(&wb, Header{Version: v}); err != nil {
			t.Fatal(err)
		}
		if err := tw.Reset(&tb, Header{Version: v}); err != nil {
			t.Fatal(err)
		}
		refuse := map[int]bool{}
		if i == 2 {
			refuse[2] = true // the third trace stops after its first generation
		}
		w.Validate, tw.Validate = &recorder{refuse: refuse}, &recorder{refuse: refuse}
		for _, e := range evs {
			if w.Write(e) != nil || tw.Write(e) != nil {
				break
			}
		}
		werr, terr := w.Close(), tw.Close()
		if (werr != nil) != (i == 2) || (terr != nil) != (i == 2) {
			t.Errorf("%s: Close: %v, %v", name, werr, terr)
		}
		want := data
		if i == 2 {
			want, _ = writeAll(t, v, generations(evs)[0], nil, false)
		}
		wantText, err := toText(want)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(wb.Bytes(), want) || !bytes.Equal(tb.Bytes(), wantText) {
			t.Errorf("%s after Reset: %d bytes and %d of text, want %d and %d", name, wb.Len(), tb.Len(), len(want), len(wantText))
		}
	}
}
