package cbfjson

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/cbf"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

func TestIs(t *testing.T) {
	crash, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "examples", "cbfdump", "testdata", "crash.json"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := cbf.AppendAddrs(nil, cbf.Word64, cbf.RA, []uint64{0x401000, 0x401234})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		head []byte
		want bool
	}{
		{crash, true},
		{[]byte(" \t\r\n{"), true},
		{rec, false},
		{[]byte("[{}]"), false},
		{[]byte("  "), false},
		{nil, false},
	} {
		if got := Is(tc.head); got != tc.want {
			t.Errorf("Is(%q) = %v", tc.head, got)
		}
	}
}

// Read gives each object of a stream in order, and says which object,
// at which offset, is not a JSON backtrace.
func TestRead(t *testing.T) {
	two, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "examples", "cbfdump", "testdata", "two.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = Read(bytes.NewReader(two), func(n int, bt *cbf.Backtrace) error {
		rec, err := bt.Frames()
		if err != nil {
			return err
		}
		got = append(got, bt.Architecture+" "+rec.Frames[0].String())
		return nil
	})
	if err != nil || strings.Join(got, ", ") != "x86_64 pc 0x555555555a3c, x86_64 pc 0x7ffff7c91b2e" {
		t.Errorf("read %q, %v", got, err)
	}
	second := bytes.IndexByte(two, '\n') + 1
	for _, tc := range []struct {
		name, data, want string
		unexpectedEOF    bool
	}{
		{"empty", "", "offset 0: no JSON backtrace", true},
		{"cut", string(two[:second+20]), "JSON backtrace 1 at offset " + strconv.Itoa(second-1) + ": cut short", true},
		{"no backtrace", `{"architecture": "arm64"}`, "JSON backtrace 0 at offset 0: cbf: JSON backtrace needs architecture and backtrace", false},
		{"not an object", string(two[:second]) + `[1]`, "JSON backtrace 1 at offset " + strconv.Itoa(second-1) + ": json: cannot unmarshal array", false},
		{"bad base64", `{"architecture": "arm64", "backtrace": "!!"}`, "JSON backtrace 0 at offset 0: ", false},
	} {
		n := 0
		err := Read(strings.NewReader(tc.data), func(int, *cbf.Backtrace) error { n++; return nil })
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || errors.Is(err, io.ErrUnexpectedEOF) != tc.unexpectedEOF {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// An object beyond the bound is refused once the bound is read.
	err = read(bytes.NewReader(two), second-10, func(int, *cbf.Backtrace) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "JSON backtrace 0 at offset 0: larger than") {
		t.Errorf("over the bound: %v", err)
	}
	// fn's error stops the reading and is returned.
	stop := errors.New("stop")
	if err := Read(bytes.NewReader(two), func(int, *cbf.Backtrace) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("fn's error: %v", err)
	}
}
