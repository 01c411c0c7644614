package analysis

import "github.com/tracefmt/tracefmt/xrayfdr"

// Span is one function call: its entry and exit on one thread.
type Span struct {
	FuncID   int32
	TID, PID uint32
	// Enter and Exit are the timestamps (ticks) of the entry and exit.
	Enter, Exit uint64
	// Depth is the number of calls open around this one on its thread
	// (0 for an outermost call).
	Depth int
	// Parent is the function of the enclosing call (0 at depth 0).
	Parent int32
	// Self is the time (ticks) spent in the call and not in the calls it
	// made that were closed.
	Self uint64
	// Unwound is set for a call closed by the exit of a function further
	// out (with SpanOptions.DeduceSiblingCalls), whose own exit was never
	// recorded: its Exit is that exit's.
	Unwound bool
}

// SpanOptions says how Spans pairs entries and exits.
type SpanOptions struct {
	// DeduceSiblingCalls closes, at an exit that does not match the
	// innermost call, the calls opened since the matching one, as
	// llvm-xray's account --deduce-sibling-calls does (their exits were
	// not recorded: tail calls of old runtimes, or a flight recorder's
	// lost records). Without it such an exit is an error.
	DeduceSiblingCalls bool
	// KeepGoing skips the records that cannot be paired (an exit with no
	// matching entry, a record earlier than its thread's first), telling
	// OnError, instead of failing.
	KeepGoing bool
	OnError   func(*CallError)
}

// Spans reads the log in data (as xrayfdr.Walk does: thread by thread, each
// thread's records in time order) and calls fn with each call when its
// exit is met: so, on a thread, callees before their caller. Calls still
// open at the end of a thread are not reported. The Span is reused: it is
// valid during the call only. Spans pairs as Account does: the sum of the
// spans' Exit-Enter for a function is Account's sum for it.
//
// Memory is proportional to the deepest call stack of a thread (and the
// number of threads).
func Spans(data []byte, o SpanOptions, fn func(*Span) error) error {
	if fn == nil {
		return errNilFunc
	}
	type open struct {
		id    int32
		tsc   uint64
		inner uint64
	}
	type thread struct {
		started bool
		first   uint64
		stack   []open
	}
	var (
		th threads[thread]
		sp Span
		w  xrayfdr.Walker
	)
	fail := func(e *xrayfdr.Event, t *thread, err error) error {
		ce := &CallError{Event: *e, Err: err}
		for _, f := range t.stack {
			ce.Stack = append(ce.Stack, f.id)
		}
		if o.KeepGoing {
			if o.OnError != nil {
				o.OnError(ce)
			}
			return nil
		}
		return ce
	}
	return w.Walk(data, func(e *xrayfdr.Event) error {
		t, _ := th.get(e.TID)
		if !t.started {
			t.started, t.first = true, e.TSC
		}
		if e.TSC < t.first {
			return fail(e, t, ErrTimeOrder)
		}
		switch e.Kind {
		case xrayfdr.EventEnter, xrayfdr.EventEnterArg:
			t.stack = append(t.stack, open{id: e.FuncID, tsc: e.TSC})
		case xrayfdr.EventExit, xrayfdr.EventTailExit:
			n := len(t.stack)
			i := n - 1
			if i >= 0 && t.stack[i].id != e.FuncID {
				if !o.DeduceSiblingCalls {
					i = -1
				}
				for i >= 0 && t.stack[i].id != e.FuncID {
					i--
				}
			}
			if i < 0 {
				return fail(e, t, ErrNoEntry)
			}
			for j := n - 1; j >= i; j-- {
				f := &t.stack[j]
				d := absDiff(f.tsc, e.TSC)
				sp = Span{FuncID: f.id, TID: e.TID, PID: e.PID, Enter: f.tsc, Exit: e.TSC,
					Depth: j, Unwound: j > i}
				if d > f.inner {
					sp.Self = d - f.inner
				}
				if j > 0 {
					sp.Parent = t.stack[j-1].id
					t.stack[j-1].inner += d
				}
				if err := fn(&sp); err != nil {
					return err
				}
			}
			t.stack = t.stack[:i]
		}
		return nil
	})
}
