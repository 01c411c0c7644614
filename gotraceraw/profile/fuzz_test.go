package profile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/gotraceraw/timeline"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// FuzzProfile feeds whatever the parsed Reader accepts of arbitrary bytes
// to a profile of every type (cut where the Reader fails) and to a
// timeline: no panic, a profile every
// reference of which resolves, every sample's values positive, and a
// timeline whose spans pair up. Seeds: the repository's traces up to 32 KB.
func FuzzProfile(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*.trace"))
	for _, p := range files {
		if fi, err := os.Stat(p); err != nil || fi.Size() > 32<<10 {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parsed.NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		var ps []*Profile
		for _, typ := range []Type{Net, Sync, Syscall, Sched, CPU} {
			ps = append(ps, &Profile{Type: typ})
		}
		var tl bytes.Buffer
		tw, err := timeline.NewWriter(&tl)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for ev, err := range r.All() {
			if err != nil {
				// What came before still converts: the
				// profiles as Go's tool cuts a trace.
				for _, p := range ps {
					p.Cut(err)
				}
				break
			}
			n++
			for _, p := range ps {
				p.Add(ev)
			}
			if err := tw.Write(ev); err != nil {
				t.Fatalf("timeline: %v", err)
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatalf("timeline: %v", err)
		}
		if n > 0 {
			testutil.CheckTimeline(t, tl.Bytes())
		}
		for _, p := range ps {
			var out bytes.Buffer
			if err := p.WriteProfile(&out); err != nil {
				t.Fatalf("%v: %v", p.Type, err)
			}
			for _, s := range testutil.DecodeProfile(t, out.Bytes()).Samples {
				if s.Values[0] <= 0 || s.Values[1] <= 0 {
					t.Fatalf("%v: a sample with values %v", p.Type, s.Values)
				}
			}
		}
	})
}
