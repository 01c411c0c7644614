package cli

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

func newCmd() (*Command, *bytes.Buffer) {
	var stderr bytes.Buffer
	c := New("demo", "usage: demo [-x] FILE", &stderr)
	c.Flags.Bool("x", false, "an `option`")
	return c, &stderr
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ok   bool
		code int
		out  string // first line of stderr
	}{
		{[]string{"-x", "f"}, true, OK, ""},
		{[]string{"-h"}, false, OK, "usage: demo [-x] FILE"},
		{[]string{"-help"}, false, OK, "usage: demo [-x] FILE"},
		{[]string{"-y"}, false, Usage, "demo: flag provided but not defined: -y"},
	} {
		c, stderr := newCmd()
		ok, code := c.Parse(tc.args)
		if ok != tc.ok || code != tc.code {
			t.Errorf("Parse(%q) = %v, %d; want %v, %d", tc.args, ok, code, tc.ok, tc.code)
		}
		first, _, _ := strings.Cut(stderr.String(), "\n")
		if first != tc.out {
			t.Errorf("Parse(%q) printed first %q, want %q", tc.args, first, tc.out)
		}
		if !ok && !strings.Contains(stderr.String(), "-x") {
			t.Errorf("Parse(%q): usage lacks the flags:\n%s", tc.args, stderr)
		}
	}
}

func TestBadUsage(t *testing.T) {
	c, stderr := newCmd()
	if code := c.BadUsage("want %d files", 1); code != Usage {
		t.Errorf("BadUsage = %d", code)
	}
	if !strings.HasPrefix(stderr.String(), "demo: want 1 files\nusage: demo") {
		t.Errorf("BadUsage printed %q", stderr)
	}
}

func TestFailf(t *testing.T) {
	_, err := os.Open("/nonexistent/file")
	for _, tc := range []struct {
		file string
		err  error
		want string
	}{
		{"/nonexistent/file", err, "demo: open /nonexistent/file: no such file or directory\n"},
		{"in.trace", errors.New("apitrace: offset 3: bad call"), "demo: in.trace: apitrace: offset 3: bad call\n"},
		{"", errors.New("write error"), "demo: write error\n"},
	} {
		c, stderr := newCmd()
		if code := c.Failf(tc.file, tc.err); code != Fail {
			t.Errorf("Failf = %d", code)
		}
		if stderr.String() != tc.want {
			t.Errorf("Failf(%q, %v) printed %q, want %q", tc.file, tc.err, stderr, tc.want)
		}
	}
}
