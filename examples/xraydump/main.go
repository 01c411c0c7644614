// Command xraydump prints an LLVM XRay log the way llvm-xray does, using
// package xrayfdr.
//
//	xraydump [-verify] FILE                 like llvm-xray fdr-dump [-verify] FILE
//	xraydump -yaml FILE                     like llvm-xray convert --output-format=yaml --symbolize=false FILE
//	xraydump -chrome [-instr-map MAP] FILE  Chrome trace-event JSON (Perfetto, chrome://tracing)
//
// MAP is an instrumentation map written by llvm-xray extract --symbolize;
// it names the functions in the JSON. Errors go to standard error with
// llvm-xray's wording where there is one, and the exit status is 1.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/tracefmt/tracefmt/xrayfdr"
)

func main() {
	verify := flag.Bool("verify", false, "check and print the log block by block (fdr-dump -verify)")
	yaml := flag.Bool("yaml", false, "print the expanded events as llvm-xray convert's YAML")
	chrome := flag.Bool("chrome", false, "write Chrome trace-event JSON")
	instrMap := flag.String("instr-map", "", "instrumentation map (llvm-xray extract --symbolize YAML) naming functions for -chrome")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: xraydump [-verify | -yaml | -chrome [-instr-map MAP.yaml]] FILE\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	// The whole log and its events stay in memory until the end, so
	// collecting garbage early saves nothing.
	debug.SetGCPercent(400)
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	err := run(out, flag.Arg(0), *verify, *yaml, *chrome, *instrMap)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		var fe *xrayfdr.FormatError
		if errors.As(err, &fe) && fe.LLVM != "" {
			fmt.Fprintf(os.Stderr, "xraydump: %s\n(%v)\n", fe.LLVM, err)
		} else {
			fmt.Fprintf(os.Stderr, "xraydump: %v\n", err)
		}
		os.Exit(1)
	}
}

func run(w io.Writer, path string, verify, yaml, chrome bool, instrMap string) error {
	if !verify && !yaml && !chrome {
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
	case yaml:
		t, err := xrayfdr.Expand(data, true)
		if err != nil {
			return err
		}
		return xrayfdr.WriteYAML(w, t)
	case chrome:
		var names map[int32]string
		if instrMap != "" {
			f, err := os.Open(instrMap)
			if err != nil {
				return err
			}
			names, err = xrayfdr.ReadInstrMap(f)
			f.Close()
			if err != nil {
				return err
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
