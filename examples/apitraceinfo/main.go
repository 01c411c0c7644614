// Command apitraceinfo prints what `apitrace info` prints about apitrace
// traces: a JSON object per trace with its container, versions, API, frame
// count and sizes, and with --dump-frames each frame's calls and size.
// It reads snappy, gzip, Brotli and zstd traces; a zstd trace is named as
// apitrace master names it, "Zstandard (seekable)", or "Zstandard" when it
// has no seek table.
//
//	apitraceinfo [--dump-frames] FILE...
//
// The output is apitrace info's (11.1) byte for byte, but where apitrace
// info is wrong: for a gzip trace ActualDataSize and the frames' sizes
// count decompressed bytes (apitrace info gives its reader's position),
// the file name is escaped as JSON requires, and a trace without frames
// gets "Frames": [] instead of [{ }]. For a seekable zstd trace
// ContainerSize is the size of the whole file, as for every other
// container; apitrace master prints the sum of the frames' compressed sizes
// from the seek table, which leaves out the table itself (25 bytes for a
// trace of one frame, 8 more for each further frame).
//
// A trace cut short is summarised up to the cut, with a warning on stderr,
// and does not change the exit status, as with apitrace info. Exit status:
// 0 done, 1 a FILE could not be read or is damaged (the other files are
// still summarised), 2 a bad flag or argument.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tracefmt/tracefmt/apitrace"
	"github.com/tracefmt/tracefmt/internal/cli"
)

const usage = "usage: apitraceinfo [--dump-frames] FILE..."

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	c := cli.New("apitraceinfo", usage, stderr)
	frames := c.Flags.Bool("dump-frames", false, "list every frame's first and last call, call count and size")
	if ok, code := c.Parse(args); !ok {
		return code
	}
	if c.Flags.NArg() == 0 {
		return c.BadUsage("no FILE given")
	}
	w := bufio.NewWriter(stdout)
	code := cli.OK
	for _, name := range c.Flags.Args() {
		info, err := apitrace.ReadInfoFile(name, *frames)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			w.Flush()
			code = c.Failf(name, err)
			continue
		}
		if werr := info.WriteJSON(w); werr != nil {
			return c.Failf("", werr)
		}
		if err != nil {
			w.Flush()
			fmt.Fprintf(stderr, "apitraceinfo: %s: warning: %v\n", name, err)
		}
	}
	if err := w.Flush(); err != nil {
		return c.Failf("", err)
	}
	return code
}
