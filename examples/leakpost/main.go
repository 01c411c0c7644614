// Command leakpost prints what sp-rtrace-postproc prints for a text
// report with the same options:
//
//	leakpost [-l] [-c] [-C mask] [-R mask] [-b depth] [-s size|size-asc|count|count-asc] FILE
//
// -l lists only leaks, -c groups calls by backtrace, -C and -R filter by
// context and resource-type masks (hex), -b trims backtraces, -s sorts the
// groups of -c. Short options combine as in getopt ("-lc", "-C1").
// Where the real tool is known to be wrong (per-type leak sums of
// multi-type reports, context names lost on text input, the header hour
// shift) leakpost prints the right values; see package leaktext.
// -binary-order writes the leading comments where the tool writes them
// for a binary log.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tracefmt/tracefmt/leaktext"
)

func main() {
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "leakpost:", err)
		os.Exit(1)
	}
}

type flags struct {
	leaks, compress, binary bool
	ctx, res, sortBy        string
	depth                   int
}

func flagSet() (*flag.FlagSet, *flags) {
	f := new(flags)
	fs := flag.NewFlagSet("leakpost", flag.ContinueOnError)
	fs.BoolVar(&f.leaks, "l", false, "list only leaks (allocations never freed)")
	fs.BoolVar(&f.compress, "c", false, "group calls by backtrace")
	fs.StringVar(&f.ctx, "C", "", "keep calls of the contexts in this hex `mask`")
	fs.StringVar(&f.res, "R", "", "keep resource types in this hex `mask`")
	fs.IntVar(&f.depth, "b", -1, "keep at most `depth` frames per backtrace")
	fs.StringVar(&f.sortBy, "s", "", "sort groups of -c by `order`: size, size-asc, count, count-asc")
	fs.BoolVar(&f.binary, "binary-order", false, "write leading comments after the header, as for a binary log")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: leakpost [-l] [-c] [-C mask] [-R mask] [-b depth] [-s order] FILE")
		fs.PrintDefaults()
	}
	return fs, f
}

func hexMask(s string) (uint32, error) {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("invalid mask %q: %w", s, err)
	}
	return uint32(v), nil
}

func run(w io.Writer, args []string) error {
	fs, f := flagSet()
	fs.SetOutput(io.Discard)
	if err := fs.Parse(splitShort(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one input file; usage: leakpost [-l] [-c] [-C mask] [-R mask] [-b depth] [-s order] FILE")
	}
	opt := leaktext.Options{Leaks: f.leaks, Compress: f.compress, BinaryOrder: f.binary}
	if f.sortBy != "" {
		if !f.compress {
			return fmt.Errorf("-s needs -c, as in sp-rtrace-postproc")
		}
		o, err := leaktext.ParseSortOrder(f.sortBy)
		if err != nil {
			return err
		}
		opt.Sort = o
	}
	if f.ctx != "" {
		m, err := hexMask(f.ctx)
		if err != nil {
			return err
		}
		opt.FilterContext, opt.ContextMask = true, m
	}
	if f.res != "" {
		m, err := hexMask(f.res)
		if err != nil {
			return err
		}
		opt.ResourceMask = m
	}
	if f.depth >= 0 {
		opt.Trim, opt.Depth = true, f.depth
	}
	in, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer in.Close()
	rep, err := leaktext.ReadReport(in)
	if err != nil {
		return err
	}
	return leaktext.PostProcess(w, rep, opt)
}

// splitShort spells getopt's combined short options ("-lc", "-C1") the
// way package flag reads them ("-l", "-c", "-C", "1").
func splitShort(fs *flag.FlagSet, args []string) []string {
	var out []string
	for i, a := range args {
		name, _, _ := strings.Cut(a, "=")
		if a == "--" || len(a) < 3 || a[0] != '-' || a[1] == '-' || fs.Lookup(name[1:]) != nil {
			out = append(out, a)
			if a == "--" {
				return append(out, args[i+1:]...)
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			out = append(out, "-"+string(c))
			if c == 'C' || c == 'R' || c == 'b' || c == 's' {
				if j+1 < len(a) {
					out = append(out, a[j+1:])
				}
				break
			}
		}
	}
	return out
}
