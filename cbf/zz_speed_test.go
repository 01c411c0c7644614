package cbf

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"
)

func TestZZSpeed(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	for _, c := range corpora(t) {
		data, _, _ := corpusOf(t, c.stacks, 1<<20)
		for _, mode := range []struct {
			name  string
			drain func(*Reader) error
		}{{"Read", drainRead}, {"Frame", drainFrames}} {
			r := NewReader(nil)
			br := bytes.NewReader(data)
			var ds []float64
			for i := 0; i < 400; i++ {
				br.Reset(data)
				r.Reset(br)
				t0 := time.Now()
				if err := mode.drain(r); err != nil {
					t.Fatal(err)
				}
				ds = append(ds, float64(len(data))/time.Since(t0).Seconds()/1e6)
			}
			sort.Float64s(ds)
			fmt.Printf("%s %s/%s max %.0f p90 %.0f p50 %.0f\n", os.Getenv("ZZ"), c.name, mode.name, ds[len(ds)-1], ds[len(ds)*9/10], ds[len(ds)/2])
		}
	}
}
