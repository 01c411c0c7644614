package testutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"testing"
	"testing/iotest"
)

// TruncOptions tunes CheckTruncations.
type TruncOptions struct {
	// Step cuts only every Step bytes (and at the first and last 64
	// bytes); 0 or 1 cuts at every byte.
	Step int
	// Boundary reports whether a cut after n bytes falls between records,
	// where the reader must end cleanly. Nil accepts a clean end anywhere;
	// with it, a clean end elsewhere is a failure.
	Boundary func(n int) bool
	// Allow accepts an error that does not wrap io.ErrUnexpectedEOF, for
	// formats where a cut can also read as another error.
	Allow func(n int, err error) bool
	// Offset extracts the byte offset an error reports; when set, the
	// offset must lie within the n bytes given.
	Offset func(error) (int64, bool)
	// OneByte also feeds every cut through iotest.OneByteReader.
	OneByte bool
}

// CheckTruncations runs readAll on every prefix of data. readAll reads
// the whole stream and returns nil at a clean end, or the error that
// stopped it. A cut must end cleanly or with an error wrapping
// io.ErrUnexpectedEOF, and no cut may panic. readAll on the whole of data
// must succeed.
func CheckTruncations(t *testing.T, data []byte, readAll func(io.Reader) error, opts TruncOptions) {
	t.Helper()
	if err := guarded(readAll, bytes.NewReader(data)); err != nil {
		t.Fatalf("whole input (%d bytes): %v", len(data), err)
	}
	step := max(opts.Step, 1)
	failures := 0
	for n := 0; n < len(data) && failures < 10; n++ {
		if step > 1 && n%step != 0 && n > 64 && n < len(data)-64 {
			continue
		}
		readers := []io.Reader{bytes.NewReader(data[:n])}
		if opts.OneByte {
			readers = append(readers, iotest.OneByteReader(bytes.NewReader(data[:n])))
		}
		for _, r := range readers {
			if msg := checkCut(readAll, r, n, opts); msg != "" {
				t.Errorf("cut at %d of %d: %s", n, len(data), msg)
				failures++
			}
		}
	}
}

func checkCut(readAll func(io.Reader) error, r io.Reader, n int, opts TruncOptions) string {
	err := guarded(readAll, r)
	var p *panicError
	switch {
	case errors.As(err, &p):
		return err.Error()
	case err == nil:
		if opts.Boundary != nil && !opts.Boundary(n) {
			return "clean end inside a record"
		}
		return ""
	case !errors.Is(err, io.ErrUnexpectedEOF) && (opts.Allow == nil || !opts.Allow(n, err)):
		return fmt.Sprintf("error does not wrap io.ErrUnexpectedEOF: %v", err)
	}
	if opts.Offset != nil {
		off, ok := opts.Offset(err)
		if !ok {
			return fmt.Sprintf("error carries no offset: %v", err)
		}
		if off < 0 || off > int64(n) {
			return fmt.Sprintf("offset %d outside the %d bytes given: %v", off, n, err)
		}
	}
	return ""
}

type panicError struct {
	v     any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v\n%s", p.v, p.stack) }

func guarded(readAll func(io.Reader) error, r io.Reader) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{v, debug.Stack()}
		}
	}()
	return readAll(r)
}
