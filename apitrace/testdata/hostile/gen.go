//go:build ignore

// gen.go writes the hostile traces of this directory: small files (the
// containers compress them) whose streams declare or hold much, to show
// that the Reader's memory follows what a trace holds. Run it with
// `go run gen.go` here; it needs the brotli and zstd commands.
// `go run gen.go big` writes instead, in the current directory, the two
// larger traces bench/hostile.sh measures the writers on (not kept here).
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

// rleFrame is a zstd frame of n RLE blocks of 128 KiB of zeros, with a
// window of 1<<wlog bytes and no content size in its header.
func rleFrame(n int, wlog uint) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, byte((wlog - 10) << 3)}
	for k := range n {
		h := uint32(1<<1 | (128<<10)<<3)
		if k == n-1 {
			h |= 1
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return b
}

// seekTable appends a seek table (no checksums) listing frames of the
// given compressed and content sizes.
func seekTable(b []byte, sizes, dataSizes []uint32) []byte {
	var t []byte
	for i := range sizes {
		t = binary.LittleEndian.AppendUint32(t, sizes[i])
		t = binary.LittleEndian.AppendUint32(t, dataSizes[i])
	}
	t = binary.LittleEndian.AppendUint32(t, uint32(len(sizes)))
	t = append(t, 0)
	t = binary.LittleEndian.AppendUint32(t, 0x8F92EAB1)
	b = binary.LittleEndian.AppendUint32(b, 0x184D2A5E)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(t)))
	return append(b, t...)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "big" {
		// One call with a string of 250 MiB, and two calls with one of
		// 200 MiB each, in gzip (255 KB, 408 KB).
		s := newStream()
		s.call(0, 0, true, func() { s.bigString(250 << 20) })
		write("string-250m.trace", gz(s))
		s = newStream()
		s.call(0, 0, true, func() { s.bigString(200 << 20) })
		s.call(1, 0, false, func() { s.bigString(200 << 20) })
		write("string-2x200m.trace", gz(s))
		return
	}
	// One call whose argument is an array of 2^20 integers.
	s := newStream()
	s.call(0, 0, true, func() { s.array(1 << 20) })
	write("array-1m.trace", brotli(s))

	// An array of 2^22+1 integers: one more value than the default
	// limit of one event.
	s = newStream()
	s.call(0, 0, true, func() { s.array(1<<22 + 1) })
	write("array-over.trace", brotli(s))

	// An array of exactly 2^22 integers: the default limit of one event.
	s = newStream()
	s.call(0, 0, true, func() { s.array(1 << 22) })
	write("array-4m.trace", brotli(s))

	// One call whose argument is a string of 64 MiB, and one with two
	// strings of 32 MiB in two calls.
	s = newStream()
	s.call(0, 0, true, func() { s.bigString(64 << 20) })
	write("string-64m.trace", brotli(s))

	// Call 0 with a 64 MiB string, left after call 1 on another thread
	// entered and left: call 0 is pending while call 1 is read.
	s = newStream()
	s.b = append(s.b, 0, 0, 0) // enter call 0, thread 0, function 0
	s.str("f")
	s.uint(1)
	s.str("a")
	s.b = append(s.b, 1, 0)
	s.bigString(64 << 20)
	s.b = append(s.b, 0)
	s.b = append(s.b, 0, 1, 0, 1, 0, 4, 7, 0) // enter call 1, thread 1: a = 7
	s.b = append(s.b, 1, 1, 0)                // leave call 1
	s.b = append(s.b, 1, 0, 0)                // leave call 0
	write("string-pending.trace", brotli(s))

	// A call whose string says 255 MiB and holds 1 KiB: the stream ends.
	s = newStream()
	s.b = append(s.b, 0, 0, 0)
	s.str("f")
	s.uint(1)
	s.str("a")
	s.b = append(s.b, 1, 0, 7)
	s.uint(255 << 20)
	s.b = append(s.b, bytes.Repeat([]byte{'x'}, 1024)...)
	write("string-cut.trace", brotli(s))

	// A seekable zstd file of one 1 GiB frame (8192 RLE blocks, 32 KiB).
	f := rleFrame(8192, 23)
	write("frame-1g.zst", seekTable(f, []uint32{uint32(len(f))}, []uint32{1 << 30}))
	// One frame of 128 KiB whose seek table entry says 2^32-1 bytes.
	f = rleFrame(1, 17)
	write("frame-4g.zst", seekTable(f, []uint32{uint32(len(f))}, []uint32{1<<32 - 1}))
	// A frame with a 16 MiB window and 48 MiB of content.
	write("window-16m.zst", rleFrame(384, 24))

	// A small trace in zstd: a skippable frame first, then the frame.
	s = newStream()
	s.call(0, 0, true, func() { s.array(3) })
	s.call(1, 0, false, func() { s.bigString(10) })
	z := run(s.b, "zstd", "-q", "-c", "--no-check")
	skip := binary.LittleEndian.AppendUint32(nil, 0x184D2A50)
	skip = binary.LittleEndian.AppendUint32(skip, 4)
	skip = append(skip, "skip"...)
	write("skippable-first.trace", append(skip, z...))
	write("small.gzip.trace", gz(s))
	// The same frame followed by a seek table of 1000 empty frames, which
	// does not describe the file.
	write("seektable-empty.trace", seekTable(z, make([]uint32, 1000), make([]uint32, 1000)))
}
