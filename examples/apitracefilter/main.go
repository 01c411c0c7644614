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
// OUT is written in IN's container (snappy or gzip; snappy, apitrace's own,
// for a container the package cannot write, with a note on stderr) with
// IN's header. The
// kept calls are numbered from 0 in the order `apitrace dump IN` prints
// them, so that `apitrace dump OUT` prints exactly the kept calls, in the
// same order, none of them incomplete that was complete in IN. Each call is
// written whole (its enter event with every argument, its leave event
// with the return value) at the place apitrace prints it.
//
// Exit status: 0 done, 1 IN cannot be read or is damaged (the calls read
// before the damage are written) or OUT cannot be written, 2 a bad flag or
// argument.
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
	if err := copyCalls(in, out, &f, stderr); err != nil {
		var fe *fileError
		if errors.As(err, &fe) {
			return c.Failf(fe.name, fe.err)
		}
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
	name string
	err  error
}

func (e *fileError) Error() string { return e.name + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// copyCalls writes the calls of in that f keeps to a new trace out. When
// in turns out damaged, the calls before the damage are written and the
// damage is reported.
func copyCalls(in, out string, f *filter, stderr io.Writer) error {
	src, err := os.Open(in)
	if err != nil {
		return &fileError{in, err}
	}
	defer src.Close()
	cr, err := apitrace.NewCallReader(bufio.NewReaderSize(src, 1<<20))
	if err != nil {
		return &fileError{in, err}
	}
	dst, err := os.Create(out)
	if err != nil {
		return &fileError{out, err}
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	h := cr.Header()
	if h.Container != apitrace.Snappy && h.Container != apitrace.Gzip {
		fmt.Fprintf(stderr, "apitracefilter: %s: written as snappy (%v is read, not written)\n", out, h.Container)
		h.Container = apitrace.Snappy
	}
	w, err := apitrace.NewCallWriter(bw, h)
	if err != nil {
		dst.Close()
		return &fileError{out, err}
	}
	var readErr error
	for call, err := range cr.All() {
		if err != nil {
			readErr = &fileError{in, err}
			break
		}
		if !f.keep(call) {
			continue
		}
		if err := w.Write(call); err != nil {
			dst.Close()
			return &fileError{out, fmt.Errorf("call %d: %w", call.No, err)}
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
		return &fileError{out, err}
	}
	return readErr
}
