// Command leakpost prints what sp-rtrace-postproc prints for a text
// report with the same options:
//
//	leakpost [-l] [-c] [-C mask] [-R mask] [-b depth] [-s size|size-asc|count|count-asc] FILE
//
// -l lists only leaks, -c groups calls by backtrace, -C and -R filter by
// context and resource-type masks (hex), -b trims backtraces, -s sorts the
// groups of -c. Where the real tool is known to be wrong (per-type leak
// sums of multi-type reports, context names lost on text input, header
// hour shift) leakpost prints the right values; see package leaktext.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tracefmt/tracefmt/leaktext"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "leakpost:", err)
		os.Exit(1)
	}
}

func hexMask(s string) (uint32, error) {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("invalid mask %q: %w", s, err)
	}
	return uint32(v), nil
}

func run(args []string) error {
	fs := flag.NewFlagSet("leakpost", flag.ContinueOnError)
	leaks := fs.Bool("l", false, "list only leaks (allocations never freed)")
	compress := fs.Bool("c", false, "group calls by backtrace")
	ctx := fs.String("C", "", "keep calls of the contexts in this hex `mask`")
	res := fs.String("R", "", "keep resource types in this hex `mask`")
	depth := fs.Int("b", -1, "keep at most `depth` frames per backtrace")
	sortBy := fs.String("s", "", "sort groups of -c by `order`: size, size-asc, count, count-asc")
	binary := fs.Bool("binary-order", false, "write leading comments after the header, as for a binary log")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: leakpost [-l] [-c] [-C mask] [-R mask] [-b depth] [-s order] FILE")
		fs.PrintDefaults()
	}
	if err := fs.Parse(splitShort(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("want one input file")
	}
	opt := leaktext.Options{Leaks: *leaks, Compress: *compress, BinaryOrder: *binary}
	if *sortBy != "" {
		if !*compress {
			return fmt.Errorf("-s needs -c, as in sp-rtrace-postproc")
		}
		o, err := leaktext.ParseSortOrder(*sortBy)
		if err != nil {
			return err
		}
		opt.Sort = o
	}
	if *ctx != "" {
		m, err := hexMask(*ctx)
		if err != nil {
			return err
		}
		opt.FilterContext, opt.ContextMask = true, m
	}
	if *res != "" {
		m, err := hexMask(*res)
		if err != nil {
			return err
		}
		opt.ResourceMask = m
	}
	if *depth >= 0 {
		opt.Trim, opt.Depth = true, *depth
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	rep, err := leaktext.ReadReport(f)
	if err != nil {
		return err
	}
	return leaktext.PostProcess(os.Stdout, rep, opt)
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
			if c == 'C' || c == 'R' || c == 'b' || c == 's' {
				out = append(out, "-"+string(c))
				if j+1 < len(a) {
					out = append(out, a[j+1:])
				}
				break
			}
			out = append(out, "-"+string(c))
		}
	}
	return out
}
