package xrayfdr

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Walk calls fn with every function entry and exit and every custom or
// typed event of the log in data (FDR of any version, basic mode, or the
// YAML llvm-xray convert writes), one thread after the other, each
// thread's buffers in time order and the records of a buffer in their
// order. This is the order the analyses (Account, Stacks, Graph, Profile,
// Spans) need and llvm-xray means to give them: threads come in the order
// llvm-xray visits them,
// and the buffers of a thread are put in time order by their wall-clock
// time and first timestamp, where llvm-xray's comparator (equal for any
// two buffers written in the same second) leaves them in an order that
// breaks its call stacks. Basic-mode logs are read in file order, as
// each thread writes its records in its own order, and YAML traces in
// file order, as llvm-xray reads them (unless the timestamps of a thread
// go backwards: then in time order), holding their records in memory;
// a YAML trace needs the keys llvm-xray requires (the header's five, the
// records, and each record's type, cpu, kind and tsc), each once.
// Where the time of a thread goes back inside a buffer (a NewCPU record
// behind the records before it), Graph pairs that thread's records in
// time order, as llvm-xray's graph sorts all records by time (in a
// basic-mode log whose time goes back, it sorts them all); llvm-xray's
// account and stack do not sort, and neither do Account and Stacks.
//
// The Event passed to fn is reused: it is valid during the call only.
// Entries with arguments have Kind EventEnterArg; their arguments and
// event payloads are not given. Blocks are checked as llvm-xray checks
// them before it analyses a log; an error (a *FormatError) is returned
// as soon as it is found, possibly after fn has seen earlier threads.
// An error returned by fn stops the walk and is returned.
//
// Walk holds the per-buffer index of the log (a few words per thread
// buffer); it does not copy records.
func Walk(data []byte, fn func(e *Event) error) error {
	var w Walker
	return w.Walk(data, fn)
}

// A Walker walks logs as Walk does and keeps its buffers from one walk to
// the next. The zero Walker is ready to use.
type Walker struct {
	// SortBack hands out the events of a thread whose time goes back
	// sorted by time (stably), as llvm-xray's graph sorts its records.
	SortBack bool
	// LLVM is the llvm-xray release whose order of threads to follow;
	// 0 is the newest.
	LLVM LLVM

	keys []blockKey
	h    Header
	slow bool // no fast path (tests)
	held []Event
}

// Walk walks the log in data as the function Walk does.
func (w *Walker) Walk(data []byte, fn func(e *Event) error) error {
	if w == nil {
		return ErrNotOpen
	}
	if fn == nil {
		return errNilFunc
	}
	return w.walk(data, fn)
}

// Header returns the header of the log last walked (of a YAML trace,
// what its header section gives).
func (w *Walker) Header() Header {
	if w == nil {
		return Header{}
	}
	return w.h
}

type blockKey struct {
	b       *Block
	seconds uint64
	micros  uint32
	tsc     uint64
}

func (w *Walker) walk(data []byte, fn func(e *Event) error) error {
	if isYAMLTrace(data) {
		return w.walkYAML(data, fn)
	}
	if len(data) < 4 {
		return &FormatError{Offset: 0, Err: io.ErrUnexpectedEOF, LLVM: "File too small for XRay."}
	}
	if len(data) < HeaderSize {
		return &FormatError{Offset: int64(len(data)), Err: io.ErrUnexpectedEOF, LLVM: "Not enough bytes for an XRay log."}
	}
	h := parseHeader(data)
	w.h = h
	switch {
	case h.Type == TypeBasic && h.Version >= 1 && h.Version <= 3:
		return w.handOut(func(fn func(e *Event) error) error { return walkBasic(data, fn) }, fn)
	case h.Type == TypeFDR && h.Version >= 1 && h.Version <= 5:
		return w.walkFDR(data, fn)
	}
	msg := ""
	if h.Type == TypeFDR {
		msg = fmt.Sprintf("Unsupported version for FDR Mode logging: %d", h.Version)
	} else if h.Type == TypeBasic {
		msg = fmt.Sprintf("Unsupported version for Basic/Naive Mode logging: %d", h.Version)
	}
	return &FormatError{Offset: 0, Err: ErrHeader, LLVM: msg}
}

func walkBasic(data []byte, fn func(e *Event) error) error {
	if len(data) == HeaderSize || len(data)%BasicSize != 0 {
		return &FormatError{Offset: int64(len(data) / BasicSize * BasicSize), Err: io.ErrUnexpectedEOF, LLVM: "Invalid-sized XRay data."}
	}
	rd, err := NewBytesReader(data)
	if err != nil {
		return err
	}
	var e Event
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Kind == KindCallArg {
			continue
		}
		e = Event{CPU: rec.CPU, Kind: EventKind(rec.Action), FuncID: rec.FuncID,
			TSC: rec.TSC, TID: uint32(rec.TID), PID: uint32(rec.PID)}
		if err := fn(&e); err != nil {
			return err
		}
	}
}

func (w *Walker) walkFDR(data []byte, fn func(e *Event) error) error {
	if !w.slow {
		if groups, order, ok := w.fastIndex(data, w.h); ok {
			return w.fastWalk(data, w.h, groups, order, fn)
		}
	}
	rd := &Reader{}
	if err := rd.ResetBytes(data); err != nil {
		return err
	}
	groups, err := indexBlocks(rd, data, w.LLVM)
	if err != nil {
		return err
	}
	h := rd.h
	br := blockReader(data, h)
	for gi := range groups {
		g := &groups[gi]
		if err := w.sortBlocks(br, g.Blocks); err != nil {
			return err
		}
		if err := w.handOut(func(fn func(e *Event) error) error {
			return w.walkThread(br, groups, h.Version, fn)
		}, fn); err != nil {
			return err
		}
	}
	return nil
}

// walkThread hands the events of the blocks in w.keys, one thread's, to
// fn, checking the blocks as it goes.
func (w *Walker) walkThread(br *Reader, groups []Group, version uint16, fn func(e *Event) error) error {
	var (
		v   Verifier
		rec Record
	)
	st := threadState{version: version}
	for _, k := range w.keys {
		v.Reset()
		it := k.b.iter(br)
		var err error
		for {
			if act, id, d, off, ok := it.function(); ok {
				if err = v.step(StateFunction, off); err != nil {
					break
				}
				if !st.ignoring {
					st.ev.TSC += uint64(d)
					st.ev.Kind, st.ev.FuncID = EventKind(act), id
					if err = fn(&st.ev); err != nil {
						return err
					}
				}
				continue
			}
			var ok bool
			if ok, err = it.next(&rec); !ok {
				break
			}
			if err = v.Next(&rec); err != nil {
				break
			}
			if err = st.visit(&rec, fn); err != nil {
				return err
			}
		}
		if err == nil {
			err = v.End()
		}
		if err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				// the error llvm-xray reports is the first in its order
				if verr := verifyGroups(br, groups); verr != nil {
					return verr
				}
			}
			return err
		}
	}
	return nil
}

// handOut hands the events of one thread, which walkThread walks, to fn.
// With w.SortBack, a thread whose time goes back somewhere is walked once
// more to hold its events, which fn then gets sorted by time (stably).
func (w *Walker) handOut(walkThread func(fn func(e *Event) error) error, fn func(e *Event) error) error {
	if !w.SortBack {
		return walkThread(fn)
	}
	back, last, started := false, uint64(0), false
	if err := walkThread(func(e *Event) error {
		back = back || started && e.TSC < last
		started, last = true, e.TSC
		return nil
	}); err != nil {
		return err
	}
	if !back {
		return walkThread(fn)
	}
	w.held = w.held[:0]
	if err := walkThread(func(e *Event) error {
		w.held = append(w.held, *e)
		return nil
	}); err != nil {
		return err
	}
	slices.SortStableFunc(w.held, func(a, b Event) int { return cmp.Compare(a.TSC, b.TSC) })
	for i := range w.held {
		if err := fn(&w.held[i]); err != nil {
			return err
		}
	}
	return nil
}

// sortBlocks puts the blocks of one thread in time order into w.keys:
// by wall-clock time, then by the timestamp of their first NewCPU
// record, then in file order.
func (w *Walker) sortBlocks(br *Reader, blocks []Block) error {
	w.keys = w.keys[:0]
	var rec Record
	for i := range blocks {
		b := &blocks[i]
		k := blockKey{b: b, seconds: b.Seconds, micros: b.Micros}
		it := b.iter(br)
		for n := 0; n < 8; n++ {
			ok, err := it.next(&rec)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if rec.Kind == KindNewCPU || rec.Kind == KindTSCWrap {
				k.tsc = rec.TSC
				break
			}
		}
		w.keys = append(w.keys, k)
	}
	slices.SortStableFunc(w.keys, func(a, b blockKey) int {
		if c := cmp.Compare(a.seconds, b.seconds); c != 0 {
			return c
		}
		if c := cmp.Compare(a.micros, b.micros); c != 0 {
			return c
		}
		return cmp.Compare(a.tsc, b.tsc)
	})
	return nil
}

// threadState follows the records of one thread as llvm-xray's expander
// does: the timestamp base, CPU, thread and process carry from record to
// record and from block to block.
type threadState struct {
	version  uint16
	ignoring bool
	ev       Event
}

func (st *threadState) visit(rec *Record, fn func(e *Event) error) error {
	e := &st.ev
	switch rec.Kind {
	case KindNewCPU:
		e.CPU, e.TSC = rec.CPU, rec.TSC
	case KindTSCWrap:
		e.TSC = rec.TSC
	case KindPid:
		e.PID = uint32(rec.PID)
	case KindNewBuffer:
		st.ignoring = false
		e.TID = uint32(rec.TID)
		if st.version == 2 {
			e.PID = e.TID
		}
	case KindEndOfBuffer:
		st.ignoring = true
	case KindCustomEvent, KindTypedEvent:
		if st.ignoring {
			return nil
		}
		kind := EventCustom
		if rec.Kind == KindTypedEvent {
			kind = EventTyped
			e.RecordType = rec.EventType
		}
		if rec.Kind == KindCustomEvent && st.version < 5 {
			// absolute time and CPU, which later records do not inherit
			ev := *e
			ev.Kind, ev.TSC, ev.CPU = kind, rec.TSC, rec.CPU
			return fn(&ev)
		}
		e.TSC += uint64(rec.Delta)
		e.Kind = kind
		return fn(e)
	case KindFunction:
		if st.ignoring {
			return nil
		}
		e.TSC += uint64(uint32(rec.Delta))
		e.Kind, e.FuncID = EventKind(rec.Action), rec.FuncID
		return fn(e)
	}
	return nil
}
