package apitrace

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// CallSet is a set of call numbers written in apitrace's --calls syntax
// (lib/trace/trace_callset.hpp):
//
//	set      = range ( [','] range )*  |  '@' file
//	range    = interval [ '/' step ]  |  frequency
//	interval = '*' | N | N '-' [M]
//	step     = N | frequency
//	frequency = "frame" | "rendertarget" | "fbo" | "render" | "draw"
//
// "N-" runs to the last call; a frequency keeps only the calls of the
// interval with that flag (frame: calls that end a frame; rendertarget and
// fbo: those plus calls that change the render target; render and draw:
// draw calls). Spaces are allowed between tokens, and an argument is split
// at commas first, so "@file" may be one of several comma-separated parts.
// Call numbers are 32-bit and wrap as in apitrace.
//
// The zero CallSet holds every call. The first Merge replaces that
// default, later ones add to it, as repeated --calls options do.
type CallSet struct {
	ranges   []callRange
	first    uint32
	last     uint32
	explicit bool
}

type callRange struct {
	start, stop, step uint32
	freq              NameFlags // 0: every call
}

// ParseCallSet parses s as apitrace's --calls=SET argument.
func ParseCallSet(s string) (CallSet, error) {
	var c CallSet
	err := c.Merge(s)
	return c, err
}

// Merge adds the calls of s to the set. On error the set keeps the ranges
// parsed before the error.
func (c *CallSet) Merge(s string) error {
	if c == nil {
		return fmt.Errorf("%w: merging %q into a nil call set", ErrDumpOption, s)
	}
	if !c.explicit {
		*c = CallSet{explicit: true}
	}
	for _, part := range strings.Split(s, ",") {
		if name, ok := strings.CutPrefix(part, "@"); ok {
			b, err := os.ReadFile(name)
			if err != nil {
				return fmt.Errorf("apitrace: call set: %w", err)
			}
			part = string(b)
		}
		if err := c.parse(part); err != nil {
			return err
		}
	}
	return nil
}

// errCallSetStep is returned for a step of 0, which makes apitrace divide
// by zero.
var errCallSetStep = errors.New("apitrace: call set: step must not be 0")

type callSetScanner struct {
	s string
	i int
}

func (p *callSetScanner) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *callSetScanner) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *callSetScanner) operator(c byte) bool {
	if p.peek() == c && c != 0 {
		p.i++
		p.skipSpace()
		return true
	}
	return false
}

func (p *callSetScanner) isDigit() bool { c := p.peek(); return c >= '0' && c <= '9' }
func (p *callSetScanner) isAlpha() bool { c := p.peek(); return c >= 'a' && c <= 'z' }

func (p *callSetScanner) found() string {
	if p.i >= len(p.s) {
		return "end of set"
	}
	return fmt.Sprintf("'%c'", p.s[p.i])
}

func (p *callSetScanner) number() (uint32, error) {
	if !p.isDigit() {
		return 0, fmt.Errorf("apitrace: call set: expected digit, found %s", p.found())
	}
	var n uint32
	for p.isDigit() {
		n = n*10 + uint32(p.s[p.i]-'0')
		p.i++
	}
	p.skipSpace()
	return n, nil
}

func (p *callSetScanner) frequency() (NameFlags, error) {
	if !p.isAlpha() {
		return 0, fmt.Errorf("apitrace: call set: expected frequency, found %s", p.found())
	}
	start := p.i
	for p.isAlpha() {
		p.i++
	}
	word := p.s[start:p.i]
	p.skipSpace()
	switch word {
	case "frame":
		return NameEndFrame, nil
	case "rendertarget", "fbo":
		return NameEndFrame | NameSwapRenderTarget, nil
	case "render", "draw":
		return NameRender, nil
	}
	return 0, fmt.Errorf("apitrace: call set: expected frequency, found '%s'", word)
}

func (c *CallSet) parse(s string) error {
	p := callSetScanner{s: s}
	p.skipSpace()
	for p.i < len(p.s) {
		r := callRange{start: 0, stop: ^uint32(0), step: 1}
		var err error
		if p.isAlpha() {
			if r.freq, err = p.frequency(); err != nil {
				return err
			}
		} else {
			if !p.operator('*') {
				if r.start, err = p.number(); err != nil {
					return err
				}
				r.stop = r.start
				if p.operator('-') {
					r.stop = ^uint32(0)
					if p.isDigit() {
						r.stop, _ = p.number()
					}
				}
			}
			if p.operator('/') {
				if p.isDigit() {
					r.step, _ = p.number()
					if r.step == 0 {
						return errCallSetStep
					}
				} else if r.freq, err = p.frequency(); err != nil {
					return err
				}
			}
		}
		c.add(r)
		p.operator(',')
	}
	return nil
}

func (c *CallSet) add(r callRange) {
	if r.start > r.stop {
		return
	}
	if len(c.ranges) == 0 {
		c.first, c.last = r.start, r.stop
	} else {
		c.first = min(c.first, r.start)
		c.last = max(c.last, r.stop)
	}
	c.ranges = append(c.ranges, r)
}

// Contains reports whether the call numbered no, whose function name has
// the given flags, is in the set.
func (c *CallSet) Contains(no uint64, flags NameFlags) bool {
	if c == nil || !c.explicit {
		return true
	}
	n := uint32(no)
	for _, r := range c.ranges {
		if n >= r.start && n <= r.stop && (n-r.start)%r.step == 0 &&
			(r.freq == 0 || flags&r.freq != 0) {
			return true
		}
	}
	return false
}

// Last returns the highest call number the set can hold. apitrace dump
// stops reading a trace at the first call numbered above it.
func (c *CallSet) Last() uint32 {
	if c == nil || !c.explicit || len(c.ranges) == 0 {
		return ^uint32(0)
	}
	return c.last
}

// String returns the set in the syntax ParseCallSet reads.
func (c *CallSet) String() string {
	if c == nil || !c.explicit {
		return "*"
	}
	var b strings.Builder
	for i, r := range c.ranges {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case r.start == 0 && r.stop == ^uint32(0):
			b.WriteByte('*')
		case r.start == r.stop:
			fmt.Fprintf(&b, "%d", r.start)
		case r.stop == ^uint32(0):
			fmt.Fprintf(&b, "%d-", r.start)
		default:
			fmt.Fprintf(&b, "%d-%d", r.start, r.stop)
		}
		switch {
		case r.freq == NameEndFrame:
			b.WriteString("/frame")
		case r.freq == NameEndFrame|NameSwapRenderTarget:
			b.WriteString("/rendertarget")
		case r.freq == NameRender:
			b.WriteString("/draw")
		case r.step != 1:
			fmt.Fprintf(&b, "/%d", r.step)
		}
	}
	return b.String()
}
