package apitrace

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// allocated returns the bytes f allocates, and the largest live heap seen
// after it (runtime.MemStats' HeapAlloc before a collection at its end).
func allocated(f func()) (total, live uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, after.HeapAlloc
}

// dumpFile dumps a trace as apitrace dump does, to io.Discard, and returns
// the error that ended it (nil at a clean end).
func dumpFile(data []byte) error {
	return NewDumper(io.Discard, DumpOptions{}).Trace(bytes.NewReader(data))
}

// TestArrayOverLimitRefusedEarly reads a 34-byte trace holding an array
// of 2^22+1 integers, one more value than an event may hold: it is
// refused before its values are built (it took 1.6 GB and 34 s).
func TestArrayOverLimitRefusedEarly(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/hostile/array-over.trace")
	var err error
	total, _ := allocated(func() { err = dumpFile(data) })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("%v, want ErrTooLarge", err)
	}
	if total > 16<<20 {
		t.Errorf("%d MiB allocated to refuse it, want under 16", total>>20)
	}
}

// TestSeekableFrameDeclaredLarge reads a 35-byte seekable zstd file whose
// seek table gives its one frame (128 KiB of content) 64 MiB, the largest
// frame the Reader takes: the window grows with what the frame holds, not
// with what the table declares.
func TestSeekableFrameDeclaredLarge(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/hostile/frame-4g.zst")
	i := bytes.Index(data, []byte{0xff, 0xff, 0xff, 0xff})
	if i < 0 {
		t.Fatal("no 2^32-1 entry in frame-4g.zst")
	}
	binary.LittleEndian.PutUint32(data[i:], DefaultMaxChunkSize)
	var err error
	total, _ := allocated(func() { err = dumpFile(data) })
	if err == nil {
		t.Fatal("read a frame that lies about its size")
	}
	if total > 16<<20 {
		t.Errorf("%d MiB allocated for a frame of 128 KiB, want under 16", total>>20)
	}
}

// TestZstdStartingSkippable reads a zstd trace whose first frame is a
// skippable one: it is zstd, not Brotli, and holds the calls of the same
// stream in gzip.
func TestZstdStartingSkippable(t *testing.T) {
	want := dumpText(t, "testdata/hostile/small.gzip.trace")
	got := dumpText(t, "testdata/hostile/skippable-first.trace")
	testutil.Diff(t, "calls", want, got)
	if c, ok := Detect(testutil.ReadFile(t, "testdata/hostile/skippable-first.trace")); !ok || c != Zstd {
		t.Errorf("Detect: %v, %v; want Zstd", c, ok)
	}
	for _, head := range [][]byte{{0x50}, {0x5f, 0x2a}, {0x55, 0x2a, 0x4d}} {
		if _, ok := Detect(head); ok {
			t.Errorf("Detect(% x) decides on a skippable magic cut short", head)
		}
	}
}

// TestSeekTableNotDescribingFile reads a zstd trace followed by a seek
// table of 1000 empty frames, which does not describe the file: it is read
// as a plain zstd stream, every call of it (it gave an empty dump, a
// warning and exit status 0).
func TestSeekTableNotDescribingFile(t *testing.T) {
	want := dumpText(t, "testdata/hostile/small.gzip.trace")
	got := dumpText(t, "testdata/hostile/seektable-empty.trace")
	testutil.Diff(t, "calls", want, got)
}

// dumpText returns the dump of the trace file name, read through an
// *os.File as the commands read it (so that a seek table is used).
func dumpText(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	if err := NewDumper(&b, DumpOptions{}).Trace(f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if b.Len() == 0 {
		t.Fatalf("%s: empty dump", name)
	}
	return b.String()
}

// TestStringHeldOnce dumps a 84-byte Brotli trace holding a 64 MiB
// string: the string is held once, in the Reader's window, and its text
// is written out as it is escaped. Everything allocated stays under 1.5
// times the string plus 64 MiB (it was 433 MiB: the window grown by
// doubling, and the text held whole).
func TestStringHeldOnce(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/hostile/string-64m.trace")
	const size = 64 << 20
	var b countWriter
	var err error
	total, _ := allocated(func() { err = NewDumper(&b, DumpOptions{}).Trace(bytes.NewReader(data)) })
	if err != nil {
		t.Fatal(err)
	}
	if b.n < size {
		t.Fatalf("%d bytes of text", b.n)
	}
	t.Logf("%d MiB allocated", total>>20)
	if limit := uint64(size + size/2 + 64<<20); total > limit {
		t.Errorf("%d MiB allocated for a 64 MiB string, want at most %d", total>>20, limit>>20)
	}
}

// TestStringHeldOnceEveryContainer reads a call holding a 64 MiB string
// from a trace in each container the Writer writes, seekable zstd read
// frame by frame through its seek table included: everything allocated
// stays under 1.5 times the string plus 64 MiB (seekable zstd took 4 to 5
// times the string: each 2 MiB frame was appended to the window block by
// block, growing it by append's small steps; 1 GB of peak RSS for a 250
// MiB string).
func TestStringHeldOnceEveryContainer(t *testing.T) {
	const size = 64 << 20
	str := bytes.Repeat([]byte("x"), size)
	f := &FunctionSig{ID: 0, Name: "f", ArgNames: []string{"a"}}
	for _, c := range []Container{Snappy, Gzip, ZstdSeekable} {
		t.Run(c.String(), func(t *testing.T) {
			var buf bytes.Buffer
			w := &Writer{ZstdLevel: 1}
			if err := w.Reset(&buf, Header{Version: 6, SemanticVersion: 6, Container: c}); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(&Event{Kind: Enter, Sig: f, Args: []Arg{{Value: String(str)}}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(&Event{Kind: Leave}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			data := buf.Bytes()
			var n int
			total, _ := allocated(func() {
				r, err := NewReader(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				if got := r.Header().Container; got != c {
					t.Fatalf("read as %v", got)
				}
				for ev, err := range r.All() {
					if err != nil {
						t.Fatal(err)
					}
					if len(ev.Args) == 1 {
						n = len(ev.Args[0].Value.Bytes())
					}
				}
			})
			if n != size {
				t.Fatalf("a string of %d bytes read", n)
			}
			t.Logf("%d MiB allocated", total>>20)
			if limit := uint64(size + size/2 + 64<<20); total > limit {
				t.Errorf("%d MiB allocated for a 64 MiB string, want at most %d", total>>20, limit>>20)
			}
		})
	}
}

// TestArrayBuiltOnce dumps a 40-byte Brotli trace holding an array of 2^20
// integers: each value is built once, where it stays (it was built on a
// stack, copied to the arena, in buffers grown by doubling: 624 MiB), in
// 24 bytes (88 before: 117 MiB), and the array's text is written out as
// it is made instead of gathered whole (17 MiB of buffers). 36 MiB now.
func TestArrayBuiltOnce(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/hostile/array-1m.trace")
	const n = 1 << 20
	var b countWriter
	var err error
	total, _ := allocated(func() { err = NewDumper(&b, DumpOptions{}).Trace(bytes.NewReader(data)) })
	if err != nil {
		t.Fatal(err)
	}
	if b.n < 3*n {
		t.Fatalf("%d bytes of text", b.n)
	}
	t.Logf("%d MiB allocated", total>>20)
	// The values, and 16 MiB for the rest: the Brotli decoder's ring
	// buffer (8 MiB) and the window holding the stream (2 MiB, 4 with the
	// windows it outgrew).
	if limit := uint64(n*valueSize + 16<<20); total > limit {
		t.Errorf("%d MiB allocated for an array of 2^20 values, want at most %d", total>>20, limit>>20)
	}
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// TestStringCutShort dumps a trace whose string says 255 MiB and holds
// 1 KiB: the window grows with the bytes that arrive, not with the size
// the stream announces.
func TestStringCutShort(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/hostile/string-cut.trace")
	var err error
	total, _ := allocated(func() { err = dumpFile(data) })
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%v, want io.ErrUnexpectedEOF", err)
	}
	if total > 8<<20 {
		t.Errorf("%d MiB allocated for a string of 1 KiB", total>>20)
	}
}

// TestStringPendingHeldOnce dumps a trace whose call 0, with a 64 MiB
// string, is left only after call 1 is read: the pending call keeps the
// string in the window it was read into, which the Reader then leaves to
// it, instead of a copy (197 MB of peak RSS before, 131 MB after).
func TestStringPendingHeldOnce(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/hostile/string-pending.trace")
	const size = 64 << 20
	got := sha256.New()
	var err error
	total, _ := allocated(func() { err = NewDumper(got, DumpOptions{}).Trace(bytes.NewReader(data)) })
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.New()
	io.WriteString(want, "1 f(a = 7)\n0 f(a = \"")
	x := strings.Repeat("x", 1<<20)
	for range size >> 20 {
		io.WriteString(want, x)
	}
	io.WriteString(want, "\")\n")
	if !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Error("the dump differs from apitrace's")
	}
	t.Logf("%d MiB allocated", total>>20)
	if limit := uint64(size + size/2 + 64<<20); total > limit {
		t.Errorf("%d MiB allocated, want at most %d", total>>20, limit>>20)
	}
}

// TestValuesLimitCountsHeldValues reads events at the value limit: an
// array holding MaxValues integers is read (its own node was counted, so
// an array of exactly 2^22 integers, which apitrace dumps, was refused
// with "array of 4194304 elements: more than 4194304 values"), one more
// element or one more argument is refused, and arrays nested one in the
// other count as the value they hold.
func TestValuesLimitCountsHeldValues(t *testing.T) {
	// call f(x0, x1) with the values given, as stream6 bytes.
	call := func(args ...[]byte) []byte {
		ev := []byte{0, 0, 1, 1, 'f', byte(len(args))}
		for k := range args {
			ev = append(ev, 1, 'x'+byte(k))
		}
		for k, a := range args {
			ev = append(ev, 1, byte(k))
			ev = append(ev, a...)
		}
		return append(ev, 0)
	}
	array := func(n int) []byte {
		b := []byte{11, byte(n)}
		for range n {
			b = append(b, 4, 1)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"array of the limit", stream6(call(array(4))...), true},
		{"array over the limit", stream6(call(array(5))...), false},
		{"array and a scalar", stream6(call(array(4), []byte{4, 1})...), false},
		{"array and a scalar under it", stream6(call(array(3), []byte{4, 1})...), true},
		{"nested arrays", stream6(call([]byte{11, 1, 11, 1, 11, 4, 4, 1, 4, 1, 4, 1, 4, 1})...), true},
		{"empty arrays", stream6(call([]byte{11, 4, 11, 0, 11, 0, 11, 0, 11, 0})...), true},
		{"empty arrays over", stream6(call([]byte{11, 5, 11, 0, 11, 0, 11, 0, 11, 0, 11, 0})...), false},
		// Five single-element arrays around one value: more arrays
		// holding values than the limit.
		{"containers over", stream6(call([]byte{11, 1, 11, 1, 11, 1, 11, 1, 11, 1, 4, 1})...), false},
	} {
		r := Reader{MaxValues: 4}
		err := r.Reset(bytes.NewReader(tc.data))
		n := 0
		for err == nil {
			_, err = r.Read()
			n++
		}
		if tc.ok && err != io.EOF {
			t.Errorf("%s: %v, want it read", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", tc.name, err)
		}
	}
	if DefaultMaxArrayLen > DefaultMaxValues {
		t.Errorf("DefaultMaxArrayLen %d can never be reached under DefaultMaxValues %d", DefaultMaxArrayLen, DefaultMaxValues)
	}
	// The hostile array of 2^22+1 integers: the message adds up.
	err := dumpFile(testutil.ReadFile(t, "testdata/hostile/array-over.trace"))
	if want := "array of 4194305 elements: more than 4194304 "; err == nil || !strings.HasSuffix(err.Error(), want+"in one array") {
		t.Errorf("array-over.trace: %v, want it to end %q", err, want)
	}
}

// TestArrayAtDefaultLimit reads a 35-byte trace holding one array of
// exactly 2^22 integers, as apitrace does (it was refused).
func TestArrayAtDefaultLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 2^22 values (100 MB) in -short mode")
	}
	data := testutil.ReadFile(t, "testdata/hostile/array-4m.trace")
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var ev *Event
	total, _ := allocated(func() { ev, err = r.Read() })
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Args) != 1 || len(ev.Args[0].Value.Elems()) != 1<<22 {
		t.Fatalf("%d arguments, want one array of 2^22 elements", len(ev.Args))
	}
	// 24 bytes a value (88 before: 369 MiB of values alone), and 48 MiB
	// for the rest: the Brotli decoder's ring buffer, which doubles up to
	// the stream's 16 MiB window (31 MiB in all), and the window holding
	// the stream's 8 MiB (the windows it outgrew included).
	t.Logf("%d MiB allocated", total>>20)
	if limit := uint64(1<<22*valueSize + 48<<20); total > limit {
		t.Errorf("%d MiB allocated for an array of 2^22 values, want at most %d", total>>20, limit>>20)
	}
	// The Writer counts as the Reader does: the event is accepted, and
	// refused with one more value.
	h := r.Header()
	h.Container = Snappy
	w, err := NewWriter(io.Discard, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Check(ev); err != nil {
		t.Errorf("Check of the array of 2^22 integers: %v", err)
	}
	over := *ev
	over.Ret = Uint(1)
	if err := w.Check(&over); !errors.Is(err, ErrInvalid) {
		t.Errorf("Check with one more value: %v, want ErrInvalid", err)
	}
}

// TestWriterStringHeldOnce writes events holding a 32 MiB string, as
// Writer and CallWriter in each container: the string goes from the
// caller's value into the chunk stream, a chunk at a time, instead of
// being copied whole into the event's buffer first (apitracerepack held a
// 250 MiB string twice, 520 MB). What is written reads back the same.
func TestWriterStringHeldOnce(t *testing.T) {
	const size = 32 << 20
	big := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	sig := &FunctionSig{Name: "f", ArgNames: []string{"x", "y"}}
	for _, c := range []Container{Snappy, Gzip, Zstd} {
		for _, calls := range []bool{false, true} {
			var out bytes.Buffer
			out.Grow(4 << 20)
			var err error
			total, _ := allocated(func() {
				h := Header{Version: 6, SemanticVersion: 6, Container: c}
				if calls {
					var w *CallWriter
					if w, err = NewCallWriter(&out, h); err != nil {
						return
					}
					if err = w.Write(&Call{Sig: sig, Args: []Value{String(big), Blob(big[1:])}}); err != nil {
						return
					}
					err = w.Close()
					return
				}
				var w *Writer
				if w, err = NewWriter(&out, h); err != nil {
					return
				}
				ev := &Event{Kind: Enter, Sig: sig, Args: []Arg{{Index: 0, Value: String(big)}, {Index: 1, Value: Blob(big[1:])}}}
				if err = w.Write(ev); err != nil {
					return
				}
				if err = w.Write(&Event{Kind: Leave}); err != nil {
					return
				}
				err = w.Close()
			})
			if err != nil {
				t.Fatalf("%v calls=%v: %v", c, calls, err)
			}
			t.Logf("%v calls=%v: %d MiB allocated", c, calls, total>>20)
			if total > 24<<20 {
				t.Errorf("%v calls=%v: %d MiB allocated to write two strings of 32 MiB, want them not copied whole", c, calls, total>>20)
			}
			r, err := NewCallReader(bytes.NewReader(out.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			call, err := r.Read()
			if err != nil {
				t.Fatalf("%v calls=%v: reading back: %v", c, calls, err)
			}
			if len(call.Args) != 2 || !bytes.Equal(call.Args[0].Bytes(), big) || !bytes.Equal(call.Args[1].Bytes(), big[1:]) {
				t.Errorf("%v calls=%v: the strings read back differ", c, calls)
			}
		}
	}
}

// TestWriterBigStringRefused writes a call, then an event holding a
// 32 MiB string and a value the Writer refuses after it: nothing of the
// refused event is written, and the first call is.
func TestWriterBigStringRefused(t *testing.T) {
	big := make([]byte, 32<<20)
	sig := &FunctionSig{Name: "f", ArgNames: []string{"x", "y"}}
	var out bytes.Buffer
	w, err := NewWriter(&out, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	small := &Event{Kind: Enter, Sig: sig, Args: []Arg{{Index: 0, Value: String([]byte("a"))}}}
	if err := w.Write(small); err != nil {
		t.Fatal(err)
	}
	bad := &Event{Kind: Enter, Call: 1, Sig: sig, Args: []Arg{{Index: 0, Value: String(big)}, {Index: 1, Value: Scalar(ValueKind(200), 0)}}}
	if err := w.Write(bad); !errors.Is(err, ErrInvalid) {
		t.Fatalf("%v, want ErrInvalid", err)
	}
	if err := w.Close(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Close: %v, want the refusal", err)
	}
	if out.Len() > 1<<10 {
		t.Errorf("%d bytes written: some of the refused event's string is there", out.Len())
	}
	r, err := NewReader(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d events read back, want the first alone", n)
	}
}

// TestMaxValuesTakenUpTo2To30 checks that a MaxValues above 2^30 counts
// as 2^30, as its doc says: a composite value keeps its children's place
// and count in 32 bits each, which an event's values, the arrays, structs
// and reprs holding them and the structs' signatures must stay under.
func TestMaxValuesTakenUpTo2To30(t *testing.T) {
	for _, max := range []int{1<<30 + 1, math.MaxInt} {
		r := Reader{MaxValues: max}
		if err := r.Reset(bytes.NewReader(stream6())); err != nil {
			t.Fatal(err)
		}
		if r.maxValues != 1<<30 {
			t.Errorf("MaxValues %d is taken as %d, want 2^30", max, r.maxValues)
		}
	}
	// An event's nodes: its values and the composites holding them, and
	// a signature node for each struct among them; the last index must
	// fit in 32 bits.
	if nodes := uint64(4 * maxMaxValues); nodes > 1<<32 {
		t.Errorf("MaxValues of %d lets an event hold %d nodes, past 2^32", maxMaxValues, nodes)
	}
}
