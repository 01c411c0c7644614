// Command apitracefilter copies the calls of an apitrace trace that a
// filter keeps into a new trace:
//
//	apitracefilter [-drop REGEX] [-calls SET] IN OUT
//
// -drop drops the calls whose function name REGEX matches (anywhere in the
// name; Go's RE2 syntax). -calls keeps only the calls in SET, written in
// apitrace's --calls syntax ("0-100,200-/2,*/frame", "@file"), numbered as
// in IN. A call is kept when both say so.
//
// OUT is written in IN's container (snappy, gzip or zstd, zstd as
// seekable zstd; snappy, apitrace's own, for Brotli, which the package
// cannot write, with a note on stderr) with IN's header. The kept calls
// are numbered from 0 in the order `apitrace dump IN` prints them, so that
// `apitrace dump OUT` prints exactly the kept calls, in the same order,
// none of them incomplete that was complete in IN. Each call is written
// whole (its enter event with every argument, its leave event with the
// return value) at the place apitrace prints it.
//
// An IN whose stream ends where an event ends but whose container lacks
// its own end (a gzip trace without its trailer, as a traced program
// killed before closing its trace leaves) is filtered whole, with a
// warning on stderr, and the exit status is 0, as `apitrace repack` exits
// 0 on it. An IN cut inside an event or damaged is an error.
//
// Exit status: 0 done (also with the warning above), 1 IN cannot be read,
// is damaged or is cut inside an event (the calls read before are
// written), or OUT cannot be written, 2 a bad flag or argument.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/tracefmt/tracefmt/apitrace"
	"github.com/tracefmt/tracefmt/internal/cli"
)

const usage = "usage: apitracefilter [-drop REGEX] [-calls SET] IN OUT"

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	c := cli.New("apitracefilter", usage, stderr)
	dropFlag := c.Flags.String("drop", "", "drop the calls whose function name matches `REGEX`")
	callsFlag := c.Flags.String("calls", "", "keep only the calls in `SET` (apitrace's --calls syntax)")
	if ok, code := c.Parse(args); !ok {
		return code
	}
	if c.Flags.NArg() != 2 {
		return c.BadUsage("want IN and OUT, got %d arguments", c.Flags.NArg())
	}
	var f filter
	if *dropFlag != "" {
		re, err := regexp.Compile(*dropFlag)
		if err != nil {
			return c.BadUsage("bad -drop: %v", err)
		}
		f.drop = re
	}
	if *callsFlag != "" {
		set, err := apitrace.ParseCallSet(*callsFlag)
		if err != nil {
			return c.BadUsage("bad -calls: %v", err)
		}
		f.calls = set
	}
	in, out := c.Flags.Arg(0), c.Flags.Arg(1)
	err := copyCalls(in, out, &f, stderr)
	var fe *fileError
	switch {
	case errors.As(err, &fe) && fe.whole:
		fmt.Fprintf(stderr, "apitracefilter: %s: warning: %v (every call it holds was read)\n", fe.name, fe.err)
	case fe != nil:
		return c.Failf(fe.name, fe.err)
	case err != nil:
		return c.Failf("", err)
	}
	return cli.OK
}

// filter says which calls to keep.
type filter struct {
	drop  *regexp.Regexp
	calls apitrace.CallSet // the zero set holds every call
}

func (f *filter) keep(call *apitrace.Call) bool {
	if f.drop != nil && f.drop.MatchString(call.Name()) {
		return false
	}
	var flags apitrace.NameFlags
	if call.Sig != nil {
		flags = call.Sig.Flags()
	}
	return f.calls.Contains(call.No, flags)
}

// fileError names the file an error is about.
type fileError struct {
	name  string
	err   error
	whole bool // IN's container ended early but every event it holds was read
}

func (e *fileError) Error() string { return e.name + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// copyCalls writes the calls of in that f keeps to a new trace out. When
// in turns out damaged, the calls before the damage are written and the
// damage is reported.
func copyCalls(in, out string, f *filter, stderr io.Writer) error {
	src, err := os.Open(in)
	if err != nil {
		return &fileError{in, err, false}
	}
	defer src.Close()
	cr, err := apitrace.NewCallReader(bufio.NewReaderSize(src, 1<<20))
	if err != nil {
		return &fileError{in, err, false}
	}
	dst, err := os.Create(out)
	if err != nil {
		return &fileError{out, err, false}
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	h := cr.Header()
	if h.Container == apitrace.Brotli {
		fmt.Fprintf(stderr, "apitracefilter: %s: written as snappy (%v is read, not written)\n", out, h.Container)
		h.Container = apitrace.Snappy
	}
	w, err := apitrace.NewCallWriter(bw, h)
	if err != nil {
		dst.Close()
		return &fileError{out, err, false}
	}
	var readErr error
	for call, err := range cr.All() {
		if err != nil {
			// Offset is where the last whole event ended and Decompressed
			// how far the container went: equal, nothing of IN is lost.
			readErr = &fileError{in, err, errors.Is(err, io.ErrUnexpectedEOF) && cr.Offset() == cr.Decompressed()}
			break
		}
		if !f.keep(call) {
			continue
		}
		if err := w.Write(call); err != nil {
			dst.Close()
			return &fileError{out, fmt.Errorf("call %d: %w", call.No, err), false}
		}
	}
	err = w.Close()
	if err == nil {
		err = bw.Flush()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &fileError{out, err, false}
	}
	return readErr
}
