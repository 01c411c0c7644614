package instrmap

import (
	"bytes"
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"path"
	"slices"
	"sort"
	"strconv"
)

// Namer names function ids as llvm-xray's analyses do
// (FuncIdConversionHelper): names are demangled, cached per id.
type Namer struct {
	m     *Map
	names map[int32]string
	locs  map[int32]string

	// for locations: the symbol table's STT_FILE symbols and DWARF,
	// read when first needed
	locRead bool
	elfSyms []elfSym
	files   []elfSym // STT_FILE symbols, by index
	dw      *dwarf.Data
}

type elfSym struct {
	idx        int
	addr, size uint64
	local      bool
	name       []byte
}

func NewNamer(m *Map) *Namer {
	return &Namer{m: m, names: map[int32]string{}, locs: map[int32]string{}}
}

// name is llvm-xray's SymbolOrNumber: "#id" for an id the map lacks,
// the demangled symbol of an ELF map, else "@(hex address)" (llvm-xray
// finds no symbols in a YAML map).
func (n *Namer) Name(id int32) string {
	if n == nil {
		return NewNamer(nil).Name(id)
	}
	if s, ok := n.names[id]; ok {
		return s
	}
	var s string
	addr, ok := n.m.FuncAddr(id)
	switch {
	case !ok:
		return "#" + strconv.Itoa(int(id))
	case n.m.fromELF:
		s = n.m.Name(id, true)
	default:
		s = "@(" + strconv.FormatUint(addr, 16) + ")"
	}
	n.names[id] = s
	return s
}

// Location is llvm-xray's FileLineAndColumn: "(unknown)" for an id the
// map lacks, else "file:line:column" of the function's entry address as
// LLVM's symbolizer gives it (symbolizeInlinedCode, outermost frame): the
// row of the line table that covers the address (a function entered at
// an inlined call would take the call's file, line and column, which a
// function's first instruction never is). Only where DWARF names no file
// does the symbol table name one, for a local symbol: the STT_FILE symbol
// before it, which is the compilation unit's source even for a function
// defined in a header. "<invalid>:0:0" when nothing says.
func (n *Namer) Location(id int32) string {
	if n == nil {
		return NewNamer(nil).Location(id)
	}
	if s, ok := n.locs[id]; ok {
		return s
	}
	addr, ok := n.m.FuncAddr(id)
	if !ok {
		return "(unknown)"
	}
	file, line, col := "<invalid>", 0, 0
	if n.m.fromELF && n.m.symbols != nil {
		n.readLocations()
		if n.dw != nil {
			if f, l, c, ok := dwarfLine(n.dw, addr); ok {
				file, line, col = path.Base(f), l, c
			}
		}
		if file == "<invalid>" {
			if f := n.symbolFile(addr); f != "" {
				file = path.Base(f)
			}
		}
	}
	s := file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
	n.locs[id] = s
	return s
}

func (n *Namer) readLocations() {
	if n.locRead {
		return
	}
	n.locRead = true
	s := n.m.symbols
	if d, err := s.file.DWARF(); err == nil {
		n.dw = d
	}
	if !n.readSyms(elf.SHT_SYMTAB) {
		n.readSyms(elf.SHT_DYNSYM)
	}
}

// readSyms lists the symbols of the table the symbolizer reads, with
// their index and binding, and its STT_FILE symbols.
func (n *Namer) readSyms(typ elf.SectionType) bool {
	f, size := n.m.symbols.file, n.m.symbols.size
	sec := symbolSection(f, typ)
	if sec == nil {
		return false
	}
	data, err := sectionData(sec, size)
	if err != nil || len(data) < 2*elf.Sym64Size {
		return false
	}
	strtab, err := sectionData(f.Sections[sec.Link], size)
	if err != nil {
		return false
	}
	for p, idx := elf.Sym64Size, 1; p+elf.Sym64Size <= len(data); p, idx = p+elf.Sym64Size, idx+1 {
		e := data[p : p+elf.Sym64Size]
		var name []byte
		if off := binary.LittleEndian.Uint32(e); int(off) < len(strtab) {
			name = strtab[off:]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i:i]
			}
		}
		info := e[4]
		sym := elfSym{idx: idx, addr: binary.LittleEndian.Uint64(e[8:]), size: binary.LittleEndian.Uint64(e[16:]),
			local: elf.ST_BIND(info) == elf.STB_LOCAL, name: name}
		if elf.ST_TYPE(info) == elf.STT_FILE {
			n.files = append(n.files, sym)
			continue
		}
		// the symbols LLVM's symbolizer keeps
		shndx := elf.SectionIndex(binary.LittleEndian.Uint16(e[6:]))
		if shndx == elf.SHN_UNDEF || shndx >= elf.SHN_LORESERVE {
			continue
		}
		switch elf.ST_TYPE(info) {
		case elf.STT_FUNC, elf.STT_OBJECT, elf.STT_GNU_IFUNC:
		case elf.STT_NOTYPE:
			if len(name) == 0 || name[0] == '$' || bytes.HasPrefix(name, []byte(".L")) {
				continue
			}
		default:
			continue
		}
		n.elfSyms = append(n.elfSyms, sym)
	}
	// LLVM's order: by address, size, name; the last of an address wins
	slices.SortStableFunc(n.elfSyms, func(a, b elfSym) int {
		if c := cmp.Compare(a.addr, b.addr); c != 0 {
			return c
		}
		if c := cmp.Compare(a.size, b.size); c != 0 {
			return c
		}
		return bytes.Compare(a.name, b.name)
	})
	return true
}

// symbolFile is the file LLVM's symbolizer takes from the symbol table
// for a local symbol: the STT_FILE symbol before it.
func (n *Namer) symbolFile(addr uint64) string {
	syms := n.elfSyms
	i := sort.Search(len(syms), func(i int) bool { return syms[i].addr > addr })
	if i == 0 {
		return ""
	}
	s := syms[i-1]
	if (s.size != 0 && s.addr+s.size <= addr) || !s.local {
		return ""
	}
	j := sort.Search(len(n.files), func(j int) bool { return n.files[j].idx > s.idx })
	if j == 0 {
		return ""
	}
	return string(n.files[j-1].name)
}

// dwarfLine finds the line table row of addr.
func dwarfLine(d *dwarf.Data, addr uint64) (file string, line, col int, ok bool) {
	r := d.Reader()
	cu, err := r.SeekPC(addr)
	if err != nil || cu == nil {
		return "", 0, 0, false
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return "", 0, 0, false
	}
	var e dwarf.LineEntry
	if lr.SeekPC(addr, &e) != nil || e.File == nil {
		return "", 0, 0, false
	}
	return e.File.Name, e.Line, e.Column, true
}
