package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"sort"

	"github.com/tracefmt/tracefmt/xrayfdr"
)

// xrayOrder tells the byte order of an XRay log from its version field,
// which is 1 to 5 in the writer's order.
func xrayOrder(head []byte) binary.ByteOrder {
	if len(head) < 32 {
		return nil
	}
	for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		if v, t := o.Uint16(head), o.Uint16(head[2:]); v >= 1 && v <= 5 && t <= 1 {
			return o
		}
	}
	return nil
}

func isXRay(head []byte) bool { return xrayOrder(head) != nil }

// summarizeXRay reads the log with xrayfdr and reports its header, threads,
// buffers, records by kind and the time the records span (TSCs rebuilt
// from the deltas as llvm-xray does, per thread buffer).
func summarizeXRay(w io.Writer, r io.Reader) error {
	rd, err := xrayfdr.NewReader(r)
	if err != nil {
		return err
	}
	h := rd.Header()
	mode := "fdr"
	if rd.Basic() {
		mode = "basic"
	}
	order := "little-endian"
	if h.BigEndian {
		order = "big-endian"
	}
	fmt.Fprintf(w, "  version %d, mode %s, %s, constant tsc %v, nonstop tsc %v, cycle frequency %d Hz\n",
		h.Version, mode, order, h.ConstantTSC(), h.NonstopTSC(), h.CycleFrequency)
	if !rd.Basic() && h.BufferSize() != 0 {
		fmt.Fprintf(w, "  buffer size %d bytes\n", h.BufferSize())
	}
	kinds := map[string]int{}
	threads := map[int32]bool{}
	buffers, records := 0, 0
	var (
		base, lo, hi uint64
		seen         bool
	)
	stamp := func(tsc uint64) {
		if !seen || tsc < lo {
			lo = tsc
		}
		if !seen || tsc > hi {
			hi = tsc
		}
		seen = true
	}
	var rerr error
	for rec, err := range rd.All() {
		if err != nil {
			rerr = err
			break
		}
		records++
		name := rec.Kind.String()
		if rec.Kind == xrayfdr.KindFunction {
			name = "Function " + rec.Action.String()
		}
		kinds[name]++
		switch rec.Kind {
		case xrayfdr.KindNewBuffer:
			threads[rec.TID] = true
			if h.Version < 2 {
				buffers++
			}
		case xrayfdr.KindBufferExtents:
			buffers++
		case xrayfdr.KindNewCPU, xrayfdr.KindTSCWrap:
			base = rec.TSC
		case xrayfdr.KindFunction:
			if rd.Basic() {
				threads[rec.TID] = true
				stamp(rec.TSC)
			} else {
				base += uint64(uint32(rec.Delta))
				stamp(base)
			}
		case xrayfdr.KindCustomEvent, xrayfdr.KindTypedEvent:
			if h.Version >= 5 || rec.Kind == xrayfdr.KindTypedEvent {
				base += uint64(rec.Delta)
				stamp(base)
			} else {
				stamp(rec.TSC)
			}
		}
	}
	if rd.Basic() {
		fmt.Fprintf(w, "  %d records, %d threads\n", records, len(threads))
	} else {
		fmt.Fprintf(w, "  %d records, %d buffers, %d threads\n", records, buffers, len(threads))
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "    %-20s %d\n", k, kinds[k])
	}
	if seen {
		span := float64(hi-lo) / float64(max(h.CycleFrequency, 1))
		fmt.Fprintf(w, "  time span %.6f s (TSC %d to %d)\n", span, lo, hi)
	}
	return rerr // the summary stops at the first error
}
