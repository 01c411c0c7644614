package leaktext

import (
	"bytes"
	"errors"
	"io"
	"os"
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
// input, records come in line order, and every record can be written.
func FuzzReader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, strict := range []bool{false, true} {
			rd, err := NewReader(bytes.NewReader(data))
			if err != nil {
				checkErr(t, data, err)
				continue
			}
			rd.Strict = strict
			rd.MaxLineLen = 300
			var out bytes.Buffer
			w, err := NewWriter(&out, rd.Header)
			if err != nil {
				t.Fatalf("header %+v: %v", rd.Header, err)
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
					t.Fatalf("write %+v: %v", rec, err)
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
}

// FuzzRoundTrip: whatever reads without error writes back byte for byte,
// and the written report reads back as the same records.
func FuzzRoundTrip(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		var recs []Record
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
		got := writeAll(t, rd.Header, recs)
		if !bytes.Equal(got, data) {
			t.Fatalf("round trip differs:\n in: %q\nout: %q", data, got)
		}
	})
}
