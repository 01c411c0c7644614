package apitrace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// FuzzDump runs the whole dump (reader, call reader and printer) over
// arbitrary input with several option sets. It must never panic nor leak
// a bare io.EOF, and with -v --multiline=no every call read prints as
// exactly one line after one line per distinct property (pending calls only
// when the trace was not damaged). Seeds are the
// committed traces.
func FuzzDump(f *testing.F) {
	traces, _ := filepath.Glob(filepath.Join("testdata", "dump", "*.trace"))
	for _, tr := range traces {
		if data, err := os.ReadFile(tr); err == nil && len(data) < 70<<10 {
			f.Add(data)
		}
	}
	grep := regexp.MustCompile("gl")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []DumpOptions{
			{},
			{Verbose: true, NoCallNos: true, NoArgNames: true, Grep: grep, Color: true},
			{Verbose: true, ThreadIDs: true, NoMultiline: true},
		} {
			var out bytes.Buffer
			err := NewDumper(&out, opts).Trace(bytes.NewReader(data))
			if errors.Is(err, io.EOF) {
				t.Fatalf("bare io.EOF leaked out of Trace: %v", err)
			}
			if !opts.NoMultiline {
				continue
			}
			cr, err := NewCallReader(bytes.NewReader(data))
			if err != nil {
				continue
			}
			want := 0
			names := map[string]bool{}
			for _, p := range cr.Header().Properties {
				names[p.Name] = true
			}
			want += len(names)
			complete, pending := 0, 0
			for {
				c, err := cr.Read()
				if err != nil {
					// Pending calls print only when the trace ended or
					// was cut short, not when it was damaged.
					if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
						complete += pending
					}
					break
				}
				if c.Incomplete {
					pending++
				} else {
					complete++
				}
			}
			want += complete
			if got := bytes.Count(out.Bytes(), []byte{'\n'}); got != want {
				t.Fatalf("%d lines for %d properties and calls", got, want)
			}
		}
	})
}
