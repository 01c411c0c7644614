package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/internal/testutil/zstdtest"
)

// gunzip returns the decompressed bytes of a gzip file.
func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDetectFollowsPackages checks that every form the packages read is
// told and summarised, named by the package that reads it, and that the
// summary of a file tracecat does not read says why in one message.
func TestDetectFollowsPackages(t *testing.T) {
	stream := gunzip(t, testutil.ReadFile(t, "../../apitrace/testdata/glxinfo-brief.gzip.trace"))
	goText := testutil.ReadFile(t, "../../gotraceraw/testdata/basic.txt.gz")
	for _, tc := range []struct {
		name, format string
		data         []byte
		line         string // a line of the summary
		err          string // the error, "" for none
	}{
		{"brotli", "apitrace", testutil.ReadFile(t, testutil.SharedFixture(t, "apitrace/glxinfo-brief.brotli.trace")), "  container Brotli", ""},
		{"zstd seekable", "apitrace", zstdtest.Seekable(t, stream, zstdtest.FrameSize, true), "  container Zstandard", ""},
		{"zstd", "apitrace", zstdtest.Pipe(t, stream), "  container Zstandard", ""},
		{"go text", "gotrace", goText, "  version Go1.", ""},
		{"xray yaml", "xray", testutil.ReadFile(t, "../../xrayfdr/testdata/fdr_simple.yaml"), "  llvm-xray YAML trace: version 5, type 1", ""},
		{"xray map", "xray", testutil.ReadFile(t, "../../xrayfdr/testdata/fdr_simple.instrmap.yaml"), "  llvm-xray instrumentation map: ", ""},
		{"sp-rtrace binary", "leaktext", testutil.ReadFile(t, "../../leaktext/testdata/generated-x86_64/multi.rtrace"), "", "leaktext: line 1: not an sp-rtrace text report: a binary sp-rtrace log (convert it with sp-rtrace-postproc -i FILE)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := detect(tc.data[:min(len(tc.data), headLen)])
			if f == nil || f.name != tc.format {
				t.Fatalf("detected as %v, want %s", f, tc.format)
			}
			for _, forced := range []*format{nil, f} {
				var out bytes.Buffer
				err := summariseOne(&out, tc.name, bytes.NewReader(tc.data), forced)
				if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				if !strings.HasPrefix(out.String(), tc.name+": "+tc.format+"\n") || !strings.Contains(out.String(), "\n"+tc.line) {
					t.Errorf("summary:\n%s\nwant a line starting %q", out.String(), tc.line)
				}
			}
		})
	}
}

// TestNotAFormat checks that what no package reads is refused with one
// message and no guess, and nothing on stdout: text, Go source, random
// bytes, CBF data (which has no magic) that would read as an XRay header
// of version 1 if the header were not checked.
func TestNotAFormat(t *testing.T) {
	inputs := testutil.Foreign(t)
	cbf := bytes.Repeat([]byte{0x01, 0x00}, 64)
	inputs = append(inputs, testutil.Input{Name: "cbf", Data: cbf}, testutil.Input{Name: "empty"},
		// YAML whose header lacks what llvm-xray requires of a trace.
		testutil.Input{Name: "yaml", Data: []byte("---\nheader:\n  version: 1\n")})
	// Any file compressed by gzip or zstd, whose magic apitrace also
	// reads: the first bytes of the text are no trace header. An XRay log
	// starts with its version, which reads as an apitrace header of that
	// version: its events are not apitrace's.
	xray := testutil.Input{Name: "xray", Data: testutil.ReadFile(t, "../../xrayfdr/testdata/fdr_simple.xray")}
	for _, in := range append(inputs[:5:5], xray) {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(in.Data)
		zw.Close()
		inputs = append(inputs, testutil.Input{Name: in.Name + ".gz", Data: gz.Bytes()},
			testutil.Input{Name: in.Name + ".zst", Data: zstdtest.Pipe(t, in.Data)})
	}
	for _, in := range inputs {
		if strings.HasPrefix(in.Name, "sample ") && !strings.HasSuffix(in.Name, ".cbf") {
			continue
		}
		var out bytes.Buffer
		err := summariseOne(&out, in.Name, bytes.NewReader(in.Data), nil)
		if err == nil || err.Error() != "not a format tracecat knows" || out.Len() != 0 {
			t.Errorf("%s: %v, output %q; want only %q", in.Name, err, out.String(), "not a format tracecat knows")
		}
	}
}

// TestAPITraceHeaderUnread checks that an apitrace trace whose stream
// header cannot be read gets its reason alone, not a summary of nothing
// ("version 0, 0 calls") before it.
func TestAPITraceHeaderUnread(t *testing.T) {
	// The snappy container, one chunk holding one literal: the stream
	// version 200 (a varint of two bytes).
	data := []byte("at\x04\x00\x00\x00\x02\x04\xc8\x01\x00\x00\x00\x00")
	var out bytes.Buffer
	err := summariseOne(&out, "v200", bytes.NewReader(data), nil)
	if err == nil || !strings.Contains(err.Error(), "version 200") || out.String() != "v200: apitrace\n" {
		t.Errorf("error %v, output %q; want the version refused and no summary", err, out.String())
	}
}

// TestForcedAPITrace checks that a compressed file forced as an apitrace
// trace is read, and its error says what is wrong, where tracecat would
// not take it for one by itself.
func TestForcedAPITrace(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("module example.com/x\n"))
	zw.Close()
	f, _ := lookup("apitrace")
	for _, forced := range []*format{nil, f} {
		var out bytes.Buffer
		err := summariseOne(&out, "go.mod.gz", bytes.NewReader(gz.Bytes()), forced)
		want := "not a format tracecat knows"
		if forced != nil {
			want = "apitrace: offset 0: unsupported trace version: version 109 (this package reads 0 to 6)"
		}
		if err == nil || err.Error() != want {
			t.Errorf("forced %v: %v, want %q", forced != nil, err, want)
		}
	}
}

// TestOneMessage checks that a failure names the package once.
func TestOneMessage(t *testing.T) {
	data, _ := samples.ReadFile("samples/tri.trim.trace")
	bad := append([]byte(nil), data[:2395]...)
	cut := filepath.Join(t.TempDir(), "cut.trace")
	if err := os.WriteFile(cut, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{cut}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d", code)
	}
	msg := stderr.String()
	if strings.Count(msg, "\n") != 1 || strings.Count(msg, "apitrace") != 1 || !strings.HasPrefix(msg, "tracecat: "+cut+": apitrace: offset ") {
		t.Errorf("stderr %q: want one line naming apitrace once", msg)
	}
}
