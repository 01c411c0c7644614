package gorecord

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw"
)

const tiny = `package main

import (
	"os"
	"runtime/trace"
)

func main() {
	f, err := os.Create(os.Args[len(os.Args)-1])
	if err != nil {
		panic(err)
	}
	trace.Start(f)
	done := make(chan bool)
	go func() { done <- true }()
	<-done
	trace.Stop()
	if err := f.Close(); err != nil {
		panic(err)
	}
}
`

// TestToolchains records with every toolchain: each trace has the header
// of its Go version, and asking again gives the cached trace.
func TestToolchains(t *testing.T) {
	if testing.Short() {
		t.Skip("records traces with several toolchains")
	}
	for _, tc := range Toolchains {
		t.Run(tc, func(t *testing.T) {
			v := Version(t, tc)
			m := regexp.MustCompile(`^go1\.(\d+)`).FindStringSubmatch(v)
			if m == nil {
				t.Skipf("go version %q is not a release", v)
			}
			minor, _ := strconv.Atoi(m[1])
			if minor == 24 {
				minor = 23 // Go 1.24 writes the Go1.23 format
			}
			data := Record(t, tc, Prog{Source: tiny})
			want := fmt.Sprintf("go 1.%d trace\x00\x00\x00", minor)
			if len(data) < 100 || string(data[:16]) != want {
				t.Fatalf("%d bytes starting %q, want a trace starting %q", len(data), data[:min(16, len(data))], want)
			}
			if again := Record(t, tc, Prog{Source: tiny}); &again[0] != &data[0] {
				t.Errorf("the same recording was made twice")
			}
			if out, err := Command(t, tc, "version").Output(); err != nil || !bytes.Contains(out, []byte(v+" ")) {
				t.Errorf("go version with %s: %q, %v", tc, out, err)
			}
		})
	}
}

// TestWorkload records the module's own program, with arguments and an
// environment.
func TestWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("records a trace")
	}
	light := Record(t, Local, Workload("light"))
	alloc := Record(t, Local, Prog{Dir: Workload("light").Dir, Args: []string{"light"}, Env: []string{"GODEBUG=traceallocfree=1"}})
	if n := count(t, light, gotraceraw.EvHeapObjectAlloc); n != 0 {
		t.Errorf("%d HeapObjectAlloc events without traceallocfree", n)
	}
	if n := count(t, alloc, gotraceraw.EvHeapObjectAlloc); n == 0 {
		t.Errorf("no HeapObjectAlloc event with traceallocfree=1")
	}
	file := RecordFile(t, Local, Workload("light"))
	if file == "" {
		t.Fatal("no file")
	}
	if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, light) {
		t.Errorf("RecordFile's file holds %d bytes (%v), not the %d of the same recording", len(got), err, len(light))
	}
}

// count returns how many events of type typ the trace holds.
func count(t *testing.T, data []byte, typ gotraceraw.EventType) int {
	t.Helper()
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for e, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if e.Type == typ {
			n++
		}
	}
	return n
}
