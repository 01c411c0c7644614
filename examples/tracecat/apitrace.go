package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"

	"github.com/tracefmt/tracefmt/apitrace"
)

// isAPITrace asks apitrace: a container told by its magic (snappy, gzip,
// zstd), or, as Brotli has none and apitrace takes everything else for
// Brotli, a file from whose first bytes a trace header decodes.
func isAPITrace(head []byte) bool {
	c, ok := apitrace.Detect(head)
	if !ok {
		return false
	}
	if c != apitrace.Brotli {
		return true
	}
	_, err := apitrace.NewReader(bytes.NewReader(head))
	return err == nil
}

// summarizeAPITrace reads every call of an apitrace trace and prints what
// `apitrace info` does, plus the stream header: versions, properties,
// container, API guessed from the first window-system call, calls (and
// how many never returned), frames, sizes.
func summarizeAPITrace(w io.Writer, r io.Reader) error {
	info, err := apitrace.ReadInfo(r, false)
	if info.ContainerType == "" {
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
