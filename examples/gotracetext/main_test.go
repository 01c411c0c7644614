package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestConvert turns a runtime-written trace into the text Go's toolchain
// printed for it, and that text back into the runtime's bytes.
func TestConvert(t *testing.T) {
	for _, name := range []string{"gotest", "go122-annotations", "allocfree"} {
		data := testutil.ReadFile(t, "../../gotraceraw/testdata/"+name+".trace")
		want := testutil.ReadFile(t, "../../gotraceraw/testdata/"+name+".txt.gz")
		var text bytes.Buffer
		if err := toText(&text, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		testutil.DiffText(t, name+" text", want, text.Bytes())
		var wire bytes.Buffer
		if err := toWire(&wire, bytes.NewReader(want), true); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(wire.Bytes(), data) {
			t.Errorf("%s: -wire gave %d bytes, want the runtime's %d", name, wire.Len(), len(data))
		}
		wire.Reset()
		if err := toWire(&wire, bytes.NewReader(want), false); err != nil {
			t.Fatal(err)
		}
		if wire.Len() >= len(data) {
			t.Errorf("%s: -canonical gave %d bytes, want fewer than %d", name, wire.Len(), len(data))
		}
	}
}

// TestCut prints the events before a cut and reports the cut.
func TestCut(t *testing.T) {
	data, err := os.ReadFile("../../gotraceraw/testdata/gotest.trace")
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	err = toText(&text, bytes.NewReader(data[:len(data)-3]))
	if !errors.Is(err, io.ErrUnexpectedEOF) || text.Len() == 0 {
		t.Errorf("cut trace: %v, %d bytes of text", err, text.Len())
	}
}
