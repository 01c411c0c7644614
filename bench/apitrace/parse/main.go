// Command parse reads every call of apitrace traces with the apitrace
// package's CallReader and prints what `apitrace info` counts (calls and
// frames), so that the two can be timed side by side as whole processes.
//
//	parse [-events] FILE...
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tracefmt/tracefmt/apitrace"
)

func main() {
	events := flag.Bool("events", false, "read events with Reader instead of calls with CallReader")
	flag.Parse()
	for _, name := range flag.Args() {
		if err := run(name, *events); err != nil {
			fmt.Fprintf(os.Stderr, "parse: %s: %v\n", name, err)
			os.Exit(1)
		}
	}
}

func run(name string, events bool) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	in := bufio.NewReaderSize(f, 1<<20)
	if events {
		r, err := apitrace.NewReader(in)
		if err != nil {
			return err
		}
		n := 0
		for {
			_, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			n++
		}
		fmt.Printf("%s: %d events\n", name, n)
		return nil
	}
	cr, err := apitrace.NewCallReader(in)
	if err != nil {
		return err
	}
	calls, frames := 0, 0
	for {
		c, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		calls++
		if c.Sig.EndsFrame() {
			frames++
		}
	}
	fmt.Printf("%s: %d calls, %d frames\n", name, calls, frames)
	return nil
}
