//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package instrmap

import (
	"errors"
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only in memory.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, errors.ErrUnsupported
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapFile(b []byte) { syscall.Munmap(b) }
