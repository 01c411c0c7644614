package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/tracefmt/tracefmt/varint"
)

func isAPITrace(head []byte) bool {
	return bytes.HasPrefix(head, []byte("at")) || bytes.HasPrefix(head, []byte{0x1f, 0x8b})
}

// summarizeAPITrace reports the container and, for gzip, the stream
// version. The apitrace package deepens this summary.
func summarizeAPITrace(w io.Writer, data []byte) error {
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return err
		}
		var hdr [10]byte
		n, err := io.ReadFull(zr, hdr[:])
		if err != nil && n == 0 {
			return err
		}
		v, vn := varint.Consume(hdr[:n])
		if vn <= 0 {
			return fmt.Errorf("no version at the start of the stream")
		}
		fmt.Fprintf(w, "  container gzip, %d bytes\n  version %d\n", len(data), v)
		return nil
	}
	chunks, rest := 0, data[2:]
	for len(rest) > 0 {
		if len(rest) < 4 {
			return fmt.Errorf("snappy chunk length cut short at offset %d", len(data)-len(rest))
		}
		n := binary.LittleEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-4) {
			return fmt.Errorf("snappy chunk of %d bytes at offset %d runs past the end", n, len(data)-len(rest))
		}
		rest = rest[4+n:]
		chunks++
	}
	fmt.Fprintf(w, "  container snappy, %d chunks, %d bytes\n", chunks, len(data))
	return nil
}
