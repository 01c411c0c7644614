package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/tracefmt/tracefmt/apitrace"
)

func isAPITrace(head []byte) bool {
	c, ok := apitrace.Detect(head)
	// Brotli has no magic: anything else is Brotli to apitrace, so only
	// the containers with magic bytes are claimed here.
	return ok && (c == apitrace.Snappy || c == apitrace.Gzip || c == apitrace.Zstd)
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
