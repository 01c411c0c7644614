package brotli_test

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"testing"
	"testing/iotest"

	"github.com/tracefmt/tracefmt/apitrace/brotli"
)

// FuzzReader decodes arbitrary input: it must never panic or hang, every
// error must be a *FormatError saying where in the input, and the output
// may not depend on how the input arrives. Seeds are streams the brotli
// command writes at several qualities and windows (when it is installed)
// and a few made by hand.
func FuzzReader(f *testing.F) {
	f.Add([]byte{0x06})
	f.Add([]byte{0x3f})
	if tool, err := exec.LookPath("brotli"); err == nil {
		text := bytes.Repeat([]byte("glXSwapBuffers(dpy = 0x55d5c8e0e2a0, drawable = 71303170)\n"), 20)
		text = append(text, "The quick brown fox jumps over the lazy dog. THE END, the end; of the..."...)
		for _, args := range [][]string{{"-q", "0"}, {"-q", "2", "-w", "10"}, {"-q", "5"}, {"-q", "9"}, {"-q", "11", "-w", "24"}, {"-q", "11", "-w", "16"}} {
			cmd := exec.Command(tool, append([]string{"-c"}, args...)...)
			cmd.Stdin = bytes.NewReader(text)
			if out, err := cmd.Output(); err == nil {
				f.Add(out)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, err := readAtMost(brotli.NewReader(bytes.NewReader(data)), 8<<20)
		if err != nil {
			var fe *brotli.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is no *FormatError", err, err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(data)) {
				t.Fatalf("error at offset %d of %d bytes: %v", fe.Offset, len(data), err)
			}
		}
		if len(data) > 4096 {
			return
		}
		bytewise, err2 := readAtMost(brotli.NewReader(iotest.OneByteReader(bytes.NewReader(data))), 8<<20)
		if !bytes.Equal(whole, bytewise) || (err == nil) != (err2 == nil) {
			t.Fatalf("one byte at a time: %d bytes, %v; whole: %d bytes, %v", len(bytewise), err2, len(whole), err)
		}
	})
}

// readAtMost reads r to its end or until it has returned limit bytes.
func readAtMost(r io.Reader, limit int) ([]byte, error) {
	var out []byte
	buf := make([]byte, 32<<10)
	for len(out) < limit {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
