package xrayfdr

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
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

// InstrMap is an instrumentation map: the sleds of a binary, the function
// ids the XRay runtime gives its functions, and, for a map read from an
// ELF object, what names those functions.
type InstrMap struct {
	Sleds []Sled
	// Functions holds each function id's entry address: id i is at
	// Functions[i-1] (ids count from 1).
	Functions []uint64

	names   []string // function-name fields of a YAML map, by id-1
	symbols *symbolizer
	fromELF bool
}

// FuncAddr returns the entry address of function id.
func (m *InstrMap) FuncAddr(id int32) (uint64, bool) {
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
func (m *InstrMap) Name(id int32, demangle bool) string {
	addr, ok := m.FuncAddr(id)
	if !ok {
		return "#" + strconv.Itoa(int(id))
	}
	if m.fromELF && m.symbols != nil {
		if name, ok := m.symbols.name(addr, demangle); ok {
			return name
		}
	} else if int(id) <= len(m.names) && m.names[id-1] != "" {
		return m.names[id-1]
	}
	return "@(" + strconv.FormatUint(addr, 16) + ")"
}

// Names returns Name(id, demangle) for every function id of the map.
func (m *InstrMap) Names(demangle bool) map[int32]string {
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
func (m *InstrMap) WriteYAML(w io.Writer, symbolize, demangle bool) error {
	if m == nil || w == nil {
		return ErrNotOpen
	}
	if len(m.Sleds) == 0 {
		_, err := io.WriteString(w, "---\n[]\n...\n")
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("---\n")
	var b []byte
	cache := map[int32][]byte{}
	for _, s := range m.Sleds {
		b = append(b[:0], "- { id: "...)
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
		if symbolize {
			name, ok := cache[s.FuncID]
			if !ok {
				name = appendYAMLString(nil, []byte(m.Name(s.FuncID, demangle)))
				cache[s.FuncID] = name
			}
			b = append(b, name...)
		} else {
			b = append(b, "''"...)
		}
		b = append(b, ", version: "...)
		b = strconv.AppendUint(b, uint64(s.Version), 10)
		b = append(b, " }\n"...)
		bw.Write(b)
	}
	bw.WriteString("...\n")
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

// OpenInstrMap reads the instrumentation map of the ELF object at path
// (see ReadELFInstrMap) or, when the file is not an ELF object, the YAML
// map llvm-xray extract writes (see ReadInstrMap). Anything else is an
// error saying so (ErrNotInstrMap).
func OpenInstrMap(path string) (*InstrMap, error) {
	// The whole file is read: the symbols and DWARF of an ELF object are
	// read from it when names are first asked for.
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(data, []byte("\x7fELF")) {
		return readELFInstrMap(bytes.NewReader(data), int64(len(data)), data)
	}
	return ReadInstrMap(bytes.NewReader(data))
}

// ErrNotInstrMap means a file that is neither an ELF object nor a YAML
// instrumentation map.
var ErrNotInstrMap = errors.New("xrayfdr: not an ELF object or an llvm-xray instrumentation map")

// ReadInstrMap reads an instrumentation map in the YAML llvm-xray extract
// writes (one flow mapping a sled), with or without function names. A
// line that is not part of such a map is a *SyntaxError (wrapping
// ErrNotInstrMap on the first line); lines are at most 1 MiB.
func ReadInstrMap(r io.Reader) (*InstrMap, error) {
	m := &InstrMap{}
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
			return nil, &SyntaxError{Line: line, Err: fmt.Errorf("%w: text after the document end", ErrNotInstrMap)}
		case string(l) == "---" && !seenDoc && !seq:
			seenDoc = true
			continue
		case string(l) == "[]" || string(l) == "--- []":
			seenDoc, ended = true, true
			continue
		}
		s, err := parseSledLine(l)
		if err != nil {
			return nil, &SyntaxError{Line: line, Err: fmt.Errorf("%w: %v", ErrNotInstrMap, err)}
		}
		seq = true
		m.Sleds = append(m.Sleds, s.Sled)
		if int64(s.FuncID) > int64(len(m.Sleds)) || s.FuncID < 1 {
			return nil, &SyntaxError{Line: line, Err: fmt.Errorf("%w: function id %d out of range", ErrNotInstrMap, s.FuncID)}
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
		return nil, &SyntaxError{Line: max(line, 1), Err: fmt.Errorf("%w: no YAML sequence of sleds", ErrNotInstrMap)}
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
	if !bytes.HasPrefix(l, []byte("- {")) || l[len(l)-1] != '}' {
		return s, errors.New("not a sled entry")
	}
	body := l[3 : len(l)-1]
	seen := 0
	for len(bytes.TrimSpace(body)) > 0 {
		body = bytes.TrimLeft(body, " ")
		i := bytes.Index(body, []byte(": "))
		if i <= 0 {
			return s, errors.New("malformed key")
		}
		key := string(body[:i])
		body = body[i+2:]
		val, rest, err := flowScalar(body)
		if err != nil {
			return s, fmt.Errorf("%s: %v", key, err)
		}
		body = rest
		switch key {
		case "id":
			n, err := strconv.ParseInt(val, 0, 32)
			if err != nil {
				return s, fmt.Errorf("id %q", val)
			}
			s.FuncID = int32(n)
			seen |= 1
		case "address", "function":
			n, err := strconv.ParseUint(val, 0, 64)
			if err != nil {
				return s, fmt.Errorf("%s %q", key, val)
			}
			if key == "address" {
				s.Address = n
				seen |= 2
			} else {
				s.Function = n
				seen |= 4
			}
		case "kind":
			k := -1
			for i, n := range sledKindNames {
				if n == val {
					k = i
				}
			}
			if k < 0 {
				return s, fmt.Errorf("kind %q", val)
			}
			s.Kind = SledKind(k)
		case "always-instrument":
			b, err := strconv.ParseBool(val)
			if err != nil {
				return s, fmt.Errorf("always-instrument %q", val)
			}
			s.AlwaysInstrument = b
		case "function-name":
			s.name = val
		case "version":
			n, err := strconv.ParseUint(val, 0, 8)
			if err != nil {
				return s, fmt.Errorf("version %q", val)
			}
			s.Version = uint8(n)
		default:
			return s, fmt.Errorf("unknown key %q", key)
		}
	}
	if seen != 7 {
		return s, errors.New("id, address or function missing")
	}
	return s, nil
}

// flowScalar reads one scalar of a flow mapping from the start of s and
// returns it and what follows its separating comma.
func flowScalar(s []byte) (val string, rest []byte, err error) {
	if len(s) > 0 && (s[0] == '\'' || s[0] == '"') {
		q := s[0]
		var out []byte
		i := 1
		for ; i < len(s); i++ {
			c := s[i]
			if c == q {
				if q == '\'' && i+1 < len(s) && s[i+1] == '\'' {
					out = append(out, '\'')
					i++
					continue
				}
				break
			}
			if q == '"' && c == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					c = '\n'
				case 't':
					c = '\t'
				case 'r':
					c = '\r'
				case '0':
					c = 0
				case 'x':
					if i+2 < len(s) {
						if v, err := strconv.ParseUint(string(s[i+1:i+3]), 16, 8); err == nil {
							c = byte(v)
							i += 2
						}
					}
				default:
					c = s[i]
				}
			}
			out = append(out, c)
		}
		if i >= len(s) {
			return "", nil, errors.New("unterminated quoted scalar")
		}
		rest = bytes.TrimLeft(s[i+1:], " ")
		if len(rest) > 0 {
			if rest[0] != ',' {
				return "", nil, errors.New("text after a quoted scalar")
			}
			rest = rest[1:]
		}
		return string(out), rest, nil
	}
	end := bytes.IndexByte(s, ',')
	if end < 0 {
		end = len(s)
		rest = nil
	} else {
		rest = s[end+1:]
	}
	return string(bytes.TrimSpace(s[:end])), rest, nil
}
