package xrayfdr_test

import (
	"bytes"
	"fmt"
	"os"

	"github.com/tracefmt/tracefmt/xrayfdr"
)

func ExampleReader() {
	f, err := os.Open("testdata/synthetic-v3.xray")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	rd, err := xrayfdr.NewReader(f)
	if err != nil {
		panic(err)
	}
	h := rd.Header()
	fmt.Printf("FDR version %d, %d Hz\n", h.Version, h.CycleFrequency)
	n := 0
	for rec, err := range rd.All() {
		if err != nil {
			panic(err)
		}
		if n < 6 {
			fmt.Printf("%s\n", xrayfdr.AppendText(nil, h.Version, rec))
		}
		n++
	}
	fmt.Println(n, "records")
	// Output:
	// FDR version 3, 3000000000 Hz
	// <Buffer: size = 200 bytes>
	// <Thread ID: 1000>
	// <Wall Time: seconds = 77.123456>
	// <PID: 4242>
	// <CPU: id = 3, tsc = 5000000>
	// <Function Enter: #1 delta = +0>
	// 32 records
}

func ExampleWriter() {
	var buf bytes.Buffer
	w, err := xrayfdr.NewWriter(&buf, xrayfdr.Header{Version: 5, Type: xrayfdr.TypeFDR, Flags: 3, CycleFrequency: 1e9})
	if err != nil {
		panic(err)
	}
	err = w.WriteBuffer([]xrayfdr.Record{
		{Kind: xrayfdr.KindNewBuffer, TID: 7},
		{Kind: xrayfdr.KindWallTime, Seconds: 12, Micros: 34},
		{Kind: xrayfdr.KindPid, PID: 99},
		{Kind: xrayfdr.KindNewCPU, CPU: 1, TSC: 1000},
		{Kind: xrayfdr.KindFunction, Action: xrayfdr.EnterArg, FuncID: 3},
		{Kind: xrayfdr.KindCallArg, Arg: 42},
		{Kind: xrayfdr.KindCustomEvent, Delta: 5, Data: []byte("hello")},
		{Kind: xrayfdr.KindFunction, Action: xrayfdr.Exit, FuncID: 3, Delta: 20},
	})
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		panic(err)
	}
	if err := xrayfdr.Dump(os.Stdout, &buf); err != nil {
		panic(err)
	}
	// Output:
	// <Buffer: size = 117 bytes>
	// <Thread ID: 7>
	// <Wall Time: seconds = 12.000034>
	// <PID: 99>
	// <CPU: id = 1, tsc = 1000>
	// <Function Enter With Arg: #3 delta = +0>
	// <Call Argument: data = 42 (hex = 0x2a)>
	// <Custom Event: delta = +5, size = 5, data = 'hello'>
	// <Function Exit: #3 delta = +20>
}

// Example_filter drops the records of one function from a log and writes
// the rest back: the Writer rewrites each buffer's extents to what
// remains.
func Example_filter() {
	in, err := os.ReadFile("testdata/synthetic-v5.xray")
	if err != nil {
		panic(err)
	}
	rd, err := xrayfdr.NewReader(bytes.NewReader(in))
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	w, err := xrayfdr.NewWriter(&out, rd.Header())
	if err != nil {
		panic(err)
	}
	for rec, err := range rd.All() {
		if err != nil {
			panic(err)
		}
		if rec.Kind == xrayfdr.KindFunction && rec.FuncID == 2 {
			continue // drop function 2's entries and exits
		}
		if err := w.Write(rec); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	fmt.Println(len(in), "bytes in,", out.Len(), "bytes out; verifies:", xrayfdr.Verify(out.Bytes()) == nil)
	// Output:
	// 506 bytes in, 474 bytes out; verifies: true
}

// ExampleDump prints a log as llvm-xray fdr-dump does.
func ExampleDump() {
	f, err := os.Open("testdata/synthetic-v1.xray")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	var text bytes.Buffer
	if err := xrayfdr.Dump(&text, f); err != nil {
		panic(err)
	}
	lines := bytes.SplitAfter(text.Bytes(), []byte("\n"))
	fmt.Printf("%s", bytes.Join(lines[:4], nil))
	// Output:
	// <Thread ID: 1000>
	// <Wall Time: seconds = 77.123456>
	// <CPU: id = 3, tsc = 5000000>
	// <Function Enter: #1 delta = +0>
}

func ExampleExpand() {
	data, err := os.ReadFile("testdata/fdr_typed.xray")
	if err != nil {
		panic(err)
	}
	t, err := xrayfdr.Expand(data, true)
	if err != nil {
		panic(err)
	}
	for _, e := range t.Events[:5] {
		fmt.Printf("%-14s func %d tsc +%d %q\n", e.Kind, e.FuncID, e.TSC-t.Events[0].TSC, t.Data(&e))
	}
	// Output:
	// function-enter func 3 tsc +0 ""
	// function-exit  func 3 tsc +4280 ""
	// function-enter func 1 tsc +4675 ""
	// typed-event    func 1 tsc +5180 "typed payload"
	// function-exit  func 1 tsc +5553 ""
}
