package cli

import "syscall"

// isTerminal reports whether the handle is a console: only a console
// has a console mode.
func isTerminal(fd uintptr) bool {
	var mode uint32
	return syscall.GetConsoleMode(syscall.Handle(fd), &mode) == nil
}
