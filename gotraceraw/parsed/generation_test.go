package parsed

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestSeenIDs checks the table of IDs seen in a generation across its
// dense and sparse parts, including an ID put in the map before the slice
// grew over it, and its reuse after reset.
func TestSeenIDs(t *testing.T) {
	var s seenIDs
	for round := 0; round < 2; round++ {
		ids := []uint64{1, 2, 5000, 3, 1 << 40}
		for i := uint64(4); i < 6000; i++ {
			if i != 5000 {
				ids = append(ids, i)
			}
		}
		for j, id := range ids {
			if _, ok := s.get(id); ok {
				t.Fatalf("round %d: id %d seen before it was set", round, id)
			}
			s.set(id, j)
		}
		if len(s.dense) <= 5000 {
			t.Fatalf("round %d: the slice did not grow over 5000 (len %d)", round, len(s.dense))
		}
		for j, id := range ids {
			if got, ok := s.get(id); !ok || got != j {
				t.Fatalf("round %d: get(%d) = %d, %v; want %d, true", round, id, got, ok, j)
			}
		}
		for _, id := range []uint64{0, 6000, 7000, 1<<40 + 1} {
			if _, ok := s.get(id); ok {
				t.Fatalf("round %d: id %d seen, never set", round, id)
			}
		}
		s.reset()
		for _, id := range ids {
			if _, ok := s.get(id); ok {
				t.Fatalf("round %d: id %d seen after reset", round, id)
			}
		}
	}
}

// TestPCTable checks that a PC keeps its first frame, whatever comes
// after, through the table's growth and after reset.
func TestPCTable(t *testing.T) {
	var tab pcTable
	for round := 0; round < 2; round++ {
		const n = 1000
		for i := uint64(0); i < n; i++ {
			// PCs a multiple of the table's size apart collide.
			if j := tab.add(pcFrame{pc: i << 20, fn: i, line: 1}); j != int32(i) {
				t.Fatalf("round %d: new pc %#x got index %d, want %d", round, i<<20, j, i)
			}
		}
		for i := uint64(0); i < n; i++ {
			if j := tab.add(pcFrame{pc: i << 20, fn: i + 1, line: 2}); j != int32(i) {
				t.Fatalf("round %d: pc %#x again got index %d, want %d", round, i<<20, j, i)
			}
		}
		if len(tab.frames) != n {
			t.Fatalf("round %d: %d frames, want %d", round, len(tab.frames), n)
		}
		for i, f := range tab.frames {
			if f.pc != uint64(i)<<20 || f.fn != uint64(i) || f.line != 1 {
				t.Fatalf("round %d: frame %d is %+v, want the first one given", round, i, f)
			}
		}
		tab.reset()
		if len(tab.frames) != 0 {
			t.Fatalf("round %d: %d frames after reset", round, len(tab.frames))
		}
	}
}

// TestPCTableHostile gives the table PCs chosen so that a fixed
// multiplicative hash sends them all to one slot: the table's searches
// stay short, as its hash is seeded.
func TestPCTableHostile(t *testing.T) {
	// The inverse of the golden-ratio multiplier modulo 2^64: i times it,
	// times the multiplier, is i, whose top bits are 0.
	inv := uint64(1)
	for range 6 { // Newton's iteration doubles the correct low bits
		inv *= 2 - 0x9e3779b97f4a7c15*inv
	}
	var tab pcTable
	const n = 1 << 14
	for i := uint64(1); i <= n; i++ {
		tab.add(pcFrame{pc: i * inv})
	}
	probes := 0
	mask := len(tab.slots) - 1
	for slot, j := range tab.slots {
		if j != 0 {
			probes += (slot - tab.home(tab.frames[j-1].pc)) & mask
		}
	}
	if probes > 4*n {
		t.Errorf("%d PCs take %d steps past their home slots, want at most %d", n, probes, 4*n)
	}
}

// TestInlineIDs checks the string and stack IDs that the stream's next
// checks in line for its commonest events against the table that the
// other events' checks read: they must be the same arguments.
func TestInlineIDs(t *testing.T) {
	for _, c := range []struct {
		typ gotraceraw.EventType
		ids []uint8
	}{
		{gotraceraw.EvGoStart, nil},
		{gotraceraw.EvGoBlock, []uint8{1 | idStack, 0}},
		{gotraceraw.EvGoStop, []uint8{1 | idStack, 0}},
		{gotraceraw.EvGoUnblock, []uint8{2 | idStack}},
	} {
		ti := &info[c.typ]
		if got := ti.ids[:ti.nids]; !slices.Equal(got, c.ids) {
			t.Errorf("%v: the table checks IDs %v, next checks %v in line", c.typ, got, c.ids)
		}
	}
}

// TestBadIDs gives one GoBlock, GoStop or GoUnblock of a real trace a
// string or stack ID its generation lacks, the k-th of its type for
// several k, so that both the in-line ordering and advance meet it: the
// trace must fail there, with Go's message.
func TestBadIDs(t *testing.T) {
	data := testutil.ReadFile(t, filepath.Join("..", "testdata", "basic.trace"))
	const bad = 999999
	for _, c := range []struct {
		typ  gotraceraw.EventType
		arg  int // in the raw Args, dt first
		what string
	}{
		{gotraceraw.EvGoBlock, 2, "stack"},
		{gotraceraw.EvGoBlock, 1, "string"},
		{gotraceraw.EvGoStop, 2, "stack"},
		{gotraceraw.EvGoUnblock, 3, "stack"},
	} {
		for k := 1; k <= 30; k++ {
			edited, ok := editNth(t, data, c.typ, k, c.arg, bad)
			if !ok {
				break
			}
			_, err := parseText(edited)
			want := fmt.Sprintf("found invalid %s ID %d for event %v", c.what, bad, c.typ)
			if err == nil || reasonOf(err) != want {
				t.Errorf("%v #%d with %s ID %d: error %v, want %q", c.typ, k, c.what, bad, err, want)
			}
		}
	}
}

// TestBadNameIDs gives one task or region event of a real trace a name
// string ID its generation lacks. Go's parser names the event by its
// type's number in this message ("for 40 event"), not by its name as
// elsewhere: the Reason must be Go's.
func TestBadNameIDs(t *testing.T) {
	data := testutil.ReadFile(t, filepath.Join("..", "testdata", "annotations.trace"))
	const bad = 999999
	for _, c := range []struct {
		typ gotraceraw.EventType
		arg int // in the raw Args, dt first
	}{
		{gotraceraw.EvUserTaskBegin, 3},
		{gotraceraw.EvUserRegionBegin, 2},
		{gotraceraw.EvUserRegionEnd, 2},
	} {
		edited, ok := editNth(t, data, c.typ, 1, c.arg, bad)
		if !ok {
			t.Fatalf("no %v in the trace", c.typ)
		}
		_, err := parseText(edited)
		want := fmt.Sprintf("invalid string ID %d for %d event", bad, uint8(c.typ))
		if err == nil || reasonOf(err) != want {
			t.Errorf("%v with name ID %d: error %v, want %q", c.typ, bad, err, want)
		}
	}
}

// TestStatusTruncated adds 256 to the status of GoStatus and
// GoStatusStack events of real traces. Go's parser takes a status as a
// byte, so it reads and prints such a trace as the unedited one; so must
// we. A ProcStatus so edited is refused: Go's parser takes it too, but go
// tool trace crashes printing it. A status whose low byte is no status
// fails with Go's message, which names that byte.
func TestStatusTruncated(t *testing.T) {
	for _, c := range []struct {
		file string
		typ  gotraceraw.EventType
		arg  int    // in the raw Args, dt first
		add  uint64 // to the status
		// want is the error's Reason for the resource id and the edited
		// status; nil: none.
		want func(id, status uint64) string
	}{
		{"basic.trace", gotraceraw.EvGoStatus, 3, 256, nil},
		{"stacks.trace", gotraceraw.EvGoStatusStack, 3, 256, nil},
		{"basic.trace", gotraceraw.EvProcStatus, 2, 256, func(id, status uint64) string {
			return fmt.Sprintf("invalid status for proc %d: %d", id, status)
		}},
		{"basic.trace", gotraceraw.EvGoStatus, 3, 1<<40 + 100, func(id, status uint64) string {
			return fmt.Sprintf("invalid status for goroutine %d: %d", id, uint8(status))
		}},
		{"basic.trace", gotraceraw.EvProcStatus, 2, 1<<40 + 100, func(id, status uint64) string {
			return fmt.Sprintf("invalid status for proc %d: %d", id, uint8(status))
		}},
	} {
		data := testutil.ReadFile(t, filepath.Join("..", "testdata", c.file))
		want, err := parseText(data)
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= 10; k++ {
			r, err := gotraceraw.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			n, id, status := 0, uint64(0), uint64(0)
			edited := writeEvents(t, r.Header(), r.All(), func(ev *gotraceraw.Event) {
				if ev.Type == c.typ {
					if n++; n == k {
						id, status = ev.Args[1], ev.Args[c.arg]
						ev.Args[c.arg] += c.add
						ev.Widths = nil
					}
				}
			})
			if n < k {
				break
			}
			got, err := parseText(edited)
			if c.want == nil {
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s, %v #%d with status+%d: %v, text differs at byte %d", c.file, c.typ, k, c.add, err, firstDiff(got, want))
				}
				continue
			}
			if wantReason := c.want(id, status+c.add); !errors.Is(err, ErrState) || reasonOf(err) != wantReason {
				t.Errorf("%s, %v #%d with status+%d: %v, want %q", c.file, c.typ, k, c.add, err, wantReason)
			}
		}
	}
}

// TestAbandonedProcTwoThreads gives a P in a syscall to two threads, then
// a status saying it is about to be stolen: the event takes the context of
// a thread holding the P. Go's parser picks one in map order, at random;
// the Reader must pick the same every time (the lowest thread).
func TestAbandonedProcTwoThreads(t *testing.T) {
	data := textToWire(t, []byte(`Trace Go1.22
EventBatch gen=1 m=2 time=0 size=0
ProcStatus dt=2 p=0 pstatus=3
GoStatus dt=1 g=2 m=2 gstatus=3
EventBatch gen=1 m=0 time=0 size=0
ProcStatus dt=1 p=0 pstatus=3
GoStatus dt=1 g=1 m=0 gstatus=3
EventBatch gen=1 m=1 time=0 size=0
ProcStatus dt=9 p=0 pstatus=4
EventBatch gen=1 m=18446744073709551615 time=0 size=0
Frequency freq=15625000
EventBatch gen=1 m=18446744073709551615 time=0 size=0
Stacks
EventBatch gen=1 m=18446744073709551615 time=0 size=0
Strings
`))
	const want = `M=0 P=0 G=1 StateTransition Time=576 ProcID=0 Running->Running Reason=""`
	for i := 0; i < 50; i++ {
		text, err := parseText(data)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(text)), "\n")
		if got := lines[len(lines)-2]; got != want {
			t.Fatalf("read %d: %s, want %s", i, got, want)
		}
	}
}

// TestRawReasons breaks the framing of a real trace, which the raw level
// reports under its own sentinels: Reason must still be Go's message.
func TestRawReasons(t *testing.T) {
	data := testutil.ReadFile(t, filepath.Join("..", "testdata", "basic.trace"))
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var second int // the offset of the second EventBatch
	for n := 0; n < 2; {
		off := int(r.Offset())
		ev, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == gotraceraw.EvEventBatch {
			n++
			second = off
		}
	}
	hdr, size := batchHeader(t, data[second:])
	badType := bytes.Clone(data)
	badType[second] = 0xff
	big := bytes.Clone(data[:second])
	big = append(big, byte(gotraceraw.EvEventBatch), 1, 1, 1)
	big = binary.AppendUvarint(big, 1<<20)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"bad batch type", badType, "expected batch event, got event 255"},
		{"batch too large", big, "invalid batch size 1048576, maximum is 65536"},
		{"cut batch", data[:second+20], fmt.Sprintf("failed to read full batch: read %d but wanted %d", 20-hdr, size)},
	} {
		_, err := parseText(c.data)
		if got := reasonOf(err); got != c.want {
			t.Errorf("%s: %v: Reason %q, want Go's %q", c.name, err, got, c.want)
		}
	}
}

// batchHeader returns the length of the EventBatch header at the start
// of b, and the size it declares.
func batchHeader(t *testing.T, b []byte) (n int, size uint64) {
	r, err := gotraceraw.NewReader(bytes.NewReader(append([]byte("go 1.26 trace\x00\x00\x00"), b...)))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := r.Read()
	if err != nil || ev.Type != gotraceraw.EvEventBatch {
		t.Fatalf("no EventBatch: %v", err)
	}
	return int(r.Offset()) - gotraceraw.HeaderLen, ev.Args[3]
}

// editNth sets argument arg of the k-th event of type typ to v, and
// reports false when the trace has fewer such events.
func editNth(t *testing.T, data []byte, typ gotraceraw.EventType, k, arg int, v uint64) ([]byte, bool) {
	t.Helper()
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	out := writeEvents(t, r.Header(), r.All(), func(ev *gotraceraw.Event) {
		if ev.Type == typ {
			if n++; n == k {
				ev.Args[arg], ev.Widths = v, nil
			}
		}
	})
	return out, n >= k
}

// TestMaxGenerationSize checks that the limit set after NewReader, before
// the first Read, holds, and that a generation within it reads.
func TestMaxGenerationSize(t *testing.T) {
	data := testutil.ReadFile(t, filepath.Join("..", "testdata", "gcgens.trace"))
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r.MaxGenerationSize = 100
	var last error
	for _, err := range r.All() {
		last = err
	}
	if !errors.Is(last, ErrTooLarge) {
		t.Fatalf("a limit of 100 bytes: %v, want ErrTooLarge", last)
	}
	r.MaxGenerationSize = int64(len(data))
	if err := r.Reset(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	for _, err := range r.All() {
		if err != nil {
			t.Fatalf("a limit of the trace's size: %v", err)
		}
	}
}
