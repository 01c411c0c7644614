// Command xraydump prints an LLVM XRay log the way llvm-xray does, using
// package xrayfdr.
//
//	xraydump [-verify] FILE                 like llvm-xray fdr-dump [-verify] FILE
//	xraydump -yaml FILE                     like llvm-xray convert --output-format=yaml FILE
//	xraydump -chrome [-instr-map MAP] FILE  Chrome trace-event JSON (Perfetto, chrome://tracing)
//
// MAP is an instrumentation map written by llvm-xray extract --symbolize;
// it names the functions in the JSON.
//
// A file that cannot be read or parsed prints one line naming it (with
// llvm-xray's wording where there is one) and exits 1; a bad flag or
// argument exits 2; -h prints the usage and exits 0.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/tracefmt/tracefmt/internal/cli"
	"github.com/tracefmt/tracefmt/xrayfdr"
)

const usage = `usage: xraydump [-verify | -yaml | -chrome [-instr-map MAP.yaml]] FILE`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options of the flag form
type options struct {
	verify, yaml, chrome bool
	instrMap             string
}

// run is the command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	c := cli.New("xraydump", usage, stderr)
	var o options
	c.Flags.BoolVar(&o.verify, "verify", false, "check and print the log block by block (fdr-dump -verify)")
	c.Flags.BoolVar(&o.yaml, "yaml", false, "print the expanded events as llvm-xray convert's YAML")
	c.Flags.BoolVar(&o.chrome, "chrome", false, "write Chrome trace-event JSON")
	c.Flags.StringVar(&o.instrMap, "instr-map", "", "instrumentation map (llvm-xray extract --symbolize YAML) naming functions for -chrome")
	if ok, code := c.Parse(args); !ok {
		return code
	}
	if c.Flags.NArg() != 1 {
		return c.BadUsage("want one FILE, got %d arguments", c.Flags.NArg())
	}
	if n := btoi(o.verify) + btoi(o.yaml) + btoi(o.chrome); n > 1 {
		return c.BadUsage("-verify, -yaml and -chrome exclude each other")
	}
	if o.instrMap != "" && !o.chrome {
		return c.BadUsage("-instr-map goes with -chrome")
	}
	// The whole log and its events stay in memory until the end, so
	// collecting garbage early saves nothing.
	debug.SetGCPercent(400)
	out := bufio.NewWriterSize(stdout, 1<<20)
	file := c.Flags.Arg(0)
	err := dump(out, file, o)
	if ferr := out.Flush(); err == nil && ferr != nil {
		return c.Failf("", ferr)
	}
	if err != nil {
		return fail(c, file, err)
	}
	return cli.OK
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fail reports err about file on one line, with llvm-xray's wording where
// the package knows it.
func fail(c *cli.Command, file string, err error) int {
	var fe *xrayfdr.FormatError
	if errors.As(err, &fe) && fe.LLVM != "" {
		err = fmt.Errorf("%v (llvm-xray: %s)", err, oneLine(fe.LLVM))
	}
	return c.Failf(file, err)
}

func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

func dump(w io.Writer, path string, o options) error {
	if !o.verify && !o.yaml && !o.chrome {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		return xrayfdr.Dump(w, f) // streams
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	switch {
	case o.yaml:
		t, err := xrayfdr.Expand(data, true)
		if err != nil {
			return err
		}
		return xrayfdr.WriteYAML(w, t)
	case o.chrome:
		var names map[int32]string
		if o.instrMap != "" {
			f, err := os.Open(o.instrMap)
			if err != nil {
				return err
			}
			names, err = xrayfdr.ReadInstrMap(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", o.instrMap, err)
			}
		}
		t, err := xrayfdr.Expand(data, true)
		if err != nil {
			return err
		}
		return xrayfdr.WriteChrome(w, t, names)
	}
	return xrayfdr.DumpVerify(w, data)
}
