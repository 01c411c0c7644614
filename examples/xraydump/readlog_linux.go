//go:build linux

package main

import (
	"io"
	"os"
	"syscall"
)

// hugeLogMin is the size from which a log is read into memory of its own.
const hugeLogMin = 4 << 20

// readLog reads the file at path whole, as os.ReadFile does. A large log
// goes into memory mapped for it and asked of the kernel in huge pages:
// a 10 MB log then costs a few page faults instead of 2,600 (the heap
// faults each fresh 4 KiB page in by itself), a tenth of the CPU of
// xraydump -yaml. release unmaps it; call it only once nothing refers
// to the bytes any more.
func readLog(path string) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < hugeLogMin || st.Size() > 1<<40 {
		return readWhole(path)
	}
	const huge = 2 << 20
	n := int(st.Size())
	m, err := syscall.Mmap(-1, 0, (n+huge-1)&^(huge-1)+huge, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return readWhole(path)
	}
	syscall.Madvise(m, syscall.MADV_HUGEPAGE) // a hint: without it, 4 KiB pages
	// A file that is not the size it said (it grew or shrank meanwhile)
	// is read again by os.ReadFile, which reads to the end.
	if _, err := io.ReadFull(f, m[:n]); err != nil {
		syscall.Munmap(m)
		return readWhole(path)
	}
	if k, _ := f.Read(m[n : n+1]); k != 0 {
		syscall.Munmap(m)
		return readWhole(path)
	}
	return m[:n:n], func() { syscall.Munmap(m) }, nil
}

func readWhole(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
