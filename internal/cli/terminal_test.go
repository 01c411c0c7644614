package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A character device that is not a terminal (/dev/null), a file, a
// pipe and a buffer are not terminals: colour and progress stay off
// there, as with isatty.
func TestIsTerminalNot(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) || IsTerminal((*os.File)(nil)) || IsTerminal(nil) {
		t.Error("a buffer or nil taken for a terminal")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("a regular file taken for a terminal")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(w) {
		t.Error("a pipe taken for a terminal")
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if IsTerminal(null) {
		t.Errorf("%s taken for a terminal", os.DevNull)
	}
}
