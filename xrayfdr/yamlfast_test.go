package xrayfdr

import (
	"bytes"
	"math"
	"math/rand"
	"testing"
)

// TestYAMLLinesAgree checks the window-formatted lines WriteYAML writes
// against AppendYAMLRecord's general path, on events with every field
// at small, large and extreme values, threads interleaved.
func TestYAMLLinesAgree(t *testing.T) {
	rng := rand.New(rand.NewSource(18))
	pick := func(vals ...uint64) uint64 {
		if rng.Intn(4) == 0 {
			return rng.Uint64() >> uint(rng.Intn(64))
		}
		return vals[rng.Intn(len(vals))]
	}
	tr := &Trace{Header: Header{Version: 5, Type: 1}}
	for i := 0; i < 20000; i++ {
		tr.Events = append(tr.Events, Event{
			RecordType: uint16(pick(0, 9, 10, math.MaxUint16)),
			CPU:        uint16(pick(0, 1, 99, 100, math.MaxUint16)),
			Kind:       EventKind(pick(0, 1, 2, 3, 4, 5, 6, 255)),
			FuncID:     int32(pick(0, 1, 9, 10, 99, 100, 12345, math.MaxInt32, math.MaxUint32, 1<<31)),
			TSC:        pick(0, 9, 9999, 10000, 1795282110213393170, math.MaxUint64, 1e19, 1e19-1),
			TID:        uint32(pick(0, 1, 32755, math.MaxUint32)),
			PID:        uint32(pick(0, 7, math.MaxUint32)),
		})
	}
	var got bytes.Buffer
	if err := WriteYAML(&got, tr); err != nil {
		t.Fatal(err)
	}
	var want []byte
	for i := range tr.Events {
		want = tr.AppendYAMLRecord(want, &tr.Events[i])
	}
	lines := bytes.SplitAfter(got.Bytes(), []byte("\n"))
	wantLines := bytes.SplitAfter(want, []byte("\n"))
	wantLines = wantLines[:len(wantLines)-1] // after the last newline
	const head = 8                           // header lines before the records
	if len(lines) != head+len(wantLines)+2 || string(lines[len(lines)-2]) != "...\n" {
		t.Fatalf("%d lines, want %d and the end", len(lines), head+len(wantLines)+2)
	}
	for i, w := range wantLines {
		if g := lines[head+i]; !bytes.Equal(g, w) {
			t.Fatalf("event %d: got\n%s\nwant\n%s", i, g, w)
		}
	}
}
