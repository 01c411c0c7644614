package cbf_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"runtime"

	"github.com/tracefmt/tracefmt/cbf"
)

// Two records back to back, as Swift's profiling buffers hold them.
func ExampleReader() {
	data := []byte{
		0x02, 0x22, 0x40, 0x13, 0x79, 0x21, 0xfe, 0xce, 0x00, // ra 0x401379, ra 0x401247, end
		0x02, 0x21, 0x10, 0x00, 0x88, 0x09, 0x00, // ra 0x1000, 9 more copies, end
	}
	r := cbf.NewReader(bytes.NewReader(data))
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec.Word, rec.Frames)
	}
	// Output:
	// 64-bit [ra 0x401379 ra 0x401247]
	// 64-bit [ra 0x1000 rep 9]
}

// Swift's encoder: the first frame relative to 0, a negative delta in two
// bytes, a run of equal frames as rep, trunc without end.
func ExampleWriter() {
	var buf bytes.Buffer
	w := cbf.NewWriter(&buf)
	err := w.Write(cbf.Record{Word: cbf.Word64, Frames: []cbf.Frame{
		{Kind: cbf.PC, Addr: 0x401379},
		{Kind: cbf.RA, Addr: 0x401247},
		{Kind: cbf.RA, Addr: 0x401247},
		{Kind: cbf.RA, Addr: 0x401247},
		{Kind: cbf.Omitted, Count: 40},
		{Kind: cbf.Truncated},
	}})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("% x\n", buf.Bytes())
	// Output:
	// 02 12 40 13 79 21 fe ce 81 60 28 01
}

// The Swift-compatible view of damaged data: the frames so far and a
// truncated frame.
func ExampleReader_lenient() {
	r := cbf.NewReader(bytes.NewReader([]byte{0x02, 0x10, 0x10, 0x90, 0x10, 0x20, 0x00}))
	r.Lenient = true
	rec, _ := r.Read()
	fmt.Println(rec.Frames)
	_, err := r.Read()
	fmt.Println(err)
	// Output:
	// [pc 0x10 trunc]
	// cbf: offset 3: reserved instruction
}

// runtime.Callers output to CBF and back.
func ExampleAppendUintptrs() {
	pcs := make([]uintptr, 32)
	pcs = pcs[:runtime.Callers(0, pcs)]
	data, err := cbf.AppendUintptrs(nil, pcs)
	if err != nil {
		log.Fatal(err)
	}
	rec, err := cbf.NewReader(bytes.NewReader(data)).Read()
	if err != nil {
		log.Fatal(err)
	}
	frames := runtime.CallersFrames(cbf.Uintptrs(nil, rec.Frames))
	f, _ := frames.Next()
	fmt.Println(f.Function, len(data) < 8*len(pcs))
	// Output:
	// runtime.Callers true
}

func ExampleImageMap_Lookup() {
	m := cbf.ImageMap{Platform: "linux", Word: cbf.Word64, Images: []cbf.Image{
		{Base: 0x400000, EndOfText: 0x4a0000, Path: "/usr/bin/app"},
		{Base: 0x7f0000000000, EndOfText: 0x7f0000180000, Path: "/usr/lib/x86_64-linux-gnu/libc.so.6"},
	}}
	data, err := cbf.AppendImageMap(nil, m)
	if err != nil {
		log.Fatal(err)
	}
	back, err := cbf.DecodeImageMap(data)
	if err != nil {
		log.Fatal(err)
	}
	if i, ok := back.Lookup(0x7f0000012345); ok {
		fmt.Println(back.Images[i].Name(), len(data))
	}
	// Output:
	// libc.so.6 71
}
