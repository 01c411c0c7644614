package instrmap

import (
	"bytes"
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/tracefmt/tracefmt/xrayfdr"
)

// symbolizer names addresses as llvm-xray's symbolizer (LLVM 14's
// SymbolizableObjectFile) does: the symbol table wins over DWARF for the
// linkage name; DWARF names only what no symbol covers.
//
// LLVM sorts the symbols by (address, size, name), keeps the last of each
// address (the largest, so that sized symbols win over unsized ones) and
// looks up the last one at or before an address. That is the greatest
// symbol at or before it in (address, size, name) order, which one pass
// over the table finds for every function address, without sorting.
type symbolizer struct {
	file  *elf.File
	size  int64
	whole []byte // the file's bytes when held in memory, else nil

	queries []uint64  // the addresses looked up, sorted
	found   []symDesc // the symbol for each query (ok false: none)
	names   []string  // once owned, the names of found (their name is nil)

	dwarfRead bool
	funcs     []dwarfFunc // sorted by low address
}

type symDesc struct {
	addr, size uint64
	name       []byte // in the string table
	ok         bool
}

// after reports whether a comes after b in LLVM's symbol order (every
// symbol comes after none).
func (a *symDesc) after(b *symDesc) bool {
	switch {
	case !b.ok:
		return true
	case a.addr != b.addr:
		return a.addr > b.addr
	case a.size != b.size:
		return a.size > b.size
	}
	return bytes.Compare(a.name, b.name) > 0
}

type dwarfFunc struct {
	lo, hi uint64
	depth  int
	name   string
}

// newSymbolizer finds the symbols of the function addresses addrs.
func newSymbolizer(f *elf.File, size int64, whole []byte, addrs []uint64) *symbolizer {
	s := &symbolizer{file: f, size: size, whole: whole}
	s.queries = slices.Clone(addrs)
	slices.Sort(s.queries)
	s.queries = slices.Compact(s.queries)
	s.found = s.lookup(s.queries)
	return s
}

// mayNeedDWARF reports whether naming a function may read DWARF: some
// function address has no symbol covering it and the object has debug
// information.
func (s *symbolizer) mayNeedDWARF() bool {
	covered := true
	for i, q := range s.queries {
		if d := &s.found[i]; !d.ok || d.size != 0 && d.addr+d.size <= q {
			covered = false
			break
		}
	}
	if covered {
		return false
	}
	for _, sec := range s.file.Sections {
		if sec.Name == ".debug_info" || sec.Name == ".zdebug_info" {
			return true
		}
	}
	return false
}

// ownNames copies the names found out of the file's bytes, into one
// string of their own.
func (s *symbolizer) ownNames() {
	n := 0
	for i := range s.found {
		n += len(s.found[i].name)
	}
	var all strings.Builder
	all.Grow(n)
	for i := range s.found {
		all.Write(s.found[i].name)
	}
	str := all.String()
	s.names = make([]string, len(s.found))
	for i := range s.found {
		d := &s.found[i]
		s.names[i], str = str[:len(d.name)], str[len(d.name):]
		d.name = nil
	}
}

// section returns a section's bytes, from memory when the file is there.
func (s *symbolizer) section(sec *elf.Section) ([]byte, error) {
	return sectionBytes(sec, s.size, s.whole)
}

// lookup returns, for each of the sorted addresses qs, the greatest
// symbol at or before it, from the symbol table, or from the dynamic one
// when there is none, as LLVM reads them.
func (s *symbolizer) lookup(qs []uint64) []symDesc {
	best := make([]symDesc, len(qs))
	if len(qs) == 0 {
		return best
	}
	if !s.scan(elf.SHT_SYMTAB, qs, best) {
		s.scan(elf.SHT_DYNSYM, qs, best)
	}
	// best[i] holds the greatest symbol whose address falls in
	// (qs[i-1], qs[i]]; a running maximum makes it "at or before qs[i]"
	for i := 1; i < len(best); i++ {
		if best[i-1].ok && best[i-1].after(&best[i]) {
			best[i] = best[i-1]
		}
	}
	return best
}

// symbolSection returns the first section of type typ whose string
// table link is a section of f, as LLVM's symbolizer picks it, or nil.
func symbolSection(f *elf.File, typ elf.SectionType) *elf.Section {
	for _, c := range f.Sections {
		if c.Type == typ {
			if int(c.Link) >= len(f.Sections) {
				return nil
			}
			return c
		}
	}
	return nil
}

// scan reads the first section of type typ and files each symbol LLVM's
// symbolizer keeps under the first address of qs at or after its own;
// false when there is no such section or it holds no symbol.
func (s *symbolizer) scan(typ elf.SectionType, qs []uint64, best []symDesc) bool {
	f := s.file
	sec := symbolSection(f, typ)
	if sec == nil {
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
	nameAt := func(off uint32) []byte {
		if int(off) >= len(strtab) {
			return nil
		}
		name := strtab[off:]
		if j := bytes.IndexByte(name, 0); j >= 0 {
			name = name[:j:j]
		}
		return name
	}
	last := qs[len(qs)-1]
	for p := elf.Sym64Size; p+elf.Sym64Size <= len(data); p += elf.Sym64Size {
		e := data[p : p+elf.Sym64Size]
		shndx := elf.SectionIndex(binary.LittleEndian.Uint16(e[6:]))
		if shndx == elf.SHN_UNDEF || shndx >= elf.SHN_LORESERVE {
			continue
		}
		var name []byte // read only when needed: most symbols lose
		switch elf.ST_TYPE(e[4]) {
		case elf.STT_FUNC, elf.STT_OBJECT, elf.STT_GNU_IFUNC:
		case elf.STT_NOTYPE:
			// assembly functions; not mapping symbols or local labels
			name = nameAt(binary.LittleEndian.Uint32(e))
			if len(name) == 0 || name[0] == '$' || bytes.HasPrefix(name, []byte(".L")) {
				continue
			}
		default:
			continue
		}
		addr := binary.LittleEndian.Uint64(e[8:])
		if addr > last {
			continue // after every address asked for
		}
		b := &best[searchAddrs(qs, addr)]
		size := binary.LittleEndian.Uint64(e[16:])
		if b.ok && (addr < b.addr || addr == b.addr && size < b.size) {
			continue // comes before the best found, whatever its name
		}
		if name == nil {
			name = nameAt(binary.LittleEndian.Uint32(e))
		}
		if d := (symDesc{addr: addr, size: size, name: name, ok: true}); d.after(b) {
			*b = d
		}
	}
	return true
}

// searchAddrs returns the index of the first of the sorted, non-empty qs
// at or after a (len(qs) when none is), without branches that mispredict.
func searchAddrs(qs []uint64, a uint64) int {
	base, n := 0, len(qs)
	for n > 1 {
		half := n / 2
		if qs[base+half-1] < a {
			base += half
		}
		n -= half
	}
	if qs[base] < a {
		base++
	}
	return base
}

// name returns the name of the function at addr, demangled if asked, or
// false when neither the symbols nor DWARF name it.
func (s *symbolizer) name(addr uint64, demangle bool, llvm xrayfdr.LLVM) (string, bool) {
	name, ok := s.symbolName(addr)
	if !ok {
		name, ok = s.dwarfName(addr)
	}
	if !ok {
		return "", false
	}
	if demangle && strings.HasPrefix(name, "_Z") {
		dm := Demangle
		if !llvm.Is19() {
			dm = demangleName14
		}
		if d, err := dm(name); err == nil {
			return d, true
		}
	}
	return name, true
}

// symbolName names addr from the symbol LLVM finds for it, which covers
// addr when its size does or it has none.
func (s *symbolizer) symbolName(addr uint64) (string, bool) {
	var d symDesc
	i, ok := slices.BinarySearch(s.queries, addr)
	if ok {
		d = s.found[i]
	} else {
		d = s.lookup([]uint64{addr})[0] // an address not asked for in advance
	}
	if !d.ok || d.size != 0 && d.addr+d.size <= addr {
		return "", false
	}
	if ok && s.names != nil {
		return s.names[i], true
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
