package xrayfdr

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

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

func BenchmarkReader(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var br bytes.Reader
			rd := new(Reader)
			n := 0
			for i := 0; i < b.N; i++ {
				br.Reset(data)
				if err := rd.Reset(&br); err != nil {
					b.Fatal(err)
				}
				n = 0
				for {
					_, err := rd.Read()
					if err != nil {
						break
					}
					n++
				}
			}
			b.ReportMetric(float64(n), "records/op")
		})
	}
}

// BenchmarkBytesReader reads in place from memory (NewBytesReader).
func BenchmarkBytesReader(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			rd := new(Reader)
			n := 0
			for i := 0; i < b.N; i++ {
				if err := rd.ResetBytes(data); err != nil {
					b.Fatal(err)
				}
				n = 0
				for {
					_, err := rd.Read()
					if err != nil {
						break
					}
					n++
				}
			}
			b.ReportMetric(float64(n), "records/op")
		})
	}
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
