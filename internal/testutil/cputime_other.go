//go:build !unix

package testutil

import "time"

// CPUTime is 0 where the process's CPU time cannot be read.
func CPUTime() time.Duration { return 0 }
