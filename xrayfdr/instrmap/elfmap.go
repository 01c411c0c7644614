package instrmap

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
)

// ReadELF reads the instrumentation map of an ELF executable,
// shared object or relocatable object of size bytes, as llvm-xray 14 reads
// it: the first section named xray_instr_map, its relocations applied to
// fields left zero (position-independent and relocatable objects), entry
// versions 0 to 2, function ids numbered as the XRay runtime numbers them.
// Unlike llvm-xray 14 it reads typed-event sleds. The map keeps what names
// the functions: the symbol table (or the dynamic one), and DWARF debug
// information, read when first needed (see Map.Name).
//
// The object is read through r, which must stay readable while the map
// is used (names are read when first asked for); sizes in it are checked
// against size, so a hostile file costs memory in proportion to its size.
func ReadELF(r io.ReaderAt, size int64) (m *Map, err error) {
	if r == nil {
		return nil, ErrNotOpen
	}
	return readELF(r, size, nil)
}

// readELF is ReadELF; whole, when not nil, holds the
// file's bytes, which then need not be copied.
func readELF(r io.ReaderAt, size int64, whole []byte) (m *Map, err error) {
	defer func() {
		// debug/elf and debug/dwarf are not hardened against every
		// hostile input; a panic in them is a malformed file.
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("%w (%v)", ErrELF, p)
		}
	}()
	if err := checkELFHeader(r, size); err != nil {
		return nil, err
	}
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrELF, err)
	}
	const wordSize = 8
	if f.Data != elf.ELFDATA2LSB || f.Class != elf.ELFCLASS64 || f.Machine != elf.EM_X86_64 && f.Machine != elf.EM_AARCH64 {
		return nil, fmt.Errorf("%w (this is %v %v)", ErrMachine, f.Class, f.Machine)
	}
	var sec *elf.Section
	for _, s := range f.Sections {
		if s.Name == "xray_instr_map" {
			sec = s
			break
		}
	}
	if sec == nil {
		return nil, ErrNoSection
	}
	data, err := sectionBytes(sec, size, whole)
	if err != nil {
		return nil, err
	}
	entrySize := 4 * wordSize
	if len(data)%entrySize != 0 {
		return nil, elfError(int64(sec.Offset), "xray_instr_map holds %d bytes, not whole 32-byte entries", len(data))
	}
	relocs, err := readRelocs(f, size, whole, sec.Addr, uint64(len(data)))
	if err != nil {
		return nil, err
	}
	m = &Map{fromELF: true, Sleds: make([]Sled, 0, len(data)/entrySize)}
	word := binary.LittleEndian.Uint64
	// what llvm-xray's RelocateOrElse does: a zero field takes the value
	// of a relocation at its address
	relocate := func(at, v uint64) uint64 {
		if v == 0 {
			if r, ok := relocs[at]; ok {
				return r
			}
		}
		return v
	}
	var (
		id      int32 = 1
		curFn   uint64
		sawZero bool // a sled of a function at address 0
		rising  = true
	)
	setFunc := func(id int32, fn uint64) {
		if int(id) > len(m.Functions) {
			m.Functions = append(m.Functions, fn)
		}
		m.Functions[id-1] = fn
	}
	for off := 0; off < len(data); off += entrySize {
		e := data[off : off+entrySize]
		pos := sec.Addr + uint64(off)
		s := Sled{
			Address:          relocate(pos, word(e)),
			Function:         relocate(pos+uint64(wordSize), word(e[wordSize:])),
			Kind:             SledKind(e[2*wordSize]),
			AlwaysInstrument: e[2*wordSize+1] != 0,
			Version:          e[2*wordSize+2],
		}
		if s.Kind > SledTypedEvent {
			return nil, elfError(int64(sec.Offset)+int64(off), "sled %d has unknown kind %d", off/entrySize, s.Kind)
		}
		if s.Version >= 2 {
			s.Address += pos
			s.Function += pos + uint64(wordSize)
		}
		// the XRay runtime's numbering, as llvm-xray copies it: a new id
		// whenever the function changes from one sled to the next (and,
		// while the function seen is at address 0, none)
		if curFn == 0 {
			curFn = s.Function
			setFunc(id, s.Function)
		}
		if s.Function != curFn {
			id++
			rising = rising && s.Function > curFn
			curFn = s.Function
			setFunc(id, s.Function)
		}
		sawZero = sawZero || s.Function == 0
		s.FuncID = id
		m.Sleds = append(m.Sleds, s)
	}
	if !rising || sawZero {
		// A function met again later has the last id it was given, on
		// all its sleds, as in llvm-xray. (When the functions come in
		// rising order, as linkers lay them out, each has one id.)
		ids := make(map[uint64]int32, len(m.Functions))
		id, curFn = 1, 0
		for _, s := range m.Sleds {
			if curFn == 0 {
				curFn = s.Function
				ids[s.Function] = id
			}
			if s.Function != curFn {
				id++
				curFn = s.Function
				ids[s.Function] = id
			}
		}
		for i := range m.Sleds {
			m.Sleds[i].FuncID = ids[m.Sleds[i].Function]
		}
	}
	m.symbols = newSymbolizer(f, size, whole, m.Functions)
	return m, nil
}

// checkELFHeader checks that the program and section header tables of a
// 64-bit little-endian ELF object lie in the file, before debug/elf
// allocates them by their counts.
func checkELFHeader(r io.ReaderAt, size int64) error {
	var h [64]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return elfError(0, "header: %v", err)
	}
	if string(h[:4]) != "\x7fELF" {
		return fmt.Errorf("%w: no ELF magic", ErrNotMap)
	}
	if elf.Class(h[4]) != elf.ELFCLASS64 || elf.Data(h[5]) != elf.ELFDATA2LSB {
		return fmt.Errorf("%w (this is %v %v)", ErrMachine, elf.Class(h[4]), elf.Data(h[5]))
	}
	le := binary.LittleEndian
	phoff, phnum, phentsize := le.Uint64(h[0x20:]), uint64(le.Uint16(h[0x38:])), uint64(le.Uint16(h[0x36:]))
	shoff, shnum, shentsize := le.Uint64(h[0x28:]), uint64(le.Uint16(h[0x3c:])), uint64(le.Uint16(h[0x3a:]))
	inFile := func(off, n, entsize uint64) bool {
		return n == 0 || entsize != 0 && off <= uint64(size) && n <= (uint64(size)-off)/entsize
	}
	if !inFile(shoff, 1, shentsize) && shoff != 0 {
		return elfError(0x28, "section header table lies outside the file")
	}
	if shoff != 0 && (shnum == 0 || phnum == 0xffff) {
		// extended numbering: the counts are in section header 0
		var s0 [64]byte
		if shentsize < 64 {
			return elfError(0x3a, "section header size %d", shentsize)
		}
		if _, err := r.ReadAt(s0[:], int64(shoff)); err != nil {
			return elfError(int64(shoff), "section header 0: %v", err)
		}
		if shnum == 0 {
			shnum = le.Uint64(s0[0x20:])
		}
		if phnum == 0xffff {
			phnum = uint64(le.Uint32(s0[0x2c:]))
		}
	}
	// debug/elf reads the header's count even when it says the count is
	// in section header 0 (0xffff): both must fit
	if !inFile(phoff, phnum, phentsize) || !inFile(phoff, uint64(le.Uint16(h[0x38:])), phentsize) {
		return elfError(0x20, "program header table lies outside the file")
	}
	if !inFile(shoff, shnum, shentsize) {
		return elfError(0x28, "section header table lies outside the file")
	}
	// debug/elf reads the section name table whole, by its size, before
	// anything else could check it
	shstrndx := uint64(le.Uint16(h[0x3e:]))
	if shstrndx == uint64(elf.SHN_XINDEX) && shoff != 0 && shentsize >= 64 {
		var s0 [64]byte
		if _, err := r.ReadAt(s0[:], int64(shoff)); err != nil {
			return elfError(int64(shoff), "section header 0: %v", err)
		}
		shstrndx = uint64(le.Uint32(s0[0x28:]))
	}
	if shoff != 0 && shentsize >= 64 && shstrndx != 0 && shstrndx < shnum {
		var sh [64]byte
		at := shoff + shstrndx*shentsize
		if _, err := r.ReadAt(sh[:], int64(at)); err != nil {
			return elfError(int64(at), "section header %d: %v", shstrndx, err)
		}
		typ, off, n := elf.SectionType(le.Uint32(sh[4:])), le.Uint64(sh[0x18:]), le.Uint64(sh[0x20:])
		if typ != elf.SHT_NOBITS && (off > uint64(size) || n > uint64(size)-off) {
			return elfError(int64(at), "section name table lies outside the file")
		}
		if elf.SectionFlag(le.Uint64(sh[8:]))&elf.SHF_COMPRESSED != 0 {
			// its stated size would be allocated, whatever the file holds
			return elfError(int64(at), "compressed section name table")
		}
	}
	return nil
}

// sectionData reads a section's bytes, after checking them against the
// file's size.
func sectionData(s *elf.Section, size int64) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS {
		return nil, nil
	}
	if !sectionInFile(s, size) {
		return nil, elfError(int64(min(s.Offset, uint64(size))), "section %s lies outside the file", s.Name)
	}
	data := make([]byte, s.FileSize)
	if _, err := s.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return data, nil
}

// sectionInFile reports whether debug/elf can read s without allocating
// more than the file holds.
func sectionInFile(s *elf.Section, size int64) bool {
	return s != nil && s.Type != elf.SHT_NOBITS && s.Flags&elf.SHF_COMPRESSED == 0 &&
		s.Offset <= uint64(size) && s.FileSize <= uint64(size)-s.Offset
}

// sectionBytes is sectionData, the bytes sliced from whole (the file's
// bytes, when held in memory) instead of copied.
func sectionBytes(s *elf.Section, size int64, whole []byte) ([]byte, error) {
	if whole != nil && s.Type != elf.SHT_NOBITS && s.Flags&elf.SHF_COMPRESSED == 0 &&
		s.Offset <= uint64(len(whole)) && s.FileSize <= uint64(len(whole))-s.Offset {
		return whole[s.Offset : s.Offset+s.FileSize : s.Offset+s.FileSize], nil
	}
	return sectionData(s, size)
}

// readRelocs returns the values llvm-xray computes for the relocations of
// every REL and RELA section at addresses in [lo, lo+n): the first
// relocation of an address wins.
func readRelocs(f *elf.File, size int64, whole []byte, lo, n uint64) (map[uint64]uint64, error) {
	out := map[uint64]uint64{}
	relative := uint32(elf.R_X86_64_RELATIVE)
	if f.Machine == elf.EM_AARCH64 {
		relative = uint32(elf.R_AARCH64_RELATIVE)
	}
	symCache := map[int][]elf.Symbol{}
	symbols := func(link uint32) []elf.Symbol {
		if int(link) >= len(f.Sections) {
			return nil
		}
		if s, ok := symCache[int(link)]; ok {
			return s
		}
		var syms []elf.Symbol
		switch typ := f.Sections[link].Type; typ {
		case elf.SHT_SYMTAB, elf.SHT_DYNSYM:
			// debug/elf reads the first table of the type and its
			// strings whole, by their sizes: check them first
			t := f.SectionByType(typ)
			if !sectionInFile(t, size) || int(t.Link) >= len(f.Sections) || !sectionInFile(f.Sections[t.Link], size) {
				break
			}
			if typ == elf.SHT_SYMTAB {
				syms, _ = f.Symbols()
			} else {
				syms, _ = f.DynamicSymbols()
			}
		}
		symCache[int(link)] = syms
		return syms
	}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL {
			continue
		}
		data, err := sectionBytes(s, size, whole)
		if err != nil {
			return nil, err
		}
		rela := s.Type == elf.SHT_RELA
		esize := 16
		if rela {
			esize = 24
		}
		for p := 0; p+esize <= len(data); p += esize {
			e := data[p : p+esize]
			off, info := binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:])
			typ, sym := uint32(info), int(info>>32)
			var addend int64
			if rela {
				addend = int64(binary.LittleEndian.Uint64(e[16:]))
			}
			if off < lo || off-lo >= n {
				continue
			}
			if _, ok := out[off]; ok {
				continue
			}
			if ok, v := resolveReloc(f.Machine, typ, off, addend); ok {
				var sv uint64
				if syms := symbols(s.Link); sym > 0 && sym <= len(syms) {
					sv = syms[sym-1].Value
				}
				out[off] = v(sv)
			} else if typ == relative && rela {
				out[off] = uint64(addend)
			}
		}
	}
	return out, nil
}

// resolveReloc is LLVM 14's RelocationResolver for the relocation types it
// supports on each machine (for RELA relocations: the addend replaces
// what the field holds).
func resolveReloc(m elf.Machine, typ uint32, off uint64, addend int64) (bool, func(s uint64) uint64) {
	a := uint64(addend)
	abs := func(s uint64) uint64 { return s + a }
	abs32 := func(s uint64) uint64 { return (s + a) & 0xffffffff }
	pcrel := func(s uint64) uint64 { return s + a - off }
	pcrel32 := func(s uint64) uint64 { return (s + a - off) & 0xffffffff }
	switch m {
	case elf.EM_X86_64:
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_NONE:
			return true, func(uint64) uint64 { return 0 }
		case elf.R_X86_64_PC32, elf.R_X86_64_PC64:
			return true, pcrel
		case elf.R_X86_64_32, elf.R_X86_64_32S:
			return true, abs32
		case elf.R_X86_64_64, elf.R_X86_64_DTPOFF32, elf.R_X86_64_DTPOFF64:
			return true, abs
		}
	case elf.EM_AARCH64:
		switch elf.R_AARCH64(typ) {
		case elf.R_AARCH64_ABS32:
			return true, abs32
		case elf.R_AARCH64_ABS64:
			return true, abs
		case elf.R_AARCH64_PREL32:
			return true, pcrel32
		case elf.R_AARCH64_PREL64:
			return true, pcrel
		}
	}
	return false, nil
}
