//go:build !unix

package cbf

import "time"

func cpuTime() time.Duration { return 0 }
