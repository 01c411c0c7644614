package zstd_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// FuzzReader feeds arbitrary input to the Reader, seeded with real frames
// of the zstd command: it must never panic or hang, and every failure is a
// *FormatError.
func FuzzReader(f *testing.F) {
	// Seeds cheap to make: each fuzz worker makes them again.
	src, err := os.ReadFile("doc.go")
	if err != nil {
		f.Fatal(err)
	}
	for _, args := range [][]string{{"-1"}, {"-19", "--no-check"}} {
		f.Add(zstdFile(f, src, args...))
		f.Add(zstdCmd(f, src[:300], args...))
	}
	f.Add(zstdCmd(f, make([]byte, 1000), "-3"))
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
