package gotraceraw_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

// Read a binary trace and count its events by type.
func ExampleReader() {
	data, err := os.ReadFile("testdata/gotest.trace")
	if err != nil {
		log.Fatal(err)
	}
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		log.Fatal(err)
	}
	counts := map[gotraceraw.EventType]int{}
	for ev, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		counts[ev.Type]++
	}
	fmt.Println(r.Version(), counts[gotraceraw.EvEventBatch], "batches,", counts[gotraceraw.EvEndOfGeneration], "generation")
	// Output: Go1.26 8 batches, 1 generation
}

// Turn a text trace into the binary form, with the batch lengths padded
// as the runtime pads them.
func ExampleWriter() {
	text := `Trace Go1.26
EventBatch gen=1 m=18446744073709551615 time=1000 size=4
Strings
String id=1
	data="hi"
EndOfGeneration
`
	r, err := gotraceraw.NewTextReader(strings.NewReader(text))
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	w, err := gotraceraw.NewWriter(&out, r.Version())
	if err != nil {
		log.Fatal(err)
	}
	w.PadBatchLengths = true
	for ev, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		if err := w.Write(ev); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", out.Bytes())
	// Output: "go 1.26 trace\x00\x00\x00\x01\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xe8\a\x84\x80\x80\x80\x80\x80\x80\x80\x80\x00\x04\x05\x01\x02hi4"
}

// Ask what an event type is called and what its arguments mean.
func ExampleVersion_Spec() {
	s, ok := gotraceraw.Go125.Spec(gotraceraw.EvUserLog)
	fmt.Println(ok, s.Name, s.Args, "strings at", s.StringArgs, "stack at", s.StackArgs)
	_, ok = gotraceraw.Go122.Spec(gotraceraw.EvGoSwitch)
	fmt.Println(ok)
	t, _ := gotraceraw.Go123.Lookup("HeapObjectAlloc")
	s, _ = gotraceraw.Go123.Spec(t)
	fmt.Println(uint8(t), s.Experiment)
	// Output:
	// true UserLog [dt task key_string value_string stack] strings at [2 3] stack at [4]
	// false
	// 132 AllocFree
}

// Print events in the text form of `go tool trace -d=wire`.
func ExampleTextWriter() {
	w, _ := gotraceraw.NewTextWriter(os.Stdout, gotraceraw.Go126)
	w.Write(&gotraceraw.Event{Type: gotraceraw.EvGoStart, Args: []uint64{3, 17, 1}})
	w.Write(&gotraceraw.Event{Type: gotraceraw.EvString, Args: []uint64{2}, Data: []byte("héllo\x00")})
	w.Flush()
	// Output:
	// Trace Go1.26
	// GoStart dt=3 g=17 g_seq=1
	// String id=2
	// 	data="héllo\x00"
}
