//go:build unix

package cbf

import (
	"syscall"
	"time"
)

// cpuTime is the user and system CPU time the process has used. The
// benchmarks report throughput against it as well as against wall time,
// because the project machine's two cores are shared and wall time
// counts the time other processes held the CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
