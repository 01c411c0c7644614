// Package zstdtest makes zstd files with the real zstd command for the
// tests of apitrace, apitrace/zstd and the apitrace commands: whole files,
// and seekable files built the way apitrace master builds them.
package zstdtest

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// FrameSize is the content of one frame of apitrace master's seekable
// traces: 2 MiB.
const FrameSize = 2 << 20

// Pipe runs the zstd command with args on stdin and returns stdout (a
// stream whose frame header has no content size).
func Pipe(t testing.TB, stdin []byte, args ...string) []byte {
	t.Helper()
	bin := testutil.Tool(t, "zstd")
	cmd := exec.Command(bin, append([]string{"-q", "-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("zstd %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out.Bytes()
}

// File compresses data as the zstd command does a file, so that the frame
// header holds the content size.
func File(t testing.TB, data []byte, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := testutil.Tool(t, "zstd")
	cmd := exec.Command(bin, append([]string{"-q", "-c"}, append(args, in)...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("zstd %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out.Bytes()
}

// Seekable builds a file in the seekable format the way apitrace master
// does: the content cut in frameSize pieces, each compressed by the zstd
// command as one frame, then the seek table (with the frames' own XXH64
// checksums when sums is set, taken from frames made with --check, so the
// checksums come from the real tool).
func Seekable(t testing.TB, data []byte, frameSize int, sums bool, args ...string) []byte {
	t.Helper()
	var file, table []byte
	for off := 0; off < len(data) || off == 0; off += frameSize {
		piece := data[off:min(off+frameSize, len(data))]
		check := "--no-check"
		if sums {
			check = "--check"
		}
		frame := File(t, piece, append(args, check)...)
		file = append(file, frame...)
		table = binary.LittleEndian.AppendUint32(table, uint32(len(frame)))
		table = binary.LittleEndian.AppendUint32(table, uint32(len(piece)))
		if sums {
			table = append(table, frame[len(frame)-4:]...)
		}
		if len(data) == 0 {
			break
		}
	}
	n := len(table) / 8
	desc := byte(0)
	if sums {
		n = len(table) / 12
		desc = 0x80
	}
	table = binary.LittleEndian.AppendUint32(table, uint32(n))
	table = append(table, desc)
	table = binary.LittleEndian.AppendUint32(table, 0x8F92EAB1)
	file = binary.LittleEndian.AppendUint32(file, 0x184D2A5E)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(table)))
	return append(file, table...)
}
