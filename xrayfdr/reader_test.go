package xrayfdr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/tracefmt/tracefmt/bitfield"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

func readAll(r io.Reader) error {
	rd, err := NewReader(r)
	if err != nil {
		return err
	}
	last := int64(-1)
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Offset <= last {
			return errors.New("offsets do not increase")
		}
		last = rec.Offset
	}
}

func errOffset(err error) (int64, bool) {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Offset, true
	}
	return 0, false
}

func TestTruncations(t *testing.T) {
	for _, name := range []string{"fdr_simple", "fdr_typed", "fdr_threads", "basic_simple",
		"synthetic-v1", "synthetic-v2", "synthetic-v3", "synthetic-v5"} {
		t.Run(name, func(t *testing.T) {
			data := testutil.ReadFile(t, "testdata/"+name+".xray")
			step := 1
			if len(data) > 4096 {
				step = 7
			}
			testutil.CheckTruncations(t, data, readAll, testutil.TruncOptions{
				Step:    step,
				OneByte: len(data) < 4096,
				Offset:  errOffset,
				// a version 3+ log cut between buffers, inside the bytes
				// llvm-xray skips, has no BufferExtents left to find
				Allow: func(n int, err error) bool { return errors.Is(err, ErrNoExtents) },
			})
		})
	}
}

func TestInvalidFixtures(t *testing.T) {
	for _, c := range []struct {
		name       string
		read       error // from the Reader
		verify     error // from Verify, when the read succeeds
		expandFail bool
	}{
		{"big-endian-header", ErrHeader, nil, true},
		{"eob-in-v5", ErrEndOfBuffer, nil, true},
		{"extents-too-big", nil, nil, false},
		{"extents-too-small", ErrOverRead, nil, true},
		{"extents-zero", ErrMetadataKind, nil, true},
		{"function-type-4", ErrAction, nil, true},
		{"header-only", nil, ErrTerminal, true},
		{"metadata-kind-10", ErrMetadataKind, nil, true},
		{"metadata-kind-127", ErrMetadataKind, nil, true},
		{"no-newbuffer", nil, ErrTransition, true},
		{"no-newcpuid", nil, ErrTransition, true},
		{"preamble-only", nil, ErrTerminal, true},
		{"short-16", io.ErrUnexpectedEOF, nil, true},
		{"short-3", io.ErrUnexpectedEOF, nil, true},
		{"truncated-tail", io.ErrUnexpectedEOF, nil, true},
		{"type-2", ErrHeader, nil, true},
		{"version-0", ErrHeader, nil, true},
		{"version-6", ErrVersion, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := testutil.ReadFile(t, "testdata/invalid/"+c.name+".xray")
			err := readAll(bytes.NewReader(data))
			if !errors.Is(err, c.read) || (c.read == nil) != (err == nil) {
				t.Fatalf("read: %v, want %v", err, c.read)
			}
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("%v is not a *FormatError", err)
				}
				if fe.Offset < 0 || fe.Offset > int64(len(data)) {
					t.Errorf("offset %d outside the %d bytes", fe.Offset, len(data))
				}
				return
			}
			if err := Verify(data); !errors.Is(err, c.verify) || (c.verify == nil) != (err == nil) {
				t.Errorf("verify: %v, want %v", err, c.verify)
			}
			if _, err := Expand(data, true); (err != nil) != c.expandFail {
				t.Errorf("expand: %v, want failure %v", err, c.expandFail)
			}
		})
	}
}

func TestStickyAndReaderErrors(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/invalid/function-type-4.xray")
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var first error
	for first == nil {
		_, first = rd.Read()
	}
	if _, err := rd.Read(); err != first {
		t.Errorf("second error %v, want sticky %v", err, first)
	}
	// an error of the underlying reader is passed through
	good := testutil.ReadFile(t, "testdata/fdr_simple.xray")
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(good[:100]), iotest.ErrReader(boom))
	if err := readAll(r); err != boom {
		t.Errorf("got %v, want the reader's error", err)
	}
}

func TestLimits(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/fdr_simple.xray")
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	rd.MaxDataLen = 4
	for {
		_, err = rd.Read()
		if err != nil {
			break
		}
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxDataLen 4: %v", err)
	}
	// a huge event size in a short file allocates nothing big
	h := Header{Version: 5, Type: TypeFDR}
	var buf bytes.Buffer
	wr, _ := NewWriter(&buf, h)
	wr.Close() // the header alone: the Writer writes no buffer without a block
	// a BufferExtents record announcing more than follows, as a
	// hand-made log may
	ext := make([]byte, 16)
	ext[0] = 0x0f
	binary.LittleEndian.PutUint64(ext[1:], 1<<32-1)
	buf.Write(ext)
	raw := append(buf.Bytes(), 0x0b, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	if err := readAll(bytes.NewReader(raw)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("2 GiB event in a short log: %v", err)
	}
	long := append(append([]byte(nil), raw...), make([]byte, 1<<20+1)...)
	rd, _ = NewReader(bytes.NewReader(long))
	rd.MaxDataLen = 1 << 20
	if _, err := rd.Read(); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Read(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("2 GiB event in a log longer than MaxDataLen: %v", err)
	}
	rd, _ = NewReader(bytes.NewReader(raw))
	rd.MaxDataLen = math.MaxInt32
	allocs := testing.AllocsPerRun(1, func() {
		rd, _ := NewReader(bytes.NewReader(raw))
		rd.MaxDataLen = math.MaxInt32
		readAll2(rd)
	})
	if allocs > 10 {
		t.Errorf("%v allocations for a cut 2 GiB event", allocs)
	}
	// skipping is bounded
	gap := append(append([]byte(nil), raw[:HeaderSize]...), bytes.Repeat([]byte{0}, 5000)...)
	rd, _ = NewReader(bytes.NewReader(gap))
	rd.MaxSkip = 100
	if err := readAll2(rd); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxSkip: %v", err)
	}
	rd, _ = NewReader(bytes.NewReader(gap))
	if err := readAll2(rd); !errors.Is(err, ErrNoExtents) {
		t.Errorf("gap without extents: %v", err)
	}
}

func readAll2(rd *Reader) error {
	for {
		if _, err := rd.Read(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

func TestReadAllocs(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/fdr_threads.xray")
	var br bytes.Reader
	rd := new(Reader)
	n := 0
	allocs := testing.AllocsPerRun(20, func() {
		br.Reset(data)
		if err := rd.Reset(&br); err != nil {
			t.Fatal(err)
		}
		n = countRecords(rd)
	})
	if n < 4000 || allocs != 0 {
		t.Errorf("%v allocations reading %d records, want 0", allocs, n)
	}
	allocs = testing.AllocsPerRun(20, func() {
		if err := rd.ResetBytes(data); err != nil {
			t.Fatal(err)
		}
		n = countRecords(rd)
	})
	if n < 4000 || allocs != 0 {
		t.Errorf("in place: %v allocations reading %d records, want 0", allocs, n)
	}
	allocs = testing.AllocsPerRun(20, func() {
		if err := rd.ResetBytes(data); err != nil {
			t.Fatal(err)
		}
		n = 0
		for _, err := range rd.All() {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
	})
	if n < 4000 || allocs != 0 {
		t.Errorf("All: %v allocations reading %d records, want 0", allocs, n)
	}
}

// TestReadsAgree reads every test log from streams, in place and with
// All, scribbling on each record after reading it: the same records and
// errors every way.
func TestReadsAgree(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.xray")
	invalid, _ := filepath.Glob("testdata/invalid/*.xray")
	paths = append(paths, invalid...)
	big := filepath.Join(testutil.ModuleRoot(t), "..", "shared", "fixtures", "xray", "fdr_big.xray")
	if _, err := os.Stat(big); err == nil || testutil.InCI() {
		paths = append(paths, testutil.SharedFixture(t, "xray/fdr_big.xray"))
	}
	if len(paths) < 10 {
		t.Fatalf("only %d test logs", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) { checkReadsAgree(t, testutil.ReadFile(t, p)) })
	}
}

// TestFieldsLE checks the constants of the fast paths against the layout
// of a little-endian function record.
func TestFieldsLE(t *testing.T) {
	if got, want := bitfield.FieldAt(actShiftLE, actWidthLE), funcLE.Field(1); got != want {
		t.Errorf("action field %+v, layout %+v", got, want)
	}
	if got, want := bitfield.FieldAt(idShiftLE, idWidthLE), funcLE.Field(2); got != want {
		t.Errorf("id field %+v, layout %+v", got, want)
	}
	disc, act := funcLE.Field(0), funcLE.Field(1)
	if want := disc.Max()<<disc.Shift() | (act.Max()+1)/2<<act.Shift(); badFunctionLE != want {
		t.Errorf("badFunctionLE %#x, want %#x", badFunctionLE, want)
	}
}

func TestBigEndianDetection(t *testing.T) {
	for _, c := range []struct {
		name string
		h    Header
	}{
		{"fdr", Header{Version: 5, Type: TypeFDR, Flags: 3, CycleFrequency: 7, BigEndian: true}},
		{"basic", Header{Version: 3, Type: TypeBasic, BigEndian: true}},
	} {
		var buf bytes.Buffer
		wr, err := NewWriter(&buf, c.h)
		if err != nil {
			t.Fatal(err)
		}
		if c.h.Type == TypeBasic {
			wr.Write(&Record{Kind: KindFunction, Action: EnterArg, FuncID: -2, TSC: 99, TID: 5, PID: 6, CPU: 255})
			wr.Write(&Record{Kind: KindCallArg, FuncID: -2, TID: 5, PID: 6, Arg: 1})
		} else {
			wr.WriteBuffer(sample(c.h)[:8])
		}
		wr.Close()
		rd, err := NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if rd.Header() != c.h {
			t.Errorf("%s: header %+v", c.name, rd.Header())
		}
		if err := readAll2(rd); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestBasicArgMismatch(t *testing.T) {
	var buf bytes.Buffer
	wr, _ := NewWriter(&buf, Header{Version: 3, Type: TypeBasic})
	wr.Write(&Record{Kind: KindFunction, Action: EnterArg, FuncID: 2, TID: 5})
	wr.Write(&Record{Kind: KindCallArg, FuncID: 2, TID: 5})
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	// The Writer refuses an argument of another function: make one.
	data := buf.Bytes()
	data[HeaderSize+BasicSize+4] = 3
	err := readAll(bytes.NewReader(data))
	if !errors.Is(err, ErrArgMismatch) {
		t.Errorf("got %v", err)
	}
	var fe *FormatError
	if errors.As(err, &fe) && fe.Offset != HeaderSize+BasicSize {
		t.Errorf("offset %d", fe.Offset)
	}
}

// TestNotALog checks that NewReader and NewBytesReader refuse, Strict or
// not, what is not an XRay log, other formats' files included: ErrHeader
// in a *FormatError at offset 0.
func TestNotALog(t *testing.T) {
	inputs := testutil.Foreign(t)
	// The 32 bytes of a CBF stream of empty 32-bit records read as
	// version 1, type 1.
	cbf := bytes.Repeat([]byte{0x01, 0x00}, 16)
	inputs = append(inputs, testutil.Input{Name: "cbf", Data: cbf})
	for _, in := range inputs {
		if in.Name == "sample fdr_simple.xray" || len(in.Data) < HeaderSize {
			continue
		}
		for _, strict := range []bool{false, true} {
			rd := &Reader{Strict: strict}
			for i, err := range []error{rd.Reset(bytes.NewReader(in.Data)), rd.ResetBytes(in.Data)} {
				var fe *FormatError
				if !errors.Is(err, ErrHeader) || !errors.As(err, &fe) || fe.Offset != 0 {
					t.Errorf("%s (Strict %v, reader %d): %v, want a *FormatError at offset 0 wrapping ErrHeader", in.Name, strict, i, err)
				}
				if rd.Header() != (Header{}) {
					t.Errorf("%s: a Header %+v", in.Name, rd.Header())
				}
			}
		}
	}
	// fdr-dump reads any 32 bytes as a header, and so does ForceFDR.
	rd := &Reader{ForceFDR: true}
	if err := rd.Reset(bytes.NewReader(cbf)); err != nil {
		t.Errorf("ForceFDR: %v", err)
	}
}
