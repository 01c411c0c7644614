//go:build darwin || freebsd || openbsd || netbsd || dragonfly

package cli

import "syscall"

const termiosRequest = syscall.TIOCGETA
