// Package gotraceraw reads and writes Go execution traces (the v2 format of
// Go 1.22 to 1.26) at the raw level, in the binary wire format and in the
// text form of Go's internal/trace/raw package and `go tool trace -d=wire`.
package gotraceraw
