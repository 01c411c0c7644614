package apitrace

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/internal/testutil/zstdtest"
)

// TestRoundTripZstd rewrites every fixture as seekable zstd: the stream
// is the original's, a Reader finds the seek table, the frames hold 2 MiB
// of stream each as master's, and the zstd command reads the file.
func TestRoundTripZstd(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			if f.shared && testing.Short() {
				t.Skip("large")
			}
			data := readFixture(t, f)
			want, _ := stream(t, data)
			out, end := rewrite(t, data, ZstdSeekable)
			if f.truncated {
				want = want[:end]
			}
			got, err := stream(t, out)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("stream of %d bytes, want %d: %v", len(got), len(want), err)
			}
			r, err := NewReader(bytes.NewReader(out))
			if err != nil || r.Header().Container != ZstdSeekable {
				t.Fatalf("read back as %v: %v", r.Header().Container, err)
			}
			s, err := zstd.OpenSeekable(bytes.NewReader(out), int64(len(out)))
			if err != nil {
				t.Fatal(err)
			}
			for i, fr := range s.Frames() {
				if i < len(s.Frames())-1 && fr.DataSize != zstd.DefaultFrameSize || fr.HasChecksum {
					t.Fatalf("frame %d: %+v", i, fr)
				}
			}
			if !f.shared {
				if got := zstdtest.Pipe(t, out, "-d"); !bytes.Equal(got, want) {
					t.Fatalf("zstd -d: %d bytes, want %d", len(got), len(want))
				}
			}
		})
	}
}

// TestWriterZstdLevel: the level is used, and one outside 1..22 refused.
func TestWriterZstdLevel(t *testing.T) {
	h := Header{Version: 6, SemanticVersion: 6, Container: Zstd}
	w := &Writer{ZstdLevel: 23}
	if err := w.Reset(io.Discard, h); !errors.Is(err, ErrInvalid) {
		t.Errorf("level 23: %v", err)
	}
	data := readFixture(t, fixtures[4])
	sizes := map[int]int{}
	for _, level := range []int{1, 7} {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		h := r.Header()
		h.Container = Zstd
		var out bytes.Buffer
		w := &Writer{ZstdLevel: level}
		if err := w.Reset(&out, h); err != nil {
			t.Fatal(err)
		}
		for ev, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		sizes[level] = out.Len()
	}
	if sizes[7] >= sizes[1] {
		t.Errorf("level 7 wrote %d bytes, level 1 %d", sizes[7], sizes[1])
	}
}

// TestIndexZstdWritten seeks frame by frame in glxgears-20s rewritten as
// seekable zstd (9 zstd frames): the positions the index gives name our
// zstd frames, and decoding from one needs none before it.
func TestIndexZstdWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	data := testutil.ReadFile(t, testutil.SharedFixture(t, "apitrace/glxgears-20s.trace"))
	out, _ := rewrite(t, data, ZstdSeekable)
	checkIndex(t, out, 35303)
}
