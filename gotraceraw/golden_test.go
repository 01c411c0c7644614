package gotraceraw

import (
	"bytes"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestGolden checks every committed fixture against the text Go's
// toolchain printed for it, and the byte-exact round trips.
func TestGolden(t *testing.T) { testFixtures(t, fixtures(t, false)) }

// TestGoldenShared does the same for every fixture of the shared tree.
func TestGoldenShared(t *testing.T) { testFixtures(t, fixtures(t, true)) }

func testFixtures(t *testing.T, fs []fixture) {
	for _, f := range fs {
		t.Run(f.name, func(t *testing.T) {
			data := testutil.ReadFile(t, f.trace)
			want := testutil.ReadFile(t, f.txt)

			got, err := toText(data)
			if err != nil {
				t.Fatalf("wire to text: %v", err)
			}
			testutil.DiffText(t, "text of "+f.name, want, got)

			back, err := wireToWire(data)
			if err != nil {
				t.Fatalf("wire to wire: %v", err)
			}
			if !bytes.Equal(back, data) {
				t.Errorf("wire round trip differs: %d bytes, want %d", len(back), len(data))
			}

			padded, err := toWire(want, true)
			if err != nil {
				t.Fatalf("text to wire: %v", err)
			}
			if !bytes.Equal(padded, data) {
				t.Errorf("text to wire with PadBatchLengths differs from the runtime's bytes: %d bytes, want %d", len(padded), len(data))
			}

			canonical, err := toWire(want, false)
			if err != nil {
				t.Fatalf("text to wire: %v", err)
			}
			again, err := toText(canonical)
			if err != nil {
				t.Fatalf("canonical wire to text: %v", err)
			}
			testutil.DiffText(t, "text to wire to text", want, again)

			same, err := textToText(want)
			if err != nil {
				t.Fatalf("text to text: %v", err)
			}
			testutil.DiffText(t, "text to text", want, same)

			// Both readers see the same events.
			v1, fromWire := readEvents(t, data)
			v2, fromText := readTextEvents(t, want)
			if v1 != v2 || len(fromWire) != len(fromText) {
				t.Fatalf("wire: %v, %d events; text: %v, %d events", v1, len(fromWire), v2, len(fromText))
			}
			for i := range fromWire {
				fromWire[i].Widths = nil // the text form has no widths
			}
			testutil.Diff(t, "events of wire and text", fromText, fromWire)
		})
	}
}
