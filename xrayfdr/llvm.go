package xrayfdr

import "io"

// LLVM names the llvm-xray release whose output a text form or an order
// reproduces, by its major number: LLVM14 or LLVM19. The zero value is the
// newest, LLVM19.
//
// The releases read and print logs alike and differ only in the order of
// what they keep in hash tables (LLVM 19 hashes pairs and 64-bit integers
// differently): the order of the blocks of fdr-dump -verify, of the
// records of convert (and so the thread whose record account or stack
// fails on first), of graph's edges, and of the threads the analyses
// walk; and in their demangler's spelling of closing template brackets
// (">>" in LLVM 19, "> >" in LLVM 14), which the instrmap package follows.
// Any other value is taken as the nearest of the two.
type LLVM int

const (
	// LLVM14 is llvm-xray-14, the release Debian 12 ships as llvm-14.
	LLVM14 LLVM = 14
	// LLVM19 is llvm-xray-19 (Debian's llvm-19), the default.
	LLVM19 LLVM = 19
)

// Is19 reports whether v orders and spells as LLVM 19 does: the zero
// value and any release from 15 on.
func (v LLVM) Is19() bool { return v == 0 || v >= 15 }

// String returns "LLVM 14" or "LLVM 19".
func (v LLVM) String() string {
	if v.Is19() {
		return "LLVM 19"
	}
	return "LLVM 14"
}

// Index is the package's Index, in release v's order.
func (v LLVM) Index(data []byte) (Header, []Group, error) {
	rd := &Reader{ForceFDR: true}
	if err := rd.ResetBytes(data); err != nil {
		return Header{}, nil, err
	}
	g, err := indexBlocks(rd, data, v)
	return rd.h, g, err
}

// DumpVerify is the package's DumpVerify, as release v prints it.
func (v LLVM) DumpVerify(w io.Writer, data []byte) error {
	return dumpVerify(w, data, v)
}

// Expand is the package's Expand, in release v's order.
func (v LLVM) Expand(data []byte, sortByTSC bool) (*Trace, error) {
	return expand(data, sortByTSC, v)
}
