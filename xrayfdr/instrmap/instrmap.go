package instrmap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"

	"github.com/tracefmt/tracefmt/xrayfdr"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/llvmyaml"
)

// SledKind is the kind of an instrumentation sled.
type SledKind uint8

// Sled kinds, with the values of the xray_instr_map section.
const (
	SledEnter       SledKind = 0
	SledExit        SledKind = 1
	SledTailExit    SledKind = 2
	SledLogArgs     SledKind = 3 // an entry that logs the first argument
	SledCustomEvent SledKind = 4
	SledTypedEvent  SledKind = 5 // not in llvm-xray 14's table: it refuses such binaries
)

var sledKindNames = [...]string{"function-enter", "function-exit", "tail-exit", "log-args-enter", "custom-event", "typed-event"}

// String returns the name llvm-xray's YAML gives the kind.
func (k SledKind) String() string {
	if int(k) < len(sledKindNames) {
		return sledKindNames[k]
	}
	return "SledKind(" + strconv.Itoa(int(k)) + ")"
}

// Sled is one entry of an instrumentation map: a patchable point in a
// function.
type Sled struct {
	FuncID           int32  // the function's id, as the XRay runtime numbers it
	Address          uint64 // the sled
	Function         uint64 // the function's entry
	Kind             SledKind
	AlwaysInstrument bool
	Version          uint8 // 2 and up: addresses stored relative to the entry
}

// Map is an instrumentation map: the sleds of a binary, the function
// ids the XRay runtime gives its functions, and, for a map read from an
// ELF object, what names those functions.
type Map struct {
	Sleds []Sled
	// Functions holds each function id's entry address: id i is at
	// Functions[i-1] (ids count from 1).
	Functions []uint64
	// LLVM is the llvm-xray release whose demangler's spelling Name,
	// Names and WriteYAML follow (closing template brackets ">>" from
	// LLVM 15 on, "> >" in LLVM 14); 0 is the newest.
	LLVM xrayfdr.LLVM

	names   []string // function-name fields of a YAML map, by id-1
	symbols *symbolizer
	fromELF bool
}

// FuncAddr returns the entry address of function id.
func (m *Map) FuncAddr(id int32) (uint64, bool) {
	if m == nil || id < 1 || int(id) > len(m.Functions) {
		return 0, false
	}
	return m.Functions[id-1], true
}

// Name returns the name of function id the way llvm-xray's
// FuncIdConversionHelper spells it: "#id" for an id the map lacks,
// "@(hex address)" when nothing names the address, else the symbol (or
// DWARF) name, demangled when demangle is set and it is a C++ name. For
// a map read from YAML the name is the function-name field (llvm-xray
// prints "@(hex address)", as it finds no symbols in a YAML file).
func (m *Map) Name(id int32, demangle bool) string {
	addr, ok := m.FuncAddr(id)
	if !ok {
		return "#" + strconv.Itoa(int(id))
	}
	if m.fromELF && m.symbols != nil {
		if name, ok := m.symbols.name(addr, demangle, m.LLVM); ok {
			return name
		}
	} else if int(id) <= len(m.names) && m.names[id-1] != "" {
		return m.names[id-1]
	}
	return "@(" + strconv.FormatUint(addr, 16) + ")"
}

// Names returns Name(id, demangle) for every function id of the map.
func (m *Map) Names(demangle bool) map[int32]string {
	names := map[int32]string{}
	if m == nil {
		return names
	}
	for i := range m.Functions {
		names[int32(i+1)] = m.Name(int32(i+1), demangle)
	}
	return names
}

// WriteYAML writes the map as llvm-xray extract does: one flow mapping a
// sled, with function names (Name) when symbolize is set.
func (m *Map) WriteYAML(w io.Writer, symbolize, demangle bool) error {
	if m == nil || w == nil {
		return ErrNotOpen
	}
	if len(m.Sleds) == 0 {
		_, err := io.WriteString(w, "---\n[]\n...\n")
		return err
	}
	// Lines go straight into the caller's buffered writer when it is one.
	bw, theirs := w.(*bufio.Writer)
	if theirs && bw == nil {
		return ErrNotOpen
	}
	if !theirs {
		bw = bufio.NewWriterSize(w, 32<<10)
	}
	if _, err := bw.WriteString("---\n"); err != nil {
		return err
	}
	// A function's sleds come one after another: its quoted name is made
	// when its id differs from the sled before's.
	var (
		quoted []byte
		named  bool
		lastID int32
	)
	for _, s := range m.Sleds {
		b := bw.AvailableBuffer()
		b = append(b, "- { id: "...)
		b = strconv.AppendInt(b, int64(s.FuncID), 10)
		b = append(b, ", address: 0x"...)
		b = appendHexUpper(b, s.Address)
		b = append(b, ", function: 0x"...)
		b = appendHexUpper(b, s.Function)
		b = append(b, ", kind: "...)
		b = append(b, s.Kind.String()...)
		b = append(b, ", always-instrument: "...)
		b = strconv.AppendBool(b, s.AlwaysInstrument)
		b = append(b, ", function-name: "...)
		if !symbolize {
			b = append(b, "''"...)
		} else {
			if !named || s.FuncID != lastID {
				quoted = llvmyaml.AppendString(quoted[:0], m.Name(s.FuncID, demangle))
				named, lastID = true, s.FuncID
			}
			b = append(b, quoted...)
		}
		b = append(b, ", version: "...)
		b = strconv.AppendUint(b, uint64(s.Version), 10)
		b = append(b, " }\n"...)
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	if _, err := bw.WriteString("...\n"); err != nil {
		return err
	}
	if theirs {
		return nil // theirs to flush
	}
	return bw.Flush()
}

func appendHexUpper(b []byte, v uint64) []byte {
	n := len(b)
	b = strconv.AppendUint(b, v, 16)
	for i := n; i < len(b); i++ {
		if c := b[i]; c >= 'a' {
			b[i] = c - 'a' + 'A'
		}
	}
	return b
}

// Open reads the instrumentation map of the ELF object at path
// (see ReadELF) or, when the file is not an ELF object, the YAML
// map llvm-xray extract writes (see ReadYAML). Anything else is an
// error saying so (ErrNotMap).
func Open(path string) (*Map, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		// a pipe or a device: read it whole
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(data, []byte("\x7fELF")) {
			return readELF(bytes.NewReader(data), int64(len(data)), data)
		}
		return ReadYAML(bytes.NewReader(data))
	}
	var magic [4]byte
	if n, _ := f.ReadAt(magic[:], 0); n < len(magic) || string(magic[:]) != "\x7fELF" {
		defer f.Close()
		return ReadYAML(f)
	}
	o := &objectFile{path: path, info: info, f: f}
	m, err := o.readMap()
	o.close()
	if err != nil {
		return nil, err
	}
	return m, nil
}

// objectFile is what Open reads an ELF object through: the open
// file while the map is read, then the file's bytes, read whole when
// something more (debug information, other sections) is first asked for.
// The file is not kept open; when it has changed since, reads fail.
type objectFile struct {
	path string
	info os.FileInfo

	mu     sync.Mutex
	f      *os.File // open while the map is read
	mapped []byte   // the file mapped in memory, while the map is read
	whole  []byte
	err    error
}

// readMap reads the map through the open file, mapped in memory where
// the system allows: only the pages of the sections the map and the
// symbols need are read, and nothing is copied. Names found are copied
// out before the file is unmapped.
func (o *objectFile) readMap() (m *Map, err error) {
	size := o.info.Size()
	if mapped, err := mapFile(o.f, size); err == nil {
		o.mapped = mapped
		defer func() {
			o.mu.Lock()
			o.mapped = nil
			o.mu.Unlock()
			unmapFile(mapped)
		}()
		// A file cut short while mapped faults where it is read: make
		// that a panic, and the panic an error.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if p := recover(); p != nil {
				m, err = nil, fmt.Errorf("%w (%v)", ErrELF, p)
			}
		}()
	}
	m, err = readELF(o, size, o.mapped)
	if err != nil {
		return nil, err
	}
	s := m.symbols
	s.whole = nil
	if s.mayNeedDWARF() {
		// names will come from DWARF: hold the file's bytes now, so
		// that they do not depend on the file staying where it is
		if err := o.readWhole(); err != nil {
			return nil, err
		}
		s.whole = o.whole
	}
	s.ownNames()
	return m, nil
}

func (o *objectFile) ReadAt(p []byte, off int64) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	data := o.mapped
	if data == nil {
		if o.f != nil && o.whole == nil {
			return o.f.ReadAt(p, off)
		}
		if o.whole == nil && o.err == nil {
			o.err = o.readWholeLocked()
		}
		if o.err != nil {
			return 0, o.err
		}
		data = o.whole
	}
	if off < 0 {
		return 0, errors.New("instrmap: negative offset")
	}
	if off >= int64(len(data)) {
		return 0, io.EOF
	}
	n := copy(p, data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// readWhole reads the whole file into memory.
func (o *objectFile) readWhole() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.whole == nil && o.err == nil {
		o.err = o.readWholeLocked()
	}
	return o.err
}

func (o *objectFile) readWholeLocked() error {
	if o.mapped != nil {
		o.whole = bytes.Clone(o.mapped)
		return nil
	}
	f := o.f
	if f == nil {
		var err error
		if f, err = os.Open(o.path); err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		if !os.SameFile(info, o.info) || info.Size() != o.info.Size() || !info.ModTime().Equal(o.info.ModTime()) {
			return fmt.Errorf("instrmap: %s changed since its instrumentation map was read", o.path)
		}
	}
	data := make([]byte, o.info.Size())
	n, err := f.ReadAt(data, 0)
	if n < len(data) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("instrmap: %s: %w", o.path, err)
	}
	o.whole = data
	return nil
}

// close closes the file; later reads use the file's bytes.
func (o *objectFile) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.f != nil {
		o.f.Close()
		o.f = nil
	}
}

// ReadYAML reads an instrumentation map in the YAML llvm-xray extract
// writes (one flow mapping a sled), with or without function names. A
// line that is not part of such a map is a *SyntaxError (wrapping
// ErrNotMap on the first line); lines are at most 1 MiB.
func ReadYAML(r io.Reader) (*Map, error) {
	if r == nil {
		return nil, ErrNotOpen
	}
	m := &Map{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	seenDoc, ended, seq := false, false, false
	for sc.Scan() {
		line++
		l := bytes.TrimRight(sc.Bytes(), " \t\r")
		switch {
		case len(l) == 0 || l[0] == '#':
			continue
		case string(l) == "...":
			ended = true
			continue
		case ended:
			return nil, &SyntaxError{Line: line, Err: fmt.Errorf("%w: text after the document end", ErrNotMap)}
		case string(l) == "---" && !seenDoc && !seq:
			seenDoc = true
			continue
		case string(l) == "[]" || string(l) == "--- []":
			seenDoc, ended = true, true
			continue
		}
		s, err := parseSledLine(l)
		if err != nil {
			return nil, &SyntaxError{Line: line, Err: fmt.Errorf("%w: %v", ErrNotMap, err)}
		}
		seq = true
		m.Sleds = append(m.Sleds, s.Sled)
		if int64(s.FuncID) > int64(len(m.Sleds)) || s.FuncID < 1 {
			return nil, &SyntaxError{Line: line, Err: fmt.Errorf("%w: function id %d out of range", ErrNotMap, s.FuncID)}
		}
		for int(s.FuncID) > len(m.Functions) {
			m.Functions = append(m.Functions, 0)
			m.names = append(m.names, "")
		}
		m.Functions[s.FuncID-1] = s.Function
		if s.name != "" {
			m.names[s.FuncID-1] = s.name
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &SyntaxError{Line: line + 1, Err: ErrTooLarge}
		}
		return nil, err
	}
	if !seenDoc && !seq {
		return nil, &SyntaxError{Line: max(line, 1), Err: fmt.Errorf("%w: no YAML sequence of sleds", ErrNotMap)}
	}
	return m, nil
}

type yamlSled struct {
	Sled
	name string
}

// parseSledLine parses "- { id: 1, address: 0x21D80, ... }".
func parseSledLine(l []byte) (yamlSled, error) {
	var s yamlSled
	seen := 0
	err := llvmyaml.FlowPairs(l, "sled entry", func(key, val string) error {
		switch key {
		case "id":
			n, err := strconv.ParseInt(val, 0, 32)
			if err != nil {
				return fmt.Errorf("id %q", val)
			}
			s.FuncID = int32(n)
			seen |= 1
		case "address", "function":
			n, err := strconv.ParseUint(val, 0, 64)
			if err != nil {
				return fmt.Errorf("%s %q", key, val)
			}
			if key == "address" {
				s.Address = n
				seen |= 2
			} else {
				s.Function = n
				seen |= 4
			}
		case "kind":
			k := slices.Index(sledKindNames[:], val)
			if k < 0 {
				return fmt.Errorf("kind %q", val)
			}
			s.Kind = SledKind(k)
		case "always-instrument":
			b, err := strconv.ParseBool(val)
			if err != nil {
				return fmt.Errorf("always-instrument %q", val)
			}
			s.AlwaysInstrument = b
		case "function-name":
			s.name = val
		case "version":
			n, err := strconv.ParseUint(val, 0, 8)
			if err != nil {
				return fmt.Errorf("version %q", val)
			}
			s.Version = uint8(n)
		default:
			return fmt.Errorf("unknown key %q", key)
		}
		return nil
	})
	if err == nil && seen != 7 {
		err = errors.New("id, address or function missing")
	}
	return s, err
}
