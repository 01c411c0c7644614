// Command xraydump prints LLVM XRay logs and instrumentation maps the way
// llvm-xray does, using package xrayfdr. It takes llvm-xray's subcommands,
// with flags spelled as LLVM's command line accepts them (-flag, --flag,
// --flag=X, --flag X, before or after the file):
//
//	xraydump fdr-dump [--llvm=14] [-verify] LOG
//	xraydump extract [--llvm=14] [--symbolize] [--no-demangle] [-o OUT] BIN
//	xraydump convert [--llvm=14] --output-format=yaml|trace_event [--symbolize] [--no-demangle]
//	                 [--instr_map=BIN] [--sort] [-o OUT] LOG
//	xraydump account|stack|graph [--llvm=14] [llvm-xray's flags] [--instr_map=BIN] LOG
//
// and its own older form:
//
//	xraydump [--llvm=14] [-verify] FILE                 like llvm-xray fdr-dump [-verify] FILE
//	xraydump [--llvm=14] -yaml FILE                     like llvm-xray convert --output-format=yaml FILE
//	xraydump [--llvm=14] -chrome [-instr-map MAP] FILE  Chrome trace-event JSON (Perfetto, chrome://tracing)
//
// It prints what llvm-xray-19 prints, or with --llvm=14 what llvm-xray-14
// prints: the releases differ in the order of fdr-dump -verify's blocks,
// of convert's records on multithreaded logs, of graph's edges, and in
// demangled names ("> >" in 14, ">>" in 19). Where either release's
// account or stack fails on a multithreaded log ("empty stack": both meet
// a thread's records out of the order they were written), xraydump gives
// the right figures, taking each thread's buffers in time order.
//
// BIN and MAP are an instrumented ELF binary or shared object, or the
// YAML llvm-xray extract writes. Names come from the binary's symbols and
// DWARF as llvm-xray finds them; unlike llvm-xray 14, binaries with
// typed-event sleds are read. convert --output-format=trace_event writes
// our Chrome JSON (exact timestamps; llvm-xray's differs).
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
	"strings"

	"github.com/tracefmt/tracefmt/internal/cli"
	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/analysis"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
)

const usage = `usage: xraydump fdr-dump [--llvm=14] [-verify] LOG
       xraydump extract [--llvm=14] [--symbolize] [--no-demangle] [-o OUT] BIN
       xraydump convert [--llvm=14] --output-format=yaml|trace_event [--symbolize] [--no-demangle] [--instr_map=BIN] [--sort] [-o OUT] LOG
       xraydump account|stack|graph [--llvm=14] [llvm-xray's flags] [--instr_map=BIN] LOG   (see xraydump account -h)
       xraydump convert --output-format=pprof [--instr_map=BIN] -o OUT.pb.gz LOG
       xraydump [--llvm=14] [-verify | -yaml | -chrome [-instr-map MAP]] FILE
Output is llvm-xray-19's; --llvm=14 prints llvm-xray-14's where the releases differ
(block, record and edge order, demangled names).`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options of every form
type options struct {
	verify, yaml, chrome bool
	instrMap             string
	symbolize, demangle  bool
	noDemangle, sort     bool
	format, output       string
	llvm                 xrayfdr.LLVM
}

// llvmFlag registers --llvm, the llvm-xray release to follow.
func llvmFlag(c *cli.Command, v *xrayfdr.LLVM) {
	c.Flags.Func("llvm", "the llvm-xray release to print as where releases differ: 19 (default) or 14", func(s string) error {
		switch s {
		case "14":
			*v = xrayfdr.LLVM14
		case "19":
			*v = xrayfdr.LLVM19
		default:
			return fmt.Errorf("want 14 or 19")
		}
		return nil
	})
}

// run is the command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	sub := ""
	if len(args) > 0 {
		switch args[0] {
		case "fdr-dump", "extract", "convert":
			sub, args = args[0], args[1:]
		case "account", "stack", "graph":
			return runAnalysis(args[0], args[1:], stdout, stderr)
		}
	}
	c := cli.New("xraydump", usage, stderr)
	var o options
	fs := c.Flags
	llvmFlag(c, &o.llvm)
	switch sub {
	case "":
		fs.BoolVar(&o.verify, "verify", false, "check and print the log block by block (fdr-dump -verify)")
		fs.BoolVar(&o.yaml, "yaml", false, "print the expanded events as llvm-xray convert's YAML")
		fs.BoolVar(&o.chrome, "chrome", false, "write Chrome trace-event JSON")
		fs.StringVar(&o.instrMap, "instr-map", "", "binary or instrumentation map naming functions for -chrome")
	case "fdr-dump":
		fs.BoolVar(&o.verify, "verify", false, "verify structure of the log")
	case "extract", "convert":
		fs.BoolVar(&o.symbolize, "symbolize", false, "symbolize functions")
		fs.BoolVar(&o.demangle, "demangle", true, "demangle symbols (default)")
		fs.BoolVar(&o.noDemangle, "no-demangle", false, "don't demangle symbols")
		fs.StringVar(&o.output, "output", "-", "output file; '-' for stdout")
		fs.StringVar(&o.output, "o", "-", "alias for -output")
		if sub == "extract" {
			fs.BoolVar(&o.symbolize, "s", false, "alias for -symbolize")
		} else {
			fs.BoolVar(&o.symbolize, "y", false, "alias for -symbolize")
			fs.StringVar(&o.instrMap, "instr_map", "", "binary with the instrumentation map, or a separate instrumentation map")
			fs.StringVar(&o.instrMap, "m", "", "alias for -instr_map")
			fs.StringVar(&o.format, "output-format", "", "output format: yaml or trace_event")
			fs.StringVar(&o.format, "f", "", "alias for -output-format")
			fs.BoolVar(&o.sort, "sort", false, "sort records by timestamp (always done for FDR logs)")
			fs.BoolVar(&o.sort, "s", false, "alias for -sort")
		}
	}
	files, ok, code := parse(c, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		return c.BadUsage("want one file, got %d arguments", len(files))
	}
	if o.noDemangle {
		o.demangle = false
	}
	switch sub {
	case "":
		if n := btoi(o.verify) + btoi(o.yaml) + btoi(o.chrome); n > 1 {
			return c.BadUsage("-verify, -yaml and -chrome exclude each other")
		}
		if o.instrMap != "" && !o.chrome {
			return c.BadUsage("-instr-map goes with -chrome")
		}
	case "convert":
		switch o.format {
		case "yaml":
			o.yaml = true
		case "trace_event":
			o.chrome = true
		case "pprof":
			return convertPprof(c, files[0], o.instrMap, o.output, o.llvm)
		case "":
			return c.BadUsage("convert needs --output-format=yaml or --output-format=trace_event")
		default:
			return c.BadUsage("--output-format=%s is not supported (yaml or trace_event)", o.format)
		}
	}
	out := stdout
	if o.output != "" && o.output != "-" {
		f, err := os.Create(o.output)
		if err != nil {
			return c.Failf("", err)
		}
		defer f.Close()
		out = f
	}
	// The whole log and its events stay in memory until the end, so
	// collecting garbage early saves nothing.
	debug.SetGCPercent(400)
	// The package's writers format whole chunks of 64 KiB or more, which
	// a buffer no larger passes straight through (a larger one would copy
	// them); it is small, too, for a map's text: fewer fresh pages.
	bw := bufio.NewWriterSize(out, 64<<10)
	file := files[0]
	var err error
	if sub == "extract" {
		err = extract(bw, file, o)
	} else {
		err = dump(bw, file, o, sub == "convert")
	}
	if ferr := bw.Flush(); err == nil && ferr != nil {
		return c.Failf("", ferr)
	}
	if err != nil {
		return fail(c, file, err)
	}
	return cli.OK
}

// parse parses flags before and after the files, as LLVM's command line
// does; "--" ends the flags.
func parse(c *cli.Command, args []string) (files []string, ok bool, code int) {
	for {
		if ok, code := c.Parse(args); !ok {
			return nil, false, code
		}
		rest := c.Flags.Args()
		if len(rest) == 0 {
			return files, true, 0
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(files, rest...), true, 0
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
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
		err = fmt.Errorf("%v (llvm-xray: %s)", err, strings.ReplaceAll(fe.LLVM, "\n", " "))
	}
	return c.Failf(file, err)
}

// namedError names the file an error is about, when it is not the
// command's main file.
type namedError struct {
	file string
	err  error
}

func (e *namedError) Error() string { return e.file + ": " + e.err.Error() }
func (e *namedError) Unwrap() error { return e.err }

func openMap(path string) (*instrmap.Map, error) {
	m, err := instrmap.Open(path)
	var pe *os.PathError
	if err != nil && !errors.As(err, &pe) {
		err = &namedError{path, err}
	}
	return m, err
}

func extract(w io.Writer, path string, o options) error {
	m, err := instrmap.Open(path)
	if err != nil {
		return err
	}
	m.LLVM = o.llvm
	return m.WriteYAML(w, o.symbolize, o.demangle)
}

func dump(w io.Writer, path string, o options, convert bool) (err error) {
	if !o.verify && !o.yaml && !o.chrome {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		return xrayfdr.Dump(w, f) // streams
	}
	var m *instrmap.Map
	if o.instrMap != "" {
		var err error
		if m, err = openMap(o.instrMap); err != nil {
			return err
		}
		m.LLVM = o.llvm
	}
	data, release, err := readLog(path)
	if err != nil {
		return err
	}
	// The bytes are released only after a success: on a failure to
	// write, goroutines formatting YAML may still be reading them.
	defer func() {
		if err == nil {
			release()
		}
	}()
	switch {
	case o.yaml:
		t, err := o.llvm.Expand(data, true)
		if err != nil {
			return err
		}
		if o.symbolize {
			return xrayfdr.WriteYAMLNames(w, t, func(id int32) string { return m.Name(id, o.demangle) })
		}
		return xrayfdr.WriteYAML(w, t)
	case o.chrome:
		var names map[int32]string
		if m != nil && (o.symbolize || !convert) {
			names = m.Names(o.demangle || !convert)
		}
		t, err := o.llvm.Expand(data, true)
		if err != nil {
			return err
		}
		return analysis.WriteChrome(w, t, names)
	}
	return o.llvm.DumpVerify(w, data)
}
