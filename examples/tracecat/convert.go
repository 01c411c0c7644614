package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tracefmt/tracefmt/apitrace"
	"github.com/tracefmt/tracefmt/cbf"
	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/gotraceraw/profile"
	"github.com/tracefmt/tracefmt/gotraceraw/timeline"
	"github.com/tracefmt/tracefmt/internal/cbfjson"
	"github.com/tracefmt/tracefmt/internal/cli"
	"github.com/tracefmt/tracefmt/leaktext"
	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/analysis"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
)

// converter is what tracecat can make of one format besides a summary.
// Every format has a pprof profile; a nil timeline means the format has
// none, and noTime says why, for the error message.
type converter struct {
	pprof    func(w io.Writer, r io.Reader, o options) error
	timeline func(w io.Writer, r io.Reader, o options) error
	noTime   string
}

// options are the flags that shape a conversion.
type options struct {
	profile string        // -profile's value, "" when not given
	names   *instrmap.Map // -instr_map's, nil when not given
}

// converters, by format name.
var converters = map[string]converter{
	"apitrace": {pprof: apitracePprof, noTime: "apitrace traces record no times"},
	"leaktext": {pprof: leaktextPprof, noTime: "sp-rtrace reports record when calls happened, not how long anything took"},
	"cbf":      {pprof: cbfPprof, noTime: "backtraces carry no time"},
	"xray":     {pprof: xrayPprof, timeline: xrayTimeline},
	"gotrace":  {pprof: goPprof, timeline: goTimeline},
}

// errProfileType is a -profile value the format does not have.
var errProfileType = errors.New("no such profile")

// convert writes the -pprof or -timeline output for one file.
func convert(cmd *cli.Command, stderr io.Writer, forced *format, file, pprofOut, timelineOut, mapPath string, o options) int {
	if mapPath != "" {
		m, err := instrmap.Open(mapPath)
		if err != nil {
			return cmd.Failf(mapPath, err)
		}
		o.names = m
	}
	r, closeFile, err := cli.Open(file)
	if err != nil {
		return cmd.Failf(file, err)
	}
	defer closeFile()
	var prog *progress
	if f, ok := r.(*os.File); ok {
		if prog = newProgress(f, file, stderr); prog != nil {
			r = prog
		}
	}
	err = convertOne(r, forced, pprofOut, timelineOut, o)
	prog.done()
	var cut *cutError
	if errors.As(err, &cut) {
		fmt.Fprintf(stderr, "%s: %s: warning: %s\n", cmd.Name, file, cut.Error())
		return cut.code
	}
	if err != nil {
		return cmd.Failf(file, err)
	}
	return cli.OK
}

func convertOne(r io.Reader, forced *format, pprofOut, timelineOut string, o options) error {
	br, head, err := peek(r)
	if err != nil {
		return err
	}
	f, err := pick(head, forced)
	if err != nil {
		return err
	}
	c := converters[f.name]
	if o.names != nil && f.name != "xray" {
		return fmt.Errorf("-instr_map names the functions of an XRay log, not of %s", f.noun)
	}
	if timelineOut != "" {
		if c.timeline == nil {
			return fmt.Errorf("no timeline from %s: %s", f.noun, c.noTime)
		}
		return writeFile(timelineOut, func(w io.Writer) error { return c.timeline(w, br, o) })
	}
	return writeFile(pprofOut, func(w io.Writer) error { return c.pprof(w, br, o) })
}

// cutError is an input that stopped early, whose picture of what came
// before was written whole: tracecat keeps the output, prints a warning
// and exits with code, the status the format's own tool gives such a file.
type cutError struct {
	what string // "profile" or "timeline"
	err  error
	code int
}

func (e *cutError) Error() string {
	return fmt.Sprintf("the input stopped early, the %s is of what came before: %v", e.what, e.err)
}

func (e *cutError) Unwrap() error { return e.err }

// writeFile writes name through write, and removes it when write fails,
// so that no half-written profile is left for a viewer to misread. A
// *cutError from write leaves the file written.
func writeFile(name string, write func(io.Writer) error) error {
	var cut *cutError
	if name == "-" {
		bw := bufio.NewWriterSize(os.Stdout, 256<<10)
		if err := write(bw); err != nil && !errors.As(err, &cut) {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if cut != nil {
			return cut
		}
		return nil
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	err = write(bw)
	if errors.As(err, &cut) {
		err = nil
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	if cut != nil {
		return cut
	}
	return nil
}

// noProfileType refuses a -profile value for a format that has one
// profile only.
func noProfileType(profile, what string) error {
	if profile != "" {
		return fmt.Errorf("-profile %s: %w: %s", profile, errProfileType, what)
	}
	return nil
}

func apitracePprof(w io.Writer, r io.Reader, o options) error {
	profile := o.profile
	if err := noProfileType(profile, "an apitrace trace has one profile, its calls"); err != nil {
		return err
	}
	cr, err := apitrace.NewCallReader(r)
	if err != nil {
		return err
	}
	var p apitrace.Profile
	for c, err := range cr.All() {
		if err != nil {
			// apitrace dump prints the calls before a cut, warns
			// and exits 0.
			return cutProfile(w, p.WriteProfile, err, cli.OK)
		}
		p.Add(c)
	}
	return p.WriteProfile(w)
}

func leaktextPprof(w io.Writer, r io.Reader, o options) error {
	profile := o.profile
	rd, err := leaktext.NewReader(r)
	if err != nil {
		return err
	}
	p := leaktext.Profile{Resource: profile}
	var types []string
	for rec, err := range rd.All() {
		if err != nil {
			// leakpost fails on a cut report (status 1); the
			// profile of what came before is written all the same.
			return cutProfile(w, p.WriteProfile, err, cli.Fail)
		}
		if rec.Kind == leaktext.KindResource && !slices.Contains(types, string(rec.Resource.Type)) {
			types = append(types, string(rec.Resource.Type))
		}
		p.Add(rec)
	}
	if profile != "" && !slices.Contains(types, profile) {
		return fmt.Errorf("-profile %s: %w: the report's resource types are %s", profile, errProfileType, strings.Join(types, ", "))
	}
	return p.WriteProfile(w)
}

// cutProfile writes the profile of what was read before err, and returns
// the *cutError that reports it with exit status code.
func cutProfile(w io.Writer, write func(io.Writer) error, err error, code int) error {
	if werr := write(w); werr != nil {
		return werr
	}
	return &cutError{"profile", err, code}
}

func cbfPprof(w io.Writer, r io.Reader, o options) error {
	profile := o.profile
	if err := noProfileType(profile, "backtraces have one profile, their counts"); err != nil {
		return err
	}
	br, head, err := peek(r)
	if err != nil {
		return err
	}
	if cbfjson.Is(head) {
		return cbfJSONPprof(w, br)
	}
	rd, err := cbf.NewReader(br)
	if err != nil {
		return err
	}
	var p cbf.Profile
	for rec, err := range rd.All() {
		if err != nil {
			return err
		}
		p.Add(rec)
	}
	return p.WriteProfile(w)
}

// goPprof writes one of a Go trace's profiles: those of go tool trace
// -pprof, or the CPU samples.
func goPprof(w io.Writer, r io.Reader, o options) error {
	name := o.profile
	if name == "" {
		return fmt.Errorf("-profile: %w: a Go trace has five profiles: -profile cpu, net, sync, syscall or sched", errProfileType)
	}
	typ, err := profile.ParseType(name)
	if err != nil {
		return fmt.Errorf("-profile %s: %w: a Go trace's are cpu, net, sync, syscall and sched", name, errProfileType)
	}
	rd, err := parsed.NewReader(r)
	if err != nil {
		return err
	}
	p := profile.Profile{Type: typ}
	for ev, err := range rd.All() {
		if err != nil {
			// As go tool trace -pprof: the events up to the last
			// Sync, unless there are none.
			if cerr := p.Cut(err); cerr != nil {
				return cerr
			}
			return cutProfile(w, p.WriteProfile, err, cli.OK)
		}
		p.Add(ev)
	}
	return p.WriteProfile(w)
}

// goTimeline writes a Go trace's timeline, streaming.
func goTimeline(w io.Writer, r io.Reader, o options) error {
	rd, err := parsed.NewReader(r)
	if err != nil {
		return err
	}
	tw, err := timeline.NewWriter(w)
	if err != nil {
		return err
	}
	useful := false // an event besides the Syncs
	for ev, err := range rd.All() {
		if err != nil {
			// The spans written cannot be taken back: the timeline
			// shows every event read before the error, its open
			// spans closed at the last one.
			if !useful {
				return err
			}
			if cerr := tw.Close(); cerr != nil {
				return cerr
			}
			return &cutError{"timeline", err, cli.OK}
		}
		useful = useful || ev.Kind != parsed.KindSync
		if err := tw.Write(ev); err != nil {
			return err
		}
	}
	return tw.Close()
}

// xrayPprof reads the whole log (XRay's blocks are put in order only once
// all are known), pairs calls as xraydump convert --output-format=pprof
// does, and writes the profile with functions named from -instr_map's
// map, by id without one.
func xrayPprof(w io.Writer, r io.Reader, o options) error {
	profile := o.profile
	if err := noProfileType(profile, "an XRay log has one profile: self, total and calls"); err != nil {
		return err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if err := xrayLogOnly(data, true); err != nil {
		return err
	}
	p := analysis.Profile{DeduceSiblingCalls: true, KeepGoing: true}
	if err := p.Read(data); err != nil {
		return err
	}
	return p.WriteProfile(w, o.names)
}

// xrayTimeline writes what xraydump -chrome writes: functions named
// (demangled) from -instr_map's map, by id without one.
func xrayTimeline(w io.Writer, r io.Reader, o options) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if err := xrayLogOnly(data, false); err != nil {
		return err
	}
	t, err := xrayfdr.Expand(data, true)
	if err != nil {
		return err
	}
	var names map[int32]string
	if o.names != nil {
		names = o.names.Names(true)
	}
	return analysis.WriteChrome(w, t, names)
}

// xrayLogOnly refuses, for a profile or a timeline, the XRay forms that
// hold no calls to convert: an instrumentation map (which names a log's
// functions, given with -instr_map), and for a timeline llvm-xray's YAML
// trace, which only a profile reads.
func xrayLogOnly(data []byte, yamlTrace bool) error {
	switch xrayKind(data[:min(len(data), headLen)]) {
	case xrayYAMLMap:
		return errors.New("an llvm-xray instrumentation map holds no calls: give it with -instr_map beside the log")
	case xrayYAMLTrace:
		if !yamlTrace {
			return errors.New("a timeline is made from a binary XRay log, not from llvm-xray's YAML trace (-pprof reads both)")
		}
	}
	return nil
}

// progress counts the bytes read from a file and, when stderr is a
// terminal, shows how far a conversion is: bytes read of the file's size
// and the rate, at most four times a second.
type progress struct {
	r        io.Reader
	name     string
	w        io.Writer
	total    int64
	n        int64
	start    time.Time
	last     time.Time
	printed  bool
	interval time.Duration
}

// newProgress returns nil when stderr is not a terminal.
func newProgress(f *os.File, name string, stderr io.Writer) *progress {
	if !cli.IsTerminal(stderr) {
		return nil
	}
	p := &progress{r: f, name: name, w: stderr, start: time.Now(), interval: 250 * time.Millisecond}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		p.total = st.Size()
	}
	return p
}

func (p *progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if now := time.Now(); now.Sub(p.last) >= p.interval {
		p.last = now
		if now.Sub(p.start) >= time.Second { // quick conversions print nothing
			p.show(now)
		}
	}
	return n, err
}

func (p *progress) show(now time.Time) {
	rate := float64(p.n) / now.Sub(p.start).Seconds()
	if p.total > 0 {
		fmt.Fprintf(p.w, "\rtracecat: %s: %s of %s (%d%%), %s/s ", p.name, size(float64(p.n)), size(float64(p.total)), p.n*100/p.total, size(rate))
	} else {
		fmt.Fprintf(p.w, "\rtracecat: %s: %s, %s/s ", p.name, size(float64(p.n)), size(rate))
	}
	p.printed = true
}

// done ends the progress line, if one was shown.
func (p *progress) done() {
	if p != nil && p.printed {
		p.show(time.Now())
		fmt.Fprintln(p.w)
	}
}

// size prints a byte count in B, kB, MB or GB (powers of 1000).
func size(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", n/1e3)
	}
	return fmt.Sprintf("%.0f B", n)
}
