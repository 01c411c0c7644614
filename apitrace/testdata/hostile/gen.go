//go:build ignore

// gen.go writes the hostile traces of this directory: small files (the
// containers compress them) whose streams declare or hold much, to show
// that the Reader's memory follows what a trace holds. Run it with
// `go run gen.go` here; it needs the brotli and zstd commands.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"log"
	"os"
	"os/exec"
)

// stream is an apitrace stream of version 6 with no properties.
type stream struct{ b []byte }

func newStream() *stream { return &stream{b: []byte{6, 6, 0}} }

func (s *stream) uint(v uint64) { s.b = binary.AppendUvarint(s.b, v) }

func (s *stream) str(v string) {
	s.uint(uint64(len(v)))
	s.b = append(s.b, v...)
}

// call writes call no of function id (defined at its first use, with one
// argument "a") whose argument 0 is written by arg, and its leave.
func (s *stream) call(no, id uint64, first bool, arg func()) {
	s.b = append(s.b, 0) // enter
	s.uint(0)            // thread
	s.uint(id)
	if first {
		s.str("f")
		s.uint(1)
		s.str("a")
	}
	s.b = append(s.b, 1) // argument
	s.uint(0)
	arg()
	s.b = append(s.b, 0) // end of details
	s.b = append(s.b, 1) // leave
	s.uint(no)
	s.b = append(s.b, 0)
}

// array writes an array of n unsigned integers, each 1.
func (s *stream) array(n int) {
	s.b = append(s.b, 11)
	s.uint(uint64(n))
	for range n {
		s.b = append(s.b, 4, 1)
	}
}

// bigString writes a string of n bytes 'x', by pieces.
func (s *stream) bigString(n int) {
	s.b = append(s.b, 7)
	s.uint(uint64(n))
	s.b = append(s.b, bytes.Repeat([]byte{'x'}, n)...)
}

func run(stdin []byte, name string, args ...string) []byte {
	cmd := exec.Command(name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	return out.Bytes()
}

func write(name string, data []byte) {
	if err := os.WriteFile(name, data, 0o644); err != nil {
		log.Fatal(err)
	}
}

func brotli(s *stream) []byte { return run(s.b, "brotli", "-c", "-q", "11") }

func gz(s *stream) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(s.b)
	zw.Close()
	return b.Bytes()
}

func main() {
	// One call whose argument is an array of 2^20 integers.
	s := newStream()
	s.call(0, 0, true, func() { s.array(1 << 20) })
	write("array-1m.trace", brotli(s))

	// An array of 2^22+1 integers: one more value than the default
	// limit of one event.
	s = newStream()
	s.call(0, 0, true, func() { s.array(1<<22 + 1) })
	write("array-over.trace", brotli(s))

	// One call whose argument is a string of 64 MiB, and one with two
	// strings of 32 MiB in two calls.
	s = newStream()
	s.call(0, 0, true, func() { s.bigString(64 << 20) })
	write("string-64m.trace", brotli(s))
}
