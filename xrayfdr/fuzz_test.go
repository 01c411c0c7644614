package xrayfdr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

func addSeeds(f *testing.F) {
	for _, pat := range []string{"testdata/*.xray", "testdata/invalid/*.xray"} {
		m, _ := filepath.Glob(pat)
		for _, p := range m {
			f.Add(readFileF(f, p))
		}
	}
}

func readFileF(f *testing.F, p string) []byte {
	b, err := osReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func FuzzReader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, force := range []bool{false, true} {
			rd := &Reader{ForceFDR: force, MaxDataLen: 1 << 16, MaxSkip: 1 << 16}
			err := rd.Reset(bytes.NewReader(data))
			for err == nil {
				var rec *Record
				rec, err = rd.Read()
				if err == nil && (rec.Offset < HeaderSize || rec.Offset >= int64(len(data))) {
					t.Fatalf("record offset %d outside the input", rec.Offset)
				}
			}
			if err == io.EOF {
				continue
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(data)) {
				t.Fatalf("offset %d outside %d bytes", fe.Offset, len(data))
			}
		}
		checkReadsAgree(t, data)
	})
}

// checkReadsAgree reads data with Read from a stream, with Read in place
// and with All in place, scribbling on every record once read: all three
// see the same records and the same error.
func checkReadsAgree(t *testing.T, data []byte) {
	for _, force := range []bool{false, true} {
		newReader := func() *Reader { return &Reader{ForceFDR: force, MaxDataLen: 1 << 16, MaxSkip: 1 << 16} }
		stream := newReader()
		want, wantErr := collect(stream.Reset(bytes.NewReader(data)), stream.Read)
		inPlace := newReader()
		got, gotErr := collect(inPlace.ResetBytes(data), inPlace.Read)
		compareReads(t, "in place", want, got, wantErr, gotErr)
		all := newReader()
		got, gotErr = nil, all.ResetBytes(data)
		if gotErr == nil {
			gotErr = io.EOF
			for rec, err := range all.All() {
				if err != nil {
					gotErr = err
					break
				}
				got = append(got, *rec.Clone())
				scribble(rec)
			}
		}
		compareReads(t, "All", want, got, wantErr, gotErr)
	}
}

// collect reads records with read until an error, cloning each and then
// scribbling on the one read returned.
func collect(err error, read func() (*Record, error)) ([]Record, error) {
	var recs []Record
	for err == nil {
		var rec *Record
		if rec, err = read(); err == nil {
			recs = append(recs, *rec.Clone())
			scribble(rec)
		}
	}
	return recs, err
}

// scribble changes every field of rec, as a caller may: the next record
// read must not show it.
func scribble(rec *Record) {
	*rec = Record{Kind: 99, Action: 9, CPU: 1, FuncID: 1, Delta: 1, TSC: 1, TID: 1, PID: 1, Seconds: 1, Micros: 1,
		EventType: 1, Arg: 1, Extents: 1, Data: []byte{1}, Raw: []byte{1}, Skipped: []byte{1}, Offset: -1}
}

func compareReads(t *testing.T, how string, want, got []Record, wantErr, gotErr error) {
	t.Helper()
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
		t.Fatalf("%s: error %v, read from a stream %v", how, gotErr, wantErr)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, read from a stream %d", how, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: record %d\n%+v\nread from a stream\n%+v", how, i, got[i], want[i])
		}
	}
}

// FuzzVerify runs everything that reads a whole log: the -verify text,
// Verify, the expander and the YAML and Chrome outputs.
func FuzzVerify(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		DumpVerify(io.Discard, data)
		Verify(data)
		tr, err := Expand(data, true)
		if err == nil {
			if err := WriteYAML(io.Discard, tr); err != nil {
				t.Fatal(err)
			}
			if err := WriteChrome(io.Discard, tr, nil); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzRoundTrip(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < HeaderSize {
			return
		}
		h := parseHeader(data)
		if _, err := NewWriter(io.Discard, h); err != nil {
			return
		}
		got, end, _ := rewrite(t, data, false)
		if !bytes.Equal(got, data[:end]) {
			t.Fatalf("rewrite of the first %d bytes differs", end)
		}
	})
}

var osReadFile = os.ReadFile

// FuzzELFInstrMap reads instrumentation maps from ELF objects (seeded
// with the test binaries) and names every function: no panic, ids in
// range, memory in proportion to the input.
func FuzzELFInstrMap(f *testing.F) {
	for _, name := range []string{"lib_x86_64.o", "lib_aarch64.o", "libx.so", "typed_O0", "prog_O2_nopie", "prog_O2_nosym", "prog_O0_g_nosym"} {
		f.Add(readFileF(f, filepath.Join("testdata", "elf", name)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := ReadELFInstrMap(bytes.NewReader(data), int64(len(data)))
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
	for _, p := range []string{"testdata/fdr_simple.instrmap.yaml", "testdata/elf/libx.so.extract-symbolize.yaml", "testdata/elf/prog_O2_nopie.extract-no-demangle.yaml"} {
		f.Add(readFileF(f, p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadInstrMap(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := m.WriteYAML(&out, true, false); err != nil {
			t.Fatal(err)
		}
		m2, err := ReadInstrMap(&out)
		if err != nil {
			t.Fatalf("our YAML does not read back: %v\n%s", err, out.Bytes())
		}
		if len(m2.Sleds) != len(m.Sleds) || len(m2.Functions) != len(m.Functions) {
			t.Fatalf("read back %d sleds, %d functions; want %d, %d", len(m2.Sleds), len(m2.Functions), len(m.Sleds), len(m.Functions))
		}
	})
}
