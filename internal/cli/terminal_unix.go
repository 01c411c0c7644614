//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package cli

import (
	"syscall"
	"unsafe"
)

// isTerminal asks the terminal driver for the device's settings, as
// isatty does: only a terminal answers. The syscall package has no
// ioctl wrapper, so the settings' address is passed by hand; the
// kernel writes into the Termios before the call returns.
func isTerminal(fd uintptr) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, termiosRequest, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
