package apitrace

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// dumpFiles runs our dump the way `apitrace dump` runs: every file in turn
// through one Dumper. A trace cut short is not an error (apitrace warns and
// exits 0); a damaged one stops the dump (apitrace exits 1), and the error
// is returned.
func dumpFiles(t testing.TB, w io.Writer, opts DumpOptions, dir string, files []string) error {
	t.Helper()
	d := NewDumper(w, opts)
	for _, name := range files {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		err = d.Trace(f)
		f.Close()
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
	}
	return nil
}

// TestDumpGoldens compares our dump with apitrace 11.1's (--compat=11.1)
// and 13.0's (the default) on the traces and option sets of
// testdata/dump/cases.txt, made by testdata/dump/gen.sh with the real
// tools: NAME.txt is 11.1's output, NAME.v13.txt 13.0's where it differs
// (gen.sh keeps it only then, so NAME.txt is 13.0's output too otherwise).
func TestDumpGoldens(t *testing.T) {
	dir := filepath.Join("testdata", "dump")
	cases, err := os.ReadFile(filepath.Join(dir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(cases))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		golden, args := fields[0], fields[1:]
		for _, v := range []DumpVersion{Dump11, Dump13} {
			name := golden
			if v == Dump13 {
				v13 := strings.TrimSuffix(golden, ".txt") + ".v13.txt"
				if _, err := os.Stat(filepath.Join(dir, v13)); err == nil {
					name = v13
				}
			}
			t.Run(golden+"/"+v.String(), func(t *testing.T) {
				a, err := ParseDumpArgs(append([]string{"--compat=" + v.String()}, args...))
				if err != nil {
					t.Fatal(err)
				}
				opts := a.Options
				if opts.Blobs {
					opts.BlobDir = t.TempDir()
				}
				var out bytes.Buffer
				err = dumpFiles(t, &out, opts, dir, a.Files)
				if damaged := strings.HasPrefix(golden, "damaged"); damaged != (err != nil) {
					t.Errorf("error %v; a damaged trace must give one, others none", err)
				}
				testutil.DiffText(t, name, testutil.ReadFile(t, filepath.Join(dir, name)), out.Bytes())
				if opts.Blobs {
					want := testutil.ReadFile(t, filepath.Join(dir, strings.TrimSuffix(name, ".txt")+".sha256"))
					testutil.DiffText(t, name+" blob files", want, blobSums(t, opts.BlobDir))
				}
			})
		}
	}
}

// blobSums lists the blob files of dir as sha256sum prints them.
func blobSums(t testing.TB, dir string) []byte {
	names, err := filepath.Glob(filepath.Join(dir, "blob_*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		b.WriteString(hex.EncodeToString(sum[:]) + "  " + filepath.Base(n) + "\n")
	}
	return b.Bytes()
}

// sharedDumpOptions maps the suffixes of the shared fixtures' dump files
// (fixtures/apitrace/README.md) to apitrace dump's options.
var sharedDumpOptions = map[string][]string{
	"dump":                         nil,
	"dump-verbose":                 {"-v"},
	"dump-thread-ids":              {"--thread-ids"},
	"dump-tid-nocallno-noargnames": {"--thread-ids=yes", "--call-nos=no", "--arg-names=no"},
	"dump-nomultiline-0-60":        {"--multiline=no", "--calls=0-60"},
	"dump-nomultiline":             {"--multiline=no"},
	"dump-verbose-nomultiline":     {"-v", "--multiline=no"},
	"dump-verbose-color":           {"-v", "--color=always"},
	"dump-color":                   {"--color=always"},
}

// TestDumpSharedFixtures compares our dump with every dump text in the
// shared fixtures (apitrace 11.1's output, with the options its name says),
// with --compat=11.1.
func TestDumpSharedFixtures(t *testing.T) {
	dir := testutil.SharedFixture(t, "apitrace")
	texts, err := filepath.Glob(filepath.Join(dir, "*.dump*.txt*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) == 0 {
		t.Fatalf("no dump texts in %s", dir)
	}
	for _, text := range texts {
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(text), ".gz"), ".txt")
		trace, kind, _ := strings.Cut(base, ".dump")
		kind = "dump" + kind
		args, ok := sharedDumpOptions[kind]
		if !ok {
			t.Errorf("%s: unknown dump kind %q", text, kind)
			continue
		}
		t.Run(base, func(t *testing.T) {
			a, err := ParseDumpArgs(append([]string{"--compat=11.1"}, args...))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := dumpFiles(t, &out, a.Options, dir, []string{trace + ".trace"}); err != nil {
				t.Fatal(err)
			}
			testutil.DiffText(t, filepath.Base(text), testutil.ReadFile(t, text), out.Bytes())
		})
	}
}
