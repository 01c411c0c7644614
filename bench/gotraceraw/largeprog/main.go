// Command largeprog writes a large Go execution trace (about five million
// raw events) to the file named by its argument: goroutine pairs playing
// ping-pong over channels, with a user region now and then, the mix of
// events that dominates real traces (GoUnblock, GoStart, GoBlock).
// bench/gotraceraw/compare.sh runs it; the trace is never committed. The
// defaults (64 pairs) keep goroutine IDs and sequence numbers at two-byte
// varints, as in real traces of busy programs.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"sync"
)

func main() {
	rounds := flag.Int("rounds", 12500, "ping-pong round trips per pair")
	pairs := flag.Int("pairs", 64, "goroutine pairs")
	cpu := flag.Bool("cpu", false, "profile the CPU meanwhile, so that the trace holds CPU samples")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: largeprog [-rounds N] [-pairs N] [-cpu] OUT.trace")
		os.Exit(2)
	}
	if *cpu {
		// The profile itself is not wanted: the trace records its samples.
		if err := pprof.StartCPUProfile(io.Discard); err != nil {
			panic(err)
		}
		defer pprof.StopCPUProfile()
	}
	f, err := os.Create(flag.Arg(0))
	if err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for p := 0; p < *pairs; p++ {
		ping, pong := make(chan int), make(chan int)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for v := range ping {
				pong <- v + 1
			}
			close(pong)
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < *rounds; i++ {
				if i%64 == 0 {
					trace.WithRegion(ctx, "batch", func() {
						ping <- i
						<-pong
					})
					continue
				}
				ping <- i
				<-pong
			}
			close(ping)
			for range pong {
			}
		}()
	}
	wg.Wait()
	trace.Stop()
	if err := f.Close(); err != nil {
		panic(err)
	}
}
