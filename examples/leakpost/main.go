// Command leakpost prints what sp-rtrace-postproc prints for a text
// report with the same options:
//
//	leakpost [-l] [-c] [-C mask] [-R mask] [-b depth] [-s size|size-asc|count|count-asc] [-binary-order] FILE
//
// -l lists only leaks, -c groups calls by backtrace, -C and -R filter by
// context and resource-type masks (hex), -b trims backtraces, -s sorts the
// groups of -c. Short options combine as in getopt ("-lc", "-C1").
// Where the real tool is known to be wrong (per-type leak sums of
// multi-type reports, context names lost on text input, the header hour
// shift) leakpost prints the right values; see package leaktext.
// -binary-order writes the leading comments where the tool writes them
// for a binary log. FILE "-" is standard input.
//
// Exit status: 0 when done (and after -h), 1 when the file cannot be read
// or parsed, 2 for a bad flag or argument.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tracefmt/tracefmt/internal/cli"
	"github.com/tracefmt/tracefmt/leaktext"
)

const usage = "usage: leakpost [-l] [-c] [-C mask] [-R mask] [-b depth] [-s order] [-binary-order] FILE"

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

type flags struct {
	leaks, compress, binary bool
	ctx, res, sortBy        string
	depth                   int
}

func defineFlags(fs *flag.FlagSet) *flags {
	f := new(flags)
	fs.BoolVar(&f.leaks, "l", false, "list only leaks (allocations never freed)")
	fs.BoolVar(&f.compress, "c", false, "group calls by backtrace")
	fs.StringVar(&f.ctx, "C", "", "keep calls of the contexts in this hex `mask`")
	fs.StringVar(&f.res, "R", "", "keep resource types in this hex `mask`")
	fs.IntVar(&f.depth, "b", -1, "keep at most `depth` frames per backtrace")
	fs.StringVar(&f.sortBy, "s", "", "sort groups of -c by `order`: size, size-asc, count, count-asc")
	fs.BoolVar(&f.binary, "binary-order", false, "write leading comments after the header, as for a binary log")
	return f
}

func hexMask(flag, s string) (uint32, error) {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("-%s %q: not a hex mask of 32 bits", flag, s)
	}
	return uint32(v), nil
}

// options turns the flags into post-processing options.
func (f *flags) options() (leaktext.Options, error) {
	opt := leaktext.Options{Leaks: f.leaks, Compress: f.compress, BinaryOrder: f.binary}
	if f.sortBy != "" {
		if !f.compress {
			return opt, fmt.Errorf("-s needs -c, as in sp-rtrace-postproc")
		}
		o, err := leaktext.ParseSortOrder(f.sortBy)
		if err != nil {
			return opt, fmt.Errorf("-s %q: not size, size-asc, count or count-asc", f.sortBy)
		}
		opt.Sort = o
	}
	if f.ctx != "" {
		m, err := hexMask("C", f.ctx)
		if err != nil {
			return opt, err
		}
		opt.FilterContext, opt.ContextMask = true, m
	}
	if f.res != "" {
		m, err := hexMask("R", f.res)
		if err != nil {
			return opt, err
		}
		opt.ResourceMask = m
	}
	if f.depth >= 0 {
		opt.Trim, opt.Depth = true, f.depth
	}
	return opt, nil
}

// run is leakpost with its output streams and arguments; it returns the
// exit status.
func run(stdout, stderr io.Writer, args []string) int {
	cmd := cli.New("leakpost", usage, stderr)
	f := defineFlags(cmd.Flags)
	if ok, code := cmd.Parse(splitShort(cmd.Flags, args)); !ok {
		return code
	}
	if n := cmd.Flags.NArg(); n != 1 {
		return cmd.BadUsage("want one input file, got %d arguments", n)
	}
	opt, err := f.options()
	if err != nil {
		return cmd.BadUsage("%v", err)
	}
	name := cmd.Flags.Arg(0)
	in, closeIn, err := cli.Open(name)
	if err != nil {
		return cmd.Failf(name, err)
	}
	rep, err := leaktext.ReadReport(in)
	closeIn()
	if err != nil {
		return cmd.Failf(name, err)
	}
	if err := leaktext.PostProcess(stdout, rep, opt); err != nil {
		return cmd.Failf("", err)
	}
	return cli.OK
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
