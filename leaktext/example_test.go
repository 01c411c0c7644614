package leaktext_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/tracefmt/tracefmt/leaktext"
)

const report = `version=2.0, arch=x86_64, timestamp=2026.11.21 17:10:18, process=./demo, pid=12953, backtrace depth=3, origin=sp-rtrace 1.8, 
<1> : memory (memory allocation in bytes)
: /opt/demo/demo => 0x401000-0x402000
1. malloc(64) = 0x8b612a0
	0x401208
	0x401247 main() at demo.c:20

2. malloc(65) = 0x8b62370
	0x401208
	0x401247 main() at demo.c:20

3. free(0x8b62370)

`

// printReport prints a report, its header line quoted to show the space
// that ends it.
func printReport(s string) {
	header, rest, _ := strings.Cut(s, "\n")
	fmt.Printf("%q\n%s", header, rest)
}

// Read every record of a report.
func ExampleReader() {
	rd, err := leaktext.NewReader(strings.NewReader(report))
	if err != nil {
		log.Fatal(err)
	}
	process, _ := rd.Header().Get(leaktext.KeyProcess)
	fmt.Println("process", process)
	for rec, err := range rd.All() {
		if err != nil {
			log.Fatal(err)
		}
		if rec.Kind == leaktext.KindCall {
			c := rec.Call
			fmt.Printf("line %d: %s size %d id %#x free %v frames %d\n", rec.Line, c.Func, c.Size, c.ID, c.Free, len(c.Frames))
		}
	}
	// Output:
	// process ./demo
	// line 4: malloc size 64 id 0x8b612a0 free false frames 2
	// line 8: malloc size 65 id 0x8b62370 free false frames 2
	// line 12: free size 0 id 0x8b62370 free true frames 0
}

// Filter a report and write it back: drop the frees (and the empty line
// that ends each of them), keep everything else as it was.
func ExampleWriter() {
	rd, err := leaktext.NewReader(strings.NewReader(report))
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	w, err := leaktext.NewWriter(&out, rd.Header())
	if err != nil {
		log.Fatal(err)
	}
	dropped := false
	for rec, err := range rd.All() {
		if err != nil {
			log.Fatal(err)
		}
		if rec.Kind == leaktext.KindCall && rec.Call.Free {
			dropped = true
			continue
		}
		if rec.Kind == leaktext.KindBlank && dropped {
			dropped = false
			continue
		}
		if err := w.Write(rec); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	printReport(out.String())
	// Output:
	// "version=2.0, arch=x86_64, timestamp=2026.11.21 17:10:18, process=./demo, pid=12953, backtrace depth=3, origin=sp-rtrace 1.8, "
	// <1> : memory (memory allocation in bytes)
	// : /opt/demo/demo => 0x401000-0x402000
	// 1. malloc(64) = 0x8b612a0
	// 	0x401208
	// 	0x401247 main() at demo.c:20
	//
	// 2. malloc(65) = 0x8b62370
	// 	0x401208
	// 	0x401247 main() at demo.c:20
}

// Write a report from scratch. The Writer refuses what the real reader
// would misread, such as more frames than the header's backtrace depth.
func ExampleWriter_build() {
	var out bytes.Buffer
	h := leaktext.Header{Fields: []leaktext.Field{{Key: leaktext.KeyVersion, Value: "2.0"}, {Key: leaktext.KeyBacktraceDepth, Value: "1"}}}
	w, err := leaktext.NewWriter(&out, h)
	if err != nil {
		log.Fatal(err)
	}
	call := &leaktext.Record{Kind: leaktext.KindCall, Call: leaktext.Call{
		Index: 1, HasTime: true, Time: 1234, Func: []byte("open"), Type: []byte("fd"), Size: 1, ID: 4,
		Args:   []leaktext.Arg{{Name: []byte("path"), Value: []byte("/tmp/my file")}},
		Frames: []leaktext.Frame{{Addr: 0x401000, Resolved: []byte("main() at demo.c:3")}},
	}}
	for _, rec := range []*leaktext.Record{call, {Kind: leaktext.KindBlank}} {
		if err := w.Write(rec); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	printReport(out.String())

	w.Reset(io.Discard, h)
	call.Call.Frames = append(call.Call.Frames, leaktext.Frame{Addr: 0x401100})
	fmt.Println(w.Write(call))
	// Output:
	// "version=2.0, backtrace depth=1, "
	// 1. [00:00:01.234] open<fd>(1) = 0x4
	// 	$path = /tmp/my file
	// 	0x401000 main() at demo.c:3
	//
	// leaktext: invalid record: 2 frames, more than the header's backtrace depth 1
}

// Compute leaks as sp-rtrace-postproc -lc does, and print the report it
// prints.
func Example() {
	rep, err := leaktext.ReadReport(strings.NewReader(report))
	if err != nil {
		log.Fatal(err)
	}
	rep.FilterLeaks()
	for _, s := range rep.LeakSums() {
		fmt.Printf("%s: %d block(s), %d bytes\n", s.Resource.Type, s.Count, s.Size)
	}
	m := leaktext.NewAddressMap(rep.Maps)
	for _, g := range rep.Groups(leaktext.SortSize) {
		mm, off, _ := m.Lookup(g.Trace.Frames[0].Addr)
		fmt.Printf("%d call(s), %d bytes, from %s+%#x\n", g.Count, g.Size, mm.Path, off)
	}
	var out bytes.Buffer
	if err := leaktext.PostProcess(&out, rep, leaktext.Options{Leaks: true, Compress: true}); err != nil {
		log.Fatal(err)
	}
	printReport(out.String())
	// Output:
	// memory: 1 block(s), 64 bytes
	// 1 call(s), 64 bytes, from /opt/demo/demo+0x208
	// "version=2.0, arch=x86_64, timestamp=2026.11.21 17:10:18, process=./demo, pid=12953, filter=leaks|compress, backtrace depth=3, origin=sp-rtrace 1.8, "
	// <1> : memory (memory allocation in bytes)
	// : /opt/demo/demo => 0x401000-0x402000
	// 1. malloc(64) = 0x8b612a0
	// # allocation summary: 1 block(s) with total size 64
	// 	0x401208
	// 	0x401247 main() at demo.c:20
	//
	// # Resource - memory (memory allocation in bytes):
	// # 1 block(s) leaked with total size of 64 bytes
}

// Write a heap profile of what a report leaked, for go tool pprof.
func ExampleProfile() {
	rd, err := leaktext.NewReader(strings.NewReader(report))
	if err != nil {
		log.Fatal(err)
	}
	var p leaktext.Profile
	for rec, err := range rd.All() {
		if err != nil {
			log.Fatal(err)
		}
		p.Add(rec)
	}
	var out bytes.Buffer // or a file: go tool pprof -top leaks.pb.gz
	if err := p.WriteProfile(&out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Len() > 0)
	// Output: true
}
