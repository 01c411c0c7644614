package testutil

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracefmt/tracefmt/varint"
)

// Profile is a pprof profile as DecodeProfile reads it back, with every
// reference resolved.
type Profile struct {
	SampleTypes []string // "type/unit"
	Default     string
	Period      int64
	PeriodType  string
	Comments    []string
	Samples     []Sample
	Mappings    []ProfileMapping
}

// Sample is a sample with its stack as names: per location, innermost
// first, its function names (inlined ones joined by "|") or, when it has
// none, its address as 0x….
type Sample struct {
	Stack  []string
	Addrs  []uint64 // per location, its address
	Values []int64
	Labels map[string]string
}

// ProfileMapping is a mapping of a Profile.
type ProfileMapping struct {
	Start, Limit, Offset uint64
	File, BuildID        string
}

// Totals sums every value of the samples, per sample type.
func (p *Profile) Totals() []int64 {
	t := make([]int64, len(p.SampleTypes))
	for _, s := range p.Samples {
		for i, v := range s.Values {
			t[i] += v
		}
	}
	return t
}

type protoField struct {
	num  int
	v    uint64
	data []byte
}

// protoFields splits a message into its fields; packed varints stay as
// data.
func protoFields(t testing.TB, b []byte) []protoField {
	t.Helper()
	var fs []protoField
	for len(b) > 0 {
		tag, n := varint.Consume(b)
		if n <= 0 {
			t.Fatalf("profile: bad tag")
		}
		b = b[n:]
		f := protoField{num: int(tag >> 3)}
		switch tag & 7 {
		case 0:
			f.v, n = varint.Consume(b)
			if n <= 0 {
				t.Fatalf("profile: bad varint in field %d", f.num)
			}
			b = b[n:]
		case 2:
			l, n := varint.Consume(b)
			if n <= 0 || l > uint64(len(b)-n) {
				t.Fatalf("profile: bad length in field %d", f.num)
			}
			f.data = b[n : n+int(l)]
			b = b[n+int(l):]
		default:
			t.Fatalf("profile: wire type %d in field %d", tag&7, f.num)
		}
		fs = append(fs, f)
	}
	return fs
}

// varints returns a repeated varint field's values, packed or not.
func varints(t testing.TB, f protoField) []uint64 {
	if f.data == nil {
		return []uint64{f.v}
	}
	var vs []uint64
	for b := f.data; len(b) > 0; {
		v, n := varint.Consume(b)
		if n <= 0 {
			t.Fatalf("profile: bad packed varint in field %d", f.num)
		}
		vs = append(vs, v)
		b = b[n:]
	}
	return vs
}

// DecodeProfile reads a gzip-compressed profile.proto with a decoder of
// its own (the fields our encoder writes) and fails the test on anything
// malformed: a dangling reference, a string index out of range.
func DecodeProfile(t testing.TB, gz []byte) *Profile {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("profile: %v", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("profile: %v", err)
	}
	var strs []string
	top := protoFields(t, raw)
	for _, f := range top {
		if f.num == 6 {
			strs = append(strs, string(f.data))
		}
	}
	str := func(i uint64) string {
		if i >= uint64(len(strs)) {
			t.Fatalf("profile: string index %d of %d", i, len(strs))
		}
		return strs[i]
	}
	if len(strs) == 0 || strs[0] != "" {
		t.Fatalf("profile: string table does not start with \"\"")
	}
	funcs := map[uint64]string{}
	locs := map[uint64]string{}
	addrs := map[uint64]uint64{}
	maps := map[uint64]bool{}
	p := &Profile{}
	type rawSample struct {
		locs   []uint64
		vals   []int64
		labels map[string]string
	}
	var samples []rawSample
	valueType := func(b []byte) string {
		var typ, unit uint64
		for _, f := range protoFields(t, b) {
			switch f.num {
			case 1:
				typ = f.v
			case 2:
				unit = f.v
			}
		}
		return str(typ) + "/" + str(unit)
	}
	for _, f := range top {
		switch f.num {
		case 1:
			p.SampleTypes = append(p.SampleTypes, valueType(f.data))
		case 2:
			var s rawSample
			for _, g := range protoFields(t, f.data) {
				switch g.num {
				case 1:
					s.locs = append(s.locs, varints(t, g)...)
				case 2:
					for _, v := range varints(t, g) {
						s.vals = append(s.vals, int64(v))
					}
				case 3:
					var k, v uint64
					for _, h := range protoFields(t, g.data) {
						switch h.num {
						case 1:
							k = h.v
						case 2:
							v = h.v
						}
					}
					if s.labels == nil {
						s.labels = map[string]string{}
					}
					s.labels[str(k)] = str(v)
				}
			}
			samples = append(samples, s)
		case 3:
			var m ProfileMapping
			var id uint64
			for _, g := range protoFields(t, f.data) {
				switch g.num {
				case 1:
					id = g.v
				case 2:
					m.Start = g.v
				case 3:
					m.Limit = g.v
				case 4:
					m.Offset = g.v
				case 5:
					m.File = str(g.v)
				case 6:
					m.BuildID = str(g.v)
				}
			}
			maps[id] = true
			p.Mappings = append(p.Mappings, m)
		case 5:
			var id, name uint64
			for _, g := range protoFields(t, f.data) {
				switch g.num {
				case 1:
					id = g.v
				case 2:
					name = g.v
				}
			}
			funcs[id] = str(name)
		case 11:
			p.PeriodType = valueType(f.data)
		case 12:
			p.Period = int64(f.v)
		case 13:
			p.Comments = append(p.Comments, str(f.v))
		case 14:
			p.Default = str(f.v)
		}
	}
	for _, f := range top {
		if f.num != 4 {
			continue
		}
		var id, addr, mapping uint64
		var names []string
		for _, g := range protoFields(t, f.data) {
			switch g.num {
			case 1:
				id = g.v
			case 2:
				mapping = g.v
			case 3:
				addr = g.v
			case 4:
				for _, h := range protoFields(t, g.data) {
					if h.num == 1 {
						name, ok := funcs[h.v]
						if !ok {
							t.Fatalf("profile: location %d refers to function %d, which is not there", id, h.v)
						}
						names = append(names, name)
					}
				}
			}
		}
		if mapping != 0 && !maps[mapping] {
			t.Fatalf("profile: location %d refers to mapping %d, which is not there", id, mapping)
		}
		s := "0x" + strconv.FormatUint(addr, 16)
		if len(names) > 0 {
			s = names[0]
			for _, n := range names[1:] {
				s += "|" + n
			}
		}
		locs[id] = s
		addrs[id] = addr
	}
	for _, s := range samples {
		if len(s.vals) != len(p.SampleTypes) {
			t.Fatalf("profile: a sample has %d values for %d sample types", len(s.vals), len(p.SampleTypes))
		}
		ps := Sample{Values: s.vals, Labels: s.labels}
		for _, l := range s.locs {
			name, ok := locs[l]
			if !ok {
				t.Fatalf("profile: a sample refers to location %d, which is not there", l)
			}
			ps.Stack = append(ps.Stack, name)
			ps.Addrs = append(ps.Addrs, addrs[l])
		}
		p.Samples = append(p.Samples, ps)
	}
	return p
}

// PprofTop runs go tool pprof -top on a profile, when the go command is
// there (else the test skips, or fails under CI), and returns its output.
func PprofTop(t testing.TB, gz []byte, args ...string) string {
	t.Helper()
	goTool := Tool(t, "go")
	path := filepath.Join(t.TempDir(), "profile.pb.gz")
	if err := os.WriteFile(path, gz, 0o666); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goTool, append(append([]string{"tool", "pprof", "-top"}, args...), path)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -top: %v\n%s", err, out)
	}
	return string(out)
}

// TopTotal is the total go tool pprof -top prints: "… of N total".
func TopTotal(t testing.TB, top string) string {
	t.Helper()
	var shown, pct, total string
	for _, line := range bytes.Split([]byte(top), []byte("\n")) {
		if n, _ := fmt.Sscanf(string(line), "Showing nodes accounting for %s %s of %s total", &shown, &pct, &total); n == 3 {
			return total
		}
	}
	t.Fatalf("go tool pprof -top: no total in\n%s", top)
	return ""
}
