package cbf

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestWriterRefusalKeepsRecords checks that a refused record, whole or
// frame by frame, drops only itself: Flush and Close still write every
// record finished before it, and return the refusal.
func TestWriterRefusalKeepsRecords(t *testing.T) {
	good := []Record{
		{Word: Word64, Frames: []Frame{{Kind: RA, Addr: 0x401379}, {Kind: RA, Addr: 0x401247}}},
		{Word: Word32, Frames: []Frame{{Kind: PC, Addr: 0x10}, {Kind: Truncated}}, Offset: 9},
	}
	bad := Record{Word: Word16, Frames: []Frame{{Kind: PC, Addr: 0x10}, {Kind: PC, Addr: 0x10000}}}
	for _, byFrame := range []bool{false, true} {
		var buf bytes.Buffer
		z := openWriter(&buf)
		for i := range good {
			if err := z.Write(&good[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := z.Check(&bad); !errors.Is(err, ErrInvalid) {
			t.Fatalf("Check: %v", err)
		}
		var err error
		if byFrame {
			if err = z.Begin(bad.Word); err != nil {
				t.Fatal(err)
			}
			if err = z.WriteFrame(bad.Frames[0]); err != nil {
				t.Fatal(err)
			}
			err = z.WriteFrame(bad.Frames[1])
		} else {
			err = z.Write(&bad)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("frame by frame %v: %v", byFrame, err)
		}
		if err2 := z.Write(&good[0]); err2 != err {
			t.Errorf("Write after the refusal: %v", err2)
		}
		if err2 := z.Flush(); err2 != err {
			t.Errorf("Flush: %v, want the refusal", err2)
		}
		if err2 := z.Close(); err2 != err {
			t.Errorf("Close: %v, want the refusal", err2)
		}
		back, err := readAll(buf.Bytes(), nil)
		if err != nil {
			t.Fatalf("frame by frame %v: reading back: %v", byFrame, err)
		}
		testutil.Diff(t, "records read back", good, back)
	}
}

// TestWriterRefusesLongRecords checks that a record a Reader would not
// collect whole with its default limit is refused at once, however it is
// made: a Repeat of 2^63-1 copies (2^43 rep instructions), or more
// frames than DefaultMaxFrames.
func TestWriterRefusesLongRecords(t *testing.T) {
	pc := Frame{Kind: PC, Addr: 1}
	many := make([]Frame, DefaultMaxFrames+1)
	for i := range many {
		many[i] = Frame{Kind: PC, Addr: uint64(i & 1)}
	}
	for name, fs := range map[string][]Frame{
		"repeat 2^63-1":               {pc, {Kind: Repeat, Count: math.MaxInt64}},
		"repeats adding up to 2^63-1": {pc, {Kind: Repeat, Count: math.MaxInt64 - 1}, pc},
		"2^21+1 frames":               many,
	} {
		dst := []byte{0xaa}
		out, err := Append(dst, Word64, fs)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
		if !bytes.Equal(out, dst) {
			t.Errorf("%s: Append left % x", name, out[:min(len(out), 16)])
		}
	}
	// As many frames as a Reader collects is taken, and read back.
	fs := many[:DefaultMaxFrames]
	data, err := Append(nil, Word64, fs)
	if err != nil {
		t.Fatal(err)
	}
	back, err := readAll(data, nil)
	if err != nil || len(back) != 1 || len(back[0].Frames) != DefaultMaxFrames {
		t.Fatalf("%d frames: read back %d records, %v", len(fs), len(back), err)
	}
}

// TestWriterRecordLeftOpen checks that Begin, Write or Check while a
// record begun frame by frame is not ended is refused saying so (it said
// "no open record"), and that the refusal drops the open record only.
func TestWriterRecordLeftOpen(t *testing.T) {
	done := Record{Word: Word64, Frames: []Frame{{Kind: PC, Addr: 1}}}
	for _, next := range []string{"Begin", "Write", "Check"} {
		var buf bytes.Buffer
		z := openWriter(&buf)
		if err := z.Write(&done); err != nil {
			t.Fatal(err)
		}
		if err := z.Begin(Word64); err != nil {
			t.Fatal(err)
		}
		if err := z.WriteFrame(Frame{Kind: PC, Addr: 2}); err != nil {
			t.Fatal(err)
		}
		var err error
		switch next {
		case "Begin":
			err = z.Begin(Word32)
		case "Write":
			err = z.Write(&done)
		case "Check":
			err = z.Check(&done)
		}
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "a record begun is not ended") {
			t.Errorf("%s while a record is open: %v", next, err)
		}
		if next == "Check" {
			continue // changes nothing
		}
		z.Close()
		back, err := readAll(buf.Bytes(), nil)
		if err != nil {
			t.Fatal(err)
		}
		testutil.Diff(t, next+": records read back", []Record{done}, back)
	}
}
