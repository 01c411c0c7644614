package demangle

import (
	"errors"
	"strconv"
	"sync"
)

var (
	// ErrInvalid reports a name that is not a valid mangled name.
	ErrInvalid = errors.New("demangle: not a valid mangled name")
	// ErrTooLarge reports a name whose demangling would be far longer
	// than the name or take far too much work (only hostile names do).
	ErrTooLarge = errors.New("demangle: demangled name too large")
)

// Error is the error Demangle returns: Err is ErrInvalid or ErrTooLarge,
// Offset where in the name parsing stopped.
type Error struct {
	Offset int
	Err    error
}

func (e *Error) Error() string {
	msg := "invalid"
	if e.Err != nil {
		msg = e.Err.Error()
		if len(msg) > len("demangle: ") && msg[:len("demangle: ")] == "demangle: " {
			msg = msg[len("demangle: "):]
		}
	}
	return "demangle: offset " + strconv.Itoa(e.Offset) + ": " + msg
}

func (e *Error) Unwrap() error { return e.Err }

// Output limits: the demangled text may be at most outputFactor times the
// name plus outputSlack bytes, and printing may take at most workFactor
// steps per byte of the name plus workSlack.
const (
	outputFactor = 64
	outputSlack  = 4096
	workFactor   = 256
	workSlack    = 1 << 16
)

// A Version is the LLVM release whose llvm-cxxfilt a demangling follows:
// its major number. Demangle and Filter follow LLVM14.
type Version int

const (
	// LLVM14 spells as llvm-cxxfilt-14 (Debian 12's llvm-14) does, with a
	// space between closing template brackets where LLVM 14 puts one
	// ("std::vector<int, std::allocator<int> >").
	LLVM14 Version = 14
	// LLVM19 spells as llvm-cxxfilt-19 does: closing template brackets
	// are never spaced ("std::vector<int, std::allocator<int>>"),
	// expressions have only the parentheses C++ needs. Versions from 15
	// on are taken as 19.
	LLVM19 Version = 19
)

type state struct {
	p  parser
	pr printer
}

var pool = sync.Pool{New: func() any { return new(state) }}

// Demangle returns the demangled form of a mangled C++ name: an Itanium
// C++ ABI symbol starting with "_Z" (with an optional clone suffix such
// as ".cold"), a block invocation starting with "___Z", or an import
// thunk "__imp_" followed by a mangled name or type, printed as
// llvm-cxxfilt-14 prints it. Any other name is an error.
func Demangle(name string) (string, error) {
	return LLVM14.Demangle(name)
}

// Demangle is the package's Demangle, spelt as LLVM release v does.
func (v Version) Demangle(name string) (string, error) {
	st := pool.Get().(*state)
	defer pool.Put(st)
	st.follow(v)
	out, err := st.word(name)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// follow sets the parser and printer to LLVM release v's rules.
func (st *state) follow(v Version) {
	st.p.llvm19 = v >= 15
	st.pr.tight = v >= 15
	st.pr.llvm19 = v >= 15
}

// word demangles one word the way llvm-cxxfilt does. The result is valid
// until the state is used again.
func (st *state) word(name string) ([]byte, error) {
	switch {
	case hasPrefix(name, "_Z"), hasPrefix(name, "___Z"):
		return st.demangle(name, "")
	case len(name) > 6 && hasPrefix(name, "__imp_"):
		return st.demangle(name[6:], "import thunk for ")
	}
	return nil, &Error{Offset: 0, Err: ErrInvalid}
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// demangle parses name and prints prefix and the demangling into the
// state's buffer.
func (st *state) demangle(name, prefix string) ([]byte, error) {
	p := &st.p
	p.reset(name)
	root := p.parse()
	if root == nil || p.bad {
		pos := p.pos
		p.reset("")
		return nil, &Error{Offset: pos, Err: ErrInvalid}
	}
	pr := &st.pr
	pr.buf = append(pr.buf[:0], prefix...)
	pr.max = len(prefix) + outputFactor*len(name) + outputSlack
	pr.steps = workFactor*len(name) + workSlack
	pr.depth = 0
	pr.failed = false
	pr.packIdx, pr.packMax = noPack, noPack
	pr.gtOK = 1
	pr.print(root)
	p.reset("") // drop references to the name and its nodes
	if pr.failed {
		return nil, &Error{Offset: len(name), Err: ErrTooLarge}
	}
	if cap(pr.buf) > 1<<20 {
		// Keep no huge buffer in the pool.
		out := pr.buf
		pr.buf = nil
		return out, nil
	}
	return pr.buf, nil
}

// Filter returns what llvm-cxxfilt-14 prints for one line: each word (a
// run of letters, digits, '_', '$' and '.') that is a mangled name is
// replaced by its demangling; everything else is kept as it is.
func Filter(line string) string {
	return LLVM14.Filter(line)
}

// Filter is the package's Filter, spelt as LLVM release v does.
func (v Version) Filter(line string) string {
	st := pool.Get().(*state)
	defer pool.Put(st)
	st.follow(v)
	if isWord(line) {
		out, err := st.word(line)
		if err != nil {
			return line
		}
		return string(out)
	}
	var out []byte
	for i := 0; i < len(line); {
		j := i
		for j < len(line) && isWordByte(line[j]) {
			j++
		}
		if j > i {
			w := line[i:j]
			if d, err := st.word(w); err == nil {
				out = append(out, d...)
			} else {
				out = append(out, w...)
			}
		}
		k := j
		for k < len(line) && !isWordByte(line[k]) {
			k++
		}
		out = append(out, line[j:k]...)
		i = k
	}
	return string(out)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.'
}

func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}
