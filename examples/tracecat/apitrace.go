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
// for) from whose first bytes a trace header and its first events
// (detectEvents) decode, or a trace cut short after an event. A gzip or
// zstd file is not a trace for its magic alone: any file can be
// compressed, and a header can be as short as one byte (a version below
// 6), which many files start with.
func isAPITrace(head []byte) bool {
	c, ok := apitrace.Detect(head)
	if !ok {
		return false
	}
	if c == apitrace.Snappy {
		return true
	}
	// Only a head as long as the peek may end inside a header or an
	// event of a trace that goes on.
	cut := len(head) == headLen
	r, err := apitrace.NewReader(bytes.NewReader(head))
	if err != nil {
		return c != apitrace.Brotli && cut && errors.Is(err, io.ErrUnexpectedEOF)
	}
	for n := range detectEvents {
		if _, err := r.Read(); err != nil {
			return err == io.EOF || (cut || n > 0) && errors.Is(err, io.ErrUnexpectedEOF)
		}
	}
	return true
}

// isAPIContainer reports whether head starts a container apitrace
// reads, told by its magic (Brotli, which has none, when a trace header
// decodes from it): what -format apitrace asks of a file, whose reading
// then says what is wrong with it.
func isAPIContainer(head []byte) bool {
	c, ok := apitrace.Detect(head)
	if ok && c == apitrace.Brotli {
		_, err := apitrace.NewReader(bytes.NewReader(head))
		return err == nil
	}
	return ok
}

// detectEvents is how many events of a compressed file must decode for
// tracecat to take it for an apitrace trace.
const detectEvents = 16

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
