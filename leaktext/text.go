package leaktext

import (
	"bytes"
	"strconv"
)

// Symbol is what a resolver wrote after a frame's address, taken apart.
// Fields a form does not have are empty.
type Symbol struct {
	// Func is the function ("main()", "app::Cache::add(char const*, int)",
	// functracer's "name+0x1a"), empty for "from /module", "in ??" and
	// "<unknown>".
	Func []byte
	// Module is the object file of "… from /module".
	Module []byte
	// File and Line are the source position of "… at file.c:34".
	File []byte
	Line int
}

// ParseResolved takes apart the resolved text of a frame in the forms the
// real tools write:
//
//	func() at file.c:34          sp-rtrace-resolve with debug lines
//	func() from /path/module     ELF symbols only
//	from /path/module            inside a mapping, no symbol
//	in ??                        in no mapping
//	in name+0x1a                 functracer
//	<unknown>, <undefined>       protocol 1.0 files, functracer
//
// It splits at the last " at " followed by "file:line" (C++ names contain
// spaces), else at the last " from ". The slices point into text.
func ParseResolved(text []byte) Symbol {
	var s Symbol
	if i := bytes.LastIndex(text, []byte(" at ")); i >= 0 {
		pos := text[i+4:]
		if c := bytes.LastIndexByte(pos, ':'); c > 0 {
			if n, err := strconv.Atoi(string(pos[c+1:])); err == nil && n >= 0 {
				s.Func, s.File, s.Line = text[:i], pos[:c], n
				return s
			}
		}
	}
	if bytes.HasPrefix(text, []byte("from ")) {
		s.Module = text[5:]
		return s
	}
	if i := bytes.LastIndex(text, []byte(" from ")); i >= 0 {
		s.Func, s.Module = text[:i], text[i+6:]
		return s
	}
	if bytes.HasPrefix(text, []byte("in ")) {
		text = text[3:]
	}
	if string(text) == "??" || (len(text) > 1 && text[0] == '<' && text[len(text)-1] == '>') {
		return s
	}
	s.Func = text
	return s
}
