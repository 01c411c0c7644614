// Command gotracefilter copies a Go execution trace (Go 1.22–1.26, the
// binary form the runtime writes), keeping whole generations and
// dropping events by type, and never writes a trace Go's parser refuses:
//
//	gotracefilter [-drop TYPE[,TYPE...]] [-gens N-M] [-from T] [-to T] [-novalidate] IN OUT
//
// -drop drops the events of each TYPE, an event type's name as the text
// form prints it (`go tool trace -d=wire`, gotracetext), such as UserLog,
// GoLabel or HeapAlloc. Every other event is copied byte for byte; the
// size of each batch is recomputed from the events kept. Some types the
// trace cannot do without; dropping others needs fix-ups, which are made:
//
//   - refused: EventBatch (it holds the others); Frequency, ClockSnapshot,
//     Sync and EndOfGeneration (every generation needs them); and the
//     events Go's parser follows each goroutine and P through: ProcStart,
//     ProcStop, ProcSteal, ProcStatus, GoCreate, GoCreateSyscall,
//     GoCreateBlocked, GoStart, GoStop, GoBlock, GoUnblock, GoDestroy,
//     GoDestroySyscall, GoSwitch, GoSwitchDestroy, GoSyscallBegin,
//     GoSyscallEnd, GoSyscallEndBlocked, GoStatus and GoStatusStack.
//   - String or Strings: every string goes, and every reference to one
//     (reasons, labels, task and region names, log keys and values,
//     function and file names of stack frames) becomes 0, the empty
//     string; Strings drops the String events too.
//   - Stack or Stacks: every stack goes, and every reference to one
//     becomes 0, no stack; Stacks drops the Stack events too.
//   - CPUSamples drops the CPUSample events too.
//   - A range goes whole: STWBegin or STWEnd drops both; GCActive,
//     GCBegin or GCEnd the three; likewise GCSweepActive, GCSweepBegin,
//     GCSweepEnd and GCMarkAssistActive, GCMarkAssistBegin,
//     GCMarkAssistEnd.
//
// -gens N-M keeps the generations N to M, counted from 1 in the order of
// the file (not Go's generation numbers, which need not start at 1): "N"
// alone keeps one, "N-" those from N to the end, "-M" those up to M.
// -from T and -to T keep the generations that overlap the window [T1, T2]
// of durations after the trace's start (its first generation's earliest
// batch), such as 1.5s or 250ms, the clock read through each generation's
// Frequency as Go's parser reads it; either may be left out. A
// generation runs from its earliest batch to its latest event; one
// between two that overlap the window is kept too, since Go's parser
// wants consecutive generations. The
// generations kept are whole, and Go's parser prints each as it printed
// it in the whole trace, but for the number and time of its Sync and the
// times it moves to keep them increasing; and but for what it draws, in
// the first generation kept, from the states before it, which it no
// longer knows: there the state transitions of the status events and the
// P and G printed beside an event may differ. And in every generation
// kept, a task begun before the first kept one ends with no type and no
// parent: Go's parser knows them from the task's begin only.
//
// The output is validated as it is written, one generation at a time,
// by the parsed level (gotraceraw/parsed), which reads it as Go's parser
// does: a generation that the drop breaks all the same (or that was
// broken in IN) is not written, nor anything after it, and the command
// fails saying which generation and why. -novalidate drops exactly the
// types given (any but EventBatch), without the refusals and fix-ups
// above, and writes what remains unjudged, batch sizes kept right.
//
// Exit status: 0 done; 1 IN cannot be read or is damaged (the whole
// generations before the damage are written), OUT cannot be written, a
// generation of the result is refused (those before it are written), or
// no generation of IN is in -gens or the window; 2 a bad flag or
// argument (an unknown TYPE, a refused drop, a bad range or duration).
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

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/internal/cli"
)

const usage = `usage: gotracefilter [-drop TYPE[,TYPE...]] [-gens N-M] [-from T] [-to T] [-novalidate] IN OUT

Copies the Go trace IN to OUT without the events of the TYPEs, keeping the
generations selected, and fails rather than write a trace Go's parser refuses.
Refused drops: EventBatch, Frequency, ClockSnapshot, Sync, EndOfGeneration and the
scheduling events: ProcStart, ProcStop, ProcSteal, ProcStatus, GoCreate*, GoStart,
GoStop, GoBlock, GoUnblock, GoDestroy*, GoSwitch*, GoSyscall*, GoStatus*.
Fix-ups: String(s) and Stack(s) drop every string or stack and set references to
them to 0; CPUSamples drops CPUSample; STW, GC, GCSweep and GCMarkAssist ranges
go whole (Active, Begin, End). -novalidate drops exactly what is asked (not
EventBatch) and checks nothing. Generations count from 1 in IN; T is a duration
from the trace's start (1.5s). Kept generations print as in IN (times aside) but
for the first kept, whose earlier states Go's parser cannot know: its status
transitions, the P and G beside events; and a task begun before the first kept
ends with no type and no parent.
Exit 2: bad arguments or a refused drop; exit 1: IN or OUT fails, or a generation
of the result is refused (OUT then holds the generations before it).`

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// options is what the command line asks for.
type options struct {
	drop       map[gotraceraw.EventType]bool
	strings    bool // string references become 0
	stacks     bool // stack references become 0
	gens       *span
	window     *window
	noValidate bool
}

func run(args []string, stderr io.Writer) int {
	c := cli.New("gotracefilter", usage, stderr)
	dropFlag := c.Flags.String("drop", "", "drop the events of the `TYPE`s, names as the text form prints them, separated by commas")
	gensFlag := c.Flags.String("gens", "", "keep the generations `N-M`, counted from 1 in IN (N, N- and -M too)")
	fromFlag := c.Flags.String("from", "", "keep the generations that end at or after the `duration` from the trace's start")
	toFlag := c.Flags.String("to", "", "keep the generations that start at or before the `duration` from the trace's start")
	noValidate := c.Flags.Bool("novalidate", false, "drop exactly the TYPEs given, without refusals, fix-ups or checking that Go's parser reads the result")
	if ok, code := c.Parse(args); !ok {
		return code
	}
	var o options
	o.noValidate = *noValidate
	if *dropFlag == "" && *gensFlag == "" && *fromFlag == "" && *toFlag == "" {
		return c.BadUsage("nothing to do: give -drop, -gens, -from or -to")
	}
	if *dropFlag != "" {
		var err error
		if o.drop, err = parseTypes(*dropFlag, !o.noValidate); err != nil {
			if errors.As(err, new(*refusedDrop)) {
				return c.Refuse("-drop: %v", err)
			}
			return c.BadUsage("-drop: %v", err)
		}
		if !o.noValidate {
			o.strings, o.stacks = o.drop[gotraceraw.EvString], o.drop[gotraceraw.EvStack]
		}
	}
	if *gensFlag != "" {
		s, err := parseSpan(*gensFlag)
		if err != nil {
			return c.BadUsage("-gens: %v", err)
		}
		o.gens = &s
	}
	if *fromFlag != "" || *toFlag != "" {
		w, err := parseWindow(*fromFlag, *toFlag)
		if err != nil {
			return c.BadUsage("%v", err)
		}
		o.window = &w
	}
	if c.Flags.NArg() != 2 {
		return c.BadUsage("want IN and OUT, got %d arguments", c.Flags.NArg())
	}
	in, out := c.Flags.Arg(0), c.Flags.Arg(1)
	if sameFile(in, out) {
		return c.BadUsage("IN and OUT are the same file")
	}
	if name, err := filter(in, out, &o); err != nil {
		return c.Failf(name, err)
	}
	return cli.OK
}

// refused gives, for each type whose drop breaks every trace that holds
// it, the reason.
var refused = func() map[gotraceraw.EventType]string {
	m := map[gotraceraw.EventType]string{
		gotraceraw.EvEventBatch:      "EventBatch holds the other events",
		gotraceraw.EvFrequency:       "every generation needs its Frequency",
		gotraceraw.EvClockSnapshot:   "every generation needs its ClockSnapshot (Go 1.25 on)",
		gotraceraw.EvSync:            "Sync holds each generation's Frequency and ClockSnapshot",
		gotraceraw.EvEndOfGeneration: "every generation of a Go 1.26 trace ends with one",
	}
	for _, t := range []gotraceraw.EventType{
		gotraceraw.EvProcStart, gotraceraw.EvProcStop, gotraceraw.EvProcSteal, gotraceraw.EvProcStatus,
		gotraceraw.EvGoCreate, gotraceraw.EvGoCreateSyscall, gotraceraw.EvGoCreateBlocked,
		gotraceraw.EvGoStart, gotraceraw.EvGoStop, gotraceraw.EvGoBlock, gotraceraw.EvGoUnblock,
		gotraceraw.EvGoDestroy, gotraceraw.EvGoDestroySyscall, gotraceraw.EvGoSwitch, gotraceraw.EvGoSwitchDestroy,
		gotraceraw.EvGoSyscallBegin, gotraceraw.EvGoSyscallEnd, gotraceraw.EvGoSyscallEndBlocked,
		gotraceraw.EvGoStatus, gotraceraw.EvGoStatusStack,
	} {
		m[t] = "Go's parser follows every goroutine and P through its " + t.String() + " events"
	}
	return m
}()

// implied lists the types that go with a dropped one: a table's events
// with its header, a range's other ends.
var implied = func() map[gotraceraw.EventType][]gotraceraw.EventType {
	m := map[gotraceraw.EventType][]gotraceraw.EventType{
		gotraceraw.EvStrings:    {gotraceraw.EvString},
		gotraceraw.EvStacks:     {gotraceraw.EvStack},
		gotraceraw.EvCPUSamples: {gotraceraw.EvCPUSample},
	}
	for _, r := range [][]gotraceraw.EventType{
		{gotraceraw.EvSTWBegin, gotraceraw.EvSTWEnd},
		{gotraceraw.EvGCActive, gotraceraw.EvGCBegin, gotraceraw.EvGCEnd},
		{gotraceraw.EvGCSweepActive, gotraceraw.EvGCSweepBegin, gotraceraw.EvGCSweepEnd},
		{gotraceraw.EvGCMarkAssistActive, gotraceraw.EvGCMarkAssistBegin, gotraceraw.EvGCMarkAssistEnd},
	} {
		for _, t := range r {
			m[t] = r
		}
	}
	return m
}()

// parseTypes reads the -drop list: names any version of the format has.
// With valid set it refuses the types no trace can do without, and adds
// the types each implies; without, it refuses only EventBatch.
func parseTypes(list string, valid bool) (map[gotraceraw.EventType]bool, error) {
	drop := map[gotraceraw.EventType]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		t, ok := lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown event type %q", name)
		}
		if why, ok := refused[t]; ok && (valid || t == gotraceraw.EvEventBatch) {
			return nil, &refusedDrop{name, why}
		}
		drop[t] = true
		if valid {
			for _, u := range implied[t] {
				drop[u] = true
			}
		}
	}
	return drop, nil
}

// refusedDrop is a known event type whose drop is refused.
type refusedDrop struct{ name, why string }

func (e *refusedDrop) Error() string { return e.name + " cannot be dropped: " + e.why }

// lookup finds an event type's name in the newest version that has it.
func lookup(name string) (gotraceraw.EventType, bool) {
	for _, v := range slices.Backward(gotraceraw.Versions) {
		if t, ok := v.Lookup(name); ok {
			return t, true
		}
	}
	return 0, false
}

// sameFile reports whether the paths name one existing file, which
// writing OUT would destroy before it is read.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// filter copies in to out as o says. It returns the name of the file an
// error is about.
func filter(in, out string, o *options) (string, error) {
	var keep []bool // by generation index, when selecting
	if o.gens != nil || o.window != nil {
		gens, err := scanFile(in)
		if err != nil && len(gens) == 0 {
			return in, err
		}
		// A damaged IN: select among the generations before the damage,
		// which the copy below reports when it reaches it.
		keep = o.select_(gens)
		if !slices.Contains(keep, true) {
			return in, fmt.Errorf("no generation of its %d is in %s", len(gens), o.selection())
		}
	}
	src, err := os.Open(in)
	if err != nil {
		return in, err
	}
	defer src.Close()
	r, err := gotraceraw.NewReader(src)
	if err != nil {
		return in, err
	}
	dst, err := os.Create(out)
	if err != nil {
		return out, err
	}
	bw := bufio.NewWriterSize(dst, 256<<10)
	w, err := gotraceraw.NewWriter(bw, r.Header())
	if err != nil {
		dst.Close()
		return out, err
	}
	if !o.noValidate {
		w.Validate = parsed.NewValidator(r.Header().Version)
	}
	var (
		readErr    error
		writeErr   error
		split      splitter
		held       = -1 // the index of the generation the Writer holds
		refusedGen int  // the index of the generation a refusal is about
	)
	for ev, err := range r.All() {
		if err != nil {
			readErr = err // write what came before, then report it
			break
		}
		i := split.next(ev)
		if keep != nil && (i >= len(keep) || !keep[i]) {
			continue
		}
		if o.drop[ev.Type] {
			continue
		}
		o.fixUp(ev)
		if writeErr = w.Write(ev); writeErr != nil {
			// The Writer judges a generation when the next one
			// starts: a refusal then is about the one it held.
			refusedGen = i
			if held >= 0 {
				refusedGen = held
			}
			break
		}
		held = i
	}
	if writeErr == nil {
		writeErr = w.Close()
		refusedGen = held
	}
	err = errors.Join(bw.Flush(), dst.Close())
	switch {
	case readErr != nil:
		// A damaged input may leave its last generation cut, which the
		// Writer refuses: the damage is the news.
		return in, readErr
	case writeErr != nil && errors.Is(writeErr, gotraceraw.ErrInvalid):
		return in, fmt.Errorf("generation %d refused: %s; OUT holds the generations kept before it", refusedGen+1, refusalReason(writeErr))
	case writeErr != nil:
		return out, writeErr
	}
	if err != nil {
		return out, err
	}
	return "", nil
}

// refusalReason says why the Writer refused a generation, once: Go's
// parser's own message and the thread at fault when the parsed level
// judged it, else the Writer's rule.
func refusalReason(err error) string {
	var fe *parsed.FormatError
	if errors.As(err, &fe) {
		why := fe.Reason()
		if fe.M != parsed.NoThread {
			why += fmt.Sprintf(" (thread M %d)", fe.M)
		}
		return why
	}
	return strings.TrimPrefix(err.Error(), gotraceraw.ErrInvalid.Error()+": ")
}

// fixUp sets the references to the strings or stacks dropped to 0.
func (o *options) fixUp(e *gotraceraw.Event) {
	if !o.strings && !o.stacks {
		return
	}
	if e.Type == gotraceraw.EvStack {
		if o.strings {
			for i := 2; i+3 < len(e.Args); i += 4 {
				e.Args[i+1], e.Args[i+2] = 0, 0 // func, file
			}
		}
		return
	}
	s, ok := e.Spec()
	if !ok {
		return
	}
	if o.strings {
		for _, i := range s.StringArgs {
			e.Args[i] = 0
		}
	}
	if o.stacks {
		for _, i := range s.StackArgs {
			e.Args[i] = 0
		}
	}
}

// window is the -from and -to durations; to < 0 means no end.
type window struct{ from, to time.Duration }

func parseWindow(from, to string) (window, error) {
	w := window{to: -1}
	var err error
	if from != "" {
		if w.from, err = time.ParseDuration(from); err != nil || w.from < 0 {
			return w, fmt.Errorf("-from: %q is not a duration from the trace's start such as 1.5s", from)
		}
	}
	if to != "" {
		if w.to, err = time.ParseDuration(to); err != nil || w.to < 0 {
			return w, fmt.Errorf("-to: %q is not a duration from the trace's start such as 1.5s", to)
		}
		if w.to < w.from {
			return w, fmt.Errorf("-to %v is before -from %v", w.to, w.from)
		}
	}
	return w, nil
}
