package apitrace

import (
	"io"
	"strconv"

	"github.com/tracefmt/tracefmt/internal/pprof"
)

// Profile counts the calls of a trace into a pprof profile, which go tool
// pprof reads: sample type "calls" (count), the innermost frame of each
// sample being the function called (glDrawArrays) and, where the trace
// records backtraces (apitrace's APITRACE_BACKTRACE), the frames of the
// call's backtrace outside it, named as the backtrace names them
// (function, file and line, or module+offset, as apitrace dump prints
// them). Calls without a backtrace are counted per function. The profile's total is the number of calls
// added: that of apitrace info, incomplete calls included.
//
// Feed it every call a CallReader returns, with Add, then call
// WriteProfile. Memory grows with the distinct functions and backtraces,
// not with the calls. The zero value is ready to use.
type Profile struct {
	stacks *pprof.Tally // function signature id + 1 (0: none), then frame ids
	names  map[uint64]string
	frames map[uint64]Frame
	stack  []uint64
}

// Add counts one call.
func (p *Profile) Add(c *Call) {
	if p == nil || c == nil {
		return
	}
	if p.stacks == nil {
		p.stacks = pprof.NewTally(1)
		p.names = map[uint64]string{}
		p.frames = map[uint64]Frame{}
	}
	s := p.stack[:0]
	var fn uint64
	if c.Sig != nil {
		fn = c.Sig.ID + 1
		if _, ok := p.names[fn]; !ok {
			p.names[fn] = c.Sig.Name
		}
	}
	s = append(s, fn)
	for _, f := range c.Backtrace {
		if f == nil {
			continue
		}
		if _, ok := p.frames[f.ID]; !ok {
			p.frames[f.ID] = *f
		}
		s = append(s, f.ID)
	}
	p.stack = s
	p.stacks.Add(s, 1)
}

// WriteProfile writes the calls counted so far as a gzip-compressed
// profile.proto.
func (p *Profile) WriteProfile(w io.Writer) error {
	if w == nil || p == nil {
		return ErrNotOpen
	}
	if p.stacks == nil {
		p.stacks = pprof.NewTally(1)
	}
	enc := pprof.NewEncoder(w, pprof.Header{
		SampleTypes:       []pprof.ValueType{{Type: "calls", Unit: "count"}},
		DefaultSampleType: "calls",
	})
	calls := map[uint64]uint64{}  // function signature id + 1 -> location
	frames := map[uint64]uint64{} // frame id -> location
	var stack, sample []uint64
	for i := range p.stacks.Len() {
		stack = p.stacks.Stack(stack[:0], i)
		sample = sample[:0]
		l, ok := calls[stack[0]]
		if !ok {
			name, ok := p.names[stack[0]]
			if !ok {
				name = "?"
			}
			l = enc.Location(pprof.Location{Lines: []pprof.Line{{Function: enc.Function(name, "", "", 0)}}})
			calls[stack[0]] = l
		}
		sample = append(sample, l)
		for _, id := range stack[1:] {
			l, ok := frames[id]
			if !ok {
				l = frameLocation(enc, p.frames[id])
				frames[id] = l
			}
			sample = append(sample, l)
		}
		if err := enc.Sample(sample, p.stacks.Values(i)); err != nil {
			return err
		}
	}
	return enc.Close()
}

// frameLocation adds the location of a backtrace frame: its function, file
// and line where the trace has them, else its module and offset as
// apitrace dump prints them ("glxinfo+0x4449"), else "?".
func frameLocation(enc *pprof.Encoder, f Frame) uint64 {
	name := f.Function
	if f.Has&HasFunction == 0 || name == "" {
		name = "?"
		if f.Has&HasModule != 0 {
			name = f.Module
			if f.Has&HasOffset != 0 {
				name += "+0x" + strconv.FormatUint(f.Offset, 16)
			}
		}
	}
	var file string
	var line int64
	if f.Has&HasFile != 0 {
		file = f.File
	}
	if f.Has&HasLine != 0 {
		line = int64(f.Line)
	}
	fn := enc.Function(name, "", file, 0)
	return enc.Location(pprof.Location{Lines: []pprof.Line{{Function: fn, Line: line}}})
}
