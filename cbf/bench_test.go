package cbf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// Realistic 64-bit backtraces: runtime.Callers of real Go stacks, captured
// at the bottom of recursions through several functions, inside sort,
// encoding/json and fmt callbacks, and on fresh goroutines.

var (
	stacksOnce sync.Once
	stacks     [][]uintptr
)

func capture() {
	pcs := make([]uintptr, 64)
	pcs = pcs[:runtime.Callers(1, pcs)]
	stacks = append(stacks, pcs)
}

//go:noinline
func recA(n int, path string) {
	if n == 0 {
		capture()
		return
	}
	switch path[n%len(path)] {
	case 'a':
		recA(n-1, path)
	case 'b':
		recB(n-1, path)
	default:
		recC(n-1, path)
	}
}

//go:noinline
func recB(n int, path string) { recA(n, path) }

//go:noinline
func recC(n int, path string) {
	if n%3 == 0 {
		recB(n, path)
		return
	}
	recA(n, path)
}

type captureOnMarshal struct{}

func (captureOnMarshal) MarshalJSON() ([]byte, error) { capture(); return []byte("1"), nil }

type captureOnString struct{}

func (captureOnString) String() string { capture(); return "" }

func realStacks() [][]uintptr {
	stacksOnce.Do(func() {
		paths := []string{"a", "ab", "abc", "cab", "bbca", "acbcab"}
		for depth := 1; depth <= 40; depth += 3 {
			for _, p := range paths {
				recA(depth, p)
			}
		}
		for i := 0; i < 5; i++ {
			s := []int{5, 3, 1, 4}
			sort.Slice(s, func(a, b int) bool { capture(); return s[a] < s[b] })
			json.Marshal(map[string]any{"x": []any{captureOnMarshal{}}})
			_ = fmt.Sprint(captureOnString{})
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mu.Lock()
				recA(i*2, "abc")
				mu.Unlock()
			}()
		}
		wg.Wait()
	})
	return stacks
}

// goStacks is realStacks as uint64 addresses.
func goStacks() [][]uint64 {
	var out [][]uint64
	for _, pcs := range realStacks() {
		a := make([]uint64, len(pcs))
		for i, pc := range pcs {
			a[i] = uint64(pc)
		}
		out = append(out, a)
	}
	return out
}

type benchCorpus struct {
	name   string
	stacks [][]uint64
}

// corpora are the benchmark inputs: the Go stacks above and the real
// x86-64 backtraces of testdata/sp-rtrace.
func corpora(tb testing.TB) []benchCorpus {
	var sp [][]uint64
	for _, bts := range spRtraceBacktraces(tb) {
		sp = append(sp, bts...)
	}
	return []benchCorpus{{"gostacks", goStacks()}, {"sp-rtrace", sp}}
}

// corpus concatenates records of the real Go stacks until it holds at
// least size bytes; it returns the data, the record count and the frame
// count.
func corpus(tb testing.TB, size int) ([]byte, int, int) {
	return corpusOf(tb, goStacks(), size)
}

func corpusOf(tb testing.TB, stacks [][]uint64, size int) ([]byte, int, int) {
	var data []byte
	recs, frames := 0, 0
	for len(data) < size {
		for _, st := range stacks {
			var err error
			if data, err = AppendAddrs(data, Word64, RA, st); err != nil {
				tb.Fatal(err)
			}
			recs++
			frames += len(st)
		}
	}
	return data, recs, frames
}

func BenchmarkReader(b *testing.B) {
	for _, c := range corpora(b) {
		b.Run(c.name, func(b *testing.B) { benchReader(b, c.stacks) })
	}
}

func benchReader(b *testing.B, stacks [][]uint64) {
	data, recs, frames := corpusOf(b, stacks, 1<<20)
	for _, mode := range []struct {
		name  string
		drain func(*Reader) error
	}{{"Read", drainRead}, {"Frame", drainFrames}} {
		b.Run(mode.name, func(b *testing.B) {
			r := new(Reader)
			br := bytes.NewReader(data)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			start := testutil.CPUTime()
			for i := 0; i < b.N; i++ {
				br.Reset(data)
				r.Reset(br)
				if err := mode.drain(r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames)/float64(b.N), "ns/frame")
			b.ReportMetric(float64(len(data))/float64(frames), "bytes/frame")
			b.ReportMetric(float64(recs), "records/op")
			cpuMBs(b, start, len(data))
		})
	}
}

// drainRead reads every record with Read.
func drainRead(r *Reader) error {
	for {
		if _, err := r.Read(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// drainFrames reads every record with Next and Frame.
func drainFrames(r *Reader) error {
	for {
		if _, err := r.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		for {
			if _, err := r.Frame(); err != nil {
				if err != io.EOF {
					return err
				}
				break
			}
		}
	}
}

func BenchmarkWriter(b *testing.B) {
	for _, c := range corpora(b) {
		b.Run(c.name, func(b *testing.B) { benchWriter(b, c.stacks) })
	}
}

func benchWriter(b *testing.B, stacks [][]uint64) {
	data, _, frames := corpusOf(b, stacks, 1<<20)
	var recsIn []*Record
	for _, st := range stacks {
		recsIn = append(recsIn, &Record{Word: Word64, Frames: FromAddrs(nil, RA, st)})
	}
	reps := frames / countFrames(recsIn)
	b.Run("Writer", func(b *testing.B) {
		w := openWriter(io.Discard)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		start := testutil.CPUTime()
		for i := 0; i < b.N; i++ {
			for range reps {
				for _, rec := range recsIn {
					if err := w.Write(rec); err != nil {
						b.Fatal(err)
					}
				}
			}
			w.Flush()
		}
		cpuMBs(b, start, len(data))
	})
	b.Run("AppendAddrs", func(b *testing.B) {
		buf := make([]byte, 0, 2*len(data))
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		start := testutil.CPUTime()
		for i := 0; i < b.N; i++ {
			buf = buf[:0]
			for range reps {
				for _, st := range stacks {
					buf, _ = AppendAddrs(buf, Word64, RA, st)
				}
			}
		}
		cpuMBs(b, start, len(data))
	})
}

// cpuMBs reports the throughput against the CPU time used since start.
func cpuMBs(b *testing.B, start time.Duration, bytes int) {
	if d := testutil.CPUTime() - start; d > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
	}
}

func countFrames(recs []*Record) int {
	n := 0
	for _, r := range recs {
		n += len(r.Frames)
	}
	return n
}

// TestBytesPerFrame logs the size of the real Go stacks in CBF against
// 8-byte words; it fails only if CBF were larger than raw words.
func TestBytesPerFrame(t *testing.T) {
	data, recs, frames := corpus(t, 1)
	t.Logf("runtime.Callers: %d records, %d frames, %d bytes: %.2f bytes/frame, %.3f of 8-byte words",
		recs, frames, len(data), float64(len(data))/float64(frames), float64(len(data))/float64(8*frames))
	if len(data) >= 8*frames {
		t.Errorf("CBF %d bytes for %d frames", len(data), frames)
	}
	_ = strings.Repeat
}
