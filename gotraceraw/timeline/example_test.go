package timeline_test

import (
	"bytes"
	"fmt"
	"log"
	"os"

	"github.com/tracefmt/tracefmt/gotraceraw/parsed"
	"github.com/tracefmt/tracefmt/gotraceraw/timeline"
)

// Write a trace's timeline, for Perfetto's UI or chrome://tracing.
func Example() {
	f, err := os.Open("../testdata/annotations.trace")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r, err := parsed.NewReader(f)
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer // or a file to open in ui.perfetto.dev
	w, err := timeline.NewWriter(&out)
	if err != nil {
		log.Fatal(err)
	}
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
	fmt.Println(bytes.Contains(out.Bytes(), []byte(`"name":"outer region","ph":"B"`)))
	// Output: true
}
