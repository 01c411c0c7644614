package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tracefmt/tracefmt/cbf"
	"github.com/tracefmt/tracefmt/internal/cbfjson"
)

// cbfShown is how many records summarizeCBF lists one by one.
const cbfShown = 8

// isCBFJSON reports whether a file holds Swift's JSON backtraces: its
// first object decodes as one. Raw CBF has no magic and is only read when
// asked for; the JSON form has names to check.
func isCBFJSON(head []byte) bool {
	if !cbfjson.Is(head) {
		return false
	}
	ok := false
	cbfjson.Read(bytes.NewReader(head), func(int, *cbf.Backtrace) error {
		ok = true
		return io.EOF // the first object is enough
	})
	return ok
}

// cbfStats counts records and frames for a summary.
type cbfStats struct {
	records, truncated int
	words              map[cbf.WordSize]int
	kinds              [cbf.Truncated + 1]uint64
	addrs, rawBytes    uint64
	shown              []string
	addrBuf            []uint64
}

func (s *cbfStats) add(rec *cbf.Record, label string) {
	if s.words == nil {
		s.words = map[cbf.WordSize]int{}
	}
	s.records++
	s.words[rec.Word]++
	s.addrBuf = cbf.Addrs(s.addrBuf[:0], rec.Frames)
	n := uint64(len(s.addrBuf))
	s.addrs += n
	s.rawBytes += n * uint64(rec.Word.Bytes())
	for _, f := range rec.Frames {
		s.kinds[f.Kind]++
	}
	if rec.Truncated() {
		s.truncated++
	}
	if len(s.shown) < cbfShown {
		s.shown = append(s.shown, describeRecord(rec, label))
	}
}

// print writes the counts; size is the CBF bytes the records took.
func (s *cbfStats) print(w io.Writer, size int64) {
	var ws []string
	for _, k := range []cbf.WordSize{cbf.Word16, cbf.Word32, cbf.Word64} {
		if s.words[k] > 0 {
			ws = append(ws, fmt.Sprintf("%d %v", s.words[k], k))
		}
	}
	fmt.Fprintf(w, "  %d records (%s), %d truncated, %d bytes\n", s.records, strings.Join(ws, ", "), s.truncated, size)
	fmt.Fprintf(w, "  frames: %d pc, %d ra, %d async, %d omit, %d rep instructions; %d addresses with repeats\n",
		s.kinds[cbf.PC], s.kinds[cbf.RA], s.kinds[cbf.Async], s.kinds[cbf.Omitted], s.kinds[cbf.Repeat], s.addrs)
	if s.addrs > 0 {
		fmt.Fprintf(w, "  %.2f bytes per address, %.2f of raw words (%d bytes)\n",
			float64(size)/float64(s.addrs), float64(size)/float64(s.rawBytes), s.rawBytes)
	}
	for _, line := range s.shown {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if s.records > len(s.shown) {
		fmt.Fprintf(w, "  … %d more records\n", s.records-len(s.shown))
	}
}

// summarizeCBF reads the file as concatenated CBF records, as Swift's
// profiling buffers write them, or as Swift's JSON backtraces: counts of
// records and frames by kind, the size against raw words, then the first
// records with their frames.
func summarizeCBF(w io.Writer, in io.Reader) error {
	br, head, err := peek(in)
	if err != nil {
		return err
	}
	if cbfjson.Is(head) {
		return summarizeCBFJSON(w, br)
	}
	r, err := cbf.NewReader(br)
	if err != nil {
		return err
	}
	var s cbfStats
	var sumErr error
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			sumErr = err
			break
		}
		s.add(rec, fmt.Sprintf("@%d", rec.Offset))
	}
	s.print(w, r.Offset())
	return sumErr
}

// summarizeCBFJSON summarises Swift's JSON backtraces: their
// architectures and image maps, then their records as summarizeCBF does.
func summarizeCBFJSON(w io.Writer, in io.Reader) error {
	var (
		s     cbfStats
		size  int64
		arch  []string
		maps  int
		first string // the first image map, in brief
	)
	err := cbfjson.Read(in, func(n int, bt *cbf.Backtrace) error {
		rec, err := bt.Frames()
		if err != nil {
			return err
		}
		m, err := bt.Images()
		if err != nil {
			return err
		}
		if !slices.Contains(arch, bt.Architecture) {
			arch = append(arch, bt.Architecture)
		}
		if m != nil {
			maps++
			if first == "" {
				first = fmt.Sprintf("; the first: platform %s, %d images", m.Platform, len(m.Images))
				if len(m.Images) > 0 {
					first += ", the first " + m.Images[0].Path
				}
			}
		}
		size += int64(len(bt.Backtrace))
		s.add(rec, fmt.Sprintf("#%d", n))
		return nil
	})
	fmt.Fprintf(w, "  Swift JSON backtraces: %d, architecture %s; %d with an image map%s\n", s.records, strings.Join(arch, ", "), maps, first)
	s.print(w, size)
	return err
}

// describeRecord is one line for a record: label (where it starts), its
// word size and its first frames.
func describeRecord(rec *cbf.Record, label string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v, %d frames:", label, rec.Word, len(rec.Frames))
	for i, f := range rec.Frames {
		if i == 6 {
			b.WriteString(" …")
			break
		}
		b.WriteByte(' ')
		b.WriteString(f.String())
	}
	return b.String()
}

// cbfJSONPprof writes the pprof profile of Swift's JSON backtraces, their
// image map as its mappings. The backtraces of one profile share one map:
// a backtrace whose map differs from the first one's is refused.
func cbfJSONPprof(w io.Writer, in io.Reader) error {
	var (
		p       cbf.Profile
		mapData []byte
	)
	err := cbfjson.Read(in, func(n int, bt *cbf.Backtrace) error {
		rec, err := bt.Frames()
		if err != nil {
			return err
		}
		if bt.ImageMap != nil {
			switch {
			case p.Images == nil:
				if p.Images, err = bt.Images(); err != nil {
					return err
				}
				mapData = bt.ImageMap
			case !bytes.Equal(bt.ImageMap, mapData):
				return fmt.Errorf("an image map other than the first backtrace's; one profile has one")
			}
		}
		p.Add(rec)
		return nil
	})
	if err != nil {
		return err
	}
	return p.WriteProfile(w)
}
