package apitrace

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestFastPathCountsPerCall reads many small calls the fast way: the
// count of values the MaxValues limit checks starts again at each call,
// so that it never adds up over the trace.
func TestFastPathCountsPerCall(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	sig := &FunctionSig{ID: 0, Name: "f", ArgNames: []string{"x"}}
	const calls = 1000
	for i := range uint64(calls) {
		if err := w.Write(&Event{Kind: Enter, Call: i, Sig: sig, Args: []Arg{{Value: Uint(i)}}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Event{Kind: Leave, Call: i, Ret: Uint(1)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cr, err := NewCallReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for call, err := range cr.All() {
		if err != nil {
			t.Fatal(err)
		}
		// The argument and the return value; the general path counts
		// one event at a time, fewer.
		if cr.r.values > 2 {
			t.Fatalf("call %d: %d values counted", call.No, cr.r.values)
		}
		n++
	}
	if n != calls {
		t.Fatalf("%d calls, want %d", n, calls)
	}
}

// TestSeekForgetsCutEvent seeks back after a read that stopped inside a
// long string cut short: what the Reader waited for of that event is not
// waited for at the new place.
func TestSeekForgetsCutEvent(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	sig := &FunctionSig{ID: 0, Name: "f", ArgNames: []string{"s"}}
	long := bytes.Repeat([]byte("x"), 200<<10)
	for i := range uint64(2) {
		if err := w.Write(&Event{Kind: Enter, Call: i, Sig: sig, Args: []Arg{{Value: String(long)}}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Event{Kind: Leave, Call: i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Cut inside the second call's string: snappy decodes the chunk as
	// far as its complete elements go.
	data := buf.Bytes()[:buf.Len()-1000]
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	start, ok := r.Position()
	if !ok {
		t.Fatal("no position")
	}
	for {
		if _, err = r.Read(); err != nil {
			break
		}
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%v, want a cut", err)
	}
	if err := r.Seek(start); err != nil {
		t.Fatal(err)
	}
	if r.need != 0 {
		t.Fatalf("after Seek, %d bytes still waited for", r.need)
	}
	if ev, err := r.Read(); err != nil || len(ev.Args) != 1 || len(ev.Args[0].Value.Bytes()) != len(long) {
		t.Fatalf("after Seek: %v", err)
	}
}
