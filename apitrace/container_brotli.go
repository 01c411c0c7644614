package apitrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tracefmt/tracefmt/apitrace/brotli"
)

// brotliSource reads a Brotli trace. Brotli has no magic number: apitrace
// takes every file that is no other container for Brotli, so a file that
// is no trace at all ends up here too, and fails at its first bytes.
type brotliSource struct {
	br    brotli.Reader
	piece int
	any   bool // some output came out
}

func (b *brotliSource) chunk() int64 { return -1 }

func (b *brotliSource) fill(dst []byte) ([]byte, error) {
	n := len(dst)
	dst, err := fillFrom(&b.br, dst, b.piece)
	if len(dst) > n {
		b.any = true
	}
	if err != nil && err != io.EOF && !b.any && !errors.Is(err, io.ErrUnexpectedEOF) {
		// Not one byte decoded: most likely not a Brotli stream at all.
		err = fmt.Errorf("%w (not snappy, gzip or zstd by its first bytes, and not Brotli: %w)", ErrContainer, err)
	}
	return dst, err
}

// openBrotli opens a Brotli trace whose first bytes, already read from r,
// are head.
func openBrotli(r io.Reader, head []byte, old source) (source, error) {
	b, _ := old.(*brotliSource)
	if b == nil {
		b = &brotliSource{piece: 256 << 10}
	}
	b.any = false
	if err := b.br.Reset(io.MultiReader(bytes.NewReader(head), r)); err != nil {
		return nil, err
	}
	return b, nil
}
