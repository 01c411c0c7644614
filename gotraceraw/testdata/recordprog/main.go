// Command recordprog writes a Go execution trace of a few small workloads
// to the file named by its argument: goroutines and channels, a mutex,
// syscalls, GC, user tasks, regions and logs, deep stacks, CPU samples.
// gotraceraw's tests build and run it, then compare their text form of the
// trace with `go tool trace -d=wire`.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: recordprog all|light OUT.trace")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	channels()
	gc()
	if os.Args[1] == "light" {
		// Several 2 ms generations, and a task that spans them.
		_, task := trace.NewTask(context.Background(), "across")
		time.Sleep(10 * time.Millisecond)
		task.End()
	}
	if os.Args[1] == "all" {
		pprof.StartCPUProfile(io.Discard)
		syscalls()
		annotations()
		deepStacks(0)
		spin()
		pprof.StopCPUProfile()
	}
	trace.Stop()
	if err := f.Close(); err != nil {
		panic(err)
	}
}

func channels() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	ch := make(chan int)
	done := make(chan struct{})
	total := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range ch {
				mu.Lock()
				total += v
				mu.Unlock()
			}
		}()
	}
	go func() {
		t := time.NewTimer(time.Millisecond)
		select {
		case <-t.C:
		case <-done:
		}
	}()
	for i := 0; i < 200; i++ {
		ch <- i
	}
	close(ch)
	wg.Wait()
	close(done)
	time.Sleep(2 * time.Millisecond)
}

var sink [][]byte

func gc() {
	for i := 0; i < 2000; i++ {
		sink = append(sink, make([]byte, 1024+i))
		if len(sink) > 500 {
			sink = nil
		}
	}
	runtime.GC()
}

func syscalls() {
	dir, err := os.MkdirTemp("", "recordprog")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	name := dir + "/f"
	for i := 0; i < 5; i++ {
		if err := os.WriteFile(name, []byte(strings.Repeat("x", 4096)), 0o600); err != nil {
			panic(err)
		}
		if _, err := os.ReadFile(name); err != nil {
			panic(err)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	go func() {
		w.Write([]byte("ping"))
		w.Close()
	}()
	io.ReadAll(r)
	r.Close()
	if path, err := exec.LookPath("true"); err == nil {
		exec.Command(path).Run()
	}
}

func annotations() {
	ctx, task := trace.NewTask(context.Background(), "outer")
	trace.Log(ctx, "key", "value")
	trace.Log(ctx, "", "")
	trace.Log(ctx, "odd", "quote\" backslash\\ nul\x00 bad\xff tab\t héllo 日本語 🚀 \u200b")
	trace.Log(ctx, "long", strings.Repeat("0123456789", 130))
	trace.WithRegion(ctx, "region", func() {
		_, sub := trace.NewTask(ctx, "inner")
		r := trace.StartRegion(ctx, "nested")
		time.Sleep(time.Millisecond)
		r.End()
		sub.End()
	})
	trace.Logf(ctx, "fmt", "%d", 42)
	task.End()
}

func deepStacks(n int) {
	if n < 140 {
		deepStacks(n + 1)
		return
	}
	c := make(chan bool)
	go func() { c <- true }()
	<-c
	runtime.Gosched()
}

// spin burns a fixed amount of CPU time (about 0.1 s), not wall time, so
// the CPU profiler samples it however loaded the machine is.
func spin() {
	x := uint64(1)
	for i := 0; i < 150_000_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	fmt.Fprint(io.Discard, x)
}
