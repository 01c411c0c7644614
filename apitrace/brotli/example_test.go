package brotli_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/tracefmt/tracefmt/apitrace/brotli"
)

// A Reader is an io.Reader: read the decompressed stream with io.Copy,
// io.ReadAll or any other consumer.
func ExampleReader() {
	// printf 'Brotli, as apitrace…\n' | brotli -c -q 11 -w 24
	stream := []byte{
		0x1f, 0x5d, 0x00, 0xf8, 0x8d, 0x93, 0x63, 0xe5, 0x7a, 0xdc, 0x2a, 0x05, 0x21, 0xdd,
		0xe6, 0xf5, 0x8e, 0x3f, 0x3b, 0xff, 0x25, 0x1e, 0x52, 0xa0, 0x2c, 0x73, 0x91, 0x8d,
		0x8c, 0x4a, 0x16, 0x7c, 0x78, 0x25, 0x56, 0xcd, 0xcb, 0x05, 0x7e, 0xb0, 0x73, 0x44,
		0x0f, 0x28, 0x9a, 0x7e, 0x61, 0x76, 0xc0, 0x9a, 0xfa, 0xc8, 0xd9, 0xaa, 0x26,
	}
	zr := brotli.NewReader(bytes.NewReader(stream))
	if _, err := io.Copy(os.Stdout, zr); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Brotli, as apitrace repack --brotli writes it.
	// Brotli, as apitrace repack --brotli writes it.
}

// Limit the window a stream may claim (and so the memory decoding it
// takes) before the first Read; Reset reuses the Reader's buffers for the
// next stream.
func ExampleReader_Reset() {
	zr := brotli.NewReader(bytes.NewReader([]byte{0x3f})) // declares a 16 MiB window
	zr.MaxWindow = 1 << 20
	_, err := io.ReadAll(zr)
	fmt.Println(err)

	zr.Reset(bytes.NewReader([]byte{0x06})) // an empty stream
	out, err := io.ReadAll(zr)
	fmt.Println(len(out), err)
	// Output:
	// brotli: offset 0: window exceeds limit: window of 16777200 bytes, limit 1048576
	// 0 <nil>
}
