package demangle_test

import (
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/demangle"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// golden reads testdata/golden.txt: name, tab, llvm-cxxfilt-14's output.
func golden(t testing.TB) (names, want []string) {
	return goldenFile(t, "golden.txt")
}

// goldenFile reads a golden file of testdata: name, tab, the tool's output.
func goldenFile(t testing.TB, file string) (names, want []string) {
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		name, out, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("golden.txt: no tab in %q", line)
		}
		names = append(names, name)
		want = append(want, out)
	}
	return names, want
}

func TestGolden(t *testing.T) {
	names, want := golden(t)
	if len(names) < 300 {
		t.Fatalf("golden.txt has %d names, want a few hundred", len(names))
	}
	demangled := 0
	for i, name := range names {
		if got := demangle.Filter(name); got != want[i] {
			t.Errorf("Filter(%q)\n got %q\nwant %q", name, got, want[i])
		}
		got, err := demangle.Demangle(name)
		switch {
		case want[i] == name:
			if err == nil {
				t.Errorf("Demangle(%q) = %q, want an error (llvm-cxxfilt-14 keeps it)", name, got)
			}
		case err != nil:
			t.Errorf("Demangle(%q): %v", name, err)
		case got != want[i]:
			t.Errorf("Demangle(%q) = %q, want %q", name, got, want[i])
		default:
			demangled++
		}
	}
	if demangled < len(names)/2 {
		t.Errorf("only %d of %d golden names demangle", demangled, len(names))
	}
}

// tight is LLVM 14's spelling with closing template brackets unspaced,
// the one spelling change of LLVM 15 on that LLVM19 makes.
func tight(s string) string {
	for strings.Contains(s, "> >") {
		s = strings.ReplaceAll(s, "> >", ">>")
	}
	return s
}

// TestGolden19 compares LLVM19 with llvm-cxxfilt-19 (testdata/golden19.txt):
// every name equal, including those where LLVM 19 changed more than the
// brackets since LLVM 14 (expressions with fewer parentheses, constructors
// of ABI-tagged classes, manglings LLVM 14 does not read).
func TestGolden19(t *testing.T) {
	names, want14 := golden(t)
	names19, want19 := goldenFile(t, "golden19.txt")
	if len(names19) != len(names) {
		t.Fatalf("golden19.txt has %d names, golden.txt %d", len(names19), len(names))
	}
	changed := 0
	for i, name := range names {
		got := demangle.LLVM19.Filter(name)
		if got != want19[i] {
			t.Errorf("LLVM19.Filter(%q)\n got %q\nwant %q", name, got, want19[i])
		}
		if tight(want14[i]) != want19[i] {
			changed++
		}
		d, err := demangle.LLVM19.Demangle(name)
		switch {
		case want19[i] == name:
			if err == nil {
				t.Errorf("LLVM19.Demangle(%q) = %q, want an error (llvm-cxxfilt-19 keeps it)", name, d)
			}
		case err != nil:
			t.Errorf("LLVM19.Demangle(%q): %v", name, err)
		case d != got:
			t.Errorf("LLVM19.Demangle(%q) = %q, Filter %q", name, d, got)
		}
	}
	// The names where LLVM 19 changed more than the brackets.
	t.Logf("%d names LLVM 19 prints otherwise than LLVM 14 with tight brackets", changed)
	if changed < 30 {
		t.Errorf("only %d golden names where LLVM 19 changed more than the brackets, want the cases of each change", changed)
	}
}

func TestErrors(t *testing.T) {
	for _, name := range []string{"", "f", "_Z", "_Z1", "_Z1fv$", "__Z1fv", "_ZSs", "main", "_Z1fIiEX", "__imp_"} {
		got, err := demangle.Demangle(name)
		if !errors.Is(err, demangle.ErrInvalid) {
			t.Errorf("Demangle(%q) = %q, %v; want ErrInvalid", name, got, err)
		}
		if got := demangle.Filter(name); got != name {
			t.Errorf("Filter(%q) = %q, want it unchanged", name, got)
		}
	}
	_, err := demangle.Demangle("_Z1fX")
	var de *demangle.Error
	if !errors.As(err, &de) || !strings.HasPrefix(err.Error(), "demangle: offset ") {
		t.Errorf("error %v: want a *Error saying the offset", err)
	}
}

// TestFilterLine: like llvm-cxxfilt, Filter demangles each word of a line
// and keeps what separates them.
func TestFilterLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"_Z1fv _Z1gv", "f() g()"},
		{"call _Z1fv@plt\t(x)", "call f()@plt\t(x)"},
		{"_Z1fv.cold+0x10", "f() (.cold)+0x10"},
		{"  ", "  "},
	} {
		if got := demangle.Filter(c.in); got != c.want {
			t.Errorf("Filter(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// hostile names: each must fail or give bounded output, fast.
func hostileNames() []string {
	subs := "_Z1fP1A" + strings.Repeat("S_", 2000) // each S_ is one short type
	var deep strings.Builder
	deep.WriteString("_Z1f")
	for i := 0; i < 5000; i++ {
		deep.WriteString("P")
	}
	deep.WriteString("i")
	var nest strings.Builder
	nest.WriteString("_Z1fIJ")
	for i := 0; i < 3000; i++ {
		nest.WriteString("1AIJ")
	}
	// Substitutions of ever larger types: B<A, A>, then B<that, that>...
	// The output doubles with each 10 bytes of input.
	var dbl strings.Builder
	dbl.WriteString("_Z1f1A1BIS_S_E")
	for k := 1; k <= 60; k++ {
		dbl.WriteString("S0_IS" + base36(k) + "_S" + base36(k) + "_E")
	}
	// Pack expansions over packs.
	pack := "_Z1fIJ" + strings.Repeat("i", 200) + "EEvDpDpDpDpPT_"
	return []string{
		subs, deep.String(), nest.String(), dbl.String(), pack,
		"_Z1fIJPT_EEvDpT_", // a pack element refers to itself
		"_ZN1AcvT_IiEEv",
		"_Z1fIiEDTcvT_fp_E" + strings.Repeat("DTcl", 3000),
		"_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ1fvE",
		"_ZZ1fvENKUl" + strings.Repeat("Tp", 100000) + "TyE_clEv", // nested parameter pack declarations
		"_Z1f" + strings.Repeat("DTcl", 100000),
	}
}

func base36(i int) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	if i < 36 {
		return digits[i : i+1]
	}
	return digits[i/36:i/36+1] + digits[i%36:i%36+1]
}

func TestHostile(t *testing.T) {
	for _, name := range hostileNames() {
		out, err := demangle.Demangle(name)
		if i := 3; name == hostileNames()[i] && !errors.Is(err, demangle.ErrTooLarge) {
			t.Errorf("doubling substitutions: %d bytes, %v; want ErrTooLarge", len(out), err)
		}
		if err == nil && len(out) > 64*len(name)+4096 {
			t.Errorf("Demangle(%.40q...) gave %d bytes for a %d-byte name", name, len(out), len(name))
		}
		if got := demangle.Filter(name); err != nil && got != name {
			t.Errorf("Filter(%.40q...) changed a name Demangle refuses", name)
		}
	}
}

// TestRealLibraries compares Filter with llvm-cxxfilt-14 on every defined
// dynamic C++ symbol of the machine's shared libraries (libstdc++,
// libLLVM-19 among them), and LLVM19.Filter with llvm-cxxfilt-19.
func TestRealLibraries(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: every symbol of the machine's libraries")
	}
	tool := testutil.Tool(t, "llvm-cxxfilt-14")
	tool19 := testutil.Tool(t, "llvm-cxxfilt-19")
	names, libs := librarySymbols(t)
	// Debian's libLLVM-19.so links to libLLVM.so.19.1.
	for _, want := range []string{"libstdc++.so", "libLLVM-14.so", "libLLVM.so.19"} {
		found := false
		for _, l := range libs {
			found = found || strings.Contains(filepath.Base(l), want)
		}
		if !found {
			if testutil.InCI() {
				t.Fatalf("no %s found", want)
			}
			t.Logf("no %s found", want)
		}
	}
	if len(names) == 0 {
		if testutil.InCI() {
			t.Fatal("no C++ symbols found")
		}
		t.Skip("no C++ symbols found")
	}
	want := cxxfilt(t, tool, names)
	bad := 0
	for i, name := range names {
		if got := demangle.Filter(name); got != want[i] {
			bad++
			if bad <= 20 {
				t.Logf("%s\n got %s\nwant %s", name, got, want[i])
			}
		}
	}
	t.Logf("%d of %d C++ symbols of %d libraries identical (%d differ)", len(names)-bad, len(names), len(libs), bad)
	if bad*1000 > len(names) {
		t.Errorf("%d of %d names differ from %s: more than 0.1%%", bad, len(names), tool)
	}

	want19 := cxxfilt(t, tool19, names)
	bad, changed := 0, 0
	for i, name := range names {
		if tight(want[i]) != want19[i] {
			changed++
		}
		if got := demangle.LLVM19.Filter(name); got != want19[i] {
			bad++
			if bad <= 20 {
				t.Logf("%s\n got %s\nwant %s", name, got, want19[i])
			}
		}
	}
	t.Logf("llvm-cxxfilt-19: %d of %d identical (%d differ; %d where LLVM 19 changed more than the brackets)",
		len(names)-bad, len(names), bad, changed)
	if bad*1000 > len(names) {
		t.Errorf("%d of %d names differ from %s: more than 0.1%%", bad, len(names), tool19)
	}
}

// cxxfilt runs an llvm-cxxfilt on names, one a line.
func cxxfilt(t *testing.T, tool string, names []string) []string {
	cmd := exec.Command(tool)
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(want) != len(names) {
		t.Fatalf("%s printed %d lines for %d names", tool, len(want), len(names))
	}
	return want
}

// librarySymbols lists the defined dynamic symbols that llvm-cxxfilt
// would try to demangle, from the shared libraries in the usual places.
func librarySymbols(t *testing.T) (names, libs []string) {
	seen := map[string]bool{}
	files := map[string]bool{}
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/llvm-14/lib", "/usr/lib64", "/usr/lib"} {
		matches, _ := filepath.Glob(filepath.Join(dir, "*.so*"))
		for _, m := range matches {
			real, err := filepath.EvalSymlinks(m)
			if err != nil || files[real] {
				continue
			}
			files[real] = true
			f, err := elf.Open(real)
			if err != nil {
				continue
			}
			syms, err := f.DynamicSymbols()
			f.Close()
			if err != nil {
				continue
			}
			libs = append(libs, real)
			for _, s := range syms {
				if s.Section == elf.SHN_UNDEF || seen[s.Name] {
					continue
				}
				if strings.HasPrefix(s.Name, "_Z") || strings.HasPrefix(s.Name, "___Z") || strings.HasPrefix(s.Name, "__imp_") {
					seen[s.Name] = true
					names = append(names, s.Name)
				}
			}
		}
	}
	sort.Strings(names)
	return names, libs
}

func FuzzDemangle(f *testing.F) {
	names, _ := golden(f)
	for _, n := range names {
		f.Add(n)
	}
	for _, n := range hostileNames() {
		if len(n) <= 4096 { // big seeds only slow the fuzzer down
			f.Add(n)
		}
	}
	f.Fuzz(func(t *testing.T, name string) {
		out, err := demangle.Demangle(name)
		if err != nil {
			if out != "" {
				t.Fatalf("output %q with error %v", out, err)
			}
			var de *demangle.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *Error", err)
			}
		} else if len(out) > 17+64*len(name)+4096 {
			t.Fatalf("%d bytes out for a %d-byte name", len(out), len(name))
		}
		line := demangle.Filter(name)
		if oneWord(name) && err == nil && line != out {
			t.Fatalf("Filter %q, Demangle %q", line, out)
		}
		// LLVM19 keeps the same limits, and reads whatever LLVM 14
		// reads but names of operator->* ("pm", which LLVM 15 on
		// refuse), a "gs" where LLVM 14 takes two, and local names
		// ("Z" again) whose template arguments are referred to later.
		out19, err19 := demangle.LLVM19.Demangle(name)
		if err19 != nil {
			var de *demangle.Error
			if out19 != "" || !errors.As(err19, &de) {
				t.Fatalf("LLVM19: %q, %v", out19, err19)
			}
			if err == nil && !strings.Contains(name, "pm") && !strings.Contains(name, "gs") && !strings.Contains(name[2:], "Z") {
				t.Fatalf("LLVM19: %v; LLVM14: %q", err19, out)
			}
		} else if len(out19) > 17+64*len(name)+4096 {
			t.Fatalf("LLVM19: %d bytes out for a %d-byte name", len(out19), len(name))
		}
		if line19 := demangle.LLVM19.Filter(name); oneWord(name) && err19 == nil && line19 != out19 {
			t.Fatalf("LLVM19: Filter %q, Demangle %q", line19, out19)
		}
	})
}

func BenchmarkFilter(b *testing.B) {
	names, _ := golden(b)
	var size int64
	for _, n := range names {
		size += int64(len(n))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, n := range names {
			demangle.Filter(n)
		}
	}
}

// oneWord reports whether llvm-cxxfilt would take s as a single word.
func oneWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.') {
			return false
		}
	}
	return true
}

func TestZeroValue(t *testing.T) {
	testutil.CheckZeroValue(t, new(demangle.Error), "Unwrap")
}

// TestProgramSymbols builds testdata/src/tags.cpp (ABI-tagged classes'
// constructors and destructors, expressions in template arguments) with
// clang++-14 and clang++-19 and compares the demangling of every C++
// symbol of the object file with llvm-cxxfilt-14 and llvm-cxxfilt-19.
func TestProgramSymbols(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	filt14 := testutil.Tool(t, "llvm-cxxfilt-14")
	filt19 := testutil.Tool(t, "llvm-cxxfilt-19")
	for _, cxx := range []string{"clang++-14", "clang++-19"} {
		t.Run(cxx, func(t *testing.T) {
			tool := testutil.Tool(t, cxx)
			obj := filepath.Join(t.TempDir(), "tags.o")
			out, err := exec.Command(tool, "-std=c++20", "-g", "-O0", "-c", filepath.Join("testdata", "src", "tags.cpp"), "-o", obj).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", cxx, err, out)
			}
			f, err := elf.Open(obj)
			if err != nil {
				t.Fatal(err)
			}
			syms, err := f.Symbols()
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			seen := map[string]bool{}
			for _, s := range syms {
				if strings.HasPrefix(s.Name, "_Z") && !seen[s.Name] {
					seen[s.Name] = true
					names = append(names, s.Name)
				}
			}
			if len(names) < 20 {
				t.Fatalf("%d C++ symbols in %s, want more than 20", len(names), obj)
			}
			for _, c := range []struct {
				v    demangle.Version
				tool string
			}{{demangle.LLVM14, filt14}, {demangle.LLVM19, filt19}} {
				want := cxxfilt(t, c.tool, names)
				for i, name := range names {
					if got := c.v.Filter(name); got != want[i] {
						t.Errorf("LLVM%d.Filter(%q)\n got %q\nwant %q (%s)", c.v, name, got, want[i], filepath.Base(c.tool))
					}
				}
			}
		})
	}
}
