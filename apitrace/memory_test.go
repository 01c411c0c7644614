package apitrace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
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
