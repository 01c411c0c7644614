package apitrace

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// frameText reads calls up to and including the next frame end and spells
// them out.
func frameText(t *testing.T, cr *CallReader) string {
	var b bytes.Buffer
	for {
		c, err := cr.Read()
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d %s", c.No, c.Name())
		for _, a := range c.Args {
			b.WriteString(" " + render(a))
		}
		b.WriteString(" = " + render(c.Ret) + "\n")
		if c.Sig.EndsFrame() {
			return b.String()
		}
	}
}

func checkIndex(t *testing.T, data []byte, wantFrames int) {
	// Read every frame in order, remembering its text.
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var frames []string
	for {
		s := frameText(t, cr)
		if s == "" {
			break
		}
		frames = append(frames, s)
	}
	ix, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := ix.Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Frames) != len(frames) || (wantFrames >= 0 && len(frames) != wantFrames) {
		t.Fatalf("index has %d frames, reading found %d, want %d", len(idx.Frames), len(frames), wantFrames)
	}
	// Jump around: last, first, middle, backwards.
	for _, n := range []int{len(frames) - 1, 0, len(frames) / 2, len(frames) / 3, 1, len(frames) - 2} {
		if n < 0 || n >= len(frames) {
			continue
		}
		if err := ix.SeekFrame(idx, n); err != nil {
			t.Fatal(err)
		}
		// Calls of other threads in flight at the frame boundary (entered
		// before it) are not returned after a seek.
		var want bytes.Buffer
		for _, line := range strings.SplitAfter(frames[n], "\n") {
			var no uint64
			if _, err := fmt.Sscan(line, &no); err == nil && no >= idx.Frames[n].Call {
				want.WriteString(line)
			}
		}
		if got := frameText(t, ix); got != want.String() {
			t.Fatalf("frame %d after seeking:\n%s\nwant:\n%s", n, got, want.String())
		}
	}
}

func TestIndexSynthetic(t *testing.T) {
	// Each round's frame end is followed by the leave of a call of the
	// other thread, which opens the next frame: 3000 ends, 3001 frames.
	checkIndex(t, synthetic(t, 3000), 3001)
}

func TestIndexGlxgears(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	data := testutil.ReadFile(t, testutil.SharedFixture(t, "apitrace/glxgears-20s.trace"))
	// apitrace info: "FramesCount": 35303. The trace was stopped inside
	// glXSwapBuffers, whose incomplete call closes the last frame.
	checkIndex(t, data, 35303)
}

func TestIndexGzip(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/glxinfo-brief.gzip.trace")
	cr, err := NewCallReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cr.Index(); err != ErrSeek {
		t.Fatalf("gzip index: %v", err)
	}
}
