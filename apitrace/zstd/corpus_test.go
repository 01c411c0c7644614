package zstd_test

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/tracefmt/tracefmt/apitrace/snappy"
	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/internal/testutil/zstdtest"
)

// corpusFile is one real input of the tests, made at test time (never
// committed).
type corpusFile struct {
	name string
	data []byte
}

var (
	corpusOnce sync.Once
	corpusData []corpusFile
)

// corpus returns a small corpus of real files: Go sources and a binary of
// the Go distribution running the tests, an apitrace stream (a committed
// snappy trace, decompressed), and a few shapes (empty, one byte, zeros,
// random bytes).
func corpus(t testing.TB) []corpusFile {
	corpusOnce.Do(func() {
		goroot := runtime.GOROOT()
		var src []byte
		files, _ := filepath.Glob(filepath.Join(goroot, "src", "net", "http", "*.go"))
		sort.Strings(files)
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && len(src) < 768<<10 {
				src = append(src, b...)
			}
		}
		add := func(name string, b []byte) {
			if len(b) > 0 || name == "empty" {
				corpusData = append(corpusData, corpusFile{name, b})
			}
		}
		add("gosrc", src)
		if b, err := os.ReadFile(filepath.Join(goroot, "bin", "gofmt")); err == nil {
			add("gofmt", b[:min(len(b), 640<<10)])
		}
		add("apitrace", traceStream(filepath.Join(testutil.ModuleRoot(t), "apitrace", "testdata", "glxinfo-brief.trace")))
		add("empty", nil)
		add("one", []byte("a"))
		add("zeros", make([]byte, 300<<10))
		rnd := make([]byte, 150<<10)
		rand.New(rand.NewSource(1)).Read(rnd)
		add("random", rnd)
	})
	return corpusData
}

// traceStream returns the decompressed stream of an apitrace snappy trace.
func traceStream(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("at")) {
		return nil
	}
	var out []byte
	for rest := data[2:]; len(rest) >= 4; {
		n := binary.LittleEndian.Uint32(rest)
		if n == 0 || int(n) > len(rest)-4 {
			break
		}
		d, err := snappy.Decode(nil, rest[4:4+n], 0)
		if err != nil {
			return nil
		}
		out = append(out, d...)
		rest = rest[4+n:]
	}
	return out
}

// zstdCmd runs the zstd command with args on stdin and returns stdout.
func zstdCmd(t testing.TB, stdin []byte, args ...string) []byte {
	t.Helper()
	return zstdtest.Pipe(t, stdin, args...)
}

// zstdFile compresses data as the zstd command does a file, so that the
// frame header holds the content size.
func zstdFile(t testing.TB, data []byte, args ...string) []byte {
	t.Helper()
	return zstdtest.File(t, data, args...)
}

// seekableFile builds a file in the seekable format the way apitrace
// master does (see zstdtest.Seekable).
func seekableFile(t testing.TB, data []byte, frameSize int, sums bool, args ...string) []byte {
	t.Helper()
	return zstdtest.Seekable(t, data, frameSize, sums, args...)
}
