package cbf

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// profileOf counts the records of data and decodes the profile.
func profileOf(t *testing.T, data []byte, images *ImageMap) (*testutil.Profile, []byte) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	p := Profile{Images: images}
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		p.Add(rec)
	}
	var out bytes.Buffer
	if err := p.WriteProfile(&out); err != nil {
		t.Fatal(err)
	}
	return testutil.DecodeProfile(t, out.Bytes()), out.Bytes()
}

// reportImages builds an image map from an sp-rtrace report's memory map
// lines (": path => 0xstart-0xend").
func reportImages(t *testing.T, path string) *ImageMap {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := &ImageMap{Platform: "linux", Word: Word64}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p, rng, ok := strings.Cut(strings.TrimPrefix(sc.Text(), ": "), " => 0x")
		if !ok || !strings.HasPrefix(sc.Text(), ": ") {
			continue
		}
		lo, hi, _ := strings.Cut(rng, "-0x")
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %q", path, sc.Text())
		}
		m.Images = append(m.Images, Image{Base: a, EndOfText: b, Path: p, BuildID: []byte{byte(len(m.Images)), 0xab}})
	}
	sort.Slice(m.Images, func(i, j int) bool { return m.Images[i].Base < m.Images[j].Base })
	return m
}

// One sample per distinct backtrace, counting its records, on real
// backtraces; the memory maps given as images become mappings.
func TestProfileRealBacktraces(t *testing.T) {
	for name, bts := range spRtraceBacktraces(t) {
		var data []byte
		want := map[string]int64{}
		for _, bt := range bts {
			var err error
			if data, err = AppendAddrs(data, Word64, RA, bt); err != nil {
				t.Fatal(err)
			}
			want[fmt.Sprintf("%x", bt)]++
		}
		images := reportImages(t, "testdata/sp-rtrace/"+name)
		prof, gz := profileOf(t, data, images)
		got := map[string]int64{}
		for _, s := range prof.Samples {
			got[fmt.Sprintf("%x", s.Addrs)] += s.Values[0]
		}
		if len(prof.Samples) != len(want) {
			t.Errorf("%s: %d samples for %d distinct backtraces", name, len(prof.Samples), len(want))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: backtrace counts (-want +got):\n%s", name, diff)
		}
		if len(prof.Mappings) != len(images.Images) {
			t.Errorf("%s: %d mappings for %d images", name, len(prof.Mappings), len(images.Images))
		}
		for i, m := range prof.Mappings {
			im := images.Images[i]
			if m.Start != im.Base || m.Limit != im.EndOfText || m.File != im.Path || m.BuildID != fmt.Sprintf("%x", im.BuildID) {
				t.Errorf("%s: mapping %d is %+v, image %+v", name, i, m, im)
			}
		}
		if name == "multi.txt" {
			top := testutil.PprofTop(t, gz)
			if total := testutil.TopTotal(t, top); total != strconv.Itoa(len(bts)) {
				t.Errorf("go tool pprof -top: total %s, want %d", total, len(bts))
			}
		}
	}
}

// Repeats expand, omitted and cut frames show as frames of their own.
func TestProfilePseudoFrames(t *testing.T) {
	var data []byte
	for _, frames := range [][]Frame{
		{{Kind: PC, Addr: 0x10}, {Kind: RA, Addr: 0x20}, {Kind: Repeat, Count: 2}, {Kind: Omitted, Count: 5}, {Kind: RA, Addr: 0x30}},
		{{Kind: PC, Addr: 0x10}, {Kind: Truncated}},
		{{Kind: PC, Addr: 0x10}, {Kind: Truncated}},
	} {
		var err error
		if data, err = Append(data, Word64, frames); err != nil {
			t.Fatal(err)
		}
	}
	prof, _ := profileOf(t, data, nil)
	got := map[string]int64{}
	for _, s := range prof.Samples {
		got[strings.Join(s.Stack, " ")] += s.Values[0]
	}
	want := map[string]int64{
		"0x10 0x20 0x20 0x20 [5 frames omitted] 0x30": 1,
		"0x10 [truncated]":                            2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stacks (-want +got):\n%s", diff)
	}
	// a million-fold repeat keeps MaxProfileDepth frames
	data, err := Append(nil, Word64, []Frame{{Kind: RA, Addr: 0x10}, {Kind: Repeat, Count: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	prof, _ = profileOf(t, data, nil)
	s := prof.Samples[0].Stack
	if len(s) != MaxProfileDepth+1 || s[len(s)-1] != fmt.Sprintf("[%d frames omitted]", 1<<20+1-MaxProfileDepth) {
		t.Errorf("a repeat of 1<<20: %d frames, the last %q", len(s), s[len(s)-1])
	}
}

// FuzzProfile: whatever a Reader reads converts, with no panic, to a
// profile whose references resolve and whose counts add up to the records.
func FuzzProfile(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		var p Profile
		n := int64(0)
		for rec, err := range r.All() {
			if err != nil {
				break
			}
			p.Add(rec)
			n++
		}
		var out bytes.Buffer
		if err := p.WriteProfile(&out); err != nil {
			t.Fatal(err)
		}
		if got := testutil.DecodeProfile(t, out.Bytes()).Totals()[0]; got != n {
			t.Fatalf("%d backtraces counted, %d read", got, n)
		}
	})
}
