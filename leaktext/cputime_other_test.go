//go:build !unix

package leaktext

import "time"

func cpuTime() time.Duration { return 0 }
