package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

func isLeakText(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	return bytes.HasPrefix(line, []byte("version=")) && bytes.Contains(line, []byte(", "))
}

// summarizeLeakText reports the header line's fields. The leaktext package
// deepens this summary.
func summarizeLeakText(w io.Writer, data []byte) error {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	for _, kv := range strings.Split(strings.TrimSuffix(strings.TrimRight(string(line), "\r"), ", "), ", ") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("header field %q has no '='", kv)
		}
		fmt.Fprintf(w, "  %s: %s\n", k, v)
	}
	return nil
}
