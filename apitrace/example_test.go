package apitrace_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/tracefmt/tracefmt/apitrace"
)

// Read the calls of a trace, in the order apitrace dump prints them.
func ExampleCallReader() {
	f, err := os.Open("testdata/incomplete-call.trace")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	cr, err := apitrace.NewCallReader(f)
	if err != nil {
		log.Fatal(err)
	}
	h := cr.Header()
	fmt.Println("version", h.Version, h.Container)
	for {
		call, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(call.No, call.Name(), len(call.Args), "args, incomplete:", call.Incomplete)
	}
	// Output:
	// version 2 snappy
	// 0 glXQueryExtension 3 args, incomplete: false
	// 1 glXChooseFBConfig 4 args, incomplete: false
	// 2 glXGetVisualFromFBConfig 2 args, incomplete: false
	// 3 glXCreateNewContext 5 args, incomplete: false
	// 4 glXIsDirect 2 args, incomplete: false
	// 5 glXMakeContextCurrent 4 args, incomplete: false
	// 6 glXMakeContextCurrent 4 args, incomplete: false
	// 7 glGetIntegerv 2 args, incomplete: true
}

// Read every event of a trace: enters and leaves, as the tracer wrote them.
func ExampleReader() {
	f, err := os.Open("testdata/tri.trim.trace")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r, err := apitrace.NewReader(f)
	if err != nil {
		log.Fatal(err)
	}
	enters, leaves := 0, 0
	for ev, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Kind == apitrace.Enter {
			enters++
		} else {
			leaves++
		}
	}
	fmt.Println(enters, "enters,", leaves, "leaves")
	// Output:
	// 21 enters, 21 leaves
}

// Read the calls of a trace, keep some and write them to a new trace, in
// the same container: the new trace holds exactly the calls kept, numbered
// from 0, as apitrace dump would print them.
func ExampleCallWriter() {
	f, err := os.Open("testdata/glxsimple.trace")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	cr, err := apitrace.NewCallReader(f)
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	w, err := apitrace.NewCallWriter(&out, cr.Header())
	if err != nil {
		log.Fatal(err)
	}
	for call, err := range cr.All() {
		if err != nil {
			log.Fatal(err)
		}
		if call.Name() != "glXSwapBuffers" {
			continue // keep the frame ends only
		}
		if err := w.Write(call); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	// Print the new trace as apitrace dump does.
	d := apitrace.NewDumper(os.Stdout, apitrace.DumpOptions{NoMultiline: true})
	if err := d.Trace(&out); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 0 glXSwapBuffers(dpy = 0x236a280, drawable = 41943041)
	// 1 glXSwapBuffers(dpy = 0x236a280, drawable = 41943041)
	// 2 glXSwapBuffers(dpy = 0x236a280, drawable = 41943041)
	// 3 glXSwapBuffers(dpy = 0x236a280, drawable = 41943041)
	// 4 glXSwapBuffers(dpy = 0x236a280, drawable = 41943041)
	// 5 glXSwapBuffers(dpy = 0x236a280, drawable = 41943041)
}

// Write a small trace by hand, then read it back.
func ExampleWriter() {
	var buf bytes.Buffer
	w, err := apitrace.NewWriter(&buf, apitrace.Header{Version: 6, SemanticVersion: 6,
		Properties: []apitrace.Property{{Name: "process.name", Value: "/usr/bin/demo"}}})
	if err != nil {
		log.Fatal(err)
	}
	clear := &apitrace.FunctionSig{ID: 4, Name: "glClearColor", ArgNames: []string{"red", "green", "blue", "alpha"}}
	getErr := &apitrace.FunctionSig{ID: 5, Name: "glGetError"}
	// An enter's Call names the call for its leave; the Writer numbers
	// the calls in the order it writes them.
	events := []apitrace.Event{
		{Kind: apitrace.Enter, Call: 0, Sig: clear, Args: []apitrace.Arg{
			{Index: 0, Value: apitrace.Float32(0.5)}, {Index: 1, Value: apitrace.Float32(0)},
			{Index: 2, Value: apitrace.Float32(1)}, {Index: 3, Value: apitrace.Float32(1)}}},
		{Kind: apitrace.Leave, Call: 0},
		{Kind: apitrace.Enter, Call: 1, Sig: getErr},
		{Kind: apitrace.Leave, Call: 1, Ret: apitrace.Uint(0)},
	}
	for i := range events {
		if err := w.Write(&events[i]); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	cr, err := apitrace.NewCallReader(&buf)
	if err != nil {
		log.Fatal(err)
	}
	for call, err := range cr.All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(call.No, " ", call.Name(), "(")
		for i, a := range call.Args {
			if i > 0 {
				fmt.Print(", ")
			}
			fmt.Print(call.Sig.ArgNames[i], " = ", a.Float32())
		}
		fmt.Print(")")
		if call.Ret.Kind() != apitrace.KindNone {
			fmt.Print(" = ", call.Ret.Uint())
		}
		fmt.Println()
	}
	// Output:
	// 0 glClearColor(red = 0.5, green = 0, blue = 1, alpha = 1)
	// 1 glGetError() = 0
}

// Index the frames of a trace, then jump to one.
func ExampleCallReader_Index() {
	f, err := os.Open("testdata/glxsimple.trace")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	cr, err := apitrace.NewCallReader(f)
	if err != nil {
		log.Fatal(err)
	}
	idx, err := cr.Index()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(idx.Calls, "calls,", len(idx.Frames), "frames")
	if err := cr.SeekFrame(idx, 1); err != nil {
		log.Fatal(err)
	}
	call, err := cr.Read()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("frame 1 starts with call", call.No, call.Name())
	// Output:
	// 922 calls, 7 frames
	// frame 1 starts with call 844 glCreateShader
}

// Count the calls of a trace into a pprof profile: per function, and per
// backtrace where the trace records them.
func ExampleProfile() {
	f, err := os.Open("testdata/glxinfo-brief-backtrace.trace")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	cr, err := apitrace.NewCallReader(f)
	if err != nil {
		log.Fatal(err)
	}
	var p apitrace.Profile
	calls := 0
	for call, err := range cr.All() {
		if err != nil {
			log.Fatal(err)
		}
		p.Add(call)
		calls++
	}
	var out bytes.Buffer // or a file: go tool pprof -top calls.pb.gz
	if err := p.WriteProfile(&out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(calls, "calls")
	// Output: 571 calls
}

// Build values of every shape for a Writer, and read them back through
// their methods, as a Reader's values are read.
func ExampleValue() {
	visual := &apitrace.StructSig{ID: 1, Name: "XVisualInfo", Members: []string{"visualid", "depth"}}
	mode := &apitrace.EnumSig{ID: 2, Values: []apitrace.EnumValue{{Name: "GL_TRIANGLES", Value: 4}}}
	args := []apitrace.Value{
		apitrace.Array(apitrace.Uint(1), apitrace.Int(-2), apitrace.Float32(0.5)),
		apitrace.Struct(visual, apitrace.Uint(33), apitrace.Uint(24)),
		apitrace.Enum(mode, 4),
		apitrace.String([]byte("void main() {}")),
	}
	var walk func(v apitrace.Value, depth int)
	walk = func(v apitrace.Value, depth int) {
		fmt.Printf("%*s%v", 2*depth, "", v.Kind())
		switch v.Kind() {
		case apitrace.KindUInt, apitrace.KindSInt:
			fmt.Print(" ", v.Int())
		case apitrace.KindFloat:
			fmt.Print(" ", v.Float32())
		case apitrace.KindString:
			fmt.Printf(" %q", v.Bytes())
		case apitrace.KindEnum:
			fmt.Print(" ", v) // the name of its value, as apitrace dump prints it
		case apitrace.KindStruct:
			fmt.Print(" ", v.Struct().Name)
		}
		fmt.Println()
		for _, e := range v.Elems() {
			walk(e, depth+1)
		}
	}
	for _, v := range args {
		walk(v, 0)
	}
	fmt.Println(args[0], args[1]) // as apitrace dump prints them
	// Output:
	// array
	//   uint 1
	//   sint -2
	//   float 0.5
	// struct XVisualInfo
	//   uint 33
	//   uint 24
	// enum GL_TRIANGLES
	// string "void main() {}"
	// {1, -2, 0.5} {visualid = 33, depth = 24}
}
