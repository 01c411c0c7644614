// Command apitracerepack rewrites an apitrace trace through the apitrace
// package's Reader and Writer, as `apitrace repack` does:
//
//	apitracerepack [-gzip] IN OUT
//
// IN may be snappy or gzip; OUT is snappy (1 MiB chunks, what apitrace's
// tracer writes) or, with -gzip, gzip. The decompressed stream of OUT is
// byte for byte that of IN, so `apitrace dump` prints the same for both. A
// truncated IN is rewritten up to its last whole event, and the error is
// reported (exit status 1).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tracefmt/tracefmt/apitrace"
)

func main() {
	gz := flag.Bool("gzip", false, "write gzip instead of snappy")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: apitracerepack [-gzip] IN OUT\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	c := apitrace.Snappy
	if *gz {
		c = apitrace.Gzip
	}
	n, err := repack(flag.Arg(0), flag.Arg(1), c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "apitracerepack: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "apitracerepack: %d events\n", n)
}

// repack copies the events of the trace in to a new trace out in container
// c and returns how many it copied. What was read is written even when the
// input turns out damaged.
func repack(in, out string, c apitrace.Container) (events int, err error) {
	f, err := os.Open(in)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r, err := apitrace.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return 0, err
	}
	o, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(o, 1<<20)
	h := r.Header()
	h.Container = c
	w, err := apitrace.NewWriter(bw, h)
	if err != nil {
		o.Close()
		return 0, err
	}
	var readErr error
	for {
		ev, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
		if err := w.Write(ev); err != nil {
			o.Close()
			return events, err
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
	return events, errors.Join(readErr, err)
}
