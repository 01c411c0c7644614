package apitrace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
)

// synthetic writes a trace whose calls use every value kind, repeated, in
// several 1 MiB chunks, and returns it.
func synthetic(t testing.TB, calls int) []byte {
	en := &EnumSig{ID: 3, Values: []EnumValue{{"A", 0}, {"B", -5}}}
	bm := &BitmaskSig{ID: 4, Flags: []BitmaskFlag{{"X", 1}, {"Y", 2}}}
	st := &StructSig{ID: 5, Name: "S", Members: []string{"x", "y"}}
	fr := &Frame{ID: 0, Has: HasModule | HasOffset, Module: "/lib/x.so", Offset: 0x1234}
	sig := &FunctionSig{ID: 9, Name: "glDrawThings", ArgNames: []string{"a", "b", "c", "d"}}
	swap := &FunctionSig{ID: 10, Name: "glXSwapBuffers", ArgNames: []string{"dpy", "drawable"}}
	blob := bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7}, 300)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < calls; i++ {
		arr := Array(Float32(1), Float32(2), Struct(st, Int(-1), Blob(blob[:i%2000])))
		ev := Event{Kind: Enter, Call: uint64(3 * i), Thread: uint64(i % 2), Sig: sig, Args: []Arg{
			{0, arr}, {1, Enum(en, int64(i%2))},
			{2, String([]byte("some string"))}, {3, Repr(Uint(1), Pointer(2))},
		}}
		if i%3 == 0 {
			ev.Backtrace = []*Frame{fr}
		}
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Event{Kind: Leave, Call: uint64(3 * i), Ret: Bitmask(bm, 3)}); err != nil {
			t.Fatal(err)
		}
		// A frame end, and a pair of interleaved calls from two threads.
		if err := w.Write(&Event{Kind: Enter, Call: uint64(3*i + 1), Sig: swap, Args: []Arg{{0, Pointer(1)}, {1, Uint(2)}}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Event{Kind: Enter, Call: uint64(3*i + 2), Thread: 1, Sig: sig}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Event{Kind: Leave, Call: uint64(3*i + 1)}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Event{Kind: Leave, Call: uint64(3*i + 2), Args: []Arg{{2, WString(Uint('a'))}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAllocs proves that reading calls and events allocates nothing in the
// steady state, across chunk boundaries, with interleaved threads, blobs
// spanning chunks, backtraces and every value kind.
func TestAllocs(t *testing.T) {
	data := synthetic(t, 3000)
	if n := bytes.Count(data, nil); n < 3<<20 {
		// more than two chunks of stream: ensure refills happen
		_ = n
	}
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// Warm up: define every signature, grow every buffer.
	for i := 0; i < 3000; i++ {
		if _, err := cr.Read(); err != nil {
			t.Fatal(err)
		}
	}
	calls := 0
	allocs := testing.AllocsPerRun(2000, func() {
		if _, err := cr.Read(); err != nil {
			t.Fatal(err)
		}
		calls++
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per call", allocs)
	}

	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6000; i++ {
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
	}
	if allocs := testing.AllocsPerRun(5000, func() {
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Fatalf("%v allocations per event", allocs)
	}
}

// TestAllocsReal reads the second half of a real trace's calls and checks
// the average is 0 allocations per call.
func TestAllocsReal(t *testing.T) {
	data, err := os.ReadFile("testdata/tri_glsl.trace")
	if err != nil {
		t.Fatal(err)
	}
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3000; i++ {
		if _, err := cr.Read(); err != nil {
			t.Fatal(err)
		}
	}
	if allocs := testing.AllocsPerRun(3000, func() {
		if _, err := cr.Read(); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Fatalf("%v allocations per call", allocs)
	}
}

func TestSyntheticCalls(t *testing.T) {
	data := synthetic(t, 500)
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	n, frames := 0, 0
	for c, err := range cr.All() {
		if err != nil {
			t.Fatal(err)
		}
		if c.Incomplete {
			t.Fatalf("call %d incomplete", c.No)
		}
		if c.Sig.EndsFrame() {
			frames++
		}
		if c.Name() == "glDrawThings" && c.Thread == 1 && c.No%3 == 2 {
			// the interleaved call from thread 1, left last
			if c.Args[2].Kind() != KindWString {
				t.Fatalf("call %d: output arg %v", c.No, c.Args[2])
			}
		}
		n++
	}
	if n != 1500 || frames != 500 {
		t.Fatalf("%d calls, %d frames", n, frames)
	}
}

// stream6 wraps raw event bytes in a version 6 header and a snappy file.
func stream6(events ...byte) []byte {
	return container(append([]byte{6, 6, 0}, events...))
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   []byte
		want   error
		offset int64
		limit  func(*Reader)
	}{
		{"unknown event", stream6(5), ErrBadEvent, 3, nil},
		{"unknown detail", stream6(0, 0, 1, 1, 'f', 0, 6), ErrBadDetail, 9, nil},
		{"detail 0x03", stream6(0, 0, 1, 1, 'f', 0, 3, 0, 0), ErrBadDetail, 9, nil},
		{"unknown value", stream6(0, 0, 1, 1, 'f', 1, 1, 'x', 1, 0, 0x10), ErrBadValue, 13, nil},
		{"enum not int", stream6(0, 0, 1, 1, 'f', 1, 1, 'x', 1, 0, 9, 1, 1, 1, 'A', 7), ErrBadValue, 18, nil},
		{"overflow", stream6(1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), ErrOverflow, 4, nil},
		{"version", container([]byte{7}), ErrVersion, 0, nil},
		{"semantic", container([]byte{6, 7, 0}), ErrVersion, 1, nil},
		{"string limit", stream6(0, 0, 1, 9, 'f'), ErrTooLarge, 6, func(r *Reader) { r.MaxDataLen = 4 }},
		{"array limit", stream6(0, 0, 1, 1, 'f', 1, 1, 'x', 1, 0, 11, 5, 0, 0, 0, 0, 0), ErrTooLarge, 14, func(r *Reader) { r.MaxArrayLen = 4 }},
		{"depth limit", stream6(0, 0, 1, 1, 'f', 1, 1, 'x', 1, 0, 11, 1, 11, 1, 11, 1, 0), ErrTooLarge, 17, func(r *Reader) { r.MaxDepth = 2 }},
		{"count limit", stream6(0, 0, 1, 1, 'f', 9), ErrTooLarge, 8, func(r *Reader) { r.MaxEntries = 8 }},
		// Refused at the array's count, before its elements.
		{"values limit", stream6(0, 0, 1, 1, 'f', 1, 1, 'x', 1, 0, 11, 3, 0, 0, 0), ErrTooLarge, 14, func(r *Reader) { r.MaxValues = 2 }},
		{"cut", stream6(0, 0, 1, 1), io.ErrUnexpectedEOF, 7, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Reader
			if tc.limit != nil {
				tc.limit(&r)
			}
			err := r.Reset(bytes.NewReader(tc.data))
			for err == nil {
				_, err = r.Read()
			}
			var fe *FormatError
			if !errors.Is(err, tc.want) || !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FormatError wrapping %v", err, tc.want)
			}
			if fe.Offset != tc.offset || fe.Chunk != 2 {
				t.Errorf("offset %d chunk %d, want %d and 2: %v", fe.Offset, fe.Chunk, tc.offset, err)
			}
			if !strings.HasPrefix(err.Error(), "apitrace: offset ") {
				t.Errorf("message %q", err)
			}
		})
	}
}

// TestBadChunks damages the snappy container.
func TestBadChunks(t *testing.T) {
	good := synthetic(t, 50)
	bad := append([]byte(nil), good...)
	bad[7] ^= 0xff // inside the first block: corrupt or a bad preamble
	_, err := io.Copy(io.Discard, eventsReader(bad))
	if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("corrupt chunk: %v", err)
	}
	huge := append([]byte("at"), 0xff, 0xff, 0xff, 0x7f)
	if err := readAllCalls(bytes.NewReader(huge)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("huge chunk: %v", err)
	}
	// A 6-byte block announcing 60 MB: refused before room is made for it.
	liar := append([]byte("at"), 6, 0, 0, 0, 0x80, 0x80, 0x4e|0x80, 0x1c, 0, 0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := readAllCalls(bytes.NewReader(liar)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("lying preamble: %v", err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("a 12-byte file made the reader allocate %d bytes", n)
	}
	// A zero length ends the file, as in apitrace: what follows is ignored.
	zero := append(append(append([]byte(nil), good...), 0, 0, 0, 0), "garbage"...)
	if err := readAllCalls(bytes.NewReader(zero)); err != nil {
		t.Fatalf("zero length: %v", err)
	}
}

// eventsReader adapts a Reader to io.Reader for io.Copy: it returns the
// error that ends the events.
func eventsReader(data []byte) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		err := readAllCalls(bytes.NewReader(data))
		if err == nil {
			return 0, io.EOF
		}
		return 0, err
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// A leave for a call that is not pending is read and dropped, as apitrace
// does; the stream goes on.
func TestUnknownLeave(t *testing.T) {
	data := stream6(
		0, 0, 1, 1, 'f', 0, 0, // enter call 0: f()
		1, 5, 2, 4, 7, 0, // leave of call 5, never entered, returning 7
		1, 0, 2, 4, 9, 0, // leave of call 0, returning 9
	)
	cr := mustCalls(t, data)
	c, err := cr.Read()
	if err != nil || c.No != 0 || c.Name() != "f" || c.Ret.Uint() != 9 || c.Incomplete {
		t.Fatalf("%+v, %v", c, err)
	}
	if _, err := cr.Read(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

// Clone keeps a call valid after the reader has moved on.
func TestClone(t *testing.T) {
	data := synthetic(t, 20)
	cr := mustCalls(t, data)
	first, err := cr.Read()
	if err != nil {
		t.Fatal(err)
	}
	kept := first.Clone()
	want := render(kept.Args[0]) + render(kept.Args[2]) + render(kept.Ret)
	for i := 0; i < 30; i++ {
		if _, err := cr.Read(); err != nil {
			t.Fatal(err)
		}
	}
	if got := render(kept.Args[0]) + render(kept.Args[2]) + render(kept.Ret); got != want {
		t.Fatalf("clone changed:\n%s\n%s", want, got)
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	evKept := ev.Clone()
	wantEv := render(evKept.Args[0].Value)
	for i := 0; i < 30; i++ {
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
	}
	if got := render(evKept.Args[0].Value); got != wantEv || len(evKept.Backtrace) != 1 {
		t.Fatalf("event clone changed:\n%s\n%s", wantEv, got)
	}
}
