//go:build ignore

// This file is not built in place: bench/compare.sh copies it into a
// temporary module beside a copy of Go's internal/trace/{raw,tracev2,version}
// taken from $(go env GOROOT), where it is the peer converter: what a user
// of Go's own raw package writes to turn a trace into text and back.
//
//	peerconv FILE          binary trace to text on stdout
//	peerconv -wire FILE    text trace to binary on stdout
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"peerbench/raw"
)

func main() {
	wire := flag.Bool("wire", false, "text to binary")
	flag.Parse()
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	in := bufio.NewReaderSize(f, 1<<16)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	if *wire {
		err = toWire(in, out)
	} else {
		err = toText(in, out)
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		fail(err)
	}
}

func toText(in io.Reader, out io.Writer) error {
	r, err := raw.NewReader(in)
	if err != nil {
		return err
	}
	w, err := raw.NewTextWriter(out, r.Version())
	if err != nil {
		return err
	}
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := w.WriteEvent(ev); err != nil {
			return err
		}
	}
}

func toWire(in io.Reader, out io.Writer) error {
	r, err := raw.NewTextReader(in)
	if err != nil {
		return err
	}
	w, err := raw.NewWriter(out, r.Version())
	if err != nil {
		return err
	}
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := w.WriteEvent(ev); err != nil {
			return err
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "peerconv:", err)
	os.Exit(1)
}
