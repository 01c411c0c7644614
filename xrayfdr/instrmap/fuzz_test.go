package instrmap

import (
	"bytes"
	"io"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// FuzzELFInstrMap reads instrumentation maps from ELF objects (seeded
// with the test binaries) and names every function: no panic, ids in
// range, memory in proportion to the input.
func FuzzELFInstrMap(f *testing.F) {
	for _, name := range []string{"lib_x86_64.o", "lib_aarch64.o", "libx.so", "typed_O0", "prog_O2_nopie", "prog_O2_nosym", "prog_O0_g_nosym"} {
		f.Add(testutil.ReadFile(f, filepath.Join("testdata", "elf", name)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := ReadELF(bytes.NewReader(data), int64(len(data)))
		if err == nil {
			for _, s := range m.Sleds {
				if s.FuncID < 1 || int(s.FuncID) > len(m.Functions) {
					t.Fatalf("sled of function id %d of %d", s.FuncID, len(m.Functions))
				}
			}
			for id := range m.Functions {
				m.Name(int32(id+1), true)
			}
			if err := m.WriteYAML(io.Discard, true, true); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20+64*uint64(len(data)) {
			t.Fatalf("%d bytes allocated for a %d-byte input", got, len(data))
		}
	})
}

// FuzzYAMLInstrMap reads YAML maps (seeded with llvm-xray's): no panic,
// and what reads is written back as it reads.
func FuzzYAMLInstrMap(f *testing.F) {
	for _, p := range []string{"../testdata/fdr_simple.instrmap.yaml", "testdata/elf/libx.so.extract-symbolize.yaml", "testdata/elf/prog_O2_nopie.extract-no-demangle.yaml"} {
		f.Add(testutil.ReadFile(f, p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadYAML(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := m.WriteYAML(&out, true, false); err != nil {
			t.Fatal(err)
		}
		m2, err := ReadYAML(&out)
		if err != nil {
			t.Fatalf("our YAML does not read back: %v\n%s", err, out.Bytes())
		}
		if len(m2.Sleds) != len(m.Sleds) || len(m2.Functions) != len(m.Functions) {
			t.Fatalf("read back %d sleds, %d functions; want %d, %d", len(m2.Sleds), len(m2.Functions), len(m.Sleds), len(m.Functions))
		}
	})
}
