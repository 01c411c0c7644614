package apitrace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestDumperAllocs proves that printing a call allocates nothing once the
// Dumper has seen its signatures.
func TestDumperAllocs(t *testing.T) {
	calls, _ := handCalls()
	for _, opts := range []DumpOptions{{}, {Verbose: true, ThreadIDs: true, NoMultiline: true}, {Color: true}} {
		d := NewDumper(io.Discard, opts)
		for i := range calls {
			d.Call(&calls[i])
		}
		allocs := testing.AllocsPerRun(100, func() {
			for i := range calls {
				d.Call(&calls[i])
			}
		})
		if allocs != 0 {
			t.Errorf("%+v: %v allocations per round", opts, allocs)
		}
	}
}

// benchmarkDumpFile dumps a trace file with Trace, as apitracedump does.
func benchmarkDumpFile(b *testing.B, path string, opts DumpOptions) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	calls := 0
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	for _, err := range cr.All() {
		if err != nil {
			b.Fatal(err)
		}
		calls++
	}
	d := NewDumper(io.Discard, opts)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := d.Trace(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(calls)*float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkDump dumps whole traces to io.Discard; bytes/s are of the
// (compressed) trace file. glxgears-20s is the shared benchmark input
// (778,015 calls), skipped when absent.
func BenchmarkDump(b *testing.B) {
	b.Run("glxinfo-brief-backtrace", func(b *testing.B) {
		benchmarkDumpFile(b, filepath.Join("testdata", "dump", "glxinfo-brief-backtrace.trace"), DumpOptions{Verbose: true})
	})
	b.Run("glxsimple", func(b *testing.B) {
		benchmarkDumpFile(b, filepath.Join("testdata", "dump", "glxsimple.trace"), DumpOptions{Verbose: true})
	})
	b.Run("glxgears-20s", func(b *testing.B) {
		benchmarkDumpFile(b, testutil.SharedFixture(b, "apitrace/glxgears-20s.trace"), DumpOptions{})
	})
}

// BenchmarkDumpCall prints one typical call line, without reading.
func BenchmarkDumpCall(b *testing.B) {
	calls, want := handCalls()
	d := NewDumper(io.Discard, DumpOptions{})
	b.SetBytes(int64(len(want)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for j := range calls {
			d.Call(&calls[j])
		}
	}
}
