// Command tracecat says what trace files are and summarises them.
//
//	tracecat [-format auto|apitrace|xray|gotrace|leaktext|cbf] [FILE...]
//
// Each file's format is told from its first bytes: apitrace's snappy (`at`)
// and gzip containers, XRay's 32-byte header, Go's `go 1.NN trace` header,
// sp-rtrace's `key=value, ...` header line. The Compact Backtrace Format has
// no magic, so tracecat reads a file as CBF only when asked with -format cbf.
// With no files it runs on the small real samples built into it.
//
// A file it cannot read gets one line on stderr naming it and why; the
// other files are still processed, and the exit status is 1.
package main

import (
	"embed"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
)

//go:embed samples
var samples embed.FS

// format is one trace format tracecat knows.
type format struct {
	name string
	// detect reports whether the first bytes of a file are this format's.
	// Nil means the format has no magic and is used only when asked for.
	detect    func(head []byte) bool
	summarize func(w io.Writer, data []byte) error
}

var formats = []format{
	{"apitrace", isAPITrace, summarizeAPITrace},
	{"xray", isXRay, summarizeXRay},
	{"gotrace", isGoTrace, summarizeGoTrace},
	{"leaktext", isLeakText, summarizeLeakText},
	{"cbf", nil, summarizeCBF},
}

func main() {
	name := flag.String("format", "auto", "format of the files: auto, apitrace, xray, gotrace, leaktext or cbf")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: tracecat [-format NAME] [FILE...]\n\nWith no FILE, tracecat summarises its built-in samples.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	forced, ok := lookup(*name)
	if !ok && *name != "auto" {
		fmt.Fprintf(os.Stderr, "tracecat: unknown format %q\n", *name)
		os.Exit(2)
	}
	inputs, err := inputs(flag.Args(), forced)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tracecat: %v\n", err)
		os.Exit(1)
	}
	failed := false
	for _, in := range inputs {
		if err := run(os.Stdout, in.name, in.data, in.err, forced); err != nil {
			fmt.Fprintf(os.Stderr, "tracecat: %s: %v\n", in.name, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

type input struct {
	name string
	data []byte
	err  error
}

// inputs reads the named files, or the built-in samples when there are
// none (only the CBF sample under -format cbf, the others otherwise).
func inputs(args []string, forced *format) ([]input, error) {
	var ins []input
	if len(args) > 0 {
		for _, a := range args {
			data, err := os.ReadFile(a)
			ins = append(ins, input{a, data, err})
		}
		return ins, nil
	}
	names, err := fs.Glob(samples, "samples/*")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for _, n := range names {
		isCBF := path.Ext(n) == ".cbf"
		if isCBF != (forced != nil && forced.name == "cbf") {
			continue
		}
		data, err := samples.ReadFile(n)
		ins = append(ins, input{path.Base(n), data, err})
	}
	return ins, nil
}

func lookup(name string) (*format, bool) {
	for i := range formats {
		if formats[i].name == name {
			return &formats[i], true
		}
	}
	return nil, false
}

// detect picks the format whose magic the data starts with.
func detect(data []byte) *format {
	for i := range formats {
		if f := &formats[i]; f.detect != nil && f.detect(data) {
			return f
		}
	}
	return nil
}

func run(w io.Writer, name string, data []byte, readErr error, forced *format) error {
	if readErr != nil {
		return readErr
	}
	f := forced
	if f == nil {
		if f = detect(data); f == nil {
			return fmt.Errorf("not a trace tracecat knows (first bytes % x); CBF has no magic: try -format cbf", head(data, 8))
		}
	}
	fmt.Fprintf(w, "%s: %s\n", name, f.name)
	if err := f.summarize(w, data); err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	return nil
}

func head(b []byte, n int) []byte { return b[:min(n, len(b))] }
