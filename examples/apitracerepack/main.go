// Command apitracerepack rewrites an apitrace trace through the apitrace
// package's Reader and Writer, as `apitrace repack` does:
//
//	apitracerepack [-gzip] IN OUT
//
// IN may be snappy, gzip, Brotli or zstd (seekable or not); OUT is snappy
// (1 MiB chunks, what apitrace's tracer writes) or, with -gzip, gzip. The decompressed stream of OUT is
// byte for byte that of IN, so `apitrace dump` prints the same for both. A
// truncated IN is rewritten up to its last whole event, and the error is
// reported.
//
// Exit status: 0 done, 1 IN cannot be read or is damaged, or OUT cannot be
// written, 2 a bad flag or argument.
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

const usage = "usage: apitracerepack [-gzip] IN OUT"

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	c := cli.New("apitracerepack", usage, stderr)
	gz := c.Flags.Bool("gzip", false, "write gzip instead of snappy")
	if ok, code := c.Parse(args); !ok {
		return code
	}
	if c.Flags.NArg() != 2 {
		return c.BadUsage("want IN and OUT, got %d arguments", c.Flags.NArg())
	}
	container := apitrace.Snappy
	if *gz {
		container = apitrace.Gzip
	}
	n, err := repack(c.Flags.Arg(0), c.Flags.Arg(1), container)
	if err != nil {
		var fe *fileError
		if errors.As(err, &fe) {
			return c.Failf(fe.name, fe.err)
		}
		return c.Failf("", err)
	}
	fmt.Fprintf(stderr, "apitracerepack: %d events\n", n)
	return cli.OK
}

// fileError names the file an error is about.
type fileError struct {
	name string
	err  error
}

func (e *fileError) Error() string { return e.name + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// repack copies the events of the trace in to a new trace out in container
// c and returns how many it copied. What was read is written even when the
// input turns out damaged.
func repack(in, out string, c apitrace.Container) (events int, err error) {
	f, err := os.Open(in)
	if err != nil {
		return 0, &fileError{in, err}
	}
	defer f.Close()
	r, err := apitrace.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return 0, &fileError{in, err}
	}
	o, err := os.Create(out)
	if err != nil {
		return 0, &fileError{out, err}
	}
	bw := bufio.NewWriterSize(o, 1<<20)
	h := r.Header()
	h.Container = c
	w, err := apitrace.NewWriter(bw, h)
	if err != nil {
		o.Close()
		return 0, &fileError{out, err}
	}
	var readErr error
	for ev, err := range r.All() {
		if err != nil {
			readErr = &fileError{in, err}
			break
		}
		if err := w.Write(ev); err != nil {
			o.Close()
			return events, &fileError{out, err}
		}
		events++
	}
	err = w.Close()
	if err == nil {
		err = bw.Flush()
	}
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return events, &fileError{out, err}
	}
	return events, readErr
}
