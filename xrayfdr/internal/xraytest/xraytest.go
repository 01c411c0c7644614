// Package xraytest holds what the tests of the XRay packages share.
package xraytest

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// LLVMRun runs llvm-xray-14 and returns its stdout and, when it fails,
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
