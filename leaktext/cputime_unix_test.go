//go:build unix

package leaktext

import (
	"syscall"
	"time"
)

// cpuTime is the process's user plus system time: on a shared machine it
// measures the reader's work where wall-clock time measures the load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
