package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"

	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
)

// The XRay files tracecat tells apart.
const (
	notXRay = iota
	xrayLog
	xrayYAMLTrace // llvm-xray convert --output-format=yaml
	xrayYAMLMap   // llvm-xray extract
)

// xrayKind asks xrayfdr and instrmap what head starts: a log whose header
// a runtime writes, or llvm-xray's YAML trace or instrumentation map.
func xrayKind(head []byte) int {
	if len(head) >= xrayfdr.HeaderSize {
		if _, err := xrayfdr.NewBytesReader(head); claims(err, xrayfdr.ErrVersion) {
			return xrayLog
		}
	}
	lines := completeLines(head)
	if len(lines) == 0 {
		return notXRay
	}
	if _, err := instrmap.ReadYAML(bytes.NewReader(lines)); err == nil {
		return xrayYAMLMap
	}
	// Walk reads a YAML trace whole; its first lines are one too (with
	// the header and the records key llvm-xray requires).
	if err := xrayfdr.Walk(lines, func(*xrayfdr.Event) error { return nil }); err == nil {
		return xrayYAMLTrace
	}
	return notXRay
}

func isXRay(head []byte) bool { return xrayKind(head) != notXRay }

// summarizeXRay reads the log with xrayfdr and reports its header, threads,
// buffers, records by kind and the time the records span (TSCs rebuilt
// from the deltas as llvm-xray does, per thread buffer). A YAML trace or
// instrumentation map gets a summary of its own.
func summarizeXRay(w io.Writer, in io.Reader) error {
	br, head, err := peek(in)
	if err != nil {
		return err
	}
	switch xrayKind(head) {
	case xrayYAMLTrace:
		return summarizeXRayYAML(w, br)
	case xrayYAMLMap:
		return summarizeXRayMap(w, br)
	}
	rd, err := xrayfdr.NewReader(br)
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
	printCounts(w, kinds)
	if seen {
		span := float64(hi-lo) / float64(max(h.CycleFrequency, 1))
		fmt.Fprintf(w, "  time span %.6f s (TSC %d to %d)\n", span, lo, hi)
	}
	return rerr // the summary stops at the first error
}

// summarizeXRayYAML reads a YAML trace whole (xrayfdr.Walk reads it so)
// and reports its header, records by kind, threads and time span.
func summarizeXRayYAML(w io.Writer, r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	var wk xrayfdr.Walker
	kinds := map[string]int{}
	threads := map[uint32]bool{}
	var lo, hi uint64
	n := 0
	err = wk.Walk(data, func(e *xrayfdr.Event) error {
		if n == 0 || e.TSC < lo {
			lo = e.TSC
		}
		if n == 0 || e.TSC > hi {
			hi = e.TSC
		}
		n++
		kinds[e.Kind.String()]++
		threads[e.TID] = true
		return nil
	})
	h := wk.Header()
	fmt.Fprintf(w, "  llvm-xray YAML trace: version %d, type %d, constant tsc %v, nonstop tsc %v, cycle frequency %d Hz\n",
		h.Version, h.Type, h.ConstantTSC(), h.NonstopTSC(), h.CycleFrequency)
	fmt.Fprintf(w, "  %d records, %d threads\n", n, len(threads))
	printCounts(w, kinds)
	if n > 0 {
		span := float64(hi-lo) / float64(max(h.CycleFrequency, 1))
		fmt.Fprintf(w, "  time span %.6f s (TSC %d to %d)\n", span, lo, hi)
	}
	return err
}

// summarizeXRayMap reads an instrumentation map in llvm-xray extract's
// YAML and reports its functions and sleds by kind.
func summarizeXRayMap(w io.Writer, r io.Reader) error {
	m, err := instrmap.ReadYAML(r)
	if err != nil {
		return err
	}
	kinds := map[string]int{}
	for _, s := range m.Sleds {
		kinds[s.Kind.String()]++
	}
	fmt.Fprintf(w, "  llvm-xray instrumentation map: %d functions, %d sleds\n", len(m.Functions), len(m.Sleds))
	printCounts(w, kinds)
	return nil
}

// printCounts prints one line a kind, in name order.
func printCounts(w io.Writer, kinds map[string]int) {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "    %-20s %d\n", k, kinds[k])
	}
}
