package parsed

import (
	"strconv"
	"time"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

// AppendText appends the event as Go's parser prints it (what
// `go tool trace -d=parsed` prints for it, without the final newline) and
// returns the extended buffer.
func (e *Event) AppendText(b []byte) []byte {
	if e == nil {
		return b
	}
	b = append(b, "M="...)
	b = strconv.AppendInt(b, int64(e.Thread), 10)
	b = append(b, " P="...)
	b = strconv.AppendInt(b, int64(e.Proc), 10)
	b = append(b, " G="...)
	b = strconv.AppendInt(b, int64(e.Goroutine), 10)
	b = append(b, ' ')
	b = append(b, e.Kind.String()...)
	b = append(b, " Time="...)
	b = strconv.AppendInt(b, int64(e.Time), 10)
	switch e.Kind {
	case KindMetric:
		m := e.Metric()
		b = append(b, " Name="...)
		b = strconv.AppendQuote(b, m.Name)
		b = append(b, " Value="...)
		b = appendValue(b, m.Value)
	case KindLabel:
		b = append(b, " Label="...)
		b = strconv.AppendQuote(b, e.str(e.args[0]))
		b = append(b, " Resource=Goroutine("...)
		b = strconv.AppendInt(b, int64(e.Goroutine), 10)
		b = append(b, ')')
	case KindRangeBegin, KindRangeActive, KindRangeEnd:
		r := e.Range()
		b = append(b, " Name="...)
		b = strconv.AppendQuote(b, r.Name)
		b = append(b, " Scope="...)
		b = appendResource(b, r.Scope)
		if e.Kind == KindRangeEnd {
			b = append(b, " Attributes=["...)
			if e.Type == gotraceraw.EvGCSweepEnd {
				b = append(b, `"bytes swept"=`...)
				b = appendValue(b, e.args[0])
				b = append(b, ` "bytes reclaimed"=`...)
				b = appendValue(b, e.args[1])
			}
			b = append(b, ']')
		}
	case KindTaskBegin, KindTaskEnd:
		t := e.Task()
		b = append(b, " ID="...)
		b = strconv.AppendUint(b, uint64(t.ID), 10)
		b = append(b, " Parent="...)
		b = strconv.AppendUint(b, uint64(t.Parent), 10)
		b = append(b, " Type="...)
		b = strconv.AppendQuote(b, t.Type)
	case KindRegionBegin, KindRegionEnd:
		b = append(b, " Task="...)
		b = strconv.AppendUint(b, e.args[0], 10)
		b = append(b, " Type="...)
		b = strconv.AppendQuote(b, e.str(e.args[1]))
	case KindLog:
		b = append(b, " Task="...)
		b = strconv.AppendUint(b, e.args[0], 10)
		b = append(b, " Category="...)
		b = strconv.AppendQuote(b, e.str(e.args[1]))
		b = append(b, " Message="...)
		b = strconv.AppendQuote(b, e.str(e.args[2]))
	case KindStateTransition:
		s := e.StateTransition()
		switch s.Resource.Kind {
		case ResourceGoroutine:
			b = append(b, " GoID="...)
			b = strconv.AppendInt(b, s.Resource.ID, 10)
			b = append(b, ' ')
			b = append(b, GoState(s.from).String()...)
			b = append(b, "->"...)
			b = append(b, GoState(s.to).String()...)
		case ResourceProc:
			b = append(b, " ProcID="...)
			b = strconv.AppendInt(b, s.Resource.ID, 10)
			b = append(b, ' ')
			b = append(b, ProcState(s.from).String()...)
			b = append(b, "->"...)
			b = append(b, ProcState(s.to).String()...)
		}
		b = append(b, " Reason="...)
		b = strconv.AppendQuote(b, s.Reason)
		// Go prints a creation's stack even when it is stack 0: it is
		// present, with no frames.
		if s.Stack.tab != nil {
			b = append(b, "\nTransitionStack=\n"...)
			b = appendFrames(b, s.Stack.Frames())
		}
	case KindExperimental:
		x := e.Experimental()
		b = append(b, " Name="...)
		b = append(b, x.Name...)
		b = append(b, " Args=["...)
		for i, n := range x.ArgNames {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, n...)
			b = append(b, '=')
			b = appendValue(b, x.Args[i])
		}
		b = append(b, ']')
	case KindSync:
		b = append(b, " N="...)
		b = strconv.AppendUint(b, e.args[0], 10)
		if e.tab != nil && e.tab.hasClock {
			c := &e.tab.clock
			b = append(b, " Trace="...)
			b = strconv.AppendInt(b, int64(c.Trace), 10)
			b = append(b, " Mono="...)
			b = strconv.AppendUint(b, c.Mono, 10)
			b = append(b, " Wall="...)
			b = c.Wall.AppendFormat(b, time.RFC3339Nano)
		}
	}
	if s, ok := e.stack(); ok {
		b = append(b, "\nStack=\n"...)
		b = appendFrames(b, s.Frames())
	}
	return b
}

// appendValue prints a number as Go's parser prints a Value.
func appendValue(b []byte, v uint64) []byte {
	b = append(b, "Value{Uint64("...)
	b = strconv.AppendUint(b, v, 10)
	return append(b, ")}"...)
}

func appendResource(b []byte, r ResourceID) []byte {
	if r.Kind == ResourceNone {
		return append(b, "None"...)
	}
	b = append(b, r.Kind.String()...)
	b = append(b, '(')
	b = strconv.AppendInt(b, r.ID, 10)
	return append(b, ')')
}

// appendFrames prints frames as Go's parser does: each on two lines, the
// function and PC, then the file and line, tab-indented.
func appendFrames(b []byte, frames []Frame) []byte {
	for i := range frames {
		f := &frames[i]
		b = append(b, '\t')
		b = append(b, f.Func...)
		b = append(b, " @ 0x"...)
		b = strconv.AppendUint(b, f.PC, 16)
		b = append(b, "\n\t\t"...)
		b = append(b, f.File...)
		b = append(b, ':')
		b = strconv.AppendUint(b, f.Line, 10)
		b = append(b, '\n')
	}
	return b
}
