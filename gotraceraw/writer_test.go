package gotraceraw

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

var h26 = Header{Version: Go126}

func batch(size uint64) *Event { return &Event{Type: EvEventBatch, Args: []uint64{1, 2, 3, size}} }

func TestWriterRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Version
		e    Event
		want error
	}{
		{"version", Go126, Event{Version: Go125, Type: EvProcStop, Args: []uint64{1}}, ErrInvalid},
		{"type 0", Go126, Event{Type: EvNone}, ErrEventType},
		{"type 60", Go126, Event{Type: 60}, ErrEventType},
		{"Sync in 1.23", Go123, Event{Type: EvSync}, ErrEventType},
		{"too few args", Go126, Event{Type: EvGoStart, Args: []uint64{1, 2}}, ErrInvalid},
		{"too many args", Go126, Event{Type: EvProcStop, Args: []uint64{1, 2}}, ErrInvalid},
		{"frames and nframes", Go126, Event{Type: EvStack, Args: []uint64{1, 2, 1, 2, 3, 4}}, ErrInvalid},
		{"half a frame", Go126, Event{Type: EvStack, Args: []uint64{1, 1, 1, 2}}, ErrInvalid},
		{"no nframes", Go126, Event{Type: EvStack, Args: []uint64{1}}, ErrInvalid},
		{"data on ProcStop", Go126, Event{Type: EvProcStop, Args: []uint64{1}, Data: []byte{}}, ErrInvalid},
		{"widths count", Go126, Event{Type: EvProcStop, Args: []uint64{1}, Widths: []uint8{1, 1}}, ErrInvalid},
		{"width too small", Go126, Event{Type: EvProcStop, Args: []uint64{300}, Widths: []uint8{1}}, ErrInvalid},
		{"width too large", Go126, Event{Type: EvProcStop, Args: []uint64{1}, Widths: []uint8{11}}, ErrInvalid},
		{"data width", Go126, Event{Type: EvString, Args: []uint64{1}, Data: make([]byte, 200), Widths: []uint8{1, 1}}, ErrInvalid},
		{"exp over a byte", Go126, Event{Type: EvExperimentalBatch, Args: []uint64{200, 1, 2, 3}}, ErrInvalid},
		{"exp padded", Go126, Event{Type: EvExperimentalBatch, Args: []uint64{1, 1, 2, 3}, Widths: []uint8{2, 1, 1, 1, 1}}, ErrInvalid},
		{"experimental batch over 64 KiB", Go126, Event{Type: EvExperimentalBatch, Args: []uint64{1, 1, 2, 3}, Data: make([]byte, MaxBatchSize+1)}, ErrInvalid},
	} {
		for _, text := range []bool{false, true} {
			var b bytes.Buffer
			w := newEventWriter(t, &b, Header{Version: tc.v}, text)
			if err := w.Write(batch(0)); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(&tc.e); !errors.Is(err, tc.want) || !errors.Is(err, ErrInvalid) {
				t.Errorf("%s (text %v): %v, want %v and ErrInvalid", tc.name, text, err, tc.want)
			} else if strings.Count(err.Error(), "gotraceraw") != 1 {
				t.Errorf("%s: %q names the package more than once", tc.name, err)
			}
			// Sticky, as every error: the writer refuses what follows too.
			if err := w.Write(&Event{Type: EvProcStop, Args: []uint64{1}}); !errors.Is(err, tc.want) {
				t.Errorf("%s: after a refusal: %v, want the refusal again", tc.name, err)
			}
			if err := w.Close(); !errors.Is(err, tc.want) {
				t.Errorf("%s: Close after a refusal: %v, want the refusal", tc.name, err)
			}
		}
	}
	if _, err := NewWriter(io.Discard, Header{Version: 24}); !errors.Is(err, ErrVersion) {
		t.Errorf("NewWriter(Go1.24): %v", err)
	}
}

type eventWriter interface {
	Write(*Event) error
	Flush() error
	Close() error
}

func newEventWriter(t *testing.T, w io.Writer, h Header, text bool) eventWriter {
	t.Helper()
	if text {
		tw, err := NewTextWriter(w, h)
		if err != nil {
			t.Fatal(err)
		}
		return tw
	}
	ww, err := NewWriter(w, h)
	if err != nil {
		t.Fatal(err)
	}
	return ww
}

// TestOutsideBatch refuses events Go's parser would take for a batch
// header, and a batch over MaxBatchSize.
func TestOutsideBatch(t *testing.T) {
	for _, text := range []bool{false, true} {
		// Each refusal sticks, so each case starts a writer of its own.
		for _, tc := range []struct {
			name   string
			before []*Event
			e      *Event
		}{
			{"event before any batch", nil, &Event{Type: EvProcStop, Args: []uint64{1}}},
			{"event after EndOfGeneration", []*Event{batch(0), {Type: EvEndOfGeneration}}, &Event{Type: EvStrings}},
			{"event after ExperimentalBatch", []*Event{{Type: EvExperimentalBatch, Args: []uint64{1, 1, 2, 3}, Data: []byte("x")}}, &Event{Type: EvStrings}},
		} {
			w := newEventWriter(t, io.Discard, h26, text)
			for _, e := range tc.before {
				if err := w.Write(e); err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
			}
			if err := w.Write(tc.e); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s (text %v): %v", tc.name, text, err)
			}
		}
		// A batch over 64 KiB, of events with data and of events of
		// plain arguments (1 + 4*9 bytes on the wire).
		big := uint64(1) << 62
		for _, tc := range []struct {
			e       *Event
			wireLen int
		}{
			{&Event{Type: EvString, Args: []uint64{1}, Data: make([]byte, 1000)}, 1004},
			{&Event{Type: EvGoUnblock, Args: []uint64{big, big, big, big}}, 37},
		} {
			w := newEventWriter(t, io.Discard, h26, text)
			w.Write(batch(0))
			n := 0
			var err error
			for ; err == nil && n <= MaxBatchSize; n++ {
				err = w.Write(tc.e)
			}
			if !errors.Is(err, ErrInvalid) || n != MaxBatchSize/tc.wireLen+1 {
				t.Errorf("batch of %v over 64 KiB (text %v): %v after %d events", tc.e.Type, text, err, n)
			}
			if err := w.Close(); !errors.Is(err, ErrInvalid) {
				t.Errorf("Close after the refusal: %v", err)
			}
		}
	}
}

// batchSizes reads a binary trace and returns, per EventBatch, the size
// it claims and the bytes of the events after it up to the next batch
// (from the reader's offsets, not from any size).
func batchSizes(t *testing.T, data []byte) (claimed, actual []uint64) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var bodyStart int64 = -1
	end := func(off int64) {
		if bodyStart >= 0 {
			actual = append(actual, uint64(off-bodyStart))
		}
		bodyStart = -1
	}
	for {
		off := r.Offset()
		e, err := r.Read()
		if err == io.EOF {
			end(off)
			return claimed, actual
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case EvEventBatch:
			end(off)
			claimed = append(claimed, e.Args[3])
			bodyStart = r.Offset()
		case EvExperimentalBatch, EvEndOfGeneration:
			end(off)
		}
	}
}

// TestDropKeepsSizes drops, adds and widens events of real traces: every
// batch size written is the length of what follows it, in both forms.
func TestDropKeepsSizes(t *testing.T) {
	for _, name := range []string{"annotations", "go122-annotations", "allocfree", "stacks"} {
		data := testutil.ReadFile(t, "testdata/"+name+".trace")
		claimed, actual := batchSizes(t, data)
		testutil.Diff(t, name+": sizes of the runtime's trace", actual, claimed)
		h, evs := readEvents(t, data)
		edits := map[string]func(e *Event) []*Event{
			"drop every third body event": func() func(e *Event) []*Event {
				i := 0
				return func(e *Event) []*Event {
					if e.Type == EvEventBatch || e.Type == EvExperimentalBatch || e.Type == EvEndOfGeneration {
						return []*Event{e}
					}
					if i++; i%3 == 0 {
						return nil
					}
					return []*Event{e}
				}
			}(),
			"drop UserLog and GoStart": func(e *Event) []*Event {
				if e.Type == EvUserLog || e.Type == EvGoStart {
					return nil
				}
				return []*Event{e}
			},
			"double every String, minimal widths": func(e *Event) []*Event {
				c := e.Clone()
				c.Widths = nil
				if e.Type == EvString {
					return []*Event{c, c}
				}
				return []*Event{c}
			},
			"batch sizes of one byte given": func(e *Event) []*Event {
				if e.Type == EvEventBatch {
					c := e.Clone()
					c.Args[3], c.Widths = 0, []uint8{1, 1, 1, 1}
					for i := range c.Widths {
						c.Widths[i] = uint8(len(binaryUvarint(c.Args[i])))
					}
					return []*Event{c}
				}
				return []*Event{e}
			},
		}
		for ename, edit := range edits {
			for _, pad := range []bool{false, true} {
				var wire, text bytes.Buffer
				w, _ := NewWriter(&wire, Header{Version: h})
				w.PadBatchLengths = pad
				tw, _ := NewTextWriter(&text, Header{Version: h})
				for _, e := range evs {
					for _, e2 := range edit(e) {
						if err := w.Write(e2); err != nil {
							t.Fatalf("%s: %s: %v", name, ename, err)
						}
						if err := tw.Write(e2); err != nil {
							t.Fatalf("%s: %s: text: %v", name, ename, err)
						}
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if err := tw.Close(); err != nil {
					t.Fatal(err)
				}
				claimed, actual := batchSizes(t, wire.Bytes())
				testutil.Diff(t, name+": "+ename+": batch sizes", actual, claimed)
				if pad {
					continue
				}
				// The text writer prints the sizes the Writer writes.
				wantText, err := toText(wire.Bytes())
				if err != nil {
					t.Fatal(err)
				}
				testutil.DiffText(t, name+": "+ename+": text", wantText, text.Bytes())
			}
		}
	}
}

// binaryUvarint is the minimal encoding of v, from encoding/binary's
// rules (seven bits a byte, low first), for the tests' own expectations.
func binaryUvarint(v uint64) []byte {
	var b []byte
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func TestPadBatchLengths(t *testing.T) {
	evs := []*Event{
		{Type: EvEventBatch, Args: []uint64{1, 2, 3, 4}},
		{Type: EvProcStop, Args: []uint64{5}},
		{Type: EvExperimentalBatch, Args: []uint64{1, 2, 3, 4}, Data: []byte("ab")},
	}
	want := cat(header(26),
		[]byte{byte(EvEventBatch), 1, 2, 3, 0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
		[]byte{byte(EvProcStop), 5},
		[]byte{byte(EvExperimentalBatch), 1, 2, 3, 4, 0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 'a', 'b'})
	var b bytes.Buffer
	w, _ := NewWriter(&b, h26)
	w.PadBatchLengths = true
	for _, e := range evs {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("got % x\nwant % x", b.Bytes(), want)
	}
}

// TestFlushHoldsBatch: Flush writes complete batches only; Close the rest.
func TestFlushHoldsBatch(t *testing.T) {
	for _, text := range []bool{false, true} {
		var b bytes.Buffer
		w := newEventWriter(t, &b, h26, text)
		w.Write(batch(0))
		w.Write(&Event{Type: EvProcStop, Args: []uint64{1}})
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		head := b.Len()
		w.Write(batch(0))
		w.Flush()
		mid := b.Len()
		w.Write(&Event{Type: EvProcStop, Args: []uint64{1}})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if head != len(header(26)) && head != len("Trace Go1.26\n") || mid <= head || b.Len() <= mid {
			t.Errorf("text %v: written %d after the first Flush, %d after the second, %d after Close", text, head, mid, b.Len())
		}
		if err := w.Write(batch(0)); err != ErrClosed {
			t.Errorf("Write after Close: %v", err)
		}
		end := b.Len()
		if err := w.Close(); err != nil {
			t.Errorf("Close after Close: %v", err)
		}
		if b.Len() != end {
			t.Errorf("text %v: Close after Close wrote %d bytes more", text, b.Len()-end)
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriterSticky(t *testing.T) {
	fw := &failWriter{}
	w, _ := NewWriter(fw, h26)
	if err := w.Flush(); err == nil {
		t.Fatal("no error")
	}
	if err := w.Write(batch(0)); err == nil || fw.n != 1 {
		t.Errorf("after a failure: %v, %d writes", err, fw.n)
	}
	if err := w.Close(); err == nil || fw.n != 1 {
		t.Errorf("Close after a failure: %v, %d writes", err, fw.n)
	}
	if err := w.Reset(io.Discard, h26); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(batch(0)); err != nil {
		t.Errorf("after Reset: %v", err)
	}
}

// TestZeroValues calls every method of every exported type's zero value.
func TestZeroValues(t *testing.T) {
	for _, v := range []any{new(Reader), new(TextReader), new(Writer), new(TextWriter), new(Event), new(Header), new(Version), new(EventType), new(Experiment)} {
		testutil.CheckZeroValue(t, v)
	}
	testutil.CheckZeroValue(t, new(FormatError), "Unwrap")
	testutil.CheckZeroValue(t, new(SyntaxError), "Unwrap")
	var r Reader
	if _, err := r.Read(); err != ErrNotOpen {
		t.Errorf("zero Reader: %v", err)
	}
	var tr TextReader
	if _, err := tr.Read(); err != ErrNotOpen {
		t.Errorf("zero TextReader: %v", err)
	}
	var w Writer
	if err := w.Write(batch(0)); err != ErrNotOpen {
		t.Errorf("zero Writer: %v", err)
	}
	var tw TextWriter
	if err := tw.Close(); err != ErrNotOpen {
		t.Errorf("zero TextWriter: %v", err)
	}
	if err := (&FormatError{Offset: 5, Err: ErrHeader}).Error(); err != "gotraceraw: offset 5: not a Go execution trace header" {
		t.Errorf("FormatError: %q", err)
	}
}

// TestNilArguments calls every exported function and method with nil and
// zero arguments: none panics, those given a nil pointer or interface
// return an error, and Clone of a nil Event is nil.
func TestNilArguments(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/basic.trace")
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(io.Discard, r.Header())
	if err != nil {
		t.Fatal(err)
	}
	tw, err := NewTextWriter(io.Discard, r.Header())
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckNilArgs(t, testutil.API{
		Funcs: map[string]any{
			"NewReader": NewReader, "NewTextReader": NewTextReader,
			"NewTextWriter": NewTextWriter, "NewWriter": NewWriter,
		},
		Types: []any{
			new(Event), new(EventType), new(Experiment), new(FormatError), new(Header),
			new(Reader), new(Spec), new(SyntaxError), new(TextReader), new(TextWriter),
			new(Batch), new(Validator), new(Version), new(Writer),
		},
		Open:     []any{r, w, tw},
		AllowNil: []string{"FormatError.Unwrap", "SyntaxError.Unwrap"},
	})
	if (*Event)(nil).Clone() != nil {
		t.Error("Clone of a nil *Event is not nil")
	}
}
