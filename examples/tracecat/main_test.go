package main

import (
	"bytes"
	"io/fs"
	"path"
	"strings"
	"testing"
)

// sampleFormat is the format each built-in sample is, by its extension.
var sampleFormat = map[string]string{
	".trace": "", // apitrace or Go: told apart by magic, checked below
	".xray":  "xray",
	".txt":   "leaktext",
	".cbf":   "cbf",
}

func TestSamples(t *testing.T) {
	names, err := fs.Glob(samples, "samples/*")
	if err != nil || len(names) < 5 {
		t.Fatalf("samples: %v, %v", names, err)
	}
	seen := map[string]bool{}
	for _, n := range names {
		data, _ := samples.ReadFile(n)
		want, ok := sampleFormat[path.Ext(n)]
		if !ok {
			t.Errorf("%s: sample with an unknown extension", n)
			continue
		}
		var f *format
		if want == "cbf" {
			f, _ = lookup("cbf")
		} else if f = detect(data); f == nil {
			t.Errorf("%s: not detected", n)
			continue
		}
		if want != "" && f.name != want {
			t.Errorf("%s detected as %s, want %s", n, f.name, want)
		}
		seen[f.name] = true
		var out bytes.Buffer
		if err := run(&out, path.Base(n), data, nil, f); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		if !strings.HasPrefix(out.String(), path.Base(n)+": "+f.name+"\n") || strings.Count(out.String(), "\n") < 2 {
			t.Errorf("%s: summary too thin:\n%s", n, out.String())
		}
	}
	for _, f := range formats {
		if !seen[f.name] {
			t.Errorf("no sample of %s", f.name)
		}
	}
}

func TestUnknownInput(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("hello, world\n"), {0x02, 0x10, 0x10, 0x00}} {
		var out bytes.Buffer
		if err := run(&out, "x", data, nil, nil); err == nil {
			t.Errorf("%q detected as %q", data, out.String())
		}
	}
}

// Detection must not take one format's files for another's.
func TestDetectExclusive(t *testing.T) {
	names, _ := fs.Glob(samples, "samples/*")
	for _, n := range names {
		data, _ := samples.ReadFile(n)
		var hits []string
		for _, f := range formats {
			if f.detect != nil && f.detect(data) {
				hits = append(hits, f.name)
			}
		}
		if path.Ext(n) != ".cbf" && len(hits) != 1 {
			t.Errorf("%s: detected as %v", n, hits)
		}
	}
}
