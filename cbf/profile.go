package cbf

import (
	"encoding/hex"
	"io"
	"strconv"

	"github.com/tracefmt/tracefmt/internal/pprof"
)

// Profile turns backtraces into a pprof profile, which go tool pprof reads:
// one sample per distinct backtrace, its value the number of records
// (sample type "samples", unit "count"). The frames of a backtrace are its
// addresses, innermost first, repeats expanded (up to MaxProfileDepth);
// frames left out while capturing and a cut backtrace show as frames of
// their own, "[N frames omitted]" and "[truncated]". With Images set, the
// images become the profile's mappings and each address points into the
// image holding it.
//
// Feed it every record a Reader returns, with Add, then call WriteProfile.
// Memory grows with the distinct backtraces, not with the records. The zero
// value is ready to use.
type Profile struct {
	// Images, when not nil, is the image map the addresses fall in.
	Images *ImageMap

	stacks *pprof.Tally // frames as (kind, value) pairs
	stack  []uint64
}

// MaxProfileDepth is the most frames of one backtrace a Profile keeps; the
// rest show as "[N frames omitted]". It bounds what a rep instruction
// (a million copies in five bytes) costs.
const MaxProfileDepth = 1 << 16

// Kinds of the pairs of a Profile's stack keys.
const (
	profAddr uint64 = iota
	profOmitted
	profTruncated
)

// Add counts one backtrace.
func (p *Profile) Add(rec *Record) {
	if p == nil || rec == nil {
		return
	}
	if p.stacks == nil {
		p.stacks = pprof.NewTally(1)
	}
	s := p.stack[:0]
	var depth, dropped uint64
	var prev uint64
	hasPrev := false
	push := func(kind, v uint64) {
		if depth >= MaxProfileDepth {
			if kind == profOmitted {
				dropped += v
			} else if kind == profAddr {
				dropped++
			}
			return
		}
		depth++
		s = append(s, kind, v)
	}
	for _, f := range rec.Frames {
		switch {
		case f.Kind.HasAddr():
			push(profAddr, f.Addr)
			prev, hasPrev = f.Addr, true
		case f.Kind == Repeat:
			if !hasPrev {
				continue
			}
			n := f.Count
			if room := MaxProfileDepth - depth; n > room {
				dropped += n - room
				n = room
			}
			for range n {
				push(profAddr, prev)
			}
		case f.Kind == Omitted:
			push(profOmitted, f.Count)
			hasPrev = false
		case f.Kind == Truncated:
			if dropped > 0 {
				s = append(s, profOmitted, dropped)
				dropped = 0
			}
			s = append(s, profTruncated, 0)
		}
	}
	if dropped > 0 {
		s = append(s, profOmitted, dropped)
	}
	p.stack = s
	p.stacks.Add(s, 1)
}

// WriteProfile writes the backtraces counted so far as a gzip-compressed
// profile.proto.
func (p *Profile) WriteProfile(w io.Writer) error {
	if w == nil || p == nil {
		return ErrNotOpen
	}
	if p.stacks == nil {
		p.stacks = pprof.NewTally(1)
	}
	enc := pprof.NewEncoder(w, pprof.Header{
		SampleTypes:       []pprof.ValueType{{Type: "samples", Unit: "count"}},
		DefaultSampleType: "samples",
	})
	var mapIDs []uint64
	if p.Images != nil {
		for _, im := range p.Images.Images {
			m := pprof.Mapping{Start: im.Base, Limit: im.EndOfText, File: im.Path}
			if len(im.BuildID) > 0 {
				m.BuildID = hex.EncodeToString(im.BuildID)
			}
			mapIDs = append(mapIDs, enc.Mapping(m))
		}
	}
	type frameKey struct{ kind, v uint64 }
	locs := map[frameKey]uint64{}
	var stack, sample []uint64
	for i := range p.stacks.Len() {
		stack = p.stacks.Stack(stack[:0], i)
		sample = sample[:0]
		for j := 0; j+1 < len(stack); j += 2 {
			k := frameKey{stack[j], stack[j+1]}
			id, ok := locs[k]
			if !ok {
				id = p.location(enc, k.kind, k.v, mapIDs)
				locs[k] = id
			}
			sample = append(sample, id)
		}
		if err := enc.Sample(sample, p.stacks.Values(i)); err != nil {
			return err
		}
	}
	return enc.Close()
}

func (p *Profile) location(enc *pprof.Encoder, kind, v uint64, mapIDs []uint64) uint64 {
	switch kind {
	case profOmitted:
		fn := enc.Function("["+strconv.FormatUint(v, 10)+" frames omitted]", "", "", 0)
		return enc.Location(pprof.Location{Lines: []pprof.Line{{Function: fn}}})
	case profTruncated:
		fn := enc.Function("[truncated]", "", "", 0)
		return enc.Location(pprof.Location{Lines: []pprof.Line{{Function: fn}}})
	}
	l := pprof.Location{Address: v}
	if p.Images != nil {
		if i, ok := p.Images.Lookup(v); ok {
			l.Mapping = mapIDs[i]
		}
	}
	return enc.Location(l)
}
