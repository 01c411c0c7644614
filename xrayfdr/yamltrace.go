package xrayfdr

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tracefmt/tracefmt/xrayfdr/internal/llvmyaml"
)

// ErrYAMLTrace means a YAML trace (llvm-xray convert's output) that
// cannot be read; it comes in a *SyntaxError giving the line.
var ErrYAMLTrace = errors.New("xrayfdr: malformed YAML trace")

// isYAMLTrace reports whether data looks like the YAML llvm-xray convert
// writes (llvm-xray takes anything that is not a binary log as YAML).
func isYAMLTrace(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return bytes.HasPrefix(t, []byte("---")) || bytes.HasPrefix(t, []byte("header:"))
}

// walkYAML walks the records of a YAML trace: in file order, as
// llvm-xray reads them, unless a thread's timestamps go backwards in the
// file, in which case all records are put in time order first (stable).
// The records are held in memory: 48 bytes each.
func (w *Walker) walkYAML(data []byte, fn func(e *Event) error) error {
	var (
		evs     []Event
		inRecs  bool
		h       Header
		sorted  = true
		lastTSC = map[uint64]uint64{}
		// top and keys record which of the document's keys and the
		// header's keys were seen: llvm-xray requires each once.
		top, keys  int
		headerLine = 1
	)
	line := 0
	for len(data) > 0 {
		line++
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		l = bytes.TrimRight(l, " \r")
		t := bytes.TrimLeft(l, " ")
		switch {
		case len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) || bytes.Equal(t, []byte("...")):
			continue
		case bytes.Equal(t, []byte("header:")):
			if top&1 != 0 {
				return &SyntaxError{Line: line, Err: fmt.Errorf("%w: duplicated mapping key 'header'", ErrYAMLTrace)}
			}
			top |= 1
			inRecs, headerLine = false, line
			continue
		case bytes.HasPrefix(t, []byte("records:")):
			if top&2 != 0 {
				return &SyntaxError{Line: line, Err: fmt.Errorf("%w: duplicated mapping key 'records'", ErrYAMLTrace)}
			}
			top |= 2
			inRecs = true
			if rest := bytes.TrimSpace(t[len("records:"):]); len(rest) > 0 && !bytes.Equal(rest, []byte("[]")) {
				return &SyntaxError{Line: line, Err: fmt.Errorf("%w: records must be a block sequence", ErrYAMLTrace)}
			}
			continue
		}
		if !inRecs {
			k, v, ok := bytes.Cut(t, []byte(":"))
			if !ok {
				return &SyntaxError{Line: line, Err: fmt.Errorf("%w: %q", ErrYAMLTrace, t)}
			}
			v = bytes.TrimSpace(v)
			if top&1 == 0 {
				return &SyntaxError{Line: line, Err: fmt.Errorf("%w: unknown key %q", ErrYAMLTrace, k)}
			}
			if i := slices.Index(yamlHeaderKeys[:], string(k)); i >= 0 {
				bit := 1 << i
				if keys&bit != 0 {
					return &SyntaxError{Line: line, Err: fmt.Errorf("%w: duplicated mapping key '%s'", ErrYAMLTrace, k)}
				}
				keys |= bit
			}
			var err error
			switch string(k) {
			case "version":
				var n uint64
				n, err = strconv.ParseUint(string(v), 0, 16)
				h.Version = uint16(n)
			case "type":
				var n uint64
				n, err = strconv.ParseUint(string(v), 0, 16)
				h.Type = uint16(n)
			case "cycle-frequency":
				h.CycleFrequency, err = strconv.ParseUint(string(v), 0, 64)
			case "constant-tsc", "nonstop-tsc":
				var b bool
				b, err = strconv.ParseBool(string(v))
				bit := uint32(1)
				if k[0] == 'n' {
					bit = 2
				}
				if b {
					h.Flags |= bit
				}
			default:
				err = fmt.Errorf("unknown key %q", k)
			}
			if err != nil {
				return &SyntaxError{Line: line, Err: fmt.Errorf("%w: %v", ErrYAMLTrace, err)}
			}
			continue
		}
		e, err := parseYAMLRecord(t)
		if err != nil {
			return &SyntaxError{Line: line, Err: fmt.Errorf("%w: %v", ErrYAMLTrace, err)}
		}
		key := uint64(e.PID)<<32 | uint64(e.TID)
		if last, ok := lastTSC[key]; ok && e.TSC < last {
			sorted = false
		}
		lastTSC[key] = e.TSC
		evs = append(evs, e)
	}
	for i, k := range yamlHeaderKeys {
		if top&1 != 0 && keys&(1<<i) == 0 {
			return &SyntaxError{Line: headerLine, Err: fmt.Errorf("%w: missing required key '%s'", ErrYAMLTrace, k)}
		}
	}
	for i, k := range []string{"header", "records"} {
		if top&(1<<i) == 0 {
			return &SyntaxError{Line: 1, Err: fmt.Errorf("%w: missing required key '%s'", ErrYAMLTrace, k)}
		}
	}
	w.h = h
	if !sorted {
		slices.SortStableFunc(evs, func(a, b Event) int {
			switch {
			case a.TSC < b.TSC:
				return -1
			case a.TSC > b.TSC:
				return 1
			}
			return 0
		})
	}
	for i := range evs {
		if err := fn(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}

// yamlHeaderKeys are the keys of a YAML trace's header, each of which
// llvm-xray requires.
var yamlHeaderKeys = [...]string{"version", "type", "constant-tsc", "nonstop-tsc", "cycle-frequency"}

// parseYAMLRecord parses one "- { type: 0, func-id: 1, ... }" line.
func parseYAMLRecord(l []byte) (Event, error) {
	var e Event
	seen := 0
	err := llvmyaml.FlowPairs(l, "record", func(key, val string) error {
		var n uint64
		var err error
		switch key {
		case "type", "cpu":
			n, err = strconv.ParseUint(val, 0, 16)
		case "thread", "process":
			n, err = strconv.ParseUint(val, 0, 32)
		case "tsc":
			n, err = strconv.ParseUint(val, 0, 64)
		}
		if err != nil {
			return fmt.Errorf("%s %q", key, val)
		}
		switch key {
		case "type":
			e.RecordType = uint16(n)
			seen |= 8
		case "cpu":
			e.CPU = uint16(n)
			seen |= 16
		case "thread":
			e.TID = uint32(n)
		case "process":
			e.PID = uint32(n)
		case "tsc":
			e.TSC = n
			seen |= 4
		case "func-id":
			id, err := strconv.ParseInt(val, 0, 32)
			if err != nil {
				return fmt.Errorf("func-id %q", val)
			}
			e.FuncID = int32(id)
			seen |= 1
		case "kind":
			k := slices.Index(eventKindNames[:], val)
			if k < 0 {
				return fmt.Errorf("kind %q", val)
			}
			e.Kind = EventKind(k)
			seen |= 2
		case "args":
			if !strings.HasPrefix(val, "[") {
				return errors.New("args: not a sequence")
			}
		case "function", "data":
		default:
			return fmt.Errorf("unknown key %q", key)
		}
		return nil
	})
	if err == nil && seen != 31 {
		err = errors.New("type, func-id, cpu, kind or tsc missing")
	}
	return e, err
}
