//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime is the process's user plus system time. Benchmarks on a shared
// machine report throughput per CPU-second with it, which measures the
// code's work where wall-clock time also measures the machine's load.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
