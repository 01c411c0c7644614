package instrmap

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/xraytest"
)

// elfBinaries are the binaries testdata/elf/make.sh builds, with goldens.
var elfBinaries = []string{"prog_O0_g_pie", "prog_O0_nopie", "prog_O2_nopie", "prog_O2_g_pie", "prog_O0_g_nosym", "prog_O2_nosym", "libx.so", "lib_x86_64.o", "lib_aarch64.o"}

// checkExtract compares our extract outputs for the binary at bin with
// the goldens want(suffix) returns.
func checkExtract(t *testing.T, bin string, want func(suffix string) []byte) {
	m, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	m.LLVM = xrayfdr.LLVM14 // the goldens are llvm-xray-14's
	for _, c := range []struct {
		suffix              string
		symbolize, demangle bool
	}{
		{".extract.yaml", false, true},
		{".extract-symbolize.yaml", true, true},
		{".extract-no-demangle.yaml", true, false},
	} {
		if c.symbolize && c.demangle && !haveDemangler() {
			t.Logf("%s: skipped: no demangler yet", c.suffix)
			continue
		}
		var got bytes.Buffer
		if err := m.WriteYAML(&got, c.symbolize, c.demangle); err != nil {
			t.Fatal(err)
		}
		testutil.DiffText(t, filepath.Base(bin)+c.suffix, want(c.suffix), got.Bytes())
	}
}

func TestExtractGolden(t *testing.T) {
	for _, name := range elfBinaries {
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join("testdata", "elf", name)
			checkExtract(t, bin, func(suffix string) []byte { return testutil.ReadFile(t, bin+suffix) })
		})
	}
}

// TestConvertSymbolizeGolden compares convert --symbolize with the
// committed log and binary.
func TestConvertSymbolizeGolden(t *testing.T) {
	dir := filepath.Join("testdata", "elf")
	checkConvert(t, filepath.Join(dir, "prog_O0_g_pie"), filepath.Join(dir, "prog_fdr.xray"),
		func(suffix string) []byte { return testutil.ReadFile(t, filepath.Join(dir, "prog_fdr"+suffix)) })
}

func checkConvert(t *testing.T, bin, log string, want func(suffix string) []byte) {
	m, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	m.LLVM = xrayfdr.LLVM14 // the goldens are llvm-xray-14's
	tr, err := xrayfdr.Expand(testutil.ReadFile(t, log), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		suffix   string
		demangle bool
	}{{".convert-symbolize.yaml", true}, {".convert-no-demangle.yaml", false}} {
		if c.demangle && !haveDemangler() {
			t.Logf("%s: skipped: no demangler yet", c.suffix)
			continue
		}
		var got bytes.Buffer
		if err := xrayfdr.WriteYAMLNames(&got, tr, func(id int32) string { return m.Name(id, c.demangle) }); err != nil {
			t.Fatal(err)
		}
		testutil.DiffText(t, filepath.Base(log)+c.suffix, want(c.suffix), got.Bytes())
	}
}

// TestTypedSleds reads a binary with typed-event sleds, which llvm-xray-14
// refuses; with the tool, the same binary with those sleds relabelled as
// custom events must give llvm-xray's output but for the kind.
func TestTypedSleds(t *testing.T) {
	bin := filepath.Join("testdata", "elf", "typed_O0")
	m, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	m.LLVM = xrayfdr.LLVM14 // the goldens are llvm-xray-14's
	typed := 0
	for _, s := range m.Sleds {
		if s.Kind == SledTypedEvent {
			typed++
		}
	}
	if typed == 0 {
		t.Fatal("no typed-event sled read")
	}
	tool := ""
	if _, err := os.Stat("/usr/bin/llvm-xray-14"); err == nil || testutil.InCI() {
		tool = testutil.Tool(t, "llvm-xray-14")
	}
	if tool == "" {
		return
	}
	patched := patchTypedSleds(t, bin)
	if _, msg := xraytest.LLVMRun(t, tool, "extract", bin); !strings.Contains(msg, "Exec format error") {
		t.Errorf("llvm-xray-14 reads typed-event sleds now? %q", msg)
	}
	checkExtract(t, bin, func(suffix string) []byte {
		args := []string{"extract"}
		switch suffix {
		case ".extract-symbolize.yaml":
			args = append(args, "--symbolize")
		case ".extract-no-demangle.yaml":
			args = append(args, "--symbolize", "--no-demangle")
		}
		out, msg := xraytest.LLVMRun(t, tool, append(args, patched)...)
		if msg != "" {
			t.Fatal(msg)
		}
		lines := bytes.SplitAfter(out, []byte("\n"))
		for i, l := range lines {
			for _, s := range m.Sleds {
				if s.Kind == SledTypedEvent && bytes.Contains(l, []byte(", address: 0x"+strings.ToUpper(strconv.FormatUint(s.Address, 16))+",")) {
					lines[i] = bytes.Replace(l, []byte("kind: custom-event"), []byte("kind: typed-event"), 1)
				}
			}
		}
		return bytes.Join(lines, nil)
	})
}

// patchTypedSleds writes a copy of bin whose typed-event sleds say custom
// event (kind 5 to 4) and returns its path.
func patchTypedSleds(t *testing.T, bin string) string {
	data := testutil.ReadFile(t, bin)
	m, err := ReadELF(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	m.LLVM = xrayfdr.LLVM14 // the goldens are llvm-xray-14's
	_ = m
	sec := findSection(t, data, "xray_instr_map")
	for off := sec; off+32 <= len(data) && off < sec+32*len(m.Sleds); off += 32 {
		if data[off+16] == byte(SledTypedEvent) {
			data[off+16] = byte(SledCustomEvent)
		}
	}
	p := filepath.Join(t.TempDir(), filepath.Base(bin))
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInstrMapRefuses(t *testing.T) {
	for _, c := range []struct {
		path string
		want error
	}{
		{"/etc/passwd", ErrNotMap},
		{"../testdata/fdr_simple.xray", ErrNotMap},
		{"testdata/elf/prog.cpp", ErrNotMap},
		{"testdata/elf/make.sh", ErrNotMap},
	} {
		if _, err := os.Stat(c.path); err != nil {
			continue
		}
		if _, err := Open(c.path); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.path, err, c.want)
		}
	}
	// an ELF object without the section
	// (only where the test binary is of a kind this package reads)
	exe, err := os.Executable()
	if err == nil && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") {
		if _, err := Open(exe); !errors.Is(err, ErrNoSection) {
			t.Errorf("test binary: %v", err)
		}
	}
	// the YAML maps of the fixtures read
	m, err := Open("../testdata/fdr_simple.instrmap.yaml")
	if err != nil || len(m.Sleds) == 0 || m.Name(2, true) != "mid(int)" {
		t.Errorf("YAML map: %v", err)
	}
}

// findSection returns the file offset of the named section.
func findSection(t *testing.T, data []byte, name string) int {
	f, err := elfFile(data)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(name)
	if s == nil {
		t.Fatalf("no section %s", name)
	}
	return int(s.Offset)
}

// haveDemangler reports whether Demangle demangles (the module's
// demangler is wired in).
func haveDemangler() bool {
	_, err := Demangle("_Z1fv")
	return err == nil
}

// TestELFFresh builds the test binaries anew with clang++-14 (make.sh) and
// compares our outputs with what llvm-xray-14 prints for them.
func TestELFFresh(t *testing.T) {
	testutil.Tool(t, "clang++-14")
	testutil.Tool(t, "llvm-xray-14")
	if testing.Short() {
		t.Skip("builds binaries")
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", filepath.Join("testdata", "elf", "make.sh"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make.sh: %v\n%s", err, out)
	}
	for _, name := range elfBinaries {
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(dir, name)
			checkExtract(t, bin, func(suffix string) []byte { return testutil.ReadFile(t, bin+suffix) })
		})
	}
	checkConvert(t, filepath.Join(dir, "prog_O0_g_pie"), filepath.Join(dir, "prog_fdr.xray"),
		func(suffix string) []byte { return testutil.ReadFile(t, filepath.Join(dir, "prog_fdr"+suffix)) })
}

// TestHostileELF changes a real object's section headers: sizes past
// the file, a 2^40-entry map, odd entry sizes. Each is an error, cheaply.
func TestHostileELF(t *testing.T) {
	orig := testutil.ReadFile(t, filepath.Join("testdata", "elf", "lib_x86_64.o"))
	f, err := elfFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	idx := -1
	for i, s := range f.Sections {
		if s.Name == "xray_instr_map" && idx < 0 {
			idx = i
		}
	}
	shoff := int(binary.LittleEndian.Uint64(orig[0x28:]))
	hdr := shoff + idx*64 // Elf64_Shdr of the map
	for _, c := range []struct {
		name  string
		field int // offset in the section header
		value uint64
	}{
		{"size 2^40 entries", 32, 32 << 40},
		{"size past the file", 32, uint64(len(orig))},
		{"offset past the file", 24, 1 << 62},
		{"size not a multiple of 32", 32, 33},
	} {
		data := bytes.Clone(orig)
		binary.LittleEndian.PutUint64(data[hdr+c.field:], c.value)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ReadELF(bytes.NewReader(data), int64(len(data)))
		runtime.ReadMemStats(&after)
		var fe *FormatError
		if !errors.Is(err, ErrELF) || !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a *FormatError wrapping ErrELF", c.name, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("%s: %d bytes allocated", c.name, got)
		}
	}
	// other machines are refused clearly
	data := bytes.Clone(orig)
	binary.LittleEndian.PutUint16(data[0x12:], uint16(elf.EM_RISCV))
	if _, err := ReadELF(bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrMachine) {
		t.Errorf("RISC-V: %v", err)
	}
}

// TestSledVersion1 rewrites the maps of test binaries as older compilers
// wrote them (entry version 1: absolute addresses) and compares with
// llvm-xray-14 on the result.
func TestSledVersion1(t *testing.T) {
	tool := testutil.Tool(t, "llvm-xray-14")
	for _, name := range []string{"libx.so", "prog_O2_nopie", "prog_O0_g_pie"} {
		t.Run(name, func(t *testing.T) {
			data := testutil.ReadFile(t, filepath.Join("testdata", "elf", name))
			m, err := ReadELF(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			m.LLVM = xrayfdr.LLVM14 // the goldens are llvm-xray-14's
			off := findSection(t, data, "xray_instr_map")
			for i, s := range m.Sleds {
				e := data[off+32*i:]
				binary.LittleEndian.PutUint64(e, s.Address)
				binary.LittleEndian.PutUint64(e[8:], s.Function)
				e[18] = 1
			}
			p := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(p, data, 0o755); err != nil {
				t.Fatal(err)
			}
			checkExtract(t, p, func(suffix string) []byte {
				args := []string{"extract"}
				switch suffix {
				case ".extract-symbolize.yaml":
					args = append(args, "--symbolize")
				case ".extract-no-demangle.yaml":
					args = append(args, "--symbolize", "--no-demangle")
				}
				out, msg := xraytest.LLVMRun(t, tool, append(args, p)...)
				if msg != "" {
					t.Fatal(msg)
				}
				if !bytes.Contains(out, []byte("version: 1 }")) {
					t.Fatal("the patched map is not version 1")
				}
				return out
			})
		})
	}
}
