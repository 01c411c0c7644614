package apitrace

import (
	"bytes"
	"errors"
	"io"
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
