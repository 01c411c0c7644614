package xrayfdr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
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

// checkReadsAgree reads data with Read from a stream, from a stream of
// short reads (records cut at every place by the buffer's end), in place,
// and with All in place, in step, scribbling on every record once read:
// all see the same records and the same error.
func checkReadsAgree(t *testing.T, data []byte) {
	for _, force := range []bool{false, true} {
		newReader := func() *Reader { return &Reader{ForceFDR: force, MaxDataLen: 1 << 16, MaxSkip: 1 << 16} }
		var short io.Reader = bytes.NewReader(data)
		if len(data) < 1<<20 {
			short = iotest.OneByteReader(short)
		}
		rds := []*Reader{newReader(), newReader(), newReader(), newReader()}
		errs := []error{rds[0].Reset(bytes.NewReader(data)), rds[1].Reset(iotest.HalfReader(short)),
			rds[2].ResetBytes(data), rds[3].ResetBytes(data)}
		next, stop := iter.Pull2(rds[3].All())
		reads := []func() (*Record, error){rds[0].Read, rds[1].Read, rds[2].Read, func() (*Record, error) {
			rec, err, ok := next()
			if !ok {
				return nil, io.EOF
			}
			return rec, err
		}}
		names := []string{"from a stream", "from short reads", "in place", "with All"}
		recs := make([]*Record, len(reads))
		for i := 0; errs[0] == nil; i++ {
			for j, read := range reads {
				recs[j] = nil
				if errs[j] == nil {
					recs[j], errs[j] = read()
				}
			}
			for j := range reads {
				if errs[j] != errs[0] && fmt.Sprint(errs[j]) != fmt.Sprint(errs[0]) {
					t.Fatalf("record %d: error %v %s, %v %s", i, errs[0], names[0], errs[j], names[j])
				}
				if errs[0] == nil && !sameRecord(recs[0], recs[j]) {
					t.Fatalf("record %d:\n%+v %s\n%+v %s", i, *recs[0], names[0], *recs[j], names[j])
				}
			}
			for _, rec := range recs {
				if rec != nil {
					scribble(rec)
				}
			}
		}
		stop()
	}
}

// sameRecord reports whether a and b hold the same record.
func sameRecord(a, b *Record) bool {
	return a.Kind == b.Kind && a.Action == b.Action && a.CPU == b.CPU && a.FuncID == b.FuncID &&
		a.Delta == b.Delta && a.TSC == b.TSC && a.TID == b.TID && a.PID == b.PID &&
		a.Seconds == b.Seconds && a.Micros == b.Micros && a.EventType == b.EventType &&
		a.Arg == b.Arg && a.Extents == b.Extents && a.Offset == b.Offset && bytes.Equal(a.Data, b.Data) && (a.Data == nil) == (b.Data == nil) &&
		bytes.Equal(a.Raw, b.Raw) && (a.Raw == nil) == (b.Raw == nil) &&
		bytes.Equal(a.Skipped, b.Skipped) && (a.Skipped == nil) == (b.Skipped == nil)
}

// scribble changes every field of rec, as a caller may: the next record
// read must not show it.
func scribble(rec *Record) {
	*rec = Record{Kind: 99, Action: 9, CPU: 1, FuncID: 1, Delta: 1, TSC: 1, TID: 1, PID: 1, Seconds: 1, Micros: 1,
		EventType: 1, Arg: 1, Extents: 1, Data: scribbled, Raw: scribbled, Skipped: scribbled, Offset: -1}
}

var scribbled = []byte{1}

// FuzzVerify runs everything that reads a whole log: the -verify text,
// Verify, the expander and the YAML output.
func FuzzVerify(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		DumpVerify(io.Discard, data)
		Verify(data)
		tr, err := Expand(data, true)
		if err == nil {
			var out bytes.Buffer
			if err := WriteYAML(&out, tr); err != nil {
				t.Fatal(err)
			}
			// the lines written in parallel, most in a fixed window,
			// are those of the general path
			var want []byte
			for i := range tr.Events {
				want = tr.AppendYAMLRecord(want, &tr.Events[i])
			}
			if len(want) > 0 && !bytes.Contains(out.Bytes(), want) {
				t.Fatal("WriteYAML's lines differ from AppendYAMLRecord's")
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
		got, end, rerr, werr := rewrite(t, data, false)
		checkRewrite(t, data, got, end, rerr, werr)
	})
}

var osReadFile = os.ReadFile
