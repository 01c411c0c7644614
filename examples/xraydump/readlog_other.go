//go:build !linux

package main

import "os"

// readLog reads the file at path whole; release does nothing here.
func readLog(path string) (data []byte, release func(), err error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}

// hugeLogMin is unused here but for tests, which try sizes around it.
const hugeLogMin = 4 << 20
