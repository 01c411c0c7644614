// Command apitracedump prints apitrace traces as text, byte for byte what
// `apitrace dump --color=never` of apitrace 13.0 and master prints with the
// same options, or with --compat=11.1 what apitrace 11.1 (Debian 12's)
// prints:
//
//	go run ./examples/apitracedump [OPTIONS] TRACE_FILE...
//
//	-v, --verbose         also dump verbose calls (glGetString, glIs*, ...)
//	--calls=CALLSET       only dump these calls (1-10,20,*/frame, @file, ...)
//	--grep=REGEX          only dump calls whose name matches (no property lines)
//	--thread-ids[=BOOL]   print @THREAD before each call [default: no]
//	--call-nos[=BOOL]     print call numbers [default: yes]
//	--arg-names[=BOOL]    print argument names [default: yes]
//	--multiline[=BOOL]    print newlines in strings literally [default: yes]
//	--blobs               write blobs to blob_callN[_K].bin in the current directory
//	--color[=WHEN]        always, never or auto (colour when stdout is a terminal)
//	--compat=VERSION      print as apitrace VERSION does: 13.0 (default) or 11.1
//
// The releases differ in three things: 13.0 reads on up to 100 calls past
// the last one of --calls, so that the calls a multithreaded trace wrote
// out of order and the incomplete calls at the end of a trace are printed
// (11.1 stops at the first call past the set); --blobs prints a value's
// machine form (the bytes of a D3D shader) where 11.1 prints its human
// form; and a boolean option takes 1 for yes, where 11.1 warns "unexpected
// bool 1" and keeps the default. apitrace 13.0 also has an `apitrace
// version` command; it prints the version of the tool, not of a trace,
// so apitracedump has no counterpart: -h names the releases it follows.
//
// It reads snappy, gzip, Brotli and zstd traces (seekable or not; apitrace
// 11.1 and 13.0 read no zstd, master reads both). Like apitrace it warns on
// stderr and exits 0 when a trace is cut short, and exits 1 on a trace it
// cannot read.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/tracefmt/tracefmt/apitrace"
	"github.com/tracefmt/tracefmt/internal/cli"
)

const usage = `usage: apitracedump [OPTIONS] TRACE_FILE...
Dump given trace(s) to standard output, as apitrace dump 13.0 does.

    -h, --help           show this help message and exit
    -v, --verbose        verbose output
    --calls=CALLSET      only dump specified calls
    --color[=WHEN]
    --colour[=WHEN]      colored syntax highlighting
                         WHEN is 'auto', 'always', or 'never'
    --grep[=REGEX]       dump only calls whose function names match regex
    --thread-ids=[=BOOL] dump thread ids [default: no]
    --call-nos[=BOOL]    dump call numbers[default: yes]
    --arg-names[=BOOL]   dump argument names [default: yes]
    --blobs              dump blobs into files
    --multiline[=BOOL]   dump newline in strings literally [default: yes]
    --compat=VERSION     print as apitrace VERSION does: 13.0 (also master;
                         the default) or 11.1
`

func main() {
	// What stays live is small and does not grow with the trace (the
	// decompressed chunk, the signatures, the text buffer), about 3 MB:
	// at the default GOGC the runtime's first 4 MB goal has a dump
	// collect for nothing. Collecting when the heap reaches three times
	// what is live still bounds memory. GOGC, when set, decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	a, err := apitrace.ParseDumpArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		fmt.Fprint(stderr, usage)
		return 1
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(stderr, "error: %s\n", w) // apitrace's words
	}
	opts, files := a.Options, a.Files
	if a.Help {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if !explicitColor(args) {
		opts.Color = cli.IsTerminal(stdout)
	}
	// The Dumper gathers its text in pieces of about 60 KiB: a smaller
	// buffer passes them straight through, copying only a trace's last
	// piece, and keeps the flushes before each message on stderr.
	w := bufio.NewWriterSize(stdout, 32<<10)
	defer w.Flush()
	d := apitrace.NewDumper(w, opts)
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			w.Flush()
			fmt.Fprintf(stderr, "error: failed to open %s\n", name)
			return 1
		}
		err = d.Trace(f)
		f.Close()
		if errors.Is(err, io.ErrUnexpectedEOF) {
			w.Flush()
			fmt.Fprintf(stderr, "warning: %s: %v\n", name, err)
		} else if err != nil {
			w.Flush()
			fmt.Fprintf(stderr, "error: %s: %v\n", name, err)
			return 1
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

// explicitColor reports whether a --color/--colour option other than
// auto was given; apitrace's auto means colour on a terminal.
func explicitColor(args []string) bool {
	explicit := false
	for _, a := range args {
		if a == "--" {
			break
		}
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if strings.HasPrefix(a, "--") && len(name) >= 3 && (strings.HasPrefix("colour", name) || strings.HasPrefix("color", name)) {
			explicit = value != "auto"
		}
	}
	return explicit
}
