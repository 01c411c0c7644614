package leaktext

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
)

func addSeeds(f *testing.F) {
	names, _ := bytesGlob()
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 4096 {
			data = data[:4096]
		}
		f.Add(data)
	}
	f.Add([]byte("version=2.0, \r\n1. [1:2:3.5] x<y>(0x1) tail\r\n\t0xAB  q\r\n\t$a = b\r\n"))
}

func bytesGlob() ([]string, error) {
	return globFixtures()
}

// FuzzReader: no panic, errors are SyntaxErrors with a line inside the
// input, records come in line order, reading allocates in proportion to
// the input, and the Writer takes every record read in Strict mode (in
// the default mode it may refuse one, with ErrInvalid only).
func FuzzReader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if rd, err := NewReader(bytes.NewReader(data)); err == nil {
			for err == nil {
				_, err = rd.Read()
			}
		}
		runtime.ReadMemStats(&after)
		// The 64 KiB buffer grows by doubling to hold the largest record;
		// a 5-byte frame line becomes a 56-byte Frame.
		if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10+32*uint64(len(data)) {
			t.Fatalf("reading %d bytes allocated %d", len(data), n)
		}
		for _, strict := range []bool{false, true} {
			rd, err := NewReader(bytes.NewReader(data))
			if err != nil {
				checkErr(t, data, err)
				continue
			}
			rd.Strict = strict
			rd.MaxLineLen = 300
			var out bytes.Buffer
			w, err := NewWriter(&out, rd.Header())
			if errors.Is(err, errBound) {
				continue
			}
			if err != nil {
				t.Fatalf("header %+v: %v", rd.Header(), err)
			}
			last := 1
			for {
				rec, err := rd.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					checkErr(t, data, err)
					break
				}
				if rec.Line <= last {
					t.Fatalf("record at line %d after line %d", rec.Line, last)
				}
				last = rec.Line
				if err := w.Write(rec); err != nil {
					if strict && !errors.Is(err, errBound) || !errors.Is(err, ErrInvalid) {
						t.Fatalf("strict %v: write %+v: %v", strict, rec, err)
					}
					break
				}
			}
		}
	})
}

func checkErr(t *testing.T, data []byte, err error) {
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a SyntaxError", err)
	}
	if se.Line < 1 || se.Line > bytes.Count(data, []byte("\n"))+1 {
		t.Fatalf("error line %d outside the input", se.Line)
	}
	if strings.Count(err.Error(), "leaktext") != 1 {
		t.Fatalf("error %q does not name the package once", err)
	}
}

// FuzzRoundTrip: whatever reads without error in Strict mode writes back
// byte for byte, unless it is beyond the real reader's bounds (a NUL, a
// line longer than it reads whole, a field longer than its buffer); in the
// default mode too, unless the Writer refuses a record (ErrInvalid); and
// the written report reads back as the same records.
func FuzzRoundTrip(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, strict := range []bool{true, false} {
			rd, err := NewReader(bytes.NewReader(data))
			if err != nil {
				return
			}
			rd.Strict = strict
			var recs []*Record
			for {
				rec, err := rd.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					return
				}
				recs = append(recs, rec.Clone())
			}
			got, err := writeRecords(rd.Header(), recs)
			if err != nil {
				if strict && !errors.Is(err, errBound) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("strict %v: %v", strict, err)
				}
				continue
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("strict %v: round trip differs:\n in: %q\nout: %q", strict, data, got)
			}
		}
	})
}
