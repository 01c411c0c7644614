package gotraceraw

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is the trace format version a header names: the minor number of
// the Go release that introduced it (22 for "go 1.22 trace").
type Version uint8

// The v2 versions this package reads and writes. Go 1.24 writes Go123.
const (
	Go122 Version = 22
	Go123 Version = 23 // also written by Go 1.24
	Go125 Version = 25
	Go126 Version = 26
)

// Versions lists the versions this package reads and writes, oldest first.
var Versions = []Version{Go122, Go123, Go125, Go126}

// String returns the form the text header uses, "Go1.26".
func (v Version) String() string { return "Go1." + strconv.Itoa(int(v)) }

// Valid reports whether v is one of Versions.
func (v Version) Valid() bool { return v.table() != nil }

// EventType is the byte that starts every event on the wire.
type EventType uint8

// The event types. Types 45–49 exist from Go123 on, 50–51 from Go125 on,
// 52 in Go126 only; the experimental types 128–136 (AllocFree) are read under
// every version from Go123 on.
const (
	EvNone                EventType = iota // never valid
	EvEventBatch                           // start of a batch: gen m time size
	EvStacks                               // start of a stack table
	EvStack                                // one stack: id nframes, then pc func file line per frame
	EvStrings                              // start of a string table
	EvString                               // one string: id, data
	EvCPUSamples                           // start of a CPU sample batch
	EvCPUSample                            // time m p g stack
	EvFrequency                            // freq: clock ticks per second
	EvProcsChange                          // GOMAXPROCS changed
	EvProcStart                            // P starts running
	EvProcStop                             // P stops
	EvProcSteal                            // P stolen from a syscall
	EvProcStatus                           // P status at the start of a generation
	EvGoCreate                             // goroutine created
	EvGoCreateSyscall                      // goroutine appears in a syscall (cgo callback)
	EvGoStart                              // goroutine starts running
	EvGoDestroy                            // goroutine ends
	EvGoDestroySyscall                     // goroutine ends in a syscall
	EvGoStop                               // goroutine yields
	EvGoBlock                              // goroutine blocks
	EvGoUnblock                            // goroutine becomes runnable
	EvGoSyscallBegin                       // syscall starts
	EvGoSyscallEnd                         // syscall ends
	EvGoSyscallEndBlocked                  // syscall ends after losing its P
	EvGoStatus                             // goroutine status at the start of a generation
	EvSTWBegin                             // stop-the-world starts
	EvSTWEnd                               // stop-the-world ends
	EvGCActive                             // GC in progress at the start of a generation
	EvGCBegin                              // GC starts
	EvGCEnd                                // GC ends
	EvGCSweepActive                        // sweep in progress at the start of a generation
	EvGCSweepBegin                         // sweep starts
	EvGCSweepEnd                           // sweep ends
	EvGCMarkAssistActive                   // mark assist in progress at the start of a generation
	EvGCMarkAssistBegin                    // mark assist starts
	EvGCMarkAssistEnd                      // mark assist ends
	EvHeapAlloc                            // live heap changed
	EvHeapGoal                             // heap goal changed
	EvGoLabel                              // goroutine label
	EvUserTaskBegin                        // trace.NewTask
	EvUserTaskEnd                          // task.End
	EvUserRegionBegin                      // trace.StartRegion / WithRegion
	EvUserRegionEnd                        // region.End
	EvUserLog                              // trace.Log
	EvGoSwitch                             // Go123: coroutine switch
	EvGoSwitchDestroy                      // Go123: coroutine switch, the old one exits
	EvGoCreateBlocked                      // Go123: goroutine created blocked
	EvGoStatusStack                        // Go123: EvGoStatus with a stack
	EvExperimentalBatch                    // Go123: opaque batch of an experiment: exp gen m time, data
	EvSync                                 // Go125: start of a sync batch
	EvClockSnapshot                        // Go125: trace clock against monotonic and wall clocks
	EvEndOfGeneration                      // Go126: end of a generation, outside any batch
)

// The AllocFree experiment's events (GODEBUG=traceallocfree=1), written
// inside ordinary batches by Go 1.23 and later runtimes.
const (
	EvSpan                EventType = 128 + iota // span present at the start of a generation
	EvSpanAlloc                                  // span allocated
	EvSpanFree                                   // span freed
	EvHeapObject                                 // object present at the start of a generation
	EvHeapObjectAlloc                            // object allocated
	EvHeapObjectFree                             // object freed
	EvGoroutineStack                             // goroutine stack present at the start of a generation
	EvGoroutineStackAlloc                        // goroutine stack allocated
	EvGoroutineStackFree                         // goroutine stack freed
)

// Experiment names the experiment an event belongs to.
type Experiment uint8

const (
	// NoExperiment marks the events every trace of a version may hold.
	NoExperiment Experiment = 0
	// AllocFree is GODEBUG=traceallocfree=1: heap objects, spans and
	// goroutine stacks.
	AllocFree Experiment = 1
)

func (x Experiment) String() string {
	switch x {
	case NoExperiment:
		return "None"
	case AllocFree:
		return "AllocFree"
	}
	return "Experiment(" + strconv.Itoa(int(x)) + ")"
}

// Spec describes one event type: what the text form calls it and its
// arguments, in wire order.
type Spec struct {
	// Name is the event's name in the text form.
	Name string
	// Args are the argument names. A "_string" suffix marks a string ID,
	// "_stack" or "stack" a stack ID, "_value" a plain number.
	Args []string
	// Timed events have a first argument dt, the clock delta from the
	// previous event in the batch (or from the batch's time).
	Timed bool
	// IsStack marks Stack: after its arguments come nframes frames of four
	// values each (FrameFields).
	IsStack bool
	// HasData marks String and ExperimentalBatch: after the arguments come
	// a varint length and that many bytes.
	HasData bool
	// Experiment is the experiment the event belongs to, if any.
	Experiment Experiment
	// StringArgs and StackArgs are the indexes in Args of string and stack
	// IDs, which name entries of the generation's string and stack tables.
	StringArgs []int
	StackArgs  []int
}

// FrameFields names the four values of each Stack frame, in wire order.
var FrameFields = [4]string{"pc", "func", "file", "line"}

// specs holds every event type's description; the per-version tables say
// which of them a version has.
var specs = [137]Spec{
	EvEventBatch:          {Name: "EventBatch", Args: []string{"gen", "m", "time", "size"}},
	EvStacks:              {Name: "Stacks"},
	EvStack:               {Name: "Stack", Args: []string{"id", "nframes"}, IsStack: true},
	EvStrings:             {Name: "Strings"},
	EvString:              {Name: "String", Args: []string{"id"}, HasData: true},
	EvCPUSamples:          {Name: "CPUSamples"},
	EvCPUSample:           {Name: "CPUSample", Args: []string{"time", "m", "p", "g", "stack"}, StackArgs: []int{4}},
	EvFrequency:           {Name: "Frequency", Args: []string{"freq"}},
	EvProcsChange:         timed("ProcsChange", "procs_value", "stack"),
	EvProcStart:           timed("ProcStart", "p", "p_seq"),
	EvProcStop:            timed("ProcStop"),
	EvProcSteal:           timed("ProcSteal", "p", "p_seq", "m"),
	EvProcStatus:          timed("ProcStatus", "p", "pstatus"),
	EvGoCreate:            timed("GoCreate", "new_g", "new_stack", "stack"),
	EvGoCreateSyscall:     timed("GoCreateSyscall", "new_g"),
	EvGoStart:             timed("GoStart", "g", "g_seq"),
	EvGoDestroy:           timed("GoDestroy"),
	EvGoDestroySyscall:    timed("GoDestroySyscall"),
	EvGoStop:              timed("GoStop", "reason_string", "stack"),
	EvGoBlock:             timed("GoBlock", "reason_string", "stack"),
	EvGoUnblock:           timed("GoUnblock", "g", "g_seq", "stack"),
	EvGoSyscallBegin:      timed("GoSyscallBegin", "p_seq", "stack"),
	EvGoSyscallEnd:        timed("GoSyscallEnd"),
	EvGoSyscallEndBlocked: timed("GoSyscallEndBlocked"),
	EvGoStatus:            timed("GoStatus", "g", "m", "gstatus"),
	EvSTWBegin:            timed("STWBegin", "kind_string", "stack"),
	EvSTWEnd:              timed("STWEnd"),
	EvGCActive:            timed("GCActive", "gc_seq"),
	EvGCBegin:             timed("GCBegin", "gc_seq", "stack"),
	EvGCEnd:               timed("GCEnd", "gc_seq"),
	EvGCSweepActive:       timed("GCSweepActive", "p"),
	EvGCSweepBegin:        timed("GCSweepBegin", "stack"),
	EvGCSweepEnd:          timed("GCSweepEnd", "swept_value", "reclaimed_value"),
	EvGCMarkAssistActive:  timed("GCMarkAssistActive", "g"),
	EvGCMarkAssistBegin:   timed("GCMarkAssistBegin", "stack"),
	EvGCMarkAssistEnd:     timed("GCMarkAssistEnd"),
	EvHeapAlloc:           timed("HeapAlloc", "heapalloc_value"),
	EvHeapGoal:            timed("HeapGoal", "heapgoal_value"),
	EvGoLabel:             timed("GoLabel", "label_string"),
	EvUserTaskBegin:       timed("UserTaskBegin", "task", "parent_task", "name_string", "stack"),
	EvUserTaskEnd:         timed("UserTaskEnd", "task", "stack"),
	EvUserRegionBegin:     timed("UserRegionBegin", "task", "name_string", "stack"),
	EvUserRegionEnd:       timed("UserRegionEnd", "task", "name_string", "stack"),
	EvUserLog:             timed("UserLog", "task", "key_string", "value_string", "stack"),
	EvGoSwitch:            timed("GoSwitch", "g", "g_seq"),
	EvGoSwitchDestroy:     timed("GoSwitchDestroy", "g", "g_seq"),
	EvGoCreateBlocked:     timed("GoCreateBlocked", "new_g", "new_stack", "stack"),
	EvGoStatusStack:       timed("GoStatusStack", "g", "m", "gstatus", "stack"),
	EvExperimentalBatch:   {Name: "ExperimentalBatch", Args: []string{"exp", "gen", "m", "time"}, HasData: true},
	EvSync:                {Name: "Sync"},
	EvClockSnapshot:       timed("ClockSnapshot", "mono", "sec", "nsec"),
	EvEndOfGeneration:     {Name: "EndOfGeneration"},
	EvSpan:                exp(timed("Span", "id", "npages_value", "kindclass")),
	EvSpanAlloc:           exp(timed("SpanAlloc", "id", "npages_value", "kindclass")),
	EvSpanFree:            exp(timed("SpanFree", "id")),
	EvHeapObject:          exp(timed("HeapObject", "id", "type")),
	EvHeapObjectAlloc:     exp(timed("HeapObjectAlloc", "id", "type")),
	EvHeapObjectFree:      exp(timed("HeapObjectFree", "id")),
	EvGoroutineStack:      exp(timed("GoroutineStack", "id", "order")),
	EvGoroutineStackAlloc: exp(timed("GoroutineStackAlloc", "id", "order")),
	EvGoroutineStackFree:  exp(timed("GoroutineStackFree", "id")),
}

// timed builds the Spec of a timed event: dt comes first, and the argument
// names say which are string and stack IDs.
func timed(name string, args ...string) Spec {
	s := Spec{Name: name, Args: append([]string{"dt"}, args...), Timed: true}
	for i, a := range s.Args {
		switch {
		case a == "stack":
			// The event's own stack comes first, as Go lists them.
			s.StackArgs = append([]int{i}, s.StackArgs...)
		case strings.HasSuffix(a, "_stack"):
			s.StackArgs = append(s.StackArgs, i)
		case strings.HasSuffix(a, "_string"):
			s.StringArgs = append(s.StringArgs, i)
		}
	}
	return s
}

func exp(s Spec) Spec {
	s.Experiment = AllocFree
	return s
}

// lastType is the highest non-experimental type of each version.
func (v Version) lastType() EventType {
	switch v {
	case Go122:
		return EvUserLog
	case Go123:
		return EvExperimentalBatch
	case Go125:
		return EvClockSnapshot
	case Go126:
		return EvEndOfGeneration
	}
	return EvNone
}

// Spec returns the description of event type t in version v, and false
// when v has no such event.
func (v Version) Spec(t EventType) (Spec, bool) {
	tab := v.table()
	if tab == nil || tab.kind[t]&kValid == 0 {
		return Spec{}, false
	}
	return specs[t], true
}

// Types lists the event types version v has, in type order.
func (v Version) Types() []EventType {
	tab := v.table()
	if tab == nil {
		return nil
	}
	var ts []EventType
	for t := range tab.kind {
		if tab.kind[t]&kValid != 0 {
			ts = append(ts, EventType(t))
		}
	}
	return ts
}

// Lookup returns the event type that version v calls name.
func (v Version) Lookup(name string) (EventType, bool) {
	tab := v.table()
	if tab == nil {
		return EvNone, false
	}
	t, ok := tab.names[name]
	return t, ok
}

// String returns the event's name, the same in every version that has it,
// or "EventType(N)" for a type no version has.
func (t EventType) String() string {
	if int(t) < len(specs) && specs[t].Name != "" {
		return specs[t].Name
	}
	return fmt.Sprintf("EventType(%d)", uint8(t))
}

// Decoding table flags.
const (
	kValid = 1 << iota
	kStack
	kData
	kFrame // EventBatch, ExperimentalBatch, EndOfGeneration: outside any batch
)

// table is what the readers and writers consult per event: argument
// counts and flags indexed by type byte, and the text names.
type table struct {
	nargs [256]uint8
	kind  [256]uint8
	plain [256]uint8 // 1 + nargs for types without frames or data, else 0
	inner [256]uint8 // the same for those with arguments that go inside a batch
	names map[string]EventType
	hash  [256][]EventType // types by nameHash, for lookup
}

// nameHash picks the bucket of an event name in table.hash.
func nameHash(name []byte) uint8 {
	n := len(name)
	if n == 0 {
		return 0
	}
	return uint8(n*8) ^ name[0] ^ name[n-1]<<1 ^ name[n/2]<<2
}

// lookup returns the type named name, as names[name] would, without
// hashing the whole name.
func (tab *table) lookup(name []byte) (EventType, bool) {
	for _, t := range tab.hash[nameHash(name)] {
		if string(name) == specs[t].Name {
			return t, true
		}
	}
	return EvNone, false
}

var tables = func() (m [Go126 + 1]*table) {
	for _, v := range Versions {
		tab := &table{names: map[string]EventType{}}
		for t := range specs {
			s := &specs[t]
			if s.Name == "" || (EventType(t) > v.lastType() && (s.Experiment == NoExperiment || v < Go123)) {
				continue
			}
			tab.nargs[t] = uint8(len(s.Args))
			tab.kind[t] = kValid
			if s.IsStack {
				tab.kind[t] |= kStack
			}
			if !s.IsStack && !s.HasData {
				if len(s.Args) > maxPlainArgs {
					panic("gotraceraw: " + s.Name + " has more arguments than the fast path holds")
				}
				tab.plain[t] = uint8(len(s.Args)) + 1
			}
			if s.HasData {
				tab.kind[t] |= kData
			}
			switch EventType(t) {
			case EvEventBatch, EvExperimentalBatch, EvEndOfGeneration:
				tab.kind[t] |= kFrame
			}
			if tab.kind[t] == kValid && len(s.Args) > 0 {
				tab.inner[t] = tab.plain[t]
			}
			tab.names[s.Name] = EventType(t)
			h := nameHash([]byte(s.Name))
			tab.hash[h] = append(tab.hash[h], EventType(t))
		}
		m[v] = tab
	}
	return m
}()

func (v Version) table() *table {
	if int(v) < len(tables) {
		return tables[v]
	}
	return nil
}
