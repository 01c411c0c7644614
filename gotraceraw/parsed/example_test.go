package parsed_test

import (
	"fmt"
	"log"
	"os"

	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
)

// Count goroutine blocking reasons, the way a blocking profile starts.
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
	blocked := map[string]int{}
	for ev, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Kind != parsed.KindStateTransition {
			continue
		}
		st := ev.StateTransition()
		if _, to := st.Goroutine(); to == parsed.GoWaiting {
			blocked[st.Reason]++
		}
	}
	fmt.Println("chan receive:", blocked["chan receive"] > 0)
	// Output: chan receive: true
}
