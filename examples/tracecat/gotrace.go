package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
)

var goTraceHeader = regexp.MustCompile(`^go 1\.(\d+) trace\x00*`)

func isGoTrace(head []byte) bool { return goTraceHeader.Match(head[:min(len(head), 16)]) }

// summarizeGoTrace reports the header's version. The gotraceraw package
// deepens this summary.
func summarizeGoTrace(w io.Writer, data []byte) error {
	m := goTraceHeader.FindSubmatch(data[:min(len(data), 16)])
	if m == nil || !bytes.HasSuffix(data[:16], []byte{0}) {
		return fmt.Errorf("header is not the 16-byte go 1.NN trace form")
	}
	fmt.Fprintf(w, "  version Go1.%s, %d bytes\n", m[1], len(data))
	return nil
}
