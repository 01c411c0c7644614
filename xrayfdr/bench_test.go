package xrayfdr

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// benchInputs are the real logs to measure: the committed fdr_threads and,
// when the shared fixtures are there, the 10 MB fdr_big.
func benchInputs(b *testing.B) map[string][]byte {
	in := map[string][]byte{"fdr_threads": testutil.ReadFile(b, "testdata/fdr_threads.xray")}
	big := filepath.Join(testutil.ModuleRoot(b), "..", "shared", "fixtures", "xray", "fdr_big.xray")
	if _, err := os.Stat(big); err == nil || testutil.InCI() {
		in["fdr_big"] = testutil.ReadFile(b, testutil.SharedFixture(b, "xray/fdr_big.xray"))
	}
	return in
}

// BenchmarkReader reads every record from a stream with All, the loop the
// package's examples show.
func BenchmarkReader(b *testing.B) {
	var br bytes.Reader
	benchRead(b, func(rd *Reader, data []byte) error {
		br.Reset(data)
		return rd.Reset(&br)
	}, countAll)
}

// BenchmarkBytesReader reads every record in place from memory
// (NewBytesReader) with All.
func BenchmarkBytesReader(b *testing.B) {
	benchRead(b, (*Reader).ResetBytes, countAll)
}

// BenchmarkReadCalls reads every record in place with a call to Read per
// record (All inlines into the loop that ranges over it; Read is a call).
func BenchmarkReadCalls(b *testing.B) {
	benchRead(b, (*Reader).ResetBytes, countRecords)
}

// benchRead reads every input whole with a Reader that reset prepares.
func benchRead(b *testing.B, reset func(*Reader, []byte) error, count func(*Reader) int) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			rd := new(Reader)
			n := 0
			for i := 0; i < b.N; i++ {
				if err := reset(rd, data); err != nil {
					b.Fatal(err)
				}
				n = count(rd)
			}
			b.ReportMetric(float64(n), "records/op")
		})
	}
}

// countRecords reads to the end or the first error with Read.
func countRecords(rd *Reader) int {
	n := 0
	for {
		if _, err := rd.Read(); err != nil {
			return n
		}
		n++
	}
}

// countAll reads to the end or the first error with All.
// BenchmarkBytesReaderBesideScan alternates a pass of BenchmarkBytesReader's
// loop with a plain scan of the same bytes, eight at a time, and reports
// both throughputs. On a shared machine the memory a pass reads runs at
// different speeds from one moment to the next; the scan beside each pass
// says which state the machine was in.
func BenchmarkBytesReaderBesideScan(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			rd := new(Reader)
			var tRead, tScan time.Duration
			var sum uint64
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if err := rd.ResetBytes(data); err != nil {
					b.Fatal(err)
				}
				countAll(rd)
				t1 := time.Now()
				for p := 0; p+8 <= len(data); p += 8 {
					sum += binary.LittleEndian.Uint64(data[p:])
				}
				tRead += t1.Sub(t0)
				tScan += time.Since(t1)
			}
			mb := float64(len(data)) * float64(b.N) / 1e6
			b.ReportMetric(mb/tRead.Seconds(), "read-MB/s")
			b.ReportMetric(mb/tScan.Seconds(), "scan-MB/s")
			b.ReportMetric(float64(sum&1), "sum-bit") // keeps the scan
		})
	}
}

func countAll(rd *Reader) int {
	n := 0
	for _, err := range rd.All() {
		if err != nil {
			break
		}
		n++
	}
	return n
}

func BenchmarkDump(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := Dump(io.Discard, bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkYAML(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				tr, err := Expand(data, true)
				if err != nil {
					b.Fatal(err)
				}
				if err := WriteYAML(io.Discard, tr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteYAML formats the events of each input (expanded once,
// before the timing) as YAML; with -cpu 1 it measures the formatting
// alone.
func BenchmarkWriteYAML(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			tr, err := Expand(data, true)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := WriteYAML(io.Discard, tr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriter writes back every record of each input (records read
// once, before the timing).
func BenchmarkWriter(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			rd, err := NewBytesReader(data)
			if err != nil {
				b.Fatal(err)
			}
			var recs []*Record
			for rec, err := range rd.All() {
				if err != nil {
					b.Fatal(err)
				}
				recs = append(recs, rec.Clone())
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			wr := new(Writer)
			for i := 0; i < b.N; i++ {
				if err := wr.Reset(io.Discard, rd.Header()); err != nil {
					b.Fatal(err)
				}
				for _, rec := range recs {
					if err := wr.Write(rec); err != nil {
						b.Fatal(err)
					}
				}
				if err := wr.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(recs)), "records/op")
		})
	}
}
