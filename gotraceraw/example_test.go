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
func Example() {
	f, err := os.Open("testdata/gotest.trace")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r, err := gotraceraw.NewReader(f)
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
	fmt.Println(r.Header().Version, counts[gotraceraw.EvEventBatch], "batches,", counts[gotraceraw.EvEndOfGeneration], "generation")
	// Output: Go1.26 8 batches, 1 generation
}

// Drop the user log events of a trace and write the rest back. The
// Writer computes each batch's size from the events it writes, so the
// result is a valid trace for `go tool trace`.
func Example_filter() {
	in, err := os.ReadFile("testdata/annotations.trace")
	if err != nil {
		log.Fatal(err)
	}
	r, err := gotraceraw.NewReader(bytes.NewReader(in))
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	w, err := gotraceraw.NewWriter(&out, r.Header())
	if err != nil {
		log.Fatal(err)
	}
	dropped := 0
	for ev, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Type == gotraceraw.EvUserLog {
			dropped++
			continue
		}
		if err := w.Write(ev); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil { // writes the last batch
		log.Fatal(err)
	}
	fmt.Printf("dropped %d events, %d bytes to %d\n", dropped, len(in), out.Len())
	// Output: dropped 40 events, 6782 bytes to 6541
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
	w, err := gotraceraw.NewWriter(&out, r.Header())
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
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", out.Bytes())
	// Output: "go 1.26 trace\x00\x00\x00\x01\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xe8\a\x86\x80\x80\x80\x80\x80\x80\x80\x80\x00\x04\x05\x01\x02hi4"
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

// Print events in the text form of `go tool trace -d=wire`. The size of
// the batch is the length of its events on the wire, whatever the event
// says.
func ExampleTextWriter() {
	w, err := gotraceraw.NewTextWriter(os.Stdout, gotraceraw.Header{Version: gotraceraw.Go126})
	if err != nil {
		log.Fatal(err)
	}
	for _, ev := range []*gotraceraw.Event{
		{Type: gotraceraw.EvEventBatch, Args: []uint64{1, 5, 1000, 0}},
		{Type: gotraceraw.EvGoStart, Args: []uint64{3, 17, 1}},
		{Type: gotraceraw.EvUserLog, Args: []uint64{2, 0, 4, 5, 0}},
		{Type: gotraceraw.EvEndOfGeneration},
	} {
		if err := w.Write(ev); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Trace Go1.26
	// EventBatch gen=1 m=5 time=1000 size=10
	// GoStart dt=3 g=17 g_seq=1
	// UserLog dt=2 task=0 key_string=4 value_string=5 stack=0
	// EndOfGeneration
}

// Read the text form, as `go tool trace -d=wire` prints it.
func ExampleTextReader() {
	text := "Trace Go1.26\nEventBatch gen=1 m=5 time=1000 size=4\nGoStart dt=3 g=17 g_seq=1\n"
	r, err := gotraceraw.NewTextReader(strings.NewReader(text))
	if err != nil {
		log.Fatal(err)
	}
	for ev, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		s, _ := ev.Spec()
		fmt.Println(s.Name, s.Args, ev.Args)
	}
	// Output:
	// EventBatch [gen m time size] [1 5 1000 4]
	// GoStart [dt g g_seq] [3 17 1]
}
