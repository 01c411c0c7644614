// Package xraytest holds what the tests of the XRay packages share.
package xraytest

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// A Tool is an llvm-xray command and its release's major number (14, 19),
// which the XRay packages' LLVM type takes.
type Tool struct {
	Path  string
	Major int
}

// Name is the tool's name, for subtests: "llvm-xray-19".
func (tl Tool) Name() string { return "llvm-xray-" + strconv.Itoa(tl.Major) }

// Majors are the llvm-xray releases the tests compare with.
var Majors = []int{14, 19}

// Tools returns llvm-xray-14 and llvm-xray-19. A missing one skips the
// test, or fails it under CI, where .ci/run installs both.
func Tools(t testing.TB) []Tool {
	t.Helper()
	var tools []Tool
	for _, m := range Majors {
		tools = append(tools, Tool{testutil.Tool(t, "llvm-xray-"+strconv.Itoa(m)), m})
	}
	return tools
}

// Clang returns clang++ of the given release, for building programs
// whose logs the tests compare.
func Clang(t testing.TB, major int) string {
	t.Helper()
	return testutil.Tool(t, "clang++-"+strconv.Itoa(major))
}

// LLVMRun runs an llvm-xray and returns its stdout and, when it fails,
// its stderr message without the "llvm-xray: " prefix.
func LLVMRun(t *testing.T, tool string, args ...string) (stdout []byte, errText string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(tool, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
		msg := errb.String()
		if i := strings.Index(msg, "llvm-xray: "); i >= 0 {
			msg = msg[i+len("llvm-xray: "):]
		}
		errText = strings.TrimSpace(msg)
		if errText == "" {
			errText = "failed"
		}
	}
	return out.Bytes(), errText
}
