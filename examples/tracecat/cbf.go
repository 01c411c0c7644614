package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tracefmt/tracefmt/cbf"
)

// cbfShown is how many records summarizeCBF lists one by one.
const cbfShown = 8

// summarizeCBF reads the file as concatenated CBF records, as Swift's
// profiling buffers write them: counts of records and frames by kind, the
// size against raw words, then the first records with their frames.
func summarizeCBF(w io.Writer, in io.Reader) error {
	r, err := cbf.NewReader(in)
	if err != nil {
		return err
	}
	var (
		records, truncated int
		words              = map[cbf.WordSize]int{}
		kinds              [cbf.Truncated + 1]uint64
		addrs, rawBytes    uint64
		shown              []string
		addrBuf            []uint64
	)
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
		records++
		words[rec.Word]++
		addrBuf = cbf.Addrs(addrBuf[:0], rec.Frames)
		n := uint64(len(addrBuf))
		addrs += n
		rawBytes += n * uint64(rec.Word.Bytes())
		for _, f := range rec.Frames {
			kinds[f.Kind]++
		}
		if rec.Truncated() {
			truncated++
		}
		if len(shown) < cbfShown {
			shown = append(shown, describeRecord(rec))
		}
	}
	var ws []string
	for _, s := range []cbf.WordSize{cbf.Word16, cbf.Word32, cbf.Word64} {
		if words[s] > 0 {
			ws = append(ws, fmt.Sprintf("%d %v", words[s], s))
		}
	}
	fmt.Fprintf(w, "  %d records (%s), %d truncated, %d bytes\n", records, strings.Join(ws, ", "), truncated, r.Offset())
	fmt.Fprintf(w, "  frames: %d pc, %d ra, %d async, %d omit, %d rep instructions; %d addresses with repeats\n",
		kinds[cbf.PC], kinds[cbf.RA], kinds[cbf.Async], kinds[cbf.Omitted], kinds[cbf.Repeat], addrs)
	if addrs > 0 {
		fmt.Fprintf(w, "  %.2f bytes per address, %.2f of raw words (%d bytes)\n",
			float64(r.Offset())/float64(addrs), float64(r.Offset())/float64(rawBytes), rawBytes)
	}
	for _, s := range shown {
		fmt.Fprintf(w, "  %s\n", s)
	}
	if records > len(shown) {
		fmt.Fprintf(w, "  … %d more records\n", records-len(shown))
	}
	return sumErr
}

// describeRecord is one line for a record: where it starts, its word
// size and its first frames.
func describeRecord(rec *cbf.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "@%d %v, %d frames:", rec.Offset, rec.Word, len(rec.Frames))
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
