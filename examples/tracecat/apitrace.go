package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/tracefmt/tracefmt/apitrace"
)

// isAPITrace asks apitrace: a snappy container, told by its magic ("at",
// apitrace's own), or a file in a general-purpose container (gzip, zstd,
// or Brotli, which has no magic and which apitrace takes everything else
// for) from whose first bytes a trace header decodes, or that ends inside
// one. A gzip or zstd file is not a trace for its magic alone: any file
// can be compressed, and its first bytes would be taken for a header.
func isAPITrace(head []byte) bool {
	c, ok := apitrace.Detect(head)
	if !ok {
		return false
	}
	if c == apitrace.Snappy {
		return true
	}
	_, err := apitrace.NewReader(bytes.NewReader(head))
	return err == nil || c != apitrace.Brotli && errors.Is(err, io.ErrUnexpectedEOF)
}

// summarizeAPITrace reads every call of an apitrace trace and prints what
// `apitrace info` does, plus the stream header: versions, properties,
// container, API guessed from the first window-system call, calls (and
// how many never returned), frames, sizes.
func summarizeAPITrace(w io.Writer, r io.Reader) error {
	info, err := apitrace.ReadInfo(r, false)
	if err != nil && info.ActualDataSize == 0 {
		// The stream's header was not read: there is nothing to
		// summarise, only the reason.
		return err
	}
	fmt.Fprintf(w, "  container %s, %d bytes, %d bytes decompressed\n", info.ContainerType, info.ContainerSize, info.ActualDataSize)
	fmt.Fprintf(w, "  version %d, semantic version %d\n", info.Version, info.SemanticVersion)
	names := make([]string, 0, len(info.Properties))
	for name := range info.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  property %s = %q\n", name, info.Properties[name])
	}
	fmt.Fprintf(w, "  API %s\n", info.API)
	fmt.Fprintf(w, "  %d calls (%d incomplete), %d frames\n", info.CallsCount, info.IncompleteCalls, info.FramesCount)
	return err
}
