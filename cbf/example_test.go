package cbf_test

import (
	"bytes"
	"fmt"
	"log"
	"runtime"

	"github.com/tracefmt/tracefmt/cbf"
)

// Read every record of a stream: two records back to back, as Swift's
// profiling buffers hold them.
func Example() {
	data := []byte{
		0x02, 0x22, 0x40, 0x13, 0x79, 0x21, 0xfe, 0xce, 0x00, // ra 0x401379, ra 0x401247, end
		0x02, 0x21, 0x10, 0x00, 0x88, 0x09, 0x00, // ra 0x1000, 9 more copies, end
	}
	r, err := cbf.NewReader(bytes.NewReader(data))
	if err != nil {
		log.Fatal(err)
	}
	for rec, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec.Offset, rec.Word, rec.Frames)
	}
	// Output:
	// 0 64-bit [ra 0x401379 ra 0x401247]
	// 9 64-bit [ra 0x1000 rep 9]
}

// Filter and write back: drop every frame in one address range. The
// Writer derives the rep instructions itself, so the two ra 0x1000 frames
// that become neighbours are written as one frame and a rep.
func ExampleWriter() {
	var in bytes.Buffer
	w, err := cbf.NewWriter(&in)
	if err != nil {
		log.Fatal(err)
	}
	err = w.Write(&cbf.Record{Word: cbf.Word64, Frames: []cbf.Frame{
		{Kind: cbf.PC, Addr: 0x1000},
		{Kind: cbf.RA, Addr: 0x7f0000001234},
		{Kind: cbf.PC, Addr: 0x1000},
		{Kind: cbf.Omitted, Count: 40},
		{Kind: cbf.Truncated},
	}})
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("% x\n", in.Bytes())

	r, err := cbf.NewReader(&in)
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	if err := w.Reset(&out); err != nil {
		log.Fatal(err)
	}
	for rec, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		kept := rec.Frames[:0] // the record is ours until the next Read
		for _, f := range rec.Frames {
			if !(f.Kind.HasAddr() && f.Addr >= 0x7f0000000000) {
				kept = append(kept, f)
			}
		}
		rec.Frames = kept
		if err := w.Write(rec); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("% x\n", out.Bytes())
	// Output:
	// 02 11 10 00 25 7f 00 00 00 02 34 19 10 00 60 28 01
	// 02 11 10 00 80 60 28 01
}

// The default Reader yields what Swift's decoder yields for damaged data:
// the frames so far and a Truncated frame; the next Read reports the
// damage. A Strict Reader reports it at once.
func ExampleReader_Strict() {
	data := []byte{0x02, 0x10, 0x10, 0x90, 0x10, 0x20, 0x00} // 90 is a reserved instruction
	r, _ := cbf.NewReader(bytes.NewReader(data))
	rec, err := r.Read()
	fmt.Println(rec.Frames, err)
	_, err = r.Read()
	fmt.Println(err)

	r, _ = cbf.NewReader(bytes.NewReader(data))
	r.Strict = true
	_, err = r.Read()
	fmt.Println(err)
	// Output:
	// [pc 0x10 trunc] <nil>
	// cbf: offset 3: reserved instruction
	// cbf: offset 3: reserved instruction
}

// The text form, as cbfdump prints it, and back.
func ExampleParseFrame() {
	for _, s := range []string{"pc 0x401379", "ra 0x7f00", "omit 12", "rep 3", "trunc"} {
		f, err := cbf.ParseFrame(s)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%v %d %#x %d\n", f, f.Kind, f.Addr, f.Count)
	}
	// Output:
	// pc 0x401379 1 0x401379 0
	// ra 0x7f00 2 0x7f00 0
	// omit 12 4 0x0 12
	// rep 3 5 0x0 3
	// trunc 6 0x0 0
}

// runtime.Callers output to CBF and back.
func ExampleAppendUintptrs() {
	pcs := make([]uintptr, 32)
	pcs = pcs[:runtime.Callers(0, pcs)]
	data, err := cbf.AppendUintptrs(nil, pcs)
	if err != nil {
		log.Fatal(err)
	}
	r, err := cbf.NewReader(bytes.NewReader(data))
	if err != nil {
		log.Fatal(err)
	}
	rec, err := r.Read()
	if err != nil {
		log.Fatal(err)
	}
	frames := runtime.CallersFrames(cbf.Uintptrs(nil, rec.Frames))
	f, _ := frames.Next()
	fmt.Println(f.Function, len(data) < 8*len(pcs))
	// Output:
	// runtime.Callers true
}

// A []uintptr as frames, to write with other records or edit first.
func ExampleFromUintptrs() {
	pcs := []uintptr{0x401379, 0x401247, 0x401247}
	var buf bytes.Buffer
	w, err := cbf.NewWriter(&buf)
	if err != nil {
		log.Fatal(err)
	}
	rec := &cbf.Record{Word: cbf.NativeWord, Frames: cbf.FromUintptrs(nil, cbf.RA, pcs)}
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec.Frames, buf.Len(), "bytes")
	// Output:
	// [ra 0x401379 ra 0x401247 ra 0x401247] 10 bytes
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

// Count backtraces into a pprof profile: one sample per distinct
// backtrace, with the image map as the profile's mappings.
func ExampleProfile() {
	data := []byte{
		0x02, 0x22, 0x40, 0x13, 0x79, 0x21, 0xfe, 0xce, 0x00, // ra 0x401379, ra 0x401247, end
		0x02, 0x22, 0x40, 0x13, 0x79, 0x21, 0xfe, 0xce, 0x00, // the same again
	}
	r, err := cbf.NewReader(bytes.NewReader(data))
	if err != nil {
		log.Fatal(err)
	}
	p := cbf.Profile{Images: &cbf.ImageMap{Platform: "linux", Word: cbf.Word64, Images: []cbf.Image{
		{Base: 0x400000, EndOfText: 0x402000, Path: "/usr/bin/app"},
	}}}
	for rec, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		p.Add(rec)
	}
	var out bytes.Buffer // or a file: go tool pprof -top backtraces.pb.gz
	if err := p.WriteProfile(&out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Len() > 0)
	// Output: true
}
