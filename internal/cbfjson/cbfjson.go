// Package cbfjson reads files of Swift's JSON backtraces, the Codable form
// of a backtrace ({"architecture": …, "backtrace": …, "imageMap": …}),
// for the commands that also read raw Compact Backtrace Format.
package cbfjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tracefmt/tracefmt/cbf"
)

// MaxObject bounds one JSON backtrace, which is decoded whole: far above
// a real backtrace with its image map (a few KiB), far below what would
// strain memory.
const MaxObject = 16 << 20

// Is reports whether a file's first bytes are JSON rather than CBF: its
// first byte after white space is '{'. No CBF stream starts so, as
// neither '{' nor a white space byte is a valid info byte.
func Is(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	return len(head) > 0 && head[0] == '{'
}

// Read calls fn with each JSON backtrace of r, in order: one object, or
// several back to back, as a program that writes one per backtrace
// leaves them. The Backtrace is the caller's. An object that is not a
// JSON backtrace, or larger than MaxObject, is an error naming the
// object and its offset in r; so is an error fn returns.
func Read(r io.Reader, fn func(n int, bt *cbf.Backtrace) error) error {
	return read(r, MaxObject, fn)
}

func read(r io.Reader, max int, fn func(n int, bt *cbf.Backtrace) error) error {
	lr := &limited{r: r}
	dec := json.NewDecoder(lr)
	for n := 0; ; n++ {
		start := dec.InputOffset()
		lr.left = max
		var bt cbf.Backtrace
		err := dec.Decode(&bt)
		if err == io.EOF {
			if n == 0 {
				return fmt.Errorf("offset %d: no JSON backtrace: %w", start, io.ErrUnexpectedEOF)
			}
			return nil
		}
		if err != nil {
			if lr.over {
				err = fmt.Errorf("larger than %d bytes", max)
			} else if err == io.ErrUnexpectedEOF {
				err = fmt.Errorf("cut short: %w", err)
			}
			return fmt.Errorf("JSON backtrace %d at offset %d: %w", n, start, err)
		}
		if err := fn(n, &bt); err != nil {
			return fmt.Errorf("JSON backtrace %d at offset %d: %w", n, start, err)
		}
	}
}

// limited ends its input after left more bytes, so that the decoder,
// which buffers a whole value, stops on an endless one.
type limited struct {
	r    io.Reader
	left int
	over bool
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		l.over = true
		return 0, io.ErrUnexpectedEOF
	}
	if len(p) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= n
	return n, err
}
