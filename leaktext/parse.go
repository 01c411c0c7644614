package leaktext

import "bytes"

// Line parsers. Each works on one line without its line ending and
// reports whether the line is the record, whether it is in the exact form
// the Writer produces (canonical), and, for calls and frames, whether a
// number was out of range.

type parseResult uint8

const (
	notRecord parseResult = iota // the line is another record (or a comment)
	badRecord                    // looks like the record but does not parse
	badRange                     // parses, but a number is out of range
	okRecord
	wideRecord // parses, but a number is beyond the 32 bits the real reader keeps
)

// hexDigit maps a byte to its hex value, with 0x40 added for upper-case
// letters, or to 0xff when it is no hex digit.
var hexDigit = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
		t[c-'a'+'A'] = byte(c-'a') + 10 | 0x40
	}
	return t
}()

func isHex(c byte) bool { return hexDigit[c] != 0xff }

// scanHex reads hex digits at the start of b: the value, the digits' count,
// whether they are canonical (lower case, no leading zero) and whether the
// value overflowed 64 bits.
func scanHex(b []byte) (v uint64, n int, canon, over bool) {
	var seen byte
	for ; n < len(b); n++ {
		d := hexDigit[b[n]]
		if d == 0xff {
			break
		}
		seen |= d
		v = v<<4 | uint64(d&0x0f)
	}
	canon = seen&0x40 == 0 && (n < 2 || b[0] != '0')
	if n > 16 {
		lead := 0
		for lead < n && b[lead] == '0' {
			lead++
		}
		over = n-lead > 16
	}
	return
}

// scanDec reads decimal digits at the start of b.
func scanDec(b []byte) (v uint64, n int, canon, over bool) {
	canon = true
	for n < len(b) && b[n]-'0' < 10 {
		d := uint64(b[n] - '0')
		if v > (1<<64-1-d)/10 {
			over = true
		}
		v = v*10 + d
		n++
	}
	if n > 1 && b[0] == '0' {
		canon = false
	}
	return
}

// parseFrame parses "\t0x<hex>[ <resolved>]" (line includes the tab).
func parseFrame(line []byte, f *Frame) parseResult {
	if len(line) < 2 || line[0] != '\t' {
		return notRecord
	}
	canon := true
	i := 1
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
		canon = false
	}
	if i+1 >= len(line) || line[i] != '0' || line[i+1] != 'x' {
		return notRecord
	}
	i += 2
	v, n, c, over := scanHex(line[i:])
	if n == 0 {
		return badRecord
	}
	if over {
		return badRange
	}
	canon = canon && c
	i += n
	f.Addr = v
	f.Resolved = nil
	f.Verbatim = nil
	if i < len(line) {
		if line[i] != ' ' {
			canon = false
		} else {
			i++
		}
		j := i
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j > i {
			canon = false
		}
		if j < len(line) {
			f.Resolved = line[j:]
		} else {
			canon = false
		}
	}
	if !canon {
		f.Verbatim = line[1:]
	}
	return okRecord
}

// parseArg parses "\t$name = value". The value is the rest of the line
// and may be empty or hold spaces: the formatter prints it as it is. (The
// real reader keeps its first word, and takes a line with an empty value
// for a comment.)
func parseArg(line []byte, a *Arg) parseResult {
	if len(line) < 2 || line[0] != '\t' || line[1] != '$' {
		return notRecord
	}
	rest := line[2:]
	k := bytes.Index(rest, []byte(" = "))
	if k <= 0 || bytes.ContainsAny(rest[:k], " \t") {
		return badRecord
	}
	a.Name = rest[:k]
	a.Value = rest[k+3:]
	return okRecord
}

// parseCall parses an allocation or free line. It looks like a call when
// it starts with digits and a dot.
func parseCall(line []byte, c *Call) parseResult {
	idx, n, canon, over := scanDec(line)
	if n == 0 || n >= len(line) || line[n] != '.' {
		return notRecord
	}
	rest := line[n+1:]
	sp := bytes.IndexByte(rest, ' ')
	if sp < 0 {
		return badRecord
	}
	if sp != 0 {
		canon = false
	}
	rest = rest[sp+1:]
	if over || idx > 1<<63-1 {
		return badRange
	}
	c.Index = int64(idx)
	wide := idx > maxInt32

	// optional context mask "@<hex> "
	if len(rest) > 1 && rest[0] == '@' && isHex(rest[1]) {
		v, n, cn, ov := scanHex(rest[1:])
		if ov || v > 1<<32-1 {
			return badRange
		}
		if !cn || v == 0 {
			canon = false
		}
		c.Context = uint32(v)
		k := bytes.IndexByte(rest, ' ')
		if k < 0 {
			return badRecord
		}
		if k != 1+n {
			canon = false
		}
		rest = rest[k+1:]
	}
	// optional timestamp "[HH:MM:SS.mmm] "
	if len(rest) > 0 && rest[0] == '[' {
		if ms, n, cn, res := parseTime(rest); res == okRecord {
			c.HasTime, c.Time = true, ms
			wide = wide || ms > maxInt32
			if !cn {
				canon = false
			}
			k := bytes.IndexByte(rest, ' ')
			if k < 0 {
				return badRecord
			}
			if k != n {
				canon = false
			}
			rest = rest[k+1:]
		} else if res == badRange {
			return badRange
		}
	}
	// name up to the last '(' (or to the '<' of a "<type>" just before it)
	p := bytes.LastIndexByte(rest, '(')
	if p < 0 {
		return badRecord
	}
	nameEnd := p
	if p > 0 && rest[p-1] == '>' {
		q := bytes.LastIndexByte(rest[:p], '<')
		if q < 0 || q+1 >= p-1 || bytes.IndexByte(rest[q+1:p-1], '>') >= 0 {
			return badRecord
		}
		c.Type = rest[q+1 : p-1]
		nameEnd = q
	}
	c.Func = rest[:nameEnd]
	tail := rest[p+1:]
	if len(tail) >= 2 && tail[0] == '0' && tail[1] == 'x' {
		// free: (0x<id>)
		v, n, cn, ov := scanHex(tail[2:])
		if n == 0 || 2+n >= len(tail) || tail[2+n] != ')' {
			return badRecord
		}
		if ov {
			return badRange
		}
		c.Free, c.ID = true, v
		if !cn || 3+n != len(tail) {
			canon = false
		}
	} else {
		// alloc: (<size>) = 0x<id>
		neg := len(tail) > 0 && tail[0] == '-'
		t := tail
		if neg {
			t = t[1:]
		}
		v, n, cn, ov := scanDec(t)
		if n == 0 || n+5 > len(t) || string(t[n:n+5]) != ") = 0" || n+5 >= len(t) || t[n+5] != 'x' {
			return badRecord
		}
		if ov || v > 1<<63 || (!neg && v > 1<<63-1) {
			return badRange
		}
		if !cn || (neg && v == 0) {
			canon = false
		}
		c.Size = int64(v)
		if neg {
			c.Size = -int64(v)
		}
		wide = wide || c.Size > maxInt32 || c.Size < -maxInt32-1
		id, m, cn2, ov2 := scanHex(t[n+6:])
		if m == 0 {
			return badRecord
		}
		if ov2 {
			return badRange
		}
		c.ID = id
		if !cn2 || n+6+m != len(t) {
			canon = false
		}
	}
	if !canon || wide {
		c.Verbatim = line
	}
	if wide {
		return wideRecord
	}
	return okRecord
}

// maxInt32 is the largest index, size or timestamp the real reader reads
// right: it keeps them in C ints.
const maxInt32 = 1<<31 - 1

// parseTime parses "[H:M:S.ms]" at the start of b (any digit counts, as
// the C reader does) and returns milliseconds, the length through ']'
// and whether it is in the canonical "%02d:%02d:%02d.%03d" form.
func parseTime(b []byte) (ms int64, n int, canon bool, res parseResult) {
	canon = true
	i := 1
	var parts [4]uint64
	seps := [4]byte{':', ':', '.', ']'}
	for k := 0; k < 4; k++ {
		v, m, _, over := scanDec(b[i:])
		if m == 0 || i+m >= len(b) || b[i+m] != seps[k] {
			return 0, 0, false, notRecord
		}
		if over || v > 1<<31 {
			return 0, 0, false, badRange
		}
		switch k {
		case 0:
			canon = canon && (m == 2 || (m > 2 && b[i] != '0'))
		case 1, 2:
			canon = canon && m == 2 && v < 60
		case 3:
			canon = canon && m == 3
		}
		parts[k] = v
		i += m + 1
	}
	ms = int64(parts[0])*3600000 + int64(parts[1])*60000 + int64(parts[2])*1000 + int64(parts[3])
	return ms, i, canon, okRecord
}

// word reports whether b is non-empty and has no spaces, tabs or line
// ends.
func word(b []byte) bool {
	return len(b) > 0 && !bytes.ContainsAny(b, " \t\n")
}

// canonHex reads a whole canonical hex number.
func canonHex(b []byte) (uint64, bool) {
	v, n, c, over := scanHex(b)
	return v, n > 0 && n == len(b) && c && !over
}

// parseMap parses ": <path> => 0x<start>-0x<end>".
func parseMap(line []byte, m *MemoryMap) bool {
	if len(line) < 2 || line[0] != ':' || line[1] != ' ' {
		return false
	}
	rest := line[2:]
	k := bytes.Index(rest, []byte(" => 0x"))
	if k < 0 || !word(rest[:k]) {
		return false
	}
	nums := rest[k+6:]
	d := bytes.Index(nums, []byte("-0x"))
	if d < 0 {
		return false
	}
	start, ok1 := canonHex(nums[:d])
	end, ok2 := canonHex(nums[d+3:])
	if !ok1 || !ok2 {
		return false
	}
	m.Path, m.Start, m.End = rest[:k], start, end
	return true
}

// parseContext parses "@ <hex> : <name>".
func parseContext(line []byte, c *Context) bool {
	if len(line) < 2 || line[0] != '@' || line[1] != ' ' {
		return false
	}
	rest := line[2:]
	k := bytes.Index(rest, []byte(" : "))
	if k < 0 {
		return false
	}
	id, ok := canonHex(rest[:k])
	if !ok || id > 1<<32-1 || k+3 >= len(rest) {
		return false
	}
	c.ID, c.Name = uint32(id), rest[k+3:]
	return true
}

// parseResource parses "<hex> : type (desc)[ [flags]]". The description
// may hold ")" (the formatter prints it as it is): it runs to the last
// ")" of the line, or to the ") [" that opens the flags when the line
// ends in "]" (flags never hold brackets).
func parseResource(line []byte, r *Resource) bool {
	if len(line) < 1 || line[0] != '<' {
		return false
	}
	k := bytes.Index(line, []byte("> : "))
	if k < 0 {
		return false
	}
	id, ok := canonHex(line[1:k])
	if !ok || id > 1<<32-1 {
		return false
	}
	rest := line[k+4:]
	sp := bytes.Index(rest, []byte(" ("))
	if sp < 0 || !word(rest[:sp]) {
		return false
	}
	typ := rest[:sp]
	rest = rest[sp+2:]
	var flags []byte
	if len(rest) > 0 && rest[len(rest)-1] == ']' {
		o := bytes.LastIndex(rest, []byte(") ["))
		if o < 0 {
			return false
		}
		flags = rest[o+3 : len(rest)-1]
		if !validFlags(flags) {
			return false
		}
		rest = rest[:o+1]
	}
	// An empty description is no resource line for the real reader.
	if len(rest) < 2 || rest[len(rest)-1] != ')' {
		return false
	}
	r.ID, r.Type, r.Desc, r.Flags = uint32(id), typ, rest[:len(rest)-1], flags
	return true
}

// validFlags reports whether b can stand between a resource line's
// brackets.
func validFlags(b []byte) bool {
	return len(b) > 0 && !bytes.ContainsAny(b, "[]\n")
}

// parseAttachment parses "& <name> : <path>". The path is the rest of
// the line, spaces and all (the real reader keeps its first word); it
// needs something besides blanks, as for the real reader.
func parseAttachment(line []byte, a *Attachment) bool {
	if len(line) < 2 || line[0] != '&' || line[1] != ' ' {
		return false
	}
	rest := line[2:]
	k := bytes.Index(rest, []byte(" : "))
	if k < 0 || !word(rest[:k]) || blank(rest[k+3:]) {
		return false
	}
	a.Name, a.Path = rest[:k], rest[k+3:]
	return true
}

// blank reports whether b holds nothing but spaces and tabs.
func blank(b []byte) bool { return len(bytes.TrimLeft(b, " \t")) == 0 }

// headerStart is how every header the formatter writes starts.
var headerStart = []byte("version=")

// formatterHeader reports whether line starts as every header sp-rtrace's
// formatter writes: "version=", a protocol version such as "2.0", then a
// comma or the end of the line.
func formatterHeader(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, headerStart)
	if !ok {
		return false
	}
	_, major, _, _ := scanDec(rest)
	if major == 0 || major == len(rest) || rest[major] != '.' {
		return false
	}
	rest = rest[major+1:]
	_, minor, _, _ := scanDec(rest)
	return minor > 0 && (minor == len(rest) || rest[minor] == ',')
}

// parseHeader parses the "key=value, " pairs of the first line.
func parseHeader(line []byte) Header {
	var h Header
	canon := len(line) > 0
	rest := line
	for len(rest) > 0 {
		eq := bytes.IndexByte(rest, '=')
		if eq < 0 {
			canon = false
			break
		}
		key := rest[:eq]
		rest = rest[eq+1:]
		var val []byte
		if c := bytes.IndexByte(rest, ','); c >= 0 {
			val, rest = rest[:c], rest[c+1:]
			if len(rest) == 0 || rest[0] != ' ' {
				canon = false
			}
			n := 0
			for n < len(rest) && rest[n] == ' ' {
				n++
			}
			if n > 1 {
				canon = false
			}
			rest = rest[n:]
		} else {
			val, rest = rest, nil
			canon = false
		}
		if len(key) == 0 || key[0] == ' ' || bytes.IndexByte(key, ',') >= 0 {
			canon = false
		}
		h.Fields = append(h.Fields, Field{Key: string(key), Value: string(val)})
	}
	// An empty value stops the real reader's header parse: such a header
	// can only be written back as it was read.
	for i := 0; i+1 < len(h.Fields); i++ {
		if h.Fields[i].Value == "" {
			canon = false
		}
	}
	if !canon {
		h.Verbatim = append([]byte{}, line...)
	}
	return h
}
