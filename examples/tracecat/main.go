// Command tracecat says what trace files are and summarises them.
//
//	tracecat [-format auto|apitrace|xray|gotrace|leaktext|cbf] [FILE...]
//	tracecat [-format F] -pprof OUT.pb.gz -profile TYPE GOTRACE
//	tracecat [-format F] -pprof OUT.pb.gz [-profile TYPE] [-instr_map BIN] FILE
//	tracecat [-format F] -timeline OUT.json [-instr_map BIN] FILE
//
// Each file's format is told from its first 64 KiB by the format's own
// package, as its reader would tell it: apitrace traces in every container
// (snappy by its magic; gzip, zstd and Brotli, which has none, when a
// trace header and its first events decode from the decompressed bytes,
// as any file can be compressed; -format apitrace reads any file in these
// containers and says what is wrong with it), XRay logs (a header a runtime writes)
// and llvm-xray's YAML traces and instrumentation maps, Go execution
// traces and their text form, sp-rtrace text reports (the header line its
// formatter writes); an sp-rtrace binary log is named and refused, as
// tracecat reads the text reports only; Swift's JSON backtraces
// ({"architecture": …, "backtrace": …, "imageMap": …}, one object or
// several back to back), read as the cbf format. Raw Compact Backtrace
// Format has no magic, so tracecat reads such a file only when asked with
// -format cbf (which takes the JSON form too). Any other file is "not a
// format tracecat knows"; a file that does not fit a forced format gets
// "not a …" instead of a summary. With no files it runs on the small real
// samples built into it.
//
// tracecat streams: it reads each file once, front to back, in memory that
// does not grow with the file (the leak sums of an sp-rtrace report grow
// with the allocations live at one time; they are matched in reading order,
// where sp-rtrace-postproc sorts by timestamp first).
//
// With -pprof, tracecat writes a pprof profile of one file instead
// (go tool pprof -http=: OUT.pb.gz shows it): a Go trace's -profile net,
// sync, syscall or sched, with the samples go tool trace -pprof gives, or
// cpu, its CPU profile samples; an apitrace trace's calls per
// function and backtrace; an XRay log's self and total time and calls per
// call stack; what an sp-rtrace report leaked per backtrace, as a heap
// profile; a CBF stream's backtraces, counted, or Swift's JSON backtraces,
// whose image map becomes the profile's mappings (the backtraces of one
// file must share it). -profile is needed for a Go
// trace, which has five profiles and no default among them (go tool trace
// -pprof=TYPE has none either); for an sp-rtrace report it is optional and
// picks one resource type, such as memory (without it every type is kept,
// each sample labelled with its type); the other formats have one profile
// and refuse -profile. With -timeline it writes Chrome trace-event
// JSON for Perfetto (ui.perfetto.dev) or chrome://tracing: a Go trace's
// goroutines, Ps, Ms, GC, tasks, regions, logs and CPU samples; an XRay
// log's calls per thread (of a binary log: llvm-xray's YAML trace gets a
// profile only, and an instrumentation map neither, as it holds no calls).
// An XRay log's functions are numbered: -instr_map
// names them, from the instrumented binary or llvm-xray extract's map, as
// llvm-xray's -instr_map does. A format without such a picture is refused
// with the reason. A conversion that takes more than a second shows its progress on
// stderr when that is a terminal. An XRay log is read whole (its blocks
// are put in order only once all are known); the other formats stream.
//
// An input cut short or damaged still gets a picture of what came before
// the error, and one line on stderr, "tracecat: FILE: warning: the input
// stopped early, …", with the exit status the format's own tool gives such
// a file: a Go trace's profile, as go tool trace -pprof makes it, of the
// events up to the last Sync event before the error, exit status 0 (a
// trace cut inside its first generation has none: an error and status 1,
// as Go's tool); a Go trace's timeline, of every event read before the
// error, status 0: for a trace cut short that is the events up to the last
// Sync too (a generation is read whole before its events come), but a
// damaged event also leaves in the events of its generation before it
// (spans already written cannot be taken back); an
// apitrace trace's calls read whole, status 0, as apitrace dump; an
// sp-rtrace report's records before the cut, status 1, as leakpost.
//
// A file it cannot read, or whose summary stops on an error, gets one line
// on stderr naming it and why; the other files are still processed, and the
// exit status is 1.
package main

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"

	"github.com/tracefmt/tracefmt/internal/cli"
)

//go:embed samples
var samples embed.FS

// format is one trace format tracecat knows.
type format struct {
	name string
	noun string // what a file of this format is, after "not "
	// detect reports whether the first bytes of a file (headLen, or all
	// of a shorter file) are this format's, asking its package. Nil means
	// the format has no magic and is used only when asked for.
	detect    func(head []byte) bool
	summarize func(w io.Writer, r io.Reader) error
	// forced, when set, is what the format asks of a file it is forced
	// on, instead of detect: less, where detect asks more than the
	// format's magic to tell it among others, and the reader's error
	// then says more than "not …".
	forced func(head []byte) bool
}

// formats are tried in this order. apitrace comes last of those detected:
// Brotli has no magic, so a file is tried as Brotli only when it is no
// other format.
var formats = []format{
	{"xray", "an XRay log", isXRay, summarizeXRay, nil},
	{"gotrace", "a Go execution trace", isGoTrace, summarizeGoTrace, nil},
	{"leaktext", "an sp-rtrace text report", isLeakText, summarizeLeakText, nil},
	{"cbf", "Compact Backtrace Format", nil, summarizeCBF, nil},
	// Swift's JSON backtraces, which can be told, are read as the cbf
	// format (its summary and profile take both forms); -format cbf
	// finds the entry above, which checks nothing.
	{"cbf", "Compact Backtrace Format", isCBFJSON, summarizeCBF, nil},
	{"apitrace", "an apitrace trace", isAPITrace, summarizeAPITrace, isAPIContainer},
}

// headLen is how many first bytes detection looks at: enough for every
// format's header, a Brotli trace's included, and the size of the
// buffered reader that peeks them.
const headLen = 64 << 10

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := cli.New("tracecat", "usage: tracecat [-format auto|apitrace|xray|gotrace|leaktext|cbf] [FILE...]\n       tracecat [-format F] -pprof OUT.pb.gz -profile TYPE GOTRACE\n       tracecat [-format F] -pprof OUT.pb.gz [-profile TYPE] [-instr_map BIN] FILE\n       tracecat [-format F] -timeline OUT.json [-instr_map BIN] FILE\n\nWith no FILE, tracecat summarises its built-in samples. -profile is needed\nfor a Go trace (cpu, net, sync, syscall or sched: there is no default, as\ngo tool trace -pprof=TYPE has none), optional for an sp-rtrace report (one\nresource type; without it, every type), refused for the other formats.", stderr)
	name := cmd.Flags.String("format", "auto", "format of the files: auto, apitrace, xray, gotrace, leaktext or cbf")
	pprofOut := cmd.Flags.String("pprof", "", "write a pprof profile of FILE to `OUT` (go tool pprof reads it) instead of a summary")
	profile := cmd.Flags.String("profile", "", "with -pprof, which profile: `TYPE` cpu, net, sync, syscall or sched of a Go trace (needed), a resource type of an sp-rtrace report (optional)")
	mapPath := cmd.Flags.String("instr_map", "", "with -pprof or -timeline of an XRay log, name its functions from `BIN`, the instrumented binary, or from llvm-xray extract's instrumentation map")
	timeline := cmd.Flags.String("timeline", "", "write a timeline of FILE as Chrome trace-event JSON to `OUT` (Perfetto and chrome://tracing open it) instead of a summary")
	if ok, code := cmd.Parse(args); !ok {
		return code
	}
	forced, ok := lookup(*name)
	if !ok && *name != "auto" {
		return cmd.BadUsage("unknown format %q", *name)
	}
	if *pprofOut != "" || *timeline != "" || *profile != "" || *mapPath != "" {
		switch {
		case *pprofOut != "" && *timeline != "":
			return cmd.BadUsage("-pprof and -timeline: one at a time")
		case *profile != "" && *pprofOut == "":
			return cmd.BadUsage("-profile goes with -pprof")
		case *mapPath != "" && *pprofOut == "" && *timeline == "":
			return cmd.BadUsage("-instr_map goes with -pprof or -timeline")
		case cmd.Flags.NArg() != 1:
			return cmd.BadUsage("-pprof and -timeline take one FILE")
		}
		return convert(cmd, stderr, forced, cmd.Flags.Arg(0), *pprofOut, *timeline, *mapPath, options{profile: *profile})
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	status := cli.OK
	summarise := func(name string, r io.Reader) {
		err := summariseOne(out, name, r, forced)
		if err != nil {
			out.Flush()
			status = cmd.Failf(name, err)
		}
	}
	if cmd.Flags.NArg() == 0 {
		for _, n := range sampleNames(forced) {
			f, err := samples.Open(n)
			if err != nil {
				status = cmd.Failf(n, err)
				continue
			}
			summarise(path.Base(n), f)
			f.Close()
		}
		return status
	}
	for _, a := range cmd.Flags.Args() {
		r, closeFile, err := cli.Open(a)
		if err != nil {
			status = cmd.Failf(a, err)
			continue
		}
		summarise(a, r)
		closeFile()
	}
	return status
}

// sampleNames lists the built-in samples: only the CBF sample under
// -format cbf, the others otherwise.
func sampleNames(forced *format) []string {
	names, _ := fs.Glob(samples, "samples/*")
	sort.Strings(names)
	var keep []string
	for _, n := range names {
		if (path.Ext(n) == ".cbf") == (forced != nil && forced.name == "cbf") {
			keep = append(keep, n)
		}
	}
	return keep
}

func lookup(name string) (*format, bool) {
	for i := range formats {
		if formats[i].name == name {
			return &formats[i], true
		}
	}
	return nil, false
}

// detect picks the format whose package takes the first bytes of a file.
func detect(head []byte) *format {
	for i := range formats {
		if f := &formats[i]; f.detect != nil && f.detect(head) {
			return f
		}
	}
	return nil
}

// pick tells a file's format from its first bytes, or checks them against
// the forced format.
func pick(head []byte, forced *format) (*format, error) {
	f := forced
	switch {
	case f == nil:
		if f = detect(head); f == nil {
			return nil, errors.New("not a format tracecat knows")
		}
	case f.forced != nil:
		if !f.forced(head) {
			return nil, fmt.Errorf("not %s", f.noun)
		}
	case f.detect != nil && !f.detect(head):
		return nil, fmt.Errorf("not %s", f.noun)
	}
	return f, nil
}

// claims reports whether a reader's error on the first bytes of a file
// says the file is its format: no error, or errVersion (its header, of a
// version the package does not read). Every other error, its ErrHeader
// included, leaves the file to the other formats.
func claims(err, errVersion error) bool {
	return err == nil || errors.Is(err, errVersion)
}

// peek returns r as a buffered reader and its first headLen bytes (fewer
// for a shorter input).
func peek(r io.Reader) (*bufio.Reader, []byte, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < headLen {
		br = bufio.NewReaderSize(r, headLen)
	}
	head, err := br.Peek(headLen)
	if err == io.EOF || err == bufio.ErrBufferFull {
		err = nil
	}
	return br, head, err
}

// completeLines returns head up to its last line end, so that a text
// reader sees no line cut by the end of what was peeked.
func completeLines(head []byte) []byte {
	return head[:bytes.LastIndexByte(head, '\n')+1]
}

// summariseOne tells r's format from its first bytes (or takes forced) and
// writes its summary, reading r once.
func summariseOne(w io.Writer, name string, r io.Reader, forced *format) error {
	br, head, err := peek(r)
	if err != nil {
		return err
	}
	f, err := pick(head, forced)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s\n", name, f.name)
	// The packages' errors name the package once; no prefix here.
	return f.summarize(w, br)
}
