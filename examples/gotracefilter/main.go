// Command gotracefilter copies a Go execution trace (Go 1.22–1.26, the
// binary form the runtime writes) without the events of the types it is
// told to drop:
//
//	gotracefilter -drop TYPE[,TYPE...] IN OUT
//
// TYPE is an event type's name as the text form prints it (`go tool trace
// -d=wire`, gotracetext), such as UserLog, GoLabel or HeapAlloc. Every other
// event is copied byte for byte; the size of each batch is recomputed from
// the events kept, so Go's tools read OUT as they read IN, less the dropped
// events. Dropping events the trace's consistency rests on (a goroutine's
// GoStart, a String or Stack others refer to) makes a trace `go tool trace`
// refuses, as it would be; EventBatch, which holds the others, cannot be
// dropped.
//
// Exit status: 0 done, 1 IN cannot be read or is damaged (the events read
// before the damage are written) or OUT cannot be written, 2 a bad flag or
// argument (an unknown TYPE).
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/cli"
)

const usage = "usage: gotracefilter -drop TYPE[,TYPE...] IN OUT"

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	c := cli.New("gotracefilter", usage, stderr)
	dropFlag := c.Flags.String("drop", "", "drop the events of the `TYPE`s, names as the text form prints them, separated by commas")
	if ok, code := c.Parse(args); !ok {
		return code
	}
	if *dropFlag == "" {
		return c.BadUsage("-drop is required")
	}
	drop, err := parseTypes(*dropFlag)
	if err != nil {
		return c.BadUsage("-drop: %v", err)
	}
	if c.Flags.NArg() != 2 {
		return c.BadUsage("want IN and OUT, got %d arguments", c.Flags.NArg())
	}
	in, out := c.Flags.Arg(0), c.Flags.Arg(1)
	if sameFile(in, out) {
		return c.BadUsage("IN and OUT are the same file")
	}
	if name, err := filter(in, out, drop); err != nil {
		return c.Failf(name, err)
	}
	return cli.OK
}

// parseTypes reads the -drop list: names any version of the format has.
func parseTypes(list string) (map[gotraceraw.EventType]bool, error) {
	drop := map[gotraceraw.EventType]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		t, ok := lookup(name)
		switch {
		case !ok:
			return nil, fmt.Errorf("unknown event type %q", name)
		case t == gotraceraw.EvEventBatch:
			return nil, fmt.Errorf("EventBatch holds the other events and cannot be dropped")
		}
		drop[t] = true
	}
	return drop, nil
}

// lookup finds an event type's name in the newest version that has it.
func lookup(name string) (gotraceraw.EventType, bool) {
	for i := len(gotraceraw.Versions) - 1; i >= 0; i-- {
		if t, ok := gotraceraw.Versions[i].Lookup(name); ok {
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

// filter copies in to out without the events of the types in drop. It
// returns the name of the file an error is about.
func filter(in, out string, drop map[gotraceraw.EventType]bool) (string, error) {
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
	var readErr error
	for ev, err := range r.All() {
		if err != nil {
			readErr = err // write what came before, then report it
			break
		}
		if drop[ev.Type] {
			continue
		}
		if err := w.Write(ev); err != nil {
			dst.Close()
			return out, err
		}
	}
	err = errors.Join(w.Close(), bw.Flush())
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return out, err
	}
	if readErr != nil {
		return in, readErr
	}
	return "", nil
}
