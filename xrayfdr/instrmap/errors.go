package instrmap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FormatError reports an ELF object whose instrumentation map cannot be
// read. Err is ErrELF, ErrMachine or ErrNoSection (possibly wrapped with
// detail).
type FormatError struct {
	Offset int64 // byte offset in the object of what is wrong (0 for the object as a whole)
	Err    error
}

func (e *FormatError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return "instrmap: offset " + strconv.FormatInt(e.Offset, 10) + ": " + errText(e.Err)
}

func (e *FormatError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// SyntaxError reports a line of a YAML map that cannot be read. Err wraps
// ErrNotMap, or is ErrTooLarge.
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return "instrmap: line " + strconv.Itoa(e.Line) + ": " + errText(e.Err)
}

func (e *SyntaxError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// errText is err's message without the package prefix, so that an error
// names the package once.
func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return strings.TrimPrefix(err.Error(), "instrmap: ")
}

var (
	// ErrNotMap means a file that is neither an ELF object nor a YAML
	// instrumentation map.
	ErrNotMap = errors.New("instrmap: not an ELF object or an llvm-xray instrumentation map")
	// ErrNoSection means an ELF object without an xray_instr_map section.
	ErrNoSection = errors.New("instrmap: no XRay instrumentation map (xray_instr_map section) in the ELF object")
	// ErrELF means an ELF object that cannot be read: tables or sections
	// outside the file, an instrumentation map that is not whole entries or
	// has a sled kind no LLVM writes.
	ErrELF = errors.New("instrmap: malformed ELF object")
	// ErrMachine means an ELF object for a machine whose instrumentation map
	// we do not read.
	ErrMachine = errors.New("instrmap: instrumentation maps are read from little-endian 64-bit x86-64 and AArch64 ELF objects only")
	// ErrTooLarge means a line of a YAML map longer than 1 MiB.
	ErrTooLarge = errors.New("instrmap: line beyond limit")
	// ErrNotOpen means a nil reader or writer.
	ErrNotOpen = errors.New("instrmap: not open")
)

// elfError is a *FormatError wrapping ErrELF, at file offset off.
func elfError(off int64, format string, args ...any) error {
	return &FormatError{Offset: off, Err: fmt.Errorf("%w: "+format, append([]any{ErrELF}, args...)...)}
}
