package zstd_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// FuzzReader feeds arbitrary input to the Reader, seeded with real frames
// of the zstd command: it must never panic or hang, and every failure is a
// *FormatError.
func FuzzReader(f *testing.F) {
	c := corpus(f)
	src := c[0].data[:3000]
	for _, args := range [][]string{{"-1"}, {"-3", "--no-check"}, {"-19"}, {"--ultra", "-22", "--no-check"}} {
		f.Add(zstdFile(f, src, args...))
		f.Add(zstdCmd(f, src[:200], args...))
	}
	f.Add(zstdFile(f, make([]byte, 1000), "-3"))
	f.Add(zstdFile(f, c[len(c)-1].data[:500], "-3"))
	f.Fuzz(func(t *testing.T, data []byte) {
		zr := &zstd.Reader{MaxWindow: 1 << 20}
		err := zr.Reset(bytes.NewReader(data))
		if err == nil {
			// RLE blocks expand 32768 times: stop after a bound.
			_, err = io.CopyN(io.Discard, zr, 64<<20)
		}
		var fe *zstd.FormatError
		if err != nil && err != io.EOF && !errors.As(err, &fe) {
			t.Fatalf("error %v is no *FormatError", err)
		}
	})
}
