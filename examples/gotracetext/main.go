// Command gotracetext converts Go execution traces (Go 1.22–1.26) between
// the binary form the runtime writes and the text form `go tool trace
// -d=wire` prints.
//
//	gotracetext FILE              print FILE's text form on stdout
//	gotracetext -wire FILE.txt    write the binary trace of a text trace on stdout
//
// The text is byte for byte "Trace Go1.N" followed by what `go tool trace
// -d=wire FILE` prints. With -wire, batch lengths are padded to ten bytes
// as the runtime pads them, so the text of a runtime-written trace turns
// back into the very same bytes; -canonical writes minimal varints instead.
// FILE "-" is standard input.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

func main() {
	wire := flag.Bool("wire", false, "read a text trace and write the binary form")
	canonical := flag.Bool("canonical", false, "with -wire: minimal varints, no runtime padding")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gotracetext [-wire [-canonical]] FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	in, err := open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotracetext:", err)
		os.Exit(1)
	}
	defer in.Close()
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	if *wire {
		err = toWire(out, in, !*canonical)
	} else {
		err = toText(out, in)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotracetext:", err)
		os.Exit(1)
	}
}

func open(name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	return os.Open(name)
}

// toText writes the text form of the binary trace in r to w. On a bad
// event it writes the events before it, as `go tool trace -d=wire` does.
func toText(w io.Writer, r io.Reader) error {
	rd, err := gotraceraw.NewReader(r)
	if err != nil {
		return err
	}
	tw, err := gotraceraw.NewTextWriter(w, rd.Version())
	if err != nil {
		return err
	}
	return copyEvents(tw, rd.All())
}

// toWire writes the binary form of the text trace in r to w.
func toWire(w io.Writer, r io.Reader, pad bool) error {
	rd, err := gotraceraw.NewTextReader(r)
	if err != nil {
		return err
	}
	ww, err := gotraceraw.NewWriter(w, rd.Version())
	if err != nil {
		return err
	}
	ww.PadBatchLengths = pad
	return copyEvents(ww, rd.All())
}

type eventWriter interface {
	Write(*gotraceraw.Event) error
	Flush() error
}

func copyEvents(w eventWriter, events func(func(*gotraceraw.Event, error) bool)) error {
	var readErr error
	for ev, err := range events {
		if err != nil {
			readErr = err
			break
		}
		if err := w.Write(ev); err != nil {
			return err
		}
	}
	return errors.Join(w.Flush(), readErr)
}
