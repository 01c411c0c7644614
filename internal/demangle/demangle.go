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
	st := pool.Get().(*state)
	defer pool.Put(st)
	out, err := st.word(name, nil)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// word demangles one word the way llvm-cxxfilt does, appending to dst.
func (st *state) word(name string, dst []byte) ([]byte, error) {
	switch {
	case hasPrefix(name, "_Z"), hasPrefix(name, "___Z"):
		return st.demangle(name, dst)
	case len(name) > 6 && hasPrefix(name, "__imp_"):
		out, err := st.demangle(name[6:], append(dst, "import thunk for "...))
		if err != nil {
			return dst, err
		}
		return out, nil
	}
	return dst, &Error{Offset: 0, Err: ErrInvalid}
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func (st *state) demangle(name string, dst []byte) ([]byte, error) {
	p := &st.p
	p.reset(name)
	root := p.parse()
	if root == nil || p.bad {
		pos := p.pos
		p.reset("")
		return dst, &Error{Offset: pos, Err: ErrInvalid}
	}
	pr := &st.pr
	start := len(dst)
	pr.buf = dst
	pr.max = start + outputFactor*len(name) + outputSlack
	pr.steps = workFactor*len(name) + workSlack
	pr.depth = 0
	pr.failed = false
	pr.packIdx, pr.packMax = noPack, noPack
	pr.print(root)
	out := pr.buf
	pr.buf = nil
	failed := pr.failed
	p.reset("") // drop references to the name and its nodes
	if failed {
		return dst[:start], &Error{Offset: len(name), Err: ErrTooLarge}
	}
	return out, nil
}

// Filter returns what llvm-cxxfilt-14 prints for one line: each word (a
// run of letters, digits, '_', '$' and '.') that is a mangled name is
// replaced by its demangling; everything else is kept as it is.
func Filter(line string) string {
	st := pool.Get().(*state)
	defer pool.Put(st)
	if isWord(line) {
		out, err := st.word(line, nil)
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
			n := len(out)
			var err error
			out, err = st.word(w, out)
			if err != nil {
				out = append(out[:n], w...)
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
