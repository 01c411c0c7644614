package apitrace

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/snappy"
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
			rawNewline := false // a name apitrace prints as it is holds a newline
			for _, p := range cr.Header().Properties {
				// apitrace keeps names as C strings: two that agree up
				// to a NUL are one property.
				names[cstr(p.Name)] = true
				rawNewline = rawNewline || strings.Contains(cstr(p.Name), "\n")
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
				rawNewline = rawNewline || namesHoldNewline(c)
			}
			if rawNewline {
				continue // apitrace prints such a call on several lines too
			}
			want += complete
			if got := bytes.Count(out.Bytes(), []byte{'\n'}); got != want {
				t.Fatalf("%d lines for %d properties and calls", got, want)
			}
		}
	})
}

// namesHoldNewline reports whether a name of c's signatures (function,
// argument, enum, bitmask flag, struct, member), which apitrace dump prints
// without escaping, holds a newline.
func namesHoldNewline(c *Call) bool {
	nl := func(s string) bool { return strings.Contains(s, "\n") }
	if c.Sig != nil {
		if nl(c.Sig.Name) || slices.ContainsFunc(c.Sig.ArgNames, nl) {
			return true
		}
	}
	var value func(v *Value) bool
	value = func(v *Value) bool {
		if v.Enum() != nil && slices.ContainsFunc(v.Enum().Values, func(e EnumValue) bool { return nl(e.Name) }) ||
			v.Bitmask() != nil && slices.ContainsFunc(v.Bitmask().Flags, func(f BitmaskFlag) bool { return nl(f.Name) }) ||
			v.Struct() != nil && (nl(v.Struct().Name) || slices.ContainsFunc(v.Struct().Members, nl)) {
			return true
		}
		for i := range v.Elems() {
			if value(&v.Elems()[i]) {
				return true
			}
		}
		return false
	}
	for i := range c.Args {
		if value(&c.Args[i]) {
			return true
		}
	}
	return value(&c.Ret)
}

// rawStream returns the decompressed stream of a snappy or gzip trace.
func rawStream(t testing.TB, data []byte) []byte {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(zr) // zlib-no-eof.trace has no trailer
		return raw
	}
	var raw []byte
	for p := data[2:]; len(p) >= 4; {
		n := int(binary.LittleEndian.Uint32(p))
		if n == 0 || n > len(p)-4 {
			break
		}
		block, err := snappy.Decode(nil, p[4:4+n], 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, block...)
		p = p[4+n:]
	}
	return raw
}

// FuzzDumpStream fuzzes the decompressed stream itself: each input is
// wrapped in a gzip container before the dump reads it, so mutations reach
// the event and value parser and the printer instead of dying in the
// container. Same invariants as FuzzDump.
func FuzzDumpStream(f *testing.F) {
	traces, _ := filepath.Glob(filepath.Join("testdata", "dump", "*.trace"))
	for _, tr := range traces {
		if data, err := os.ReadFile(tr); err == nil && len(data) < 70<<10 {
			if raw := rawStream(f, data); len(raw) < 200<<10 {
				f.Add(raw)
			}
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression)
		zw.Write(raw)
		zw.Close()
		for _, opts := range []DumpOptions{
			{Verbose: true, Color: true, Grep: regexp.MustCompile("^gl")},
			{Verbose: true, ThreadIDs: true, NoMultiline: true},
		} {
			var out bytes.Buffer
			err := NewDumper(&out, opts).Trace(bytes.NewReader(gz.Bytes()))
			if errors.Is(err, io.EOF) {
				t.Fatalf("bare io.EOF leaked out of Trace: %v", err)
			}
		}
	})
}
