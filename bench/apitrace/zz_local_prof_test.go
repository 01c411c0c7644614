package apitrace_test

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// Local profiling helper (not committed).
func BenchmarkZZOurs(b *testing.B) {
	name := os.Getenv("ZZIN")
	if name == "" {
		name = "apitrace-glxgears-20s/level3"
	}
	for _, in := range inputs(b) {
		if in.name != name {
			continue
		}
		os.WriteFile("/tmp/zz-"+strings.ReplaceAll(in.name, "/", "_")+".zst", in.comp, 0o644)
		var zr zstd.Reader
		br := bytes.NewReader(nil)
		b.SetBytes(int64(len(in.raw)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			br.Reset(in.comp)
			if err := zr.Reset(br); err != nil {
				b.Fatal(err)
			}
			if _, err := zr.WriteTo(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	}
}
