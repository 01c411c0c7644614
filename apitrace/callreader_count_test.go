package apitrace

import (
	"bytes"
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
		if err := w.Write(&Event{Kind: Enter, Call: i, Sig: sig, Args: []Arg{{Value: Value{Kind: KindUInt, Bits: i}}}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Event{Kind: Leave, Call: i, Ret: Value{Kind: KindUInt, Bits: 1}}); err != nil {
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
