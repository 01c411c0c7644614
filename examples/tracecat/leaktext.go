package main

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"

	"github.com/tracefmt/tracefmt/leaktext"
)

// isLeakText asks leaktext whether head starts a text report (the header
// line the formatter writes) or is sp-rtrace's binary log, which the
// summary then names and refuses.
func isLeakText(head []byte) bool {
	_, err := leaktext.NewReader(bytes.NewReader(head))
	return claims(err, leaktext.ErrBinary)
}

// summarizeLeakText reports the traced process, the resource types with
// their allocations and frees, and what leaked of each type, as
// sp-rtrace-postproc -l counts it, reading the report once.
func summarizeLeakText(w io.Writer, r io.Reader) error {
	rd, err := leaktext.NewReader(r)
	if err != nil {
		return err
	}
	h := rd.Header()
	get := func(k string) string {
		v, ok := h.Get(k)
		if !ok {
			return "?"
		}
		return v
	}
	ts, ok := h.Get(leaktext.KeyTimestamp)
	if !ok {
		ts = get(leaktext.KeyTime)
	}
	fmt.Fprintf(w, "  process %s (pid %s), %s, protocol %s, %s\n", get(leaktext.KeyProcess), get(leaktext.KeyPID), get(leaktext.KeyArch), get(leaktext.KeyVersion), ts)
	if v, ok := h.Get(leaktext.KeyOrigin); ok {
		fmt.Fprintf(w, "  made by %s", v)
		if f, ok := h.Get(leaktext.KeyFilter); ok {
			fmt.Fprintf(w, ", filters %s", f)
		}
		fmt.Fprintln(w)
	}
	var (
		leaks                    leaktext.LeakCounter
		maps, contexts, comments int
		traces                   = map[uint64]bool{} // hashes of the distinct backtraces
		seed                     = maphash.MakeSeed()
		frames                   []byte
		readErr                  error
		allocs, frees            = map[string]int{}, map[string]int{}
	)
	for rec, err := range rd.All() {
		if err != nil {
			readErr = err
			break
		}
		leaks.Add(rec)
		switch rec.Kind {
		case leaktext.KindMemoryMap:
			maps++
		case leaktext.KindContext:
			contexts++
		case leaktext.KindComment:
			if !rec.Temporary() {
				comments++
			}
		case leaktext.KindCall:
			if rec.Call.Free {
				frees[string(rec.Call.Type)]++
			} else {
				allocs[string(rec.Call.Type)]++
			}
		}
		if (rec.Kind == leaktext.KindCall || rec.Kind == leaktext.KindTrace) && len(rec.Call.Frames) > 0 {
			frames = frames[:0]
			for _, f := range rec.Call.Frames {
				frames = fmt.Appendf(frames, "%x ", f.Addr)
			}
			traces[maphash.Bytes(seed, frames)] = true
		}
	}
	calls, _, _ := leaks.Calls()
	fmt.Fprintf(w, "  %d calls, %d distinct backtraces, %d memory maps, %d contexts, %d comments\n",
		calls, len(traces), maps, contexts, comments)
	sums := leaks.Sums()
	for i, s := range sums {
		flags := ""
		if s.Resource.Refcount() {
			flags = ", refcounted"
		}
		// Calls that name no type are the first type's.
		a, f := allocs[string(s.Resource.Type)], frees[string(s.Resource.Type)]
		if i == 0 {
			a, f = a+allocs[""], f+frees[""]
		}
		fmt.Fprintf(w, "  type %s (%s%s): %d allocations, %d frees; leaked %d block(s), %d bytes\n",
			s.Resource.Type, s.Resource.Desc, flags, a, f, s.Count, s.Size)
	}
	return readErr
}
