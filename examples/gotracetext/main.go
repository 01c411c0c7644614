// Command gotracetext converts Go execution traces (Go 1.22–1.26) between
// the binary form the runtime writes and the text form `go tool trace
// -d=wire` prints.
//
//	gotracetext FILE              print FILE's text form on stdout
//	gotracetext -wire FILE.txt    write the binary trace of a text trace on stdout
//	gotracetext -parsed FILE      print FILE's events as `go tool trace -d=parsed` does
//	gotracetext -footprint FILE   print the bytes and count of each event type, as -d=footprint
//
// The text is byte for byte "Trace Go1.N" followed by what `go tool trace
// -d=wire FILE` prints. With -wire, batch lengths are padded to ten bytes
// as the runtime pads them, so the text of a runtime-written trace turns
// back into the very same bytes; -canonical writes minimal varints instead.
// Batch sizes are always the length of the events that follow, whatever
// the input says. FILE "-" is standard input.
//
// -parsed prints the events in the order Go's parser gives them, checked
// as it checks them, byte for byte as `go tool trace -d=parsed`: on a
// trace Go's parser rejects, the events before the error, then the error
// on stderr with Go's message. -footprint prints the table of
// `go tool trace -d=footprint`, which, as Go's, counts a trace cut between
// two varints or inside a string's data up to the cut, and fails on one cut
// inside a varint. Where Go 1.26's tool cannot read a valid trace (the allocation
// events Go 1.23 to 1.25 write under GODEBUG=traceallocfree=1), -footprint
// prints its table, with the names Go gives those types ("<unknown>").
//
// Exit status: 0 done, 1 FILE cannot be read or is damaged (the events
// before the damage are written, as `go tool trace -d=wire` and
// -d=parsed print them), 2 a bad flag or argument.
package main

import (
	"bufio"
	"errors"
	"io"
	"os"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/cli"
)

const usage = "usage: gotracetext [-wire [-canonical] | -parsed | -footprint] FILE"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	c := cli.New("gotracetext", usage, stderr)
	wire := c.Flags.Bool("wire", false, "read a text trace and write the binary form")
	canonical := c.Flags.Bool("canonical", false, "with -wire: minimal varints, no runtime padding")
	parsedFlag := c.Flags.Bool("parsed", false, "print the events as Go's parser orders them (go tool trace -d=parsed)")
	footprint := c.Flags.Bool("footprint", false, "print each event type's bytes and count (go tool trace -d=footprint)")
	if ok, code := c.Parse(args); !ok {
		return code
	}
	if c.Flags.NArg() != 1 {
		return c.BadUsage("want one FILE, got %d arguments", c.Flags.NArg())
	}
	if *canonical && !*wire {
		return c.BadUsage("-canonical needs -wire")
	}
	modes := 0
	for _, m := range []bool{*wire, *parsedFlag, *footprint} {
		if m {
			modes++
		}
	}
	if modes > 1 {
		return c.BadUsage("-wire, -parsed and -footprint exclude each other")
	}
	name := c.Flags.Arg(0)
	in, closeIn, err := cli.Open(name)
	if err != nil {
		return c.Failf(name, err)
	}
	defer closeIn()
	out := bufio.NewWriterSize(stdout, 64<<10)
	switch {
	case *wire:
		err = toWire(out, in, !*canonical)
	case *parsedFlag:
		err = printParsed(out, in)
	case *footprint:
		err = printFootprint(out, in)
	default:
		err = toText(out, in)
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		return c.Failf("", ferr)
	}
	if err != nil {
		return c.Failf(name, err)
	}
	return cli.OK
}

// toText writes the text form of the binary trace in r to w. On a bad
// event it writes the events before it, as `go tool trace -d=wire` does.
func toText(w io.Writer, r io.Reader) error {
	rd, err := gotraceraw.NewReader(r)
	if err != nil {
		return err
	}
	tw, err := gotraceraw.NewTextWriter(w, rd.Header())
	if err != nil {
		return err
	}
	// A loop of its own rather than one over the Reader's iterator: the
	// calls are direct, which is ~10% of the conversion's time.
	var readErr error
	for {
		ev, err := rd.Read()
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
		if err := tw.Write(ev); err != nil {
			return err
		}
	}
	return errors.Join(tw.Close(), readErr)
}

// toWire writes the binary form of the text trace in r to w.
func toWire(w io.Writer, r io.Reader, pad bool) error {
	rd, err := gotraceraw.NewTextReader(r)
	if err != nil {
		return err
	}
	ww, err := gotraceraw.NewWriter(w, rd.Header())
	if err != nil {
		return err
	}
	ww.PadBatchLengths = pad
	var readErr error
	for {
		ev, err := rd.Read()
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
		if err := ww.Write(ev); err != nil {
			return err
		}
	}
	return errors.Join(ww.Close(), readErr)
}
