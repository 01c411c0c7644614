package testutil

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
)

// readLines is a toy format: lines ending in '\n'; a cut inside a line is
// io.ErrUnexpectedEOF.
func readLines(r io.Reader) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			if line != "" {
				return fmt.Errorf("line %q: %w", line, io.ErrUnexpectedEOF)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func TestCheckTruncationsAcceptsGoodReader(t *testing.T) {
	data := []byte("one\ntwo\nthree\n")
	CheckTruncations(t, data, readLines, TruncOptions{
		OneByte:  true,
		Boundary: func(n int) bool { return n == 0 || data[n-1] == '\n' },
	})
}

func TestCheckCutCatchesBadReaders(t *testing.T) {
	data := []byte("one\ntwo\n")
	cut := func(n int) io.Reader { return strings.NewReader(string(data[:n])) }
	panicky := func(r io.Reader) error {
		b, _ := io.ReadAll(r)
		_ = b[len(b)-1] // panics on an empty cut
		return nil
	}
	if msg := checkCut(panicky, cut(0), 0, TruncOptions{}); !strings.Contains(msg, "panic") {
		t.Errorf("panic not reported: %q", msg)
	}
	silent := func(r io.Reader) error { _, err := io.ReadAll(r); return err }
	if msg := checkCut(silent, cut(2), 2, TruncOptions{Boundary: func(n int) bool { return n%4 == 0 }}); msg == "" {
		t.Errorf("clean end inside a record not reported")
	}
	wrong := func(io.Reader) error { return io.EOF }
	if msg := checkCut(wrong, cut(2), 2, TruncOptions{}); msg == "" {
		t.Errorf("error not wrapping io.ErrUnexpectedEOF accepted")
	}
	far := func(io.Reader) error { return io.ErrUnexpectedEOF }
	if msg := checkCut(far, cut(2), 2, TruncOptions{Offset: func(error) (int64, bool) { return 9, true }}); msg == "" {
		t.Errorf("offset past the cut accepted")
	}
}
