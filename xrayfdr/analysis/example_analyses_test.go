package analysis_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/tracefmt/tracefmt/xrayfdr/analysis"
	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
)

// Per-function call counts and latencies, as llvm-xray account prints
// them, named from the binary.
func ExampleAccount() {
	data, err := os.ReadFile("testdata/analyses/st.xray")
	if err != nil {
		log.Fatal(err)
	}
	m, err := instrmap.Open("testdata/analyses/prog")
	if err != nil {
		log.Fatal(err)
	}
	a := &analysis.Account{DeduceSiblingCalls: true}
	if err := a.Read(data); err != nil {
		log.Fatal(err)
	}
	for _, s := range a.Stats() {
		if s.Count > 20 {
			fmt.Println(m.Name(s.FuncID, true), s.Count)
		}
	}
	// a.WriteText(os.Stdout, m, analysis.AccountFormat{Sort: "sum", Descending: true})
	// prints llvm-xray's table.

	// Unordered output:
	// calc::leaf(int) 59
	// calc::mid(int) 25
	// calc::fib(int) 105
}

// Call counts per stack in the folded format flamegraph.pl and
// speedscope read (with time, leave Count out).
func ExampleStacks_WriteFoldedSelf() {
	data, err := os.ReadFile("testdata/analyses/st.xray")
	if err != nil {
		log.Fatal(err)
	}
	m, err := instrmap.Open("testdata/analyses/prog")
	if err != nil {
		log.Fatal(err)
	}
	s := &analysis.Stacks{}
	if err := s.Read(data); err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	if err := s.WriteFoldedSelf(&out, m, analysis.StackFormat{AggregateThreads: true, Count: true}); err != nil {
		log.Fatal(err)
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "work(int, int);calc::mid") {
			fmt.Println(l)
		}
	}
	// Output:
	// work(int, int);calc::mid(int) 25
	// work(int, int);calc::mid(int);calc::leaf(int) 50
}

// A pprof profile for go tool pprof.
func ExampleProfile() {
	data, err := os.ReadFile("testdata/analyses/mt.xray")
	if err != nil {
		log.Fatal(err)
	}
	p := &analysis.Profile{DeduceSiblingCalls: true, KeepGoing: true}
	if err := p.Read(data); err != nil {
		log.Fatal(err)
	}
	f, err := os.CreateTemp("", "*.pb.gz")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(f.Name())
	if err := p.WriteProfile(f, nil); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	// go tool pprof -top FILE
}
