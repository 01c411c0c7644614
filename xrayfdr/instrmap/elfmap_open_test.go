package instrmap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/xrayfdr"
)

// TestOpenInstrMapFileGone checks that names do not depend on the file
// once Open has returned (it maps only what it needs and reads
// debug information before returning when names may need it): the
// binary is removed before the names are asked for.
func TestOpenInstrMapFileGone(t *testing.T) {
	for _, name := range []string{"prog_O0_g_pie", "prog_O0_g_nosym", "libx.so"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join("testdata", "elf", name)
			bin := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(bin, testutil.ReadFile(t, src), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			m.LLVM = xrayfdr.LLVM14 // the goldens are llvm-xray-14's
			if err := os.Remove(bin); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				suffix   string
				demangle bool
			}{{".extract-symbolize.yaml", true}, {".extract-no-demangle.yaml", false}} {
				var got bytes.Buffer
				if err := m.WriteYAML(&got, true, c.demangle); err != nil {
					t.Fatal(err)
				}
				testutil.DiffText(t, name+c.suffix, testutil.ReadFile(t, src+c.suffix), got.Bytes())
			}
		})
	}
}

// TestOpenInstrMapCut reads binaries cut short: an error, never a panic.
func TestOpenInstrMapCut(t *testing.T) {
	data := testutil.ReadFile(t, filepath.Join("testdata", "elf", "prog_O0_g_pie"))
	dir := t.TempDir()
	for _, n := range []int{4, 64, 1000, len(data) / 2, len(data) - 1} {
		bin := filepath.Join(dir, "cut")
		if err := os.WriteFile(bin, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Open(bin)
		if err == nil {
			// a cut that leaves the map, the symbols and their names whole
			if err := m.WriteYAML(&bytes.Buffer{}, true, true); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var fe *FormatError
		if !errors.As(err, &fe) && !errors.Is(err, ErrELF) && !errors.Is(err, ErrNoSection) {
			t.Errorf("cut at %d: %v", n, err)
		}
	}
}
