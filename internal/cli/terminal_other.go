//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly || windows)

package cli

// isTerminal says no where the standard library offers no way to ask:
// output is then written as to a file, which is always correct.
func isTerminal(fd uintptr) bool { return false }
