package randcase

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSource(t *testing.T) {
	s := New([]byte{7, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	if got := s.Byte(); got != 7 {
		t.Fatalf("Byte = %d, want 7", got)
	}
	if got, want := s.Uint64(), uint64(0x0807060504030201); got != want {
		t.Fatalf("Uint64 = %#x, want %#x", got, want)
	}
	if got := s.Bytes(3); !bytes.Equal(got, []byte{9, 0, 0}) {
		t.Fatalf("Bytes past the end = %v, want [9 0 0]", got)
	}
	for i := 0; i < 3; i++ {
		if b := s.Byte(); b != 0 {
			t.Fatalf("Byte after the end = %d", b)
		}
	}
	if got := New([]byte{9}).Intn(1); got != 0 {
		t.Fatalf("Intn(1) = %d", got)
	}
	for _, n := range []int{2, 3, 255, 256, 257, 1 << 16, 1<<16 + 1, 1 << 30} {
		s := New(Case(n))
		for i := 0; i < 200; i++ {
			if v := s.Intn(n); v < 0 || v >= n {
				t.Fatalf("Intn(%d) = %d", n, v)
			}
		}
	}
}

func TestCase(t *testing.T) {
	if !bytes.Equal(Case(3), Case(3)) {
		t.Fatal("Case(3) differs between calls")
	}
	if bytes.Equal(Case(3), Case(4)) {
		t.Fatal("Case(3) and Case(4) are the same")
	}
	for i := range 50 {
		if n := len(Case(i)); n < 64 || n >= 64+2048 {
			t.Fatalf("Case(%d) has %d bytes", i, n)
		}
	}
}

// TestCorpusFile reads back what Run writes, and a file as the go command
// writes it; anything else is refused.
func TestCorpusFile(t *testing.T) {
	dir := t.TempDir()
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for i, data := range [][]byte{{}, []byte("abc"), all, Case(1)} {
		path := filepath.Join(dir, "case")
		if err := os.WriteFile(path, corpusFile(data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readCorpusFile(path)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("case %d: read back %q, %v; want %q", i, got, err, data)
		}
	}
	for text, want := range map[string]string{
		"go test fuzz v1\n[]byte(\"\\x00a\\\"\")\n": "\x00a\"",
		"go test fuzz v1\n[]byte(`raw`)\n":          "raw",
		"go test fuzz v1\nstring(\"a\")\n":          "",
		"go test fuzz v1\n":                         "",
		"[]byte(\"a\")\n":                           "",
		"go test fuzz v1\n[]byte(\"a)\n":            "",
	} {
		path := filepath.Join(dir, "file")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readCorpusFile(path)
		if want == "" {
			if err == nil {
				t.Errorf("%q read as %q, want an error", text, got)
			}
		} else if err != nil || string(got) != want {
			t.Errorf("%q read as %q, %v; want %q", text, got, err, want)
		}
	}
}

func TestGuarded(t *testing.T) {
	if msg := guarded(func([]byte) string { return "wrong" }, nil); msg != "wrong" {
		t.Errorf("guarded = %q", msg)
	}
	msg := guarded(func(b []byte) string { return string(b[5:]) }, []byte("ab"))
	if !strings.HasPrefix(msg, "panic: ") || !strings.Contains(msg, "goroutine") {
		t.Errorf("a panic reports %q, want the panic and its stack", msg)
	}
}

func TestRules(t *testing.T) {
	var r Rules
	r.Refused(errors.New(`pkg: offset 12: name "abc" at 0x1f`))
	r.Refused(errors.New(`pkg: offset 907: name "a\"z" at 0x20`))
	r.Refused(errors.New("x" + strings.Repeat("é", 80))) // byte 100 is inside an é
	r.Checked()
	if len(r.m) != 2 || r.m[`pkg: offset #: name "…" at #`] != 2 || r.ok != 1 {
		t.Errorf("Rules counted %v and %d checked", r.m, r.ok)
	}
	for k := range r.m {
		if !utf8.ValidString(k) {
			t.Errorf("Rules keeps %q, cut inside a character", k)
		}
	}
}

// TestWrites drives Writes with records 0..9 that check and write refuse
// when odd.
func TestWrites(t *testing.T) {
	recs := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	errOdd := errors.New("odd")
	odd := func(v int) error {
		if v%2 != 0 {
			return errOdd
		}
		return nil
	}
	isRefusal := func(err error) bool { return errors.Is(err, errOdd) }
	var wrote []int
	write := func(v int) error {
		if err := odd(v); err != nil {
			return err
		}
		wrote = append(wrote, v)
		return nil
	}
	var rules Rules

	// An even first choice: every record is checked, and refused ones
	// are skipped.
	wrote = nil
	got, refusal, failure := Writes(New([]byte{0}), recs, odd, write, isRefusal, &rules)
	if want := []int{0, 2, 4, 6, 8}; !slices.Equal(got, want) || !slices.Equal(wrote, want) || refusal != nil || failure != nil {
		t.Errorf("skipping: wrote %v (returned %v), %v, %v", wrote, got, refusal, failure)
	}

	// An odd one: the first refusal ends the case.
	wrote = nil
	got, refusal, failure = Writes(New([]byte{1}), recs, odd, write, isRefusal, &rules)
	if !slices.Equal(got, []int{0}) || !slices.Equal(wrote, []int{0}) || refusal != errOdd || failure != nil {
		t.Errorf("stopping: wrote %v (returned %v), %v, %v", wrote, got, refusal, failure)
	}

	// A check that accepts what write refuses is a failure.
	accept := func(int) error { return nil }
	if _, _, failure := Writes(New([]byte{0}), recs, accept, write, isRefusal, &rules); failure == nil {
		t.Error("check and write disagree, and Writes reports no failure")
	}

	// An error that is no refusal is a failure, from check or write.
	other := func(int) error { return errors.New("broken") }
	if _, _, failure := Writes(New([]byte{0}), recs, other, write, isRefusal, &rules); failure == nil {
		t.Error("check fails with no refusal, and Writes reports no failure")
	}
	if _, _, failure := Writes(New([]byte{1}), recs, odd, other, isRefusal, &rules); failure == nil {
		t.Error("write fails with no refusal, and Writes reports no failure")
	}
}

// TestEdit makes each kind of edit by its choice byte.
func TestEdit(t *testing.T) {
	sample := func() int { return 100 }
	fresh := func() int { return 200 }
	change := func(v int) int { return v + 1000 }
	for _, c := range []struct {
		seq    []int
		choice []byte // i, j, kind
		want   []int
	}{
		{[]int{1, 2, 3}, []byte{1, 0, 0}, []int{1, 3}},
		{[]int{1}, []byte{0, 0, 0}, []int{1}}, // one record is kept
		{[]int{1, 2, 3}, []byte{2, 0, 1}, []int{3, 1, 2, 3}},
		{[]int{1, 2, 3}, []byte{0, 2, 2}, []int{3, 2, 1}},
		{[]int{1, 2, 3}, []byte{0, 3, 3}, []int{1, 2, 3, 100}},
		{[]int{1, 2, 3}, []byte{0, 1, 4}, []int{1, 200, 2, 3}},
		{[]int{1, 2, 3}, []byte{1, 0, 5}, []int{1, 1002, 3}},
		{nil, nil, []int{200}},
	} {
		got := Edit(New(c.choice), slices.Clone(c.seq), sample, fresh, change)
		if !slices.Equal(got, c.want) {
			t.Errorf("Edit(%v, choices % x) = %v, want %v", c.seq, c.choice, got, c.want)
		}
	}
}
