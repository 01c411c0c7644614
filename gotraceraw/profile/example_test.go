package profile_test

import (
	"bytes"
	"fmt"
	"log"
	"os"

	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/gotraceraw/profile"
)

// Write the scheduler latency profile of a trace, the one go tool trace
// -pprof=sched writes; go tool pprof reads it.
func Example() {
	f, err := os.Open("../testdata/basic.trace")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r, err := parsed.NewReader(f)
	if err != nil {
		log.Fatal(err)
	}
	typ, err := profile.ParseType("sched")
	if err != nil {
		log.Fatal(err)
	}
	p := profile.Profile{Type: typ}
	for ev, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		p.Add(ev)
	}
	var out bytes.Buffer // or a file: go tool pprof -top sched.pb.gz
	if err := p.WriteProfile(&out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Type, out.Len() > 0)
	// Output: sched true
}
