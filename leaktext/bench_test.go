package leaktext

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// body returns a fixture's records after its header line.
func body(t testing.TB, name string) (header, rest []byte) {
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.IndexByte(data, '\n') + 1
	return data[:i], data[i:]
}

// bigReport repeats a real report's records to about size bytes.
func bigReport(t testing.TB, name string, size int) []byte {
	h, b := body(t, name)
	out := append([]byte{}, h...)
	for len(out) < size {
		out = append(out, b...)
	}
	return out
}

// cycle reads a header, then a body again and again, forever.
type cycle struct {
	head, body []byte
	off        int
}

func (c *cycle) Read(p []byte) (int, error) {
	n := 0
	if len(c.head) > 0 {
		n = copy(p, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	for n < len(p) {
		k := copy(p[n:], c.body[c.off:])
		n += k
		c.off = (c.off + k) % len(c.body)
	}
	return n, nil
}

func TestAllocsPerRecord(t *testing.T) {
	for _, name := range []string{"generated-x86_64/multi.txt", "generated-x86_64/cxx.resolved.txt", "upstream-v2.0/context.lc.txt"} {
		h, b := body(t, name)
		rd, err := NewReader(&cycle{head: h, body: b})
		if err != nil {
			t.Fatal(err)
		}
		rd.Strict = true
		for i := 0; i < 10000; i++ { // warm up: buffers reach their size
			if _, err := rd.Read(); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(20000, func() {
			if _, err := rd.Read(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per record", name, allocs)
		}
	}
}

func BenchmarkReader(b *testing.B) {
	for _, name := range []string{"generated-x86_64/multi.txt", "generated-x86_64/cxx.resolved.txt", "upstream-v2.0/context.txt", "upstream-v2.0/context.lc.txt"} {
		data := bigReport(b, name, 32<<20)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			rd := new(Reader)
			r := bytes.NewReader(data)
			recs := 0
			c0 := testutil.CPUTime()
			for i := 0; i < b.N; i++ {
				r.Reset(data)
				if err := rd.Reset(r); err != nil {
					b.Fatal(err)
				}
				for {
					_, err := rd.Read()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					recs++
				}
			}
			b.ReportMetric(float64(recs)/float64(b.N), "records/op")
			if cpu := testutil.CPUTime() - c0; cpu > 0 {
				b.ReportMetric(float64(len(data))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
			}
		})
	}
}

func BenchmarkWriter(b *testing.B) {
	data := bigReport(b, "generated-x86_64/multi.txt", 8<<20)
	h, ptrs := readAll(b, data, false)
	recs := make([]Record, len(ptrs)) // side by side in memory, as a stream's records are
	for i, r := range ptrs {
		recs[i] = *r
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	c0 := testutil.CPUTime()
	for i := 0; i < b.N; i++ {
		w, _ := NewWriter(io.Discard, h)
		for i := range recs {
			if err := w.Write(&recs[i]); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := testutil.CPUTime() - c0; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

func BenchmarkPostProcess(b *testing.B) {
	data := bigReport(b, "upstream-v2.0/context.txt", 4<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := ReadReport(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if err := PostProcess(io.Discard, rep, Options{Leaks: true, Compress: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanLines is the floor the reader is measured against: a
// bufio.Scanner splitting the same input into lines and nothing else.
func BenchmarkScanLines(b *testing.B) {
	for _, name := range []string{"generated-x86_64/multi.txt", "upstream-v2.0/context.txt"} {
		data := bigReport(b, name, 32<<20)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			c0 := testutil.CPUTime()
			for i := 0; i < b.N; i++ {
				sc := bufio.NewScanner(bytes.NewReader(data))
				n := 0
				for sc.Scan() {
					n++
				}
			}
			if cpu := testutil.CPUTime() - c0; cpu > 0 {
				b.ReportMetric(float64(len(data))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
			}
		})
	}
}
