// Command apitracerepack rewrites an apitrace trace through the apitrace
// package's Reader and Writer, as `apitrace repack` does, with the options
// of apitrace master's repack:
//
//	apitracerepack [-s | -z[=LEVEL] | --zlib | -gzip] IN OUT
//
// IN may be snappy, gzip, Brotli or zstd (seekable or not). OUT is snappy
// by default or with -s/--snappy (1 MiB chunks, what apitrace's tracer
// writes); gzip with --zlib or -gzip; seekable zstd with -z/--zstd, at
// level 3 or the LEVEL given (1 to 22, as -z=19, --zstd=19 or -z19): frames
// of 2 MiB of stream and a seek table, as master writes, which master,
// the zstd command and the apitrace package read. -b/--brotli is refused:
// this library has no Brotli encoder. When several are given, the last
// wins. The decompressed stream of OUT is byte for byte that of IN, so
// `apitrace dump` prints the same for both.
//
// An IN whose stream ends where an event ends but whose container lacks
// its own end (a gzip trace without its trailer, as a traced program
// killed before closing its trace leaves) is copied whole, with a warning
// on stderr, and the exit status is 0, as `apitrace repack` exits 0 on it.
// An IN cut inside an event is rewritten up to its last whole event and
// the cut is reported as an error (`apitrace repack` copies the cut event's
// bytes, warns and exits 0; here OUT would lack them).
//
// Exit status: 0 done (also with the warning above), 1 IN cannot be read,
// is damaged or is cut inside an event, or OUT cannot be written, 2 a bad
// flag or argument.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"

	"github.com/tracefmt/tracefmt/apitrace"
	"github.com/tracefmt/tracefmt/apitrace/zstd"
	"github.com/tracefmt/tracefmt/internal/cli"
)

const usage = "usage: apitracerepack [-s | -z[=LEVEL] | --zlib | -gzip] IN OUT"

// format is the output container chosen by the flags, the last one given.
type format struct {
	c      apitrace.Container
	level  int    // zstd's
	brotli string // the flag that asked for Brotli, refused
}

// formatFlag is one container flag. It takes no value, or a level where
// the container has levels (-z=19), as getopt's optional arguments do.
type formatFlag struct {
	f      *format
	c      apitrace.Container
	name   string
	levels bool
}

func (f *formatFlag) IsBoolFlag() bool { return true }
func (f *formatFlag) String() string   { return "" }

func (f *formatFlag) Set(s string) error {
	f.f.brotli = ""
	if f.c == apitrace.Brotli {
		f.f.brotli = f.name
		return nil
	}
	f.f.c = f.c
	f.f.level = zstd.DefaultLevel
	if s == "true" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if !f.levels || err != nil || n < zstd.MinLevel || n > zstd.MaxLevel {
		return fmt.Errorf("want no value or a level %d..%d, got %q", zstd.MinLevel, zstd.MaxLevel, s)
	}
	f.f.level = n
	return nil
}

// attached finds a short option with its value attached (-z19), which
// getopt takes and the flag package does not.
var attached = regexp.MustCompile(`^-([zb])([0-9]+)$`)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	c := cli.New("apitracerepack", usage, stderr)
	f := format{c: apitrace.Snappy}
	for _, d := range []struct {
		names  []string
		c      apitrace.Container
		levels bool
		help   string
	}{
		{[]string{"s", "snappy"}, apitrace.Snappy, false, "write snappy (the default)"},
		{[]string{"z", "zstd"}, apitrace.ZstdSeekable, true, "write seekable zstd as apitrace master's repack -z, at level 3, or LEVEL (1..22) given as -z=LEVEL"},
		{[]string{"zlib", "gzip"}, apitrace.Gzip, false, "write gzip"},
		{[]string{"b", "brotli"}, apitrace.Brotli, true, "refused: there is no Brotli encoder here"},
	} {
		for _, n := range d.names {
			c.Flags.Var(&formatFlag{&f, d.c, n, d.levels}, n, d.help)
		}
	}
	args = append([]string(nil), args...)
	for i, a := range args {
		if a == "--" {
			break
		}
		args[i] = attached.ReplaceAllString(a, "-$1=$2")
	}
	if ok, code := c.Parse(args); !ok {
		return code
	}
	if f.brotli != "" {
		return c.BadUsage("-%s: cannot write Brotli, this library has no Brotli encoder; -z writes seekable zstd, which apitrace master reads, and -gzip what every apitrace reads", f.brotli)
	}
	if c.Flags.NArg() != 2 {
		return c.BadUsage("want IN and OUT, got %d arguments", c.Flags.NArg())
	}
	n, err := repack(c.Flags.Arg(0), c.Flags.Arg(1), f.c, f.level)
	var fe *fileError
	switch {
	case errors.As(err, &fe) && fe.whole:
		fmt.Fprintf(stderr, "apitracerepack: %s: warning: %v (every event it holds was copied)\n", fe.name, fe.err)
	case fe != nil:
		return c.Failf(fe.name, fe.err)
	case err != nil:
		return c.Failf("", err)
	}
	fmt.Fprintf(stderr, "apitracerepack: %d events\n", n)
	return cli.OK
}

// fileError names the file an error is about.
type fileError struct {
	name  string
	err   error
	whole bool // IN's container ended early but every event it holds was copied
}

func (e *fileError) Error() string { return e.name + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// repack copies the events of the trace in to a new trace out in container
// c (zstd at level) and returns how many it copied. What was read is
// written even when the input turns out damaged.
func repack(in, out string, c apitrace.Container, level int) (events int, err error) {
	f, err := os.Open(in)
	if err != nil {
		return 0, &fileError{in, err, false}
	}
	defer f.Close()
	r, err := apitrace.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return 0, &fileError{in, err, false}
	}
	o, err := os.Create(out)
	if err != nil {
		return 0, &fileError{out, err, false}
	}
	bw := bufio.NewWriterSize(o, 1<<20)
	h := r.Header()
	h.Container = c
	w := &apitrace.Writer{ZstdLevel: level}
	if err := w.Reset(bw, h); err != nil {
		o.Close()
		return 0, &fileError{out, err, false}
	}
	var readErr error
	for ev, err := range r.All() {
		if err != nil {
			// Offset is where the last whole event ended and Decompressed
			// how far the container went: equal, nothing of IN is lost.
			readErr = &fileError{in, err, errors.Is(err, io.ErrUnexpectedEOF) && r.Offset() == r.Decompressed()}
			break
		}
		if err := w.Write(ev); err != nil {
			o.Close()
			return events, &fileError{out, err, false}
		}
		events++
	}
	err = w.Close()
	if err == nil {
		err = bw.Flush()
	}
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return events, &fileError{out, err, false}
	}
	return events, readErr
}
