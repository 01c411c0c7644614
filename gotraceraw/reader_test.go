package gotraceraw

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/varint"
)

func header(v int) []byte {
	h := []byte("go 1." + strconv.Itoa(v) + " trace")
	for len(h) < HeaderLen {
		h = append(h, 0)
	}
	return h
}

// ev encodes one event: its type byte and canonical varints.
func ev(t EventType, vals ...uint64) []byte {
	b := []byte{byte(t)}
	for _, v := range vals {
		b = varint.Append(b, v)
	}
	return b
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestHeader(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
		v    Version
	}{
		{"go 1.22 trace\x00\x00\x00", nil, Go122},
		{"go 1.23 trace\x00\x00\x00", nil, Go123},
		{"go 1.25 trace\x00\x00\x00", nil, Go125},
		{"go 1.26 trace\x00\x00\x00", nil, Go126},
		{"go 1.24 trace\x00\x00\x00", ErrVersion, 0},
		{"go 1.27 trace\x00\x00\x00", ErrVersion, 0},
		{"go 1.100 trace\x00\x00", ErrVersion, 0},
		{"go 1.21 trace\x00\x00\x00", ErrV1, 0},
		{"go 1.11 trace\x00\x00\x00", ErrV1, 0},
		{"go 1.5 trace\x00\x00\x00\x00", ErrV1, 0},
		// Forms Go's Fscanf-based reader also takes; we want the exact 16 bytes.
		{"go  1.26  trace\x00", ErrHeader, 0},
		{"go 1.026 trace\x00\x00\x00", ErrHeader, 0},
		{"go 1.26 trace\x00\x00\x01", ErrHeader, 0},
		{"go 1.26 trace \x00\x00", ErrHeader, 0},
		{"go1.26 trace\x00\x00\x00\x00", ErrHeader, 0},
		{"go 1.26 trace\x00\x00", io.ErrUnexpectedEOF, 0},
		{"go 1.2", io.ErrUnexpectedEOF, 0},
		{"", io.ErrUnexpectedEOF, 0},
		{"GIF89a and more bytes", ErrHeader, 0},
		{"go 1.1234 trace\x00", ErrHeader, 0},
	} {
		r, err := NewReader(strings.NewReader(tc.in))
		if tc.want == nil {
			if err != nil || r.Header().Version != tc.v {
				t.Errorf("%q: %v, %v; want %v", tc.in, r, err, tc.v)
			}
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%q: error %v, want %v", tc.in, err, tc.want)
		}
		if off, ok := errOffset(err); !ok || off != 0 {
			t.Errorf("%q: %v is not a FormatError at offset 0", tc.in, err)
		}
	}
}

// TestV1 refuses the Go 1.11–1.21 traces that ship with Go, naming the
// version.
func TestV1(t *testing.T) {
	// Go 1.23 kept them under oldtrace, Go 1.24 on under tracev1.
	files, _ := filepath.Glob(filepath.Join(testutil.GoRoot(t), "src", "internal", "trace", "internal", "*", "testdata", "*_good"))
	if len(files) == 0 {
		t.Skip("no v1 traces in GOROOT")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = NewReader(bytes.NewReader(data))
		if !errors.Is(err, ErrV1) || !strings.Contains(err.Error(), "Go 1."+string(data[5:7])) {
			t.Errorf("%s: %v, want ErrV1 naming the version", filepath.Base(f), err)
		}
	}
}

func TestBadEvents(t *testing.T) {
	h26 := header(26)
	big := []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10} // 2^60
	for _, tc := range []struct {
		name string
		in   []byte
		want error
		off  int64
	}{
		{"type 0", cat(h26, []byte{0}), ErrEventType, 16},
		{"type 53", cat(h26, []byte{53}), ErrEventType, 16},
		{"type 127", cat(h26, []byte{127}), ErrEventType, 16},
		{"type 137", cat(h26, []byte{137}), ErrEventType, 16},
		{"type 255", cat(h26, []byte{255}), ErrEventType, 16},
		{"second event", cat(h26, ev(EvProcStop, 1), []byte{200}), ErrEventType, 18},
		{"GoSwitch in 1.22", cat(header(22), ev(EvGoSwitch, 1, 2, 3)), ErrEventType, 16},
		{"Span in 1.22", cat(header(22), ev(EvSpan, 1, 2, 3, 4)), ErrEventType, 16},
		{"Sync in 1.23", cat(header(23), ev(EvSync)), ErrEventType, 16},
		{"EndOfGeneration in 1.25", cat(header(25), ev(EvEndOfGeneration)), ErrEventType, 16},
		{"data length 2^60", cat(h26, ev(EvString, 1), big), ErrTooLarge, 16},
		{"data length over limit", cat(h26, ev(EvString, 1, DefaultMaxDataLen+1)), ErrTooLarge, 16},
		{"a million frames", cat(h26, ev(EvStack, 1, 1e6)), ErrTooLarge, 16},
		{"11-byte varint", cat(h26, []byte{byte(EvProcStop)}, bytes.Repeat([]byte{0x80}, 10), []byte{0}), ErrOverflow, 16},
		{"10th byte above 1", cat(h26, []byte{byte(EvProcStop)}, bytes.Repeat([]byte{0xff}, 9), []byte{2}), ErrOverflow, 16},
		{"cut after type", cat(h26, []byte{byte(EvGoStart)}), io.ErrUnexpectedEOF, 16},
		{"cut between args", cat(h26, ev(EvGoStart, 1, 300)), io.ErrUnexpectedEOF, 16},
		{"cut inside varint", cat(h26, ev(EvGoStart, 1), []byte{0x80}), io.ErrUnexpectedEOF, 16},
		{"cut inside data", cat(h26, ev(EvString, 1, 5), []byte("abc")), io.ErrUnexpectedEOF, 16},
		{"cut before data length", cat(h26, ev(EvString, 1)), io.ErrUnexpectedEOF, 16},
		{"cut inside frames", cat(h26, ev(EvStack, 1, 2, 100, 1, 2, 3, 200)), io.ErrUnexpectedEOF, 16},
		{"cut in padded batch", cat(h26, []byte{byte(EvEventBatch), 1, 1, 1, 0x80, 0x80}), io.ErrUnexpectedEOF, 16},
	} {
		for _, oneByte := range []bool{false, true} {
			var rd io.Reader = bytes.NewReader(tc.in)
			if oneByte {
				rd = iotest.OneByteReader(rd)
			}
			err := readAllWire(rd)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
				continue
			}
			if off, ok := errOffset(err); !ok || off != tc.off {
				t.Errorf("%s: %v: offset %d, want %d", tc.name, err, off, tc.off)
			}
			if strings.Count(err.Error(), "gotraceraw") != 1 {
				t.Errorf("%s: %q does not name the package once", tc.name, err)
			}
		}
	}
}

// TestExperimentalEvents reads the AllocFree events under every header
// from Go123 on, as the runtimes write them (Go 1.26's own raw reader
// refuses them for Go123 and Go125).
func TestExperimentalEvents(t *testing.T) {
	for _, v := range []Version{Go123, Go125, Go126} {
		in := cat(header(int(v)), ev(EvSpanAlloc, 1, 2, 3, 4), ev(EvHeapObjectFree, 5, 6), ev(EvGoroutineStackFree, 7, 8))
		_, evs := readEvents(t, in)
		if len(evs) != 3 || evs[0].Type != EvSpanAlloc || evs[2].Args[1] != 8 {
			t.Errorf("%v: %v", v, evs)
		}
		if s, ok := v.Spec(EvSpanAlloc); !ok || s.Experiment != AllocFree {
			t.Errorf("%v: Spec(SpanAlloc) = %v, %v", v, s, ok)
		}
	}
	if _, ok := Go122.Spec(EvSpanAlloc); ok {
		t.Error("Go122 has SpanAlloc")
	}
}

// TestNoAllocFromLength checks that a declared length the input does not
// hold grows no buffer: the reader waits for bytes, which never come.
func TestNoAllocFromLength(t *testing.T) {
	in := cat(header(26), ev(EvString, 1, DefaultMaxDataLen), []byte("abc"))
	r, err := NewReader(iotest.OneByteReader(bytes.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	before := cap(r.buf)
	if _, err := r.Read(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v", err)
	}
	if cap(r.buf) != before {
		t.Errorf("buffer grew from %d to %d for a length the input does not hold", before, cap(r.buf))
	}
	// A stack claiming the most frames with none present: no growth either.
	in = cat(header(26), ev(EvStack, 1, DefaultMaxFrames))
	if err := r.Reset(bytes.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v", err)
	}
	if cap(r.buf) != before || cap(r.args) > 64 {
		t.Errorf("buffers grew to %d bytes, %d args", cap(r.buf), cap(r.args))
	}
}

// TestLargeEvents reads events larger than the reader's buffer, through
// a reader that gives one byte at a time, and with limits.
func TestLargeEvents(t *testing.T) {
	data := bytes.Repeat([]byte("x\x00\xff"), 100000)
	frames := []uint64{1, 3000}
	for i := 0; i < 3000; i++ {
		frames = append(frames, 1<<40+uint64(i), uint64(i), 7, 1<<20)
	}
	in := cat(header(26), ev(EvString, 1, uint64(len(data))), data, ev(EvStack, frames...), ev(EvStrings))
	for _, oneByte := range []bool{false, true} {
		var rd io.Reader = bytes.NewReader(in)
		if oneByte {
			rd = iotest.OneByteReader(rd)
		}
		_, evs := readEvents(t, mustRead(t, rd))
		if len(evs) != 3 || !bytes.Equal(evs[0].Data, data) || evs[1].NumFrames() != 3000 {
			t.Fatalf("read %d events", len(evs))
		}
		if pc, fn, file, line := evs[1].Frame(2999); pc != 1<<40+2999 || fn != 2999 || file != 7 || line != 1<<20 {
			t.Errorf("frame 2999 = %d %d %d %d", pc, fn, file, line)
		}
	}
	r, _ := NewReader(bytes.NewReader(in))
	r.MaxDataLen = len(data) - 1
	if _, err := r.Read(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxDataLen: %v", err)
	}
	r, _ = NewReader(bytes.NewReader(in))
	r.MaxFrames = 2999
	r.Read()
	if _, err := r.Read(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxFrames: %v", err)
	}
}

func mustRead(t *testing.T, r io.Reader) []byte {
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTruncations cuts small fixtures at every byte: each cut ends at a
// batch boundary with io.EOF, or inside an event or a batch with
// io.ErrUnexpectedEOF and the offset of that event or batch.
func TestTruncations(t *testing.T) {
	for _, name := range []string{"gotest", "go122-annotations", "go123-coro", "stacks"} {
		t.Run(name, func(t *testing.T) {
			data := testutil.ReadFile(t, filepath.Join("testdata", name+".trace"))
			bounds := map[int]bool{HeaderLen: true}
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			for at := r.Offset(); ; at = r.Offset() {
				e, err := r.Read()
				if err != nil {
					bounds[int(at)] = true // the end
					break
				}
				switch e.Type {
				case EvEventBatch, EvExperimentalBatch, EvEndOfGeneration:
					bounds[int(at)] = true
				}
			}
			opts := testutil.TruncOptions{
				Boundary: func(n int) bool { return bounds[n] },
				Offset:   errOffset,
				OneByte:  name == "gotest",
			}
			if len(data) > 10000 {
				opts.Step = 7
			}
			testutil.CheckTruncations(t, data, readAllWire, opts)
		})
	}
}

func TestStickyAndReset(t *testing.T) {
	in := cat(header(26), ev(EvProcStop, 1), []byte{0})
	r, err := NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	_, err1 := r.Read()
	_, err2 := r.Read()
	if err1 == nil || err1 != err2 {
		t.Errorf("errors %v then %v, want the same", err1, err2)
	}
	if err := r.Reset(bytes.NewReader(cat(header(22), ev(EvProcStop, 9)))); err != nil {
		t.Fatal(err)
	}
	e, err := r.Read()
	if err != nil || e.Version != Go122 || e.Args[0] != 9 {
		t.Errorf("after Reset: %v, %v", e, err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Errorf("end: %v", err)
	}
	var zero Reader
	if err := zero.Reset(bytes.NewReader(header(25))); err != nil || zero.Header().Version != Go125 {
		t.Errorf("zero Reader: %v", err)
	}
}

// TestWidths reads non-minimal varints anywhere and writes them back.
func TestWidths(t *testing.T) {
	in := cat(header(26),
		ev(EvEventBatch, 1, 2, 3, 16),
		[]byte{byte(EvGoStart), 0x81, 0x00, 5, 0x80, 0x80, 0x00},
		[]byte{byte(EvString), 3, 0x82, 0x80, 0x00}, []byte("hi"),
		ev(EvProcStop, 1))
	_, evs := readEvents(t, in)
	testutil.Diff(t, "widths", [][]uint8{{2, 1, 3}, {1, 3}, nil}, [][]uint8{evs[1].Widths, evs[2].Widths, evs[3].Widths})
	back, err := wireToWire(in)
	if err != nil || !bytes.Equal(back, in) {
		t.Errorf("round trip: % x, %v", back, err)
	}
}

func TestReadAllocs(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/gcgens.trace")
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	br := bytes.NewReader(data)
	events := 0
	allocs := testing.AllocsPerRun(20, func() {
		br.Reset(data)
		if err := r.Reset(br); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := r.Read(); err != nil {
				break
			}
			events++
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per trace of %d events, want 0", allocs, events/21)
	}
}

// TestNotATrace checks that NewReader and NewTextReader refuse what is not
// a Go trace, other formats' files included: ErrHeader in a *FormatError
// or *SyntaxError.
func TestNotATrace(t *testing.T) {
	for _, in := range testutil.Foreign(t) {
		if in.Name == "sample gotest.trace" {
			continue
		}
		_, err := NewReader(bytes.NewReader(in.Data))
		var fe *FormatError
		if !errors.Is(err, ErrHeader) || !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a *FormatError wrapping ErrHeader", in.Name, err)
		}
		_, err = NewTextReader(bytes.NewReader(in.Data))
		var se *SyntaxError
		if !errors.Is(err, ErrHeader) || !errors.As(err, &se) {
			t.Errorf("%s as text: %v, want a *SyntaxError wrapping ErrHeader", in.Name, err)
		}
	}
}
