package xrayfdr

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/xraytest"
)

// compareWithLLVM checks our fdr-dump, -verify and YAML outputs, in the
// tool's release's order, for the log at path against that llvm-xray run
// on it now. It reports whether llvm-xray converted the log.
func compareWithLLVM(t *testing.T, tl xraytest.Tool, path string) bool {
	tool, v := tl.Path, LLVM(tl.Major)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, wantErr := xraytest.LLVMRun(t, tool, "fdr-dump", path)
	var got bytes.Buffer
	err = Dump(&got, bytes.NewReader(data))
	testutil.DiffText(t, "fdr-dump", want, got.Bytes())
	checkToolError(t, wantErr, err)

	want, wantErr = xraytest.LLVMRun(t, tool, "fdr-dump", "-verify", path)
	got.Reset()
	err = v.DumpVerify(&got, data)
	testutil.DiffText(t, "fdr-dump -verify", want, got.Bytes())
	checkToolError(t, wantErr, err)

	want, wantErr = xraytest.LLVMRun(t, tool, "convert", "--output-format=yaml", "--symbolize=false", path)
	got.Reset()
	tr, err := v.Expand(data, true)
	if wantErr != "" {
		if err == nil {
			t.Errorf("llvm-xray convert fails (%.200s), we expand %d events", wantErr, len(tr.Events))
		}
		return false
	}
	if err != nil {
		t.Fatalf("llvm-xray converts, we fail: %v", err)
	}
	if err := WriteYAML(&got, tr); err != nil {
		t.Fatal(err)
	}
	testutil.DiffText(t, "yaml", want, got.Bytes())
	return true
}

// TestInteropRuntime builds testdata/interop/prog.cpp with clang++-14 and
// clang++-19 -fxray-instrument, runs each in FDR and basic mode and
// compares our outputs with llvm-xray-14's and -19's on the logs they
// wrote.
func TestInteropRuntime(t *testing.T) {
	tools := xraytest.Tools(t)
	for _, major := range xraytest.Majors {
		t.Run("clang-"+strconv.Itoa(major), func(t *testing.T) { interopRuntime(t, xraytest.Clang(t, major), major, tools) })
	}
}

func interopRuntime(t *testing.T, clang string, major int, tools []xraytest.Tool) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	code, err := os.ReadFile("testdata/interop/prog.cpp") // read here so go test's cache sees it
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "prog.cpp")
	if err := os.WriteFile(src, code, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-O1", "-fxray-instrument", "-fxray-instruction-threshold=1", "-pthread", src, "-o", prog}
	if major >= 19 {
		args = append(args, "-DNO_TYPED_EVENT") // compiler-rt 19's FDR mode crashes on one
	}
	build := exec.Command(clang, args...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", build.Args, err, out)
	}
	runs := []struct {
		mode string
		env  []string
		args []string
	}{
		{"fdr", []string{"XRAY_OPTIONS=patch_premain=true xray_mode=xray-fdr xray_logfile_base=" + dir + "/fdr-",
			"XRAY_FDR_OPTIONS=func_duration_threshold_us=0 buffer_size=4096"}, []string{"fdr"}},
		{"fdr-default", []string{"XRAY_OPTIONS=patch_premain=true xray_mode=xray-fdr xray_logfile_base=" + dir + "/fdr-default-"}, []string{"fdr"}},
		{"basic", []string{"XRAY_OPTIONS=patch_premain=true xray_mode=xray-basic xray_logfile_base=" + dir + "/basic-",
			"XRAY_BASIC_OPTIONS=func_duration_threshold_us=0"}, nil},
	}
	for _, r := range runs {
		t.Run(r.mode, func(t *testing.T) {
			cmd := exec.Command(prog, r.args...)
			cmd.Env = append(os.Environ(), r.env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			logs, _ := filepath.Glob(filepath.Join(dir, r.mode+"-prog.*"))
			if len(logs) != 1 {
				t.Fatalf("logs written: %v", logs)
			}
			data, _ := os.ReadFile(logs[0])
			rd, err := NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			wantType := uint16(TypeFDR)
			if r.mode == "basic" {
				wantType = TypeBasic
			}
			if h := rd.Header(); h.Type != wantType || h.Version < 3 {
				t.Fatalf("header %+v", h)
			}
			// With the default 5 us threshold the runtime erases the short
			// calls after the typed event, and its extents bug may then cut
			// a record: llvm-xray (and we) may refuse that log.
			for _, tool := range tools {
				if !compareWithLLVM(t, tool, logs[0]) && r.mode != "fdr-default" {
					t.Errorf("%s cannot convert the runtime's log", tool.Name())
				}
			}
			// and the Writer reproduces the runtime's bytes
			again, end, err, werr := rewrite(t, data, false)
			if werr == nil && err == nil && end != int64(len(data)) {
				t.Errorf("read stopped at %d of %d", end, len(data))
			}
			checkRewrite(t, data, again, end, err, werr)
		})
	}
}

// TestInteropFixtures compares with llvm-xray-14 and -19 on the big shared
// fixtures, whose outputs are not all committed.
func TestInteropFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, tool := range xraytest.Tools(t) {
		for _, name := range []string{"fdr_deep.xray", "fdr_threads.xray"} {
			t.Run(tool.Name()+"/"+name, func(t *testing.T) {
				if !compareWithLLVM(t, tool, testutil.SharedFixture(t, "xray/"+name)) {
					t.Errorf("llvm-xray cannot convert it")
				}
			})
		}
	}
}
