// Package randcase drives the random writer tests: a case is a byte
// string that a test reads as a sequence of choices (which record to drop,
// which field to change, what value to put), so that the same bytes make
// the same case in a unit test, in a fuzz target, and as a seed kept under
// testdata/fuzz after it once failed.
package randcase

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// Source hands out choices from a byte string; once the bytes run out,
// every choice is 0, so any input makes a finite, deterministic case.
type Source struct {
	b []byte
	i int
}

// New returns a Source reading b.
func New(b []byte) *Source { return &Source{b: b} }

// Byte returns the next byte, or 0.
func (s *Source) Byte() byte {
	if s.i >= len(s.b) {
		return 0
	}
	c := s.b[s.i]
	s.i++
	return c
}

// Intn returns a choice in [0, n); 0 when n <= 1.
func (s *Source) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := uint64(s.Byte())
	if n > 256 {
		v = v<<8 | uint64(s.Byte())
	}
	if n > 1<<16 {
		v = v<<16 | uint64(s.Byte())<<8 | uint64(s.Byte())
	}
	return int(v % uint64(n))
}

// Uint64 returns the next eight bytes as a number.
func (s *Source) Uint64() uint64 {
	var b [8]byte
	for i := range b {
		b[i] = s.Byte()
	}
	return binary.LittleEndian.Uint64(b[:])
}

// Bytes returns the next n bytes (zeros past the end), in a new slice.
func (s *Source) Bytes(n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = s.Byte()
	}
	return out
}

// Edit makes one edit of seq, of the kinds the random writer tests make of
// real files: drop a record (one is always kept), duplicate one, swap two,
// insert a real one (sample), insert a made-up one (fresh), or replace one
// by a changed copy (change). An empty seq gets a made-up record.
func Edit[T any](s *Source, seq []T, sample, fresh func() T, change func(T) T) []T {
	if len(seq) == 0 {
		return append(seq, fresh())
	}
	i, j := s.Intn(len(seq)), s.Intn(len(seq)+1)
	switch s.Intn(6) {
	case 0:
		if len(seq) > 1 {
			seq = append(seq[:i], seq[i+1:]...)
		}
	case 1:
		seq = Insert(seq, j, seq[i])
	case 2:
		j = min(j, len(seq)-1)
		seq[i], seq[j] = seq[j], seq[i]
	case 3:
		seq = Insert(seq, j, sample())
	case 4:
		seq = Insert(seq, j, fresh())
	case 5:
		seq[i] = change(seq[i])
	}
	return seq
}

// Insert puts v at index i of s, moving the rest up.
func Insert[T any](s []T, i int, v T) []T {
	s = append(s, v)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

// Case returns the bytes of random case i: the same on every run.
func Case(i int) []byte {
	r := rand.New(rand.NewPCG(0x7261_6e64, uint64(i)))
	b := make([]byte, 64+r.IntN(2048))
	for k := range b {
		b[k] = byte(r.Uint32())
	}
	return b
}

// Seed adds n random cases to a fuzz target's corpus (the files under
// testdata/fuzz/NAME are added by the go command).
func Seed(f *testing.F, n int) {
	for i := range n {
		f.Add(Case(i))
	}
}

// FuzzTool returns the path of the real tool a fuzz target compares
// against when the environment variable TRACEFMT_FUZZ_TOOLS is set (the
// tool then must be installed), and "" otherwise: a fuzz run that starts a
// process per input is much slower, so it is asked for.
func FuzzTool(f *testing.F, name string) string {
	if os.Getenv("TRACEFMT_FUZZ_TOOLS") == "" {
		return ""
	}
	return testutil.Tool(f, name)
}

// Run checks every case kept under testdata/fuzz/fuzzName, then n random
// ones: check returns what is wrong with a case, or "". A failing random
// case is reported with the file to keep it in; with TRACEFMT_KEEP_FAILURES
// set, Run writes that file itself.
func Run(t *testing.T, fuzzName string, n int, check func([]byte) string) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", fuzzName)
	kept, _ := filepath.Glob(filepath.Join(dir, "*"))
	failures := 0
	for _, path := range kept {
		data, err := readCorpusFile(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if msg := guarded(check, data); msg != "" {
			failures++
			t.Errorf("kept case %s: %s", path, msg)
		}
	}
	for i := 0; i < n && failures < 5; i++ {
		data := Case(i)
		msg := guarded(check, data)
		if msg == "" {
			continue
		}
		failures++
		h := fnv.New64a()
		h.Write(data)
		path := filepath.Join(dir, fmt.Sprintf("random-%016x", h.Sum64()))
		if os.Getenv("TRACEFMT_KEEP_FAILURES") != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, corpusFile(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Errorf("random case %d (keep it as %s; TRACEFMT_KEEP_FAILURES=1 writes it): %s", i, path, msg)
	}
	t.Logf("%d kept and %d random cases", len(kept), n)
}

func guarded(check func([]byte) string, data []byte) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = fmt.Sprintf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return check(data)
}

// corpusFile is data in the go command's fuzz corpus format.
func corpusFile(data []byte) []byte {
	return []byte("go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n")
}

// readCorpusFile reads a one-value []byte fuzz corpus file.
func readCorpusFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitN(string(bytes.TrimSpace(b)), "\n", 2)
	if len(lines) != 2 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("not a fuzz corpus file")
	}
	v := strings.TrimSpace(lines[1])
	if !strings.HasPrefix(v, "[]byte(") || !strings.HasSuffix(v, ")") {
		return nil, fmt.Errorf("not one []byte value")
	}
	s, err := strconv.Unquote(v[len("[]byte(") : len(v)-1])
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// Rules counts the rules a run's cases broke, by the refusal's message
// with its numbers taken out, for the test's log.
type Rules struct {
	mu sync.Mutex
	m  map[string]int
	ok int
}

var (
	quoted   = regexp.MustCompile(`"(\\.|[^"\\])*"`)
	digitRun = regexp.MustCompile(`-?(0x)?[0-9a-f]*[0-9]+[0-9a-f]*`)
)

// Refused counts a refusal.
func (r *Rules) Refused(err error) {
	msg := digitRun.ReplaceAllString(quoted.ReplaceAllString(err.Error(), `"…"`), "#")
	if len(msg) > 100 {
		// cut at 100 bytes, dropping a character split there, so the log
		// stays valid UTF-8 (the ellipsis above is 3 bytes)
		msg = strings.ToValidUTF8(msg[:100], "")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]int{}
	}
	r.m[msg]++
}

// Checked counts a case whose output the real tool (or reader) checked.
func (r *Rules) Checked() {
	r.mu.Lock()
	r.ok++
	r.mu.Unlock()
}

// Log writes the counts to the test's log (seen with -v).
func (r *Rules) Log(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	t.Logf("%d cases checked whole", r.ok)
	keys := make([]string, 0, len(r.m))
	for k := range r.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%6d refused: %s", r.m[k], k)
	}
}

// Writes hands recs to write in order, as every random writer test does.
// In half the cases (s chooses) each record is checked first and one
// check refuses is skipped, and the case goes on; in the others a refusal
// ends it. One record in four is checked first in any case, and check and
// write must agree. refused tells a refusal from other errors. Writes
// returns the records written, the refusal that ended the case (nil if
// none), and what went wrong (nil if nothing).
func Writes[R any](s *Source, recs []R, check, write func(R) error, refused func(error) bool, rules *Rules) (written []R, refusal, failure error) {
	skip := s.Intn(2) == 0
	for _, r := range recs {
		checked := skip || s.Intn(4) == 0
		var cerr error
		if checked {
			cerr = check(r)
		}
		if skip && cerr != nil {
			if !refused(cerr) {
				return written, nil, fmt.Errorf("check: %v, not a refusal", cerr)
			}
			rules.Refused(cerr)
			continue
		}
		err := write(r)
		if checked && (cerr == nil) != (err == nil) {
			return written, nil, fmt.Errorf("check says %v, write %v", cerr, err)
		}
		if err != nil {
			if !refused(err) {
				return written, nil, fmt.Errorf("write: %v, not a refusal", err)
			}
			rules.Refused(err)
			return written, err, nil
		}
		written = append(written, r)
	}
	return written, nil, nil
}
