package leaktext_test

import (
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

func ExampleReader() {
	rd, err := leaktext.NewReader(strings.NewReader(report))
	if err != nil {
		log.Fatal(err)
	}
	process, _ := rd.Header.Get(leaktext.KeyProcess)
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

func ExampleWriter() {
	var out strings.Builder
	w, err := leaktext.NewWriter(&out, leaktext.Header{Fields: []leaktext.Field{{Key: "version", Value: "2.0"}, {Key: "pid", Value: "7"}}})
	if err != nil {
		log.Fatal(err)
	}
	w.Write(leaktext.Record{Kind: leaktext.KindCall, Call: leaktext.Call{
		Index: 1, HasTime: true, Time: 1234, Func: []byte("open"), Type: []byte("fd"), Size: 1, ID: 4,
		Args:   []leaktext.Arg{{Name: []byte("path"), Value: []byte("/dev/null")}},
		Frames: []leaktext.Frame{{Addr: 0x401000, Resolved: []byte("main() at demo.c:3")}},
	}})
	w.Write(leaktext.Record{Kind: leaktext.KindBlank})
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.SplitAfter(out.String(), "\n") {
		fmt.Printf("%q\n", line)
	}
	// Output:
	// "version=2.0, pid=7, \n"
	// "1. [00:00:01.234] open<fd>(1) = 0x4\n"
	// "\t$path = /dev/null\n"
	// "\t0x401000 main() at demo.c:3\n"
	// "\n"
	// ""
}

// Example computes leaks as sp-rtrace-postproc -lc does.
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
	if err := leaktext.PostProcess(io.Discard, rep, leaktext.Options{Leaks: true, Compress: true}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// memory: 1 block(s), 64 bytes
	// 1 call(s), 64 bytes, from /opt/demo/demo+0x208
}
