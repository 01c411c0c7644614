package xrayfdr

import (
	"bytes"
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"slices"
	"strings"
)

// Demangle turns an Itanium C++ ABI name ("_Z...") into its readable
// form, or returns an error when it cannot. Names pass through it when
// InstrMap.Name is asked to demangle. It is a variable so that a program
// can put another demangler in its place.
var Demangle func(name string) (string, error) = demangleName

// symbolizer names addresses as llvm-xray's symbolizer (LLVM 14's
// SymbolizableObjectFile) does: the symbol table wins over DWARF for the
// linkage name; DWARF names only what no symbol covers.
type symbolizer struct {
	syms []symDesc // sorted by address, one per address

	file      *elf.File
	size      int64
	whole     []byte // the file's bytes when held in memory, else nil
	dwarfRead bool
	funcs     []dwarfFunc // sorted by low address
}

type symDesc struct {
	addr, size uint64
	name       []byte // in the string table
}

type dwarfFunc struct {
	lo, hi uint64
	depth  int
	name   string
}

func newSymbolizer(f *elf.File, size int64, whole []byte) *symbolizer {
	s := &symbolizer{file: f, size: size, whole: whole}
	// LLVM reads the symbol table, or the dynamic one when there is none
	if !s.readSymbols(f, elf.SHT_SYMTAB) {
		s.readSymbols(f, elf.SHT_DYNSYM)
	}
	// LLVM sorts by (address, size, name) and keeps the last symbol of
	// each address: the largest, so that sized symbols win over unsized
	// ones at the same place.
	slices.SortFunc(s.syms, func(a, b symDesc) int {
		if a.addr != b.addr {
			return cmp.Compare(a.addr, b.addr)
		}
		if a.size != b.size {
			return cmp.Compare(a.size, b.size)
		}
		return bytes.Compare(a.name, b.name)
	})
	out := s.syms[:0]
	for i, d := range s.syms {
		if i+1 < len(s.syms) && s.syms[i+1].addr == d.addr {
			continue
		}
		out = append(out, d)
	}
	s.syms = out
	return s
}

// readSymbols collects the symbols of the first section of type typ that
// LLVM's symbolizer keeps; false when there is no such section or it
// holds no symbol. The names stay in the string table's bytes: only the
// few that name functions become strings.
func (s *symbolizer) readSymbols(f *elf.File, typ elf.SectionType) bool {
	var sec *elf.Section
	for _, c := range f.Sections {
		if c.Type == typ {
			sec = c
			break
		}
	}
	if sec == nil || int(sec.Link) >= len(f.Sections) {
		return false
	}
	data, err := s.section(sec)
	if err != nil || len(data) < 2*elf.Sym64Size {
		return false
	}
	strtab, err := s.section(f.Sections[sec.Link])
	if err != nil {
		return false
	}
	s.syms = make([]symDesc, 0, len(data)/elf.Sym64Size)
	for p := elf.Sym64Size; p+elf.Sym64Size <= len(data); p += elf.Sym64Size {
		e := data[p : p+elf.Sym64Size]
		nameOff := binary.LittleEndian.Uint32(e)
		info := e[4]
		shndx := elf.SectionIndex(binary.LittleEndian.Uint16(e[6:]))
		if shndx == elf.SHN_UNDEF || shndx >= elf.SHN_LORESERVE {
			continue
		}
		var name []byte
		if int(nameOff) < len(strtab) {
			name = strtab[nameOff:]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i:i]
			}
		}
		switch elf.ST_TYPE(info) {
		case elf.STT_FUNC, elf.STT_OBJECT, elf.STT_GNU_IFUNC:
		case elf.STT_NOTYPE:
			// assembly functions; not mapping symbols or local labels
			if len(name) == 0 || name[0] == '$' || bytes.HasPrefix(name, []byte(".L")) {
				continue
			}
		default:
			continue
		}
		s.syms = append(s.syms, symDesc{binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:]), name})
	}
	return true
}

// section returns a section's bytes, from memory when the file is there.
func (s *symbolizer) section(sec *elf.Section) ([]byte, error) {
	if s.whole != nil && sec.Type != elf.SHT_NOBITS && sec.Flags&elf.SHF_COMPRESSED == 0 &&
		sec.Offset <= uint64(len(s.whole)) && sec.FileSize <= uint64(len(s.whole))-sec.Offset {
		return s.whole[sec.Offset : sec.Offset+sec.FileSize : sec.Offset+sec.FileSize], nil
	}
	return sectionData(sec, s.size)
}

// name returns the name of the function at addr, demangled if asked, or
// false when neither the symbols nor DWARF name it.
func (s *symbolizer) name(addr uint64, demangle bool) (string, bool) {
	name, ok := s.symbolName(addr)
	if !ok {
		name, ok = s.dwarfName(addr)
	}
	if !ok {
		return "", false
	}
	if demangle && strings.HasPrefix(name, "_Z") {
		if d, err := Demangle(name); err == nil {
			return d, true
		}
	}
	return name, true
}

// symbolName finds the last symbol at or before addr, which covers addr
// when its size does or it has none.
func (s *symbolizer) symbolName(addr uint64) (string, bool) {
	i, _ := slices.BinarySearchFunc(s.syms, addr, func(d symDesc, a uint64) int {
		if d.addr <= a {
			return -1
		}
		return 1
	})
	if i == 0 {
		return "", false
	}
	d := s.syms[i-1]
	if d.size != 0 && d.addr+d.size <= addr {
		return "", false
	}
	return string(d.name), true
}

// dwarfName names addr from the innermost DWARF subprogram or inlined
// subroutine that holds it: its linkage name, else its name, following
// DW_AT_specification and DW_AT_abstract_origin.
func (s *symbolizer) dwarfName(addr uint64) (string, bool) {
	if !s.dwarfRead {
		s.dwarfRead = true
		s.readDWARF()
	}
	best := -1
	for i, f := range s.funcs {
		if f.lo > addr {
			break
		}
		if addr < f.hi && (best < 0 || f.depth > s.funcs[best].depth) {
			best = i
		}
	}
	if best < 0 || s.funcs[best].name == "" {
		return "", false
	}
	return s.funcs[best].name, true
}

// readDWARF collects the address ranges of functions. DWARF that is
// compressed beyond a bound, or malformed, is left out.
func (s *symbolizer) readDWARF() {
	defer func() {
		if recover() != nil {
			s.funcs = nil
		}
	}()
	for _, sec := range s.file.Sections {
		if strings.HasPrefix(sec.Name, ".debug_") || strings.HasPrefix(sec.Name, ".zdebug_") {
			if sec.Size > 64*uint64(s.size) || sec.Offset > uint64(s.size) || sec.FileSize > uint64(s.size)-sec.Offset {
				return
			}
		}
	}
	d, err := s.file.DWARF()
	if err != nil {
		return
	}
	// One pass over every DIE: the functions with code, and the names
	// and references of every subprogram, which the specifications and
	// abstract origins point to. (Names are resolved from this table, not
	// by seeking: Go 1.23's Reader.Seek can read another unit's strings.)
	dies := map[dwarf.Offset]*dieInfo{}
	var code []*dieInfo
	r := d.Reader()
	depth := 0
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == 0 {
			depth--
			continue
		}
		if e.Tag == dwarf.TagSubprogram || e.Tag == dwarf.TagInlinedSubroutine {
			di := &dieInfo{}
			di.linkage, _ = e.Val(dwarf.AttrLinkageName).(string)
			if di.linkage == "" {
				di.linkage, _ = e.Val(0x2007).(string) // DW_AT_MIPS_linkage_name
			}
			di.name, _ = e.Val(dwarf.AttrName).(string)
			di.spec, _ = e.Val(dwarf.AttrSpecification).(dwarf.Offset)
			di.origin, _ = e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
			dies[e.Offset] = di
			if ranges, err := d.Ranges(e); err == nil && len(ranges) > 0 {
				for _, rg := range ranges {
					if rg[0] < rg[1] {
						s.funcs = append(s.funcs, dwarfFunc{rg[0], rg[1], depth, ""})
						code = append(code, di)
					}
				}
			}
		}
		if e.Children {
			depth++
		}
		if len(s.funcs) > int(s.size) {
			break // cannot happen in a well-formed file
		}
	}
	for i, di := range code {
		s.funcs[i].name = dieName(dies, di)
	}
	slices.SortStableFunc(s.funcs, func(a, b dwarfFunc) int { return cmp.Compare(a.lo, b.lo) })
}

// dieInfo is what naming needs of a subprogram DIE.
type dieInfo struct {
	linkage, name string
	spec, origin  dwarf.Offset
}

// dieName is LLVM's DWARFDie::getSubroutineName for linkage names: the
// linkage name found on the DIE or along its DW_AT_specification and
// DW_AT_abstract_origin references, else the name found the same way.
func dieName(dies map[dwarf.Offset]*dieInfo, di *dieInfo) string {
	if n := findRecursively(dies, di, 0, true); n != "" {
		return n
	}
	return findRecursively(dies, di, 0, false)
}

func findRecursively(dies map[dwarf.Offset]*dieInfo, di *dieInfo, hops int, linkage bool) string {
	if linkage && di.linkage != "" {
		return di.linkage
	}
	if !linkage && di.name != "" {
		return di.name
	}
	if hops >= 8 { // references may loop in a hostile file
		return ""
	}
	for _, off := range []dwarf.Offset{di.spec, di.origin} {
		if t, ok := dies[off]; ok && off != 0 {
			if n := findRecursively(dies, t, hops+1, linkage); n != "" {
				return n
			}
		}
	}
	return ""
}
