package xrayfdr

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
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
	})
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
