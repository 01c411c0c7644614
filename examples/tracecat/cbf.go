package main

import (
	"fmt"
	"io"
)

// summarizeCBF reports the info byte of the first record. The cbf package
// deepens this summary.
func summarizeCBF(w io.Writer, data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("empty file")
	}
	info := data[0]
	if info>>2 != 0 || info&3 == 3 {
		return fmt.Errorf("offset 0: bad info byte %#02x", info)
	}
	fmt.Fprintf(w, "  version 0, %d-bit words, %d bytes\n", 16<<(info&3), len(data))
	return nil
}
