package gotraceraw

import (
	"bytes"
	"errors"
	"testing"
)

func TestWriterRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Version
		e    Event
		want error
	}{
		{"version", Go126, Event{Version: Go125, Type: EvProcStop, Args: []uint64{1}}, ErrEvent},
		{"type 0", Go126, Event{Type: EvNone}, ErrEventType},
		{"type 60", Go126, Event{Type: 60}, ErrEventType},
		{"Sync in 1.23", Go123, Event{Type: EvSync}, ErrEventType},
		{"too few args", Go126, Event{Type: EvGoStart, Args: []uint64{1, 2}}, ErrEvent},
		{"too many args", Go126, Event{Type: EvProcStop, Args: []uint64{1, 2}}, ErrEvent},
		{"frames and nframes", Go126, Event{Type: EvStack, Args: []uint64{1, 2, 1, 2, 3, 4}}, ErrEvent},
		{"half a frame", Go126, Event{Type: EvStack, Args: []uint64{1, 1, 1, 2}}, ErrEvent},
		{"no nframes", Go126, Event{Type: EvStack, Args: []uint64{1}}, ErrEvent},
		{"data on ProcStop", Go126, Event{Type: EvProcStop, Args: []uint64{1}, Data: []byte{}}, ErrEvent},
		{"widths count", Go126, Event{Type: EvProcStop, Args: []uint64{1}, Widths: []uint8{1, 1}}, ErrEvent},
		{"width too small", Go126, Event{Type: EvProcStop, Args: []uint64{300}, Widths: []uint8{1}}, ErrEvent},
		{"width too large", Go126, Event{Type: EvProcStop, Args: []uint64{1}, Widths: []uint8{11}}, ErrEvent},
		{"data width", Go126, Event{Type: EvString, Args: []uint64{1}, Data: make([]byte, 200), Widths: []uint8{1, 1}}, ErrEvent},
	} {
		var b bytes.Buffer
		w, _ := NewWriter(&b, tc.v)
		tw, _ := NewTextWriter(&b, tc.v)
		if err := w.Write(&tc.e); !errors.Is(err, tc.want) {
			t.Errorf("%s: Writer: %v, want %v", tc.name, err, tc.want)
		}
		if err := tw.Write(&tc.e); !errors.Is(err, tc.want) && tc.e.Widths == nil {
			t.Errorf("%s: TextWriter: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := NewWriter(nil, 24); !errors.Is(err, ErrVersion) {
		t.Errorf("NewWriter(Go1.24): %v", err)
	}
}

func TestPadBatchLengths(t *testing.T) {
	evs := []*Event{
		{Type: EvEventBatch, Args: []uint64{1, 2, 3, 4}},
		{Type: EvExperimentalBatch, Args: []uint64{1, 2, 3, 4}, Data: []byte("ab")},
	}
	want := cat(header(26),
		[]byte{byte(EvEventBatch), 1, 2, 3, 0x84, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
		[]byte{byte(EvExperimentalBatch), 1, 2, 3, 4, 0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 'a', 'b'})
	var b bytes.Buffer
	w, _ := NewWriter(&b, Go126)
	w.PadBatchLengths = true
	for _, e := range evs {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("got % x\nwant % x", b.Bytes(), want)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriterSticky(t *testing.T) {
	fw := &failWriter{}
	w, _ := NewWriter(fw, Go126)
	if err := w.Flush(); err == nil {
		t.Fatal("no error")
	}
	if err := w.Write(&Event{Type: EvProcStop, Args: []uint64{1}}); err == nil || fw.n != 1 {
		t.Errorf("after a failure: %v, %d writes", err, fw.n)
	}
}
