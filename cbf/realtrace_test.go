package cbf

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Real x86-64 backtraces: sp-rtrace text reports (testdata/sp-rtrace,
// see testdata/README.md), one backtrace per call, frames as tab-indented
// return addresses.
func spRtraceBacktraces(tb testing.TB) map[string][][]uint64 {
	files, err := filepath.Glob("testdata/sp-rtrace/*.txt")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no sp-rtrace reports: %v", err)
	}
	out := map[string][][]uint64{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var bts [][]uint64
		var cur []uint64
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := sc.Text()
			if a, ok := strings.CutPrefix(line, "\t0x"); ok {
				a, _, _ = strings.Cut(a, " ")
				v, err := strconv.ParseUint(a, 16, 64)
				if err != nil {
					tb.Fatalf("%s: %q", f, line)
				}
				cur = append(cur, v)
				continue
			}
			if len(cur) > 0 {
				bts, cur = append(bts, cur), nil
			}
		}
		if len(cur) > 0 {
			bts = append(bts, cur)
		}
		out[filepath.Base(f)] = bts
	}
	return out
}

// TestRealBacktraces encodes each real backtrace as ra frames, checks the
// round trip and logs bytes per frame against 8-byte words (the figures in
// doc.go).
func TestRealBacktraces(t *testing.T) {
	for name, bts := range spRtraceBacktraces(t) {
		var data []byte
		frames := 0
		for _, bt := range bts {
			var err error
			if data, err = AppendAddrs(data, Word64, RA, bt); err != nil {
				t.Fatal(err)
			}
			frames += len(bt)
		}
		recs, err := readAll(data, expand)
		if err != nil || len(recs) != len(bts) {
			t.Fatalf("%s: %d records, %v", name, len(recs), err)
		}
		for i, rec := range recs {
			got := Addrs(nil, rec.Frames)
			if len(got) != len(bts[i]) {
				t.Fatalf("%s: record %d: %d frames, want %d", name, i, len(got), len(bts[i]))
			}
			for j := range got {
				if got[j] != bts[i][j] {
					t.Fatalf("%s: record %d frame %d: %#x, want %#x", name, i, j, got[j], bts[i][j])
				}
			}
		}
		t.Logf("%-16s %3d backtraces %4d frames %5d bytes: %.2f bytes/frame, %.3f of 8-byte words",
			name, len(bts), frames, len(data), float64(len(data))/float64(frames), float64(len(data))/float64(8*frames))
		if len(data) >= 8*frames {
			t.Errorf("%s: CBF larger than raw words", name)
		}
	}
}
