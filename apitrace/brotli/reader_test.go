package brotli_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tracefmt/tracefmt/apitrace/brotli"
	"github.com/tracefmt/tracefmt/apitrace/snappy"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// corpus returns a small corpus of real files, each cut to at most 96
// KiB: Go source text, part of a binary, the decompressed stream of a
// real apitrace trace, and random bytes.
func corpus(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	goroot := runtime.GOROOT()
	add := func(name, path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Logf("corpus: %v", err)
			return
		}
		out[name] = b[:min(len(b), 96<<10)]
	}
	add("text", filepath.Join(goroot, "src", "net", "http", "server.go"))
	add("binary", filepath.Join(goroot, "bin", "gofmt"))
	out["apitrace"] = traceStream(t, testutil.SharedFixture(t, "apitrace/glxinfo-brief.trace"))[:96<<10]
	// Incompressible bytes, which the brotli command stores in
	// uncompressed meta-blocks.
	rnd := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 40<<10)
	for i := range noise {
		noise[i] = byte(rnd.Uint32())
	}
	out["random"] = noise
	if len(out) < 4 {
		t.Fatal("corpus incomplete")
	}
	return out
}

// traceStream returns the decompressed stream of an apitrace snappy
// trace.
func traceStream(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("at")) {
		t.Fatalf("%s: not a snappy trace (%v)", path, err)
	}
	var raw []byte
	for rest := data[2:]; len(rest) >= 4; {
		n := int(rest[0]) | int(rest[1])<<8 | int(rest[2])<<16 | int(rest[3])<<24
		if n == 0 || n > len(rest)-4 {
			break
		}
		d, err := snappy.Decode(nil, rest[4:4+n], 0)
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, d...)
		rest = rest[4+n:]
	}
	return raw
}

// compress runs the brotli command.
func compress(t testing.TB, tool string, raw []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(tool, append([]string{"-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(raw)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("brotli %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out.Bytes()
}

func decode(r io.Reader) ([]byte, error) {
	return io.ReadAll(brotli.NewReader(r))
}

// TestBrotliCommand decodes what the brotli command writes at every
// quality and window size, byte for byte (with -short, windows 10 and 24
// only).
func TestBrotliCommand(t *testing.T) {
	tool := testutil.Tool(t, "brotli")
	files := corpus(t)
	for name, raw := range files {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for q := 0; q <= 11; q++ {
				for w := 10; w <= 24; w++ {
					if testing.Short() && w != 10 && w != 24 {
						continue
					}
					comp := compress(t, tool, raw, "-q", fmt.Sprint(q), "-w", fmt.Sprint(w))
					got, err := decode(bytes.NewReader(comp))
					if err != nil || !bytes.Equal(got, raw) {
						t.Errorf("-q %d -w %d: %v; %d bytes of %d, first difference at %d", q, w, err, len(got), len(raw), firstDiff(got, raw))
					}
				}
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestSmallReads reads through a one-byte source into one-byte and odd
// sized buffers: the output may not depend on how it is read.
func TestSmallReads(t *testing.T) {
	tool := testutil.Tool(t, "brotli")
	raw := corpus(t)["text"]
	for _, q := range []string{"1", "11"} {
		comp := compress(t, tool, raw, "-q", q, "-w", "10")
		got, err := decode(iotest.OneByteReader(bytes.NewReader(comp)))
		if err != nil || !bytes.Equal(got, raw) {
			t.Errorf("q%s, one-byte source: %v", q, err)
		}
		for _, size := range []int{1, 7, 1000} {
			zr := brotli.NewReader(bytes.NewReader(comp))
			var out []byte
			buf := make([]byte, size)
			for {
				n, err := zr.Read(buf)
				out = append(out, buf[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("q%s, reads of %d: %v", q, size, err)
				}
			}
			if !bytes.Equal(out, raw) {
				t.Errorf("q%s, reads of %d: output differs at %d", q, size, firstDiff(out, raw))
			}
		}
	}
}

// TestApitraceRepack decodes the trace `apitrace repack --brotli` wrote:
// its stream is the snappy original's.
func TestApitraceRepack(t *testing.T) {
	want := traceStream(t, testutil.SharedFixture(t, "apitrace/glxinfo-brief.trace"))
	comp, err := os.ReadFile(testutil.SharedFixture(t, "apitrace/glxinfo-brief.brotli.trace"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decode(bytes.NewReader(comp))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%v; %d bytes of %d, first difference at %d", err, len(got), len(want), firstDiff(got, want))
	}
}

// TestTruncation cuts real streams at every byte: each cut must end with
// an error wrapping io.ErrUnexpectedEOF at an offset within the input,
// and what was returned before it must be a prefix of the output.
func TestTruncation(t *testing.T) {
	tool := testutil.Tool(t, "brotli")
	files := corpus(t)
	for _, c := range []struct {
		raw  []byte
		args []string
	}{
		{files["text"][:6000], []string{"-q", "11", "-w", "24"}},
		{files["text"][:6000], []string{"-q", "1", "-w", "10"}},
		{files["random"][:2500], []string{"-q", "0"}}, // uncompressed meta-blocks
	} {
		raw, comp := c.raw, compress(t, tool, c.raw, c.args...)
		testutil.CheckTruncations(t, comp, func(r io.Reader) error {
			got, err := decode(r)
			if !bytes.HasPrefix(raw, got) {
				return fmt.Errorf("output is no prefix of the stream's (%v)", err)
			}
			return err
		}, testutil.TruncOptions{
			Boundary: func(n int) bool { return n == len(comp) },
			Offset: func(err error) (int64, bool) {
				var fe *brotli.FormatError
				if errors.As(err, &fe) {
					return fe.Offset, true
				}
				return 0, false
			},
		})
	}
}

// TestZeroValue calls every method of a zero Reader and FormatError.
func TestZeroValue(t *testing.T) {
	testutil.CheckZeroValue(t, new(brotli.Reader))
	testutil.CheckZeroValue(t, new(brotli.FormatError), "Unwrap")
	var z brotli.Reader
	if _, err := z.Read(make([]byte, 8)); !errors.Is(err, brotli.ErrNotOpen) {
		t.Errorf("Read on a zero Reader: %v", err)
	}
	if err := z.Reset(bytes.NewReader([]byte{0x06})); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(&z); err != nil || len(b) != 0 {
		t.Errorf("empty stream after Reset: %q, %v", b, err)
	}
}

// TestAllocs checks that a Reader reused with Reset decodes a stream
// without allocating.
func TestAllocs(t *testing.T) {
	tool := testutil.Tool(t, "brotli")
	raw := corpus(t)["apitrace"]
	comp := compress(t, tool, raw, "-q", "11", "-w", "24")
	src := bytes.NewReader(comp)
	zr := brotli.NewReader(src)
	buf := make([]byte, 4096)
	run := func() {
		src.Reset(comp)
		zr.Reset(src)
		for {
			if _, err := zr.Read(buf); err == io.EOF {
				return
			} else if err != nil {
				t.Fatal(err)
			}
		}
	}
	run()
	if n := testing.AllocsPerRun(5, run); n != 0 {
		t.Errorf("%v allocations decoding %d bytes (%d Reads)", n, len(raw), len(raw)/len(buf))
	}
}

// TestSourceError checks that an error of the underlying reader is
// returned as it is, after the output decoded before it.
func TestSourceError(t *testing.T) {
	tool := testutil.Tool(t, "brotli")
	raw := corpus(t)["text"]
	comp := compress(t, tool, raw, "-q", "5")
	boom := errors.New("boom")
	src := io.MultiReader(bytes.NewReader(comp[:len(comp)/2]), iotest.ErrReader(boom))
	got, err := decode(src)
	if err != boom {
		t.Errorf("error %v, want the source's", err)
	}
	if !bytes.HasPrefix(raw, got) || len(got) == 0 {
		t.Errorf("%d bytes before the error, not a prefix of the output", len(got))
	}
}
