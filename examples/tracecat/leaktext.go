package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/tracefmt/tracefmt/leaktext"
)

func isLeakText(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	return bytes.HasPrefix(line, []byte("version=")) && bytes.Contains(line, []byte(", "))
}

// summarizeLeakText reports the traced process, the resource types with
// their allocations and frees, and what leaked of each type, computed as
// sp-rtrace-postproc -l does.
func summarizeLeakText(w io.Writer, data []byte) error {
	rep, err := leaktext.ReadReport(bytes.NewReader(data))
	if err != nil {
		return err
	}
	h := rep.Header
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
	allocs := make([]int, len(rep.Resources))
	frees := make([]int, len(rep.Resources))
	total := 0
	for _, e := range rep.Events {
		total++
		if e.Res < 0 {
			continue
		}
		if e.Call.Free {
			frees[e.Res]++
		} else {
			allocs[e.Res]++
		}
	}
	traces := map[*leaktext.Trace]bool{}
	for _, e := range rep.Events {
		traces[e.Trace] = true
	}
	fmt.Fprintf(w, "  %d calls, %d distinct backtraces, %d memory maps, %d contexts, %d comments\n",
		total, len(traces), len(rep.Maps), len(rep.Contexts), len(rep.Comments))
	rep.FilterLeaks()
	for i, s := range rep.LeakSums() {
		flags := ""
		if s.Resource.Refcount() {
			flags = ", refcounted"
		}
		fmt.Fprintf(w, "  type %s (%s%s): %d allocations, %d frees; leaked %d block(s), %d bytes\n",
			s.Resource.Type, s.Resource.Desc, flags, allocs[i], frees[i], s.Count, s.Size)
	}
	return nil
}
