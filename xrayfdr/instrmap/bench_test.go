package instrmap

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkExtract reads a test binary's map and prints it with names, as
// xraydump extract --symbolize does.
func BenchmarkExtract(b *testing.B) {
	path := filepath.Join("testdata", "elf", "prog_O0_g_pie")
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := m.WriteYAML(io.Discard, true, true); err != nil {
			b.Fatal(err)
		}
	}
}
