package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

var td = filepath.Join("..", "..", "xrayfdr", "testdata")

// The outputs must equal the llvm-xray-14 goldens committed with xrayfdr,
// with --llvm=14 first in the old form.
func TestGoldens(t *testing.T) {
	for _, name := range []string{"fdr_simple", "fdr_typed", "synthetic-v1", "synthetic-v5", "basic_simple"} {
		log := filepath.Join(td, name+".xray")
		for _, c := range []struct {
			suffix string
			args   []string
		}{
			{".fdr-dump.txt", nil},
			{".fdr-dump-verify.txt", []string{"-verify"}},
			{".yaml", []string{"-yaml"}},
		} {
			want := testutil.ReadFile(t, filepath.Join(td, name+c.suffix))
			var got, stderr bytes.Buffer
			code := run(append(append([]string{"--llvm=14"}, c.args...), log), &got, &stderr)
			if name == "basic_simple" && c.suffix != ".yaml" {
				if code != 1 {
					t.Errorf("%s%s: llvm-xray fails, we exit %d", name, c.suffix, code)
				}
			} else if code != 0 {
				t.Fatalf("%s%s: exit %d: %s", name, c.suffix, code, stderr.String())
			}
			testutil.DiffText(t, name+c.suffix, want, got.Bytes())
		}
	}
	var got, stderr bytes.Buffer
	if code := run([]string{"-chrome", "-instr-map", filepath.Join(td, "fdr_simple.instrmap.yaml"), filepath.Join(td, "fdr_simple.xray")}, &got, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	if !json.Valid(got.Bytes()) || !bytes.Contains(got.Bytes(), []byte(`"name":"mid(int)"`)) {
		t.Errorf("chrome output invalid or unnamed:\n%.300s", got.String())
	}
}

func TestExitStatus(t *testing.T) {
	missing := filepath.Join(td, "missing.xray")
	for _, c := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"-h"}, 0, "usage: xraydump"},
		{[]string{"-h"}, 0, "--llvm=14 prints llvm-xray-14's"},
		{[]string{"-nosuchflag", "x"}, 2, "flag provided but not defined"},
		{[]string{}, 2, "want one file"},
		{[]string{"-yaml", "-verify", "x"}, 2, "exclude each other"},
		{[]string{missing}, 1, "xraydump: open " + missing},
		{[]string{"-yaml", filepath.Join(td, "invalid", "metadata-kind-10.xray")}, 1, "xraydump: " + filepath.Join(td, "invalid", "metadata-kind-10.xray") + ": xrayfdr: offset 80"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, want %d; stderr %q lacks %q", c.args, code, c.code, stderr.String(), c.want)
		}
		if c.code == 2 && strings.Count(stderr.String(), "xraydump:") != 1 {
			t.Errorf("%q: want one error line then the usage, got %q", c.args, stderr.String())
		}
		if c.code == 1 && strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: want one line, got %q", c.args, stderr.String())
		}
	}
}

// The subcommand forms, with LLVM's flag spellings, against the goldens
// llvm-xray-14 made for the test binaries (--llvm=14 right after the
// subcommand's name).
func TestSubcommands(t *testing.T) {
	elf := filepath.Join(td, "..", "instrmap", "testdata", "elf")
	bin := filepath.Join(elf, "prog_O0_g_pie")
	log := filepath.Join(elf, "prog_fdr.xray")
	for _, c := range []struct {
		args   []string
		golden string
	}{
		{[]string{"extract", bin}, bin + ".extract.yaml"},
		{[]string{"extract", "--symbolize", bin}, bin + ".extract-symbolize.yaml"},
		{[]string{"extract", bin, "-s"}, bin + ".extract-symbolize.yaml"},
		{[]string{"extract", "-symbolize", "--no-demangle", bin}, bin + ".extract-no-demangle.yaml"},
		{[]string{"extract", "--symbolize", "--demangle=false", bin}, bin + ".extract-no-demangle.yaml"},
		{[]string{"convert", "--output-format=yaml", "--symbolize", "--instr_map=" + bin, log}, filepath.Join(elf, "prog_fdr.convert-symbolize.yaml")},
		{[]string{"convert", "-output-format", "yaml", "-symbolize", "-instr_map", bin, log}, filepath.Join(elf, "prog_fdr.convert-symbolize.yaml")},
		{[]string{"convert", log, "--instr_map", bin, "-f=yaml", "-y", "--no-demangle"}, filepath.Join(elf, "prog_fdr.convert-no-demangle.yaml")},
		{[]string{"convert", "-m", bin, "--output-format=yaml", log}, filepath.Join(elf, "prog_fdr.convert-plain.yaml")},
		{[]string{"fdr-dump", filepath.Join(td, "fdr_simple.xray")}, filepath.Join(td, "fdr_simple.fdr-dump.txt")},
		{[]string{"fdr-dump", "--verify", filepath.Join(td, "fdr_simple.xray")}, filepath.Join(td, "fdr_simple.fdr-dump-verify.txt")},
		{[]string{"convert", "--output-format=yaml", filepath.Join(td, "fdr_simple.xray")}, filepath.Join(td, "fdr_simple.yaml")},
	} {
		if _, err := os.Stat(c.golden); err != nil {
			t.Errorf("%q: golden: %v", c.args, err)
			continue
		}
		var got, stderr bytes.Buffer
		args := append([]string{c.args[0], "--llvm=14"}, c.args[1:]...)
		if code := run(args, &got, &stderr); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, stderr.String())
			continue
		}
		testutil.DiffText(t, strings.Join(args, " "), testutil.ReadFile(t, c.golden), got.Bytes())
	}
	// -chrome and trace_event name functions from the binary
	for _, args := range [][]string{{"-chrome", "-instr-map", bin, log}, {"convert", "--output-format=trace_event", "--symbolize", "--instr_map=" + bin, log}} {
		var got, stderr bytes.Buffer
		if code := run(args, &got, &stderr); code != 0 {
			t.Fatalf("%q: %s", args, stderr.String())
		}
		if !json.Valid(got.Bytes()) || !bytes.Contains(got.Bytes(), []byte(`"name":"geo::Vec::operator+(geo::Vec const&) const"`)) {
			t.Errorf("%q: chrome output invalid or unnamed:\n%.300s", args, got.String())
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"extract", "/etc/passwd"}, 1, "xraydump: /etc/passwd: instrmap: line 1: not an ELF object"},
		{[]string{"convert", "--output-format=yaml", "--instr_map=/etc/passwd", log}, 1, "/etc/passwd"},
		{[]string{"convert", log}, 2, "--output-format"},
		{[]string{"convert", "--output-format=raw", log}, 2, "not supported"},
		{[]string{"extract", "-h"}, 0, "usage:"},
		{[]string{"extract", "--bogus", bin}, 2, "flag provided but not defined"},
		{[]string{"extract", bin, bin}, 2, "want one file"},
		{[]string{"extract", "--llvm=15", bin}, 2, "want 14 or 19"},
		{[]string{"account", "--llvm", "13", log}, 2, "want 14 or 19"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, want %d; stderr %q lacks %q", c.args, code, c.code, stderr.String(), c.want)
		}
	}
}

// TestAgainstLLVM runs xraydump --llvm=N and llvm-xray-N (14 and 19) on the
// shared fixtures' logs, with their instrumentation maps for the analyses,
// and compares the outputs wherever llvm-xray succeeds.
func TestAgainstLLVM(t *testing.T) {
	dir := testutil.SharedFixture(t, "xray")
	lines := []string{
		"fdr-dump", "fdr-dump -verify", "convert --output-format=yaml --symbolize=false",
		"account MAP", "account --sort=count --sortorder=dsc MAP", "stack MAP",
		"stack --all-stacks --stack-format=flame MAP", "graph MAP", "graph --edge-label=count MAP",
	}
	for _, major := range []string{"14", "19"} {
		tool := testutil.Tool(t, "llvm-xray-"+major)
		compared, failed := 0, 0
		for _, name := range []string{"fdr_simple", "fdr_typed", "fdr_threads", "basic_simple", "synthetic-v1", "synthetic-v2", "synthetic-v3", "synthetic-v5"} {
			log := filepath.Join(dir, name+".xray")
			m := filepath.Join(dir, name+".instrmap.yaml")
			_, noMap := os.Stat(m)
			for _, line := range lines {
				args := strings.Fields(line)
				if args[len(args)-1] == "MAP" {
					if noMap != nil {
						continue
					}
					args[len(args)-1] = "--instr_map=" + m
				}
				args = append(args, log)
				var want, wantErr bytes.Buffer
				cmd := exec.Command(tool, args...)
				cmd.Stdout, cmd.Stderr = &want, &wantErr
				if cmd.Run() != nil || strings.Contains(wantErr.String(), "Error processing record") {
					failed++
					continue
				}
				var got, stderr bytes.Buffer
				ours := append([]string{args[0], "--llvm=" + major}, args[1:]...)
				if code := run(ours, &got, &stderr); code != 0 {
					t.Errorf("%q: llvm-xray-%s succeeds, we exit %d: %s", ours, major, code, stderr.String())
					continue
				}
				testutil.DiffText(t, strings.Join(ours, " "), want.Bytes(), got.Bytes())
				compared++
			}
		}
		t.Logf("llvm-xray-%s: %d outputs compared, %d command lines where it fails", major, compared, failed)
		if compared < 30 {
			t.Errorf("llvm-xray-%s: only %d outputs compared", major, compared)
		}
	}
}
