package parsed

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tracefmt/tracefmt/gotraceraw"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// parseText reads a whole binary trace and returns what
// `go tool trace -d=parsed` would print on stdout, and the error that
// stopped it (nil at a clean end).
func parseText(data []byte) ([]byte, error) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out []byte
	for {
		ev, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(ev.AppendText(out), '\n')
	}
}

// agreeInLine checks that data reads the same, text and error, with every
// event taking the general ordering path, as it read in text and err
// with the stream's in-line ordering and decoding of the common events.
func agreeInLine(t testing.TB, data, text []byte, err error) {
	t.Helper()
	inLine = false
	text2, err2 := parseText(data)
	inLine = true
	if !bytes.Equal(text, text2) {
		t.Fatalf("in line: %d bytes of text, without: %d (first difference at byte %d)", len(text), len(text2), firstDiff(text, text2))
	}
	if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
		t.Fatalf("in line: %v\nwithout: %v", err, err2)
	}
}

func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// reasonOf returns Go's message in err.
func reasonOf(err error) string {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Reason()
	}
	return err.Error()
}

// localGo runs the go command on PATH as it is (GOTOOLCHAIN=local), even
// when the tests run under another toolchain.
func localGo(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(testutil.Tool(t, "go"), args...)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
	return cmd
}

var goEnv struct {
	once          sync.Once
	root, version string
	err           error
}

// goRootAndVersion returns GOROOT and GOVERSION of the go command on PATH.
func goRootAndVersion(t testing.TB) (string, string) {
	t.Helper()
	cmd := localGo(t, "env", "GOROOT", "GOVERSION")
	goEnv.once.Do(func() {
		out, err := cmd.Output()
		f := strings.Fields(string(out))
		if err == nil && len(f) != 2 {
			err = errors.New("unexpected output " + string(out))
		}
		if err != nil {
			goEnv.err = err
			return
		}
		goEnv.root, goEnv.version = f[0], f[1]
	})
	if goEnv.err != nil {
		t.Fatalf("go env: %v", goEnv.err)
	}
	return goEnv.root, goEnv.version
}

var traceToolPath struct {
	once sync.Once
	path string
	err  error
}

// traceTool returns the path of the go command's trace tool, so that
// the tests run it without the go command's start each time.
func traceTool(t testing.TB) string {
	t.Helper()
	cmd := localGo(t, "tool", "-n", "trace")
	traceToolPath.once.Do(func() {
		out, err := cmd.Output()
		traceToolPath.path, traceToolPath.err = strings.TrimSpace(string(out)), err
	})
	if traceToolPath.err != nil {
		t.Fatalf("go tool -n trace: %v", traceToolPath.err)
	}
	return traceToolPath.path
}

// goParsed runs `go tool trace -d=parsed` on file: its stdout, and its
// stderr when it fails. The comparisons are with Go 1.26's parser: the
// test skips with an older go command.
func goParsed(t testing.TB, file string) (out []byte, failure string) {
	t.Helper()
	_, v := goRootAndVersion(t)
	if !strings.HasPrefix(v, "go1.26") {
		t.Skipf("compares with Go 1.26's go tool trace; the go command here is %s", v)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(traceTool(t), "-d=parsed", file)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("go tool trace: %v", err)
	}
	if err != nil {
		if ee.ExitCode() != 1 {
			t.Fatalf("go tool trace -d=parsed %s: %v\n%s", file, err, stderr.Bytes())
		}
		failure = strings.TrimSuffix(stderr.String(), "\n")
		if failure == "" {
			failure = "(no message)"
		}
	}
	return stdout.Bytes(), failure
}

// compareWithGo checks that our text and error for the trace in file are
// Go's, and returns Go's error message, if any.
func compareWithGo(t *testing.T, file string) (failure string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, failure := goParsed(t, file)
	got, err := parseText(data)
	testutil.DiffText(t, "-d=parsed of "+filepath.Base(file), want, got)
	switch {
	case failure == "" && err != nil:
		t.Errorf("we fail where Go succeeds: %v", err)
	case failure != "" && err == nil:
		t.Errorf("we succeed where Go fails with %q", failure)
	case failure != "" && !strings.HasPrefix(failure, firstLine(reasonOf(err))):
		t.Errorf("our error %q does not carry Go's %q", err, failure)
	}
	return failure
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// fixtureTraces lists the binary traces in gotraceraw's testdata (in the
// repository) and, with shared, those of ../shared/fixtures/gotrace.
func fixtureTraces(t testing.TB, shared bool) []string {
	t.Helper()
	dirs := []string{filepath.Join("..", "testdata")}
	if shared {
		root := testutil.SharedFixture(t, "gotrace")
		dirs = []string{root, filepath.Join(root, "old")}
	}
	var files []string
	for _, d := range dirs {
		fs, err := filepath.Glob(filepath.Join(d, "*.trace"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if fi, err := os.Stat(f); err == nil && fi.Size() < 8<<20 { // not a benchmark input
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no traces in %v", dirs)
	}
	return files
}

// checkInvariants reads a trace that must be valid and checks what every
// trace's events must satisfy.
func checkInvariants(t *testing.T, data []byte) (events int) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var last *Event
	syncs := 0
	var buf []byte
	for ev, err := range r.All() {
		if err != nil {
			t.Fatalf("after %d events: %v", events, err)
		}
		if events == 0 && ev.Kind != KindSync {
			t.Fatalf("first event is %v, want Sync", ev.Kind)
		}
		if ev.Kind == KindBad || ev.Kind > KindExperimental {
			t.Fatalf("event %d: kind %v", events, ev.Kind)
		}
		if last != nil && ev.Time <= last.Time {
			t.Fatalf("event %d: time %d after %d", events, ev.Time, last.Time)
		}
		if ev.Kind == KindSync {
			syncs++
			if n := ev.Sync().N; n != syncs {
				t.Fatalf("Sync N=%d, want %d", n, syncs)
			}
		}
		if s, ok := ev.stack(); ok && len(s.Frames()) > gotraceraw.GoMaxFrames {
			t.Fatalf("event %d: %d frames", events, len(s.Frames()))
		}
		buf = ev.AppendText(buf[:0])
		if string(buf) != ev.String() {
			t.Fatal("String and AppendText differ")
		}
		last = ev.Clone()
		events++
	}
	if last == nil || last.Kind != KindSync || last.Sync().ClockSnapshot != nil {
		t.Fatalf("last event %v, want the final Sync", last)
	}
	if syncs < 2 {
		t.Fatalf("%d Sync events", syncs)
	}
	return events
}

// generations splits a binary trace into its header and the bytes of each
// generation, as a writer would hand them to a Validator.
func generations(t testing.TB, data []byte) (gotraceraw.Version, [][]byte) {
	t.Helper()
	r, err := gotraceraw.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	v := r.Header().Version
	var gens [][]byte
	start, cur := int64(gotraceraw.HeaderLen), uint64(0)
	cut := func(end int64) {
		if end > start {
			gens = append(gens, data[start:end])
		}
		start = end
	}
	for {
		b, err := r.ReadBatch()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		end := b.Offset
		switch {
		case b.Type == gotraceraw.EvEndOfGeneration:
			cut(r.Offset())
		case v < gotraceraw.Go126 && cur != 0 && b.Gen != cur:
			cut(end)
		}
		if b.Type != gotraceraw.EvEndOfGeneration {
			cur = b.Gen
		}
	}
	cut(int64(len(data)))
	return v, gens
}
