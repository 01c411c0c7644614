package xrayfdr

import (
	"io"
	"runtime"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// WriteYAML writes events as llvm-xray convert --output-format=yaml
// --symbolize=false does.
func WriteYAML(w io.Writer, t *Trace) error {
	if t == nil {
		return ErrNotOpen
	}
	h, evs := t.Header, t.Events
	b := make([]byte, 0, 256<<10)
	b = append(b, "---\nheader:\n  version:         "...)
	b = strconv.AppendUint(b, uint64(h.Version), 10)
	b = append(b, "\n  type:            "...)
	b = strconv.AppendUint(b, uint64(h.Type), 10)
	b = append(b, "\n  constant-tsc:    "...)
	b = strconv.AppendBool(b, h.ConstantTSC())
	b = append(b, "\n  nonstop-tsc:     "...)
	b = strconv.AppendBool(b, h.NonstopTSC())
	b = append(b, "\n  cycle-frequency: "...)
	b = strconv.AppendUint(b, h.CycleFrequency, 10)
	if len(evs) == 0 {
		b = append(b, "\nrecords:         []\n...\n"...)
		_, err := w.Write(b)
		return err
	}
	b = append(b, "\nrecords:\n"...)
	if _, err := w.Write(b); err != nil {
		return err
	}
	if err := writeYAMLRecords(w, t, evs); err != nil {
		return err
	}
	_, err := io.WriteString(w, "...\n")
	return err
}

// WriteYAMLNames writes events as llvm-xray convert --output-format=yaml
// --symbolize does: the function field holds name(id) (for instance
// InstrMap.Name, which spells names as llvm-xray does).
func WriteYAMLNames(w io.Writer, t *Trace, name func(id int32) string) error {
	if t == nil {
		return ErrNotOpen
	}
	tt := *t
	tt.names = &nameTable{name: name, m: map[int32][]byte{}}
	// every name is quoted once, before the records are formatted in
	// parallel
	for i := range t.Events {
		tt.names.get(t.Events[i].FuncID)
	}
	return WriteYAML(w, &tt)
}

// nameTable holds the YAML text of function names by id.
type nameTable struct {
	name  func(int32) string
	small [][]byte // ids 0 to 4095
	m     map[int32][]byte
}

func (n *nameTable) get(id int32) []byte {
	if id >= 0 && int(id) < len(n.small) && n.small[id] != nil {
		return n.small[id]
	}
	if b, ok := n.m[id]; ok {
		return b
	}
	b := appendYAMLString(nil, n.name(id))
	if id >= 0 && id < 4096 {
		if n.small == nil {
			n.small = make([][]byte, 4096)
		}
		n.small[id] = b
	} else {
		n.m[id] = b
	}
	return b
}

// lookup is get for the table filled in advance (safe in parallel).
func (n *nameTable) lookup(id int32) []byte {
	if id >= 0 && int(id) < len(n.small) && n.small[id] != nil {
		return n.small[id]
	}
	return n.m[id]
}

// writeYAMLRecords formats the records in chunks, on up to GOMAXPROCS
// goroutines, and writes the chunks in order.
func writeYAMLRecords(w io.Writer, t *Trace, evs []Event) error {
	const chunk = 2048
	workers := min(runtime.GOMAXPROCS(0), 4, (len(evs)+chunk-1)/chunk)
	format := func(b []byte, evs []Event, c *yamlCache) []byte {
		for i := range evs {
			b = t.appendYAMLRecord(b, &evs[i], c)
		}
		return b
	}
	if workers <= 1 {
		var c yamlCache
		buf := make([]byte, 0, min(len(evs), chunk)*160)
		for lo := 0; lo < len(evs); lo += chunk {
			buf = format(buf[:0], evs[lo:min(lo+chunk, len(evs))], &c)
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	// Each chunk gets a channel, queued in order; at most 2*workers
	// chunks are in flight, and their buffers are recycled.
	queue := make(chan chan []byte, 2*workers)
	free := make(chan []byte, 2*workers+1)
	sem := make(chan struct{}, workers)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(queue)
		for lo := 0; lo < len(evs); lo += chunk {
			part := evs[lo:min(lo+chunk, len(evs))]
			res := make(chan []byte, 1)
			select {
			case queue <- res:
			case <-done:
				return
			}
			sem <- struct{}{}
			go func() {
				var buf []byte
				select {
				case buf = <-free:
				default:
					buf = make([]byte, 0, chunk*160)
				}
				var c yamlCache
				res <- format(buf[:0], part, &c)
				<-sem
			}()
		}
	}()
	for res := range queue {
		b := <-res
		if _, err := w.Write(b); err != nil {
			return err
		}
		select {
		case free <- b:
		default:
		}
	}
	return nil
}

// AppendYAMLRecord appends the YAML line of one event, newline included.
func (t *Trace) AppendYAMLRecord(b []byte, e *Event) []byte {
	if t == nil || e == nil {
		return b
	}
	var c yamlCache
	return t.appendYAMLRecord(b, e, &c)
}

// yamlCache keeps the text of the last few (cpu, thread, process)
// triples: threads interleave in TSC order, and each repeats its own.
type yamlCache struct {
	ctx  [8]ctxText
	next int
	tsc  tscCache
}

type ctxText struct {
	ok       bool
	cpu      uint16
	tid, pid uint32
	text     []byte
}

// context returns ", cpu: C[, thread: T][, process: P], kind: " for e.
func (c *yamlCache) context(e *Event) []byte {
	for i := range c.ctx {
		x := &c.ctx[i]
		if x.ok && x.cpu == e.CPU && x.tid == e.TID && x.pid == e.PID {
			return x.text
		}
	}
	x := &c.ctx[c.next]
	c.next = (c.next + 1) % len(c.ctx)
	x.ok, x.cpu, x.tid, x.pid = true, e.CPU, e.TID, e.PID
	s := append(x.text[:0], ", cpu: "...)
	s = appendUint(s, uint64(e.CPU))
	if e.TID != 0 {
		s = append(s, ", thread: "...)
		s = appendUint(s, uint64(e.TID))
	}
	if e.PID != 0 {
		s = append(s, ", process: "...)
		s = appendUint(s, uint64(e.PID))
	}
	x.text = append(s, ", kind: "...)
	return x.text
}

func (t *Trace) appendYAMLRecord(b []byte, e *Event, c *yamlCache) []byte {
	b = append(b, "  - { type: "...)
	if e.RecordType < 10 {
		b = append(b, byte('0'+e.RecordType))
	} else {
		b = appendUint(b, uint64(e.RecordType))
	}
	b = append(b, ", func-id: "...)
	n := len(b)
	if e.FuncID >= 0 {
		b = appendUint(b, uint64(e.FuncID))
	} else {
		b = strconv.AppendInt(b, int64(e.FuncID), 10)
	}
	id := b[n:]
	if t.names != nil {
		b = append(b, ", function: "...)
		b = append(b, t.names.lookup(e.FuncID)...)
	} else {
		b = append(b, ", function: '"...)
		b = append(b, id...)
		b = append(b, '\'')
	}
	if args := t.Args(e); len(args) > 0 {
		b = append(b, ", args: [ "...)
		for i, a := range args {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendUint(b, a, 10)
		}
		b = append(b, " ]"...)
	}
	b = append(b, c.context(e)...)
	b = append(b, e.Kind.String()...)
	b = append(b, ", tsc: "...)
	b = c.tsc.appendTSC(b, e.TSC)
	data := t.Data(e)
	if len(data) == 0 {
		return append(b, ", data: '' }\n"...)
	}
	b = append(b, ", data: "...)
	b = appendYAMLString(b, data)
	return append(b, " }\n"...)
}

type quoting uint8

const (
	quoteNone quoting = iota
	quoteSingle
	quoteDouble
)

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// needsQuotes follows LLVM 14's yaml::needsQuotes.
func needsQuotes[S string | []byte](s S) quoting {
	if len(s) == 0 {
		return quoteSingle
	}
	q := quoteNone
	str := string(s)
	if isSpaceByte(s[0]) || isSpaceByte(s[len(s)-1]) || isNullOrBool(str) || isNumeric(str) {
		q = quoteSingle
	}
	switch s[0] {
	case '-', '?', ':', '\\', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		q = quoteSingle
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnum(c) {
			continue
		}
		switch c {
		case '_', '-', '^', '.', ',', ' ', '\t':
			continue
		case '\n', '\r', 0x7f:
			return quoteDouble
		}
		if c <= 0x1f || c&0x80 != 0 {
			return quoteDouble
		}
		q = quoteSingle
	}
	return q
}

func isNullOrBool(s string) bool {
	switch s {
	case "null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE":
		return true
	}
	return false
}

func skipDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[i:]
}

// isNumeric follows LLVM 14's yaml::isNumeric (YAML 1.2 core schema).
func isNumeric(s string) bool {
	if s == "" || s == "+" || s == "-" {
		return false
	}
	if s == ".nan" || s == ".NaN" || s == ".NAN" {
		return true
	}
	tail := s
	if s[0] == '-' || s[0] == '+' {
		tail = s[1:]
	}
	if tail == ".inf" || tail == ".Inf" || tail == ".INF" {
		return true
	}
	if len(s) >= 2 && s[:2] == "0o" {
		if len(s) == 2 {
			return false
		}
		for _, c := range s[2:] {
			if c < '0' || c > '7' {
				return false
			}
		}
		return true
	}
	if len(s) >= 2 && s[:2] == "0x" {
		if len(s) == 2 {
			return false
		}
		for _, c := range []byte(s[2:]) {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
		return true
	}
	s = tail
	if s[0] == '.' && (s == "." || len(s) > 1 && (s[1] < '0' || s[1] > '9')) {
		return false
	}
	if s[0] == 'e' || s[0] == 'E' {
		return false
	}
	s = skipDigits(s)
	if s == "" {
		return true
	}
	exp := false
	switch s[0] {
	case '.':
		s = skipDigits(s[1:])
		if s == "" {
			return true
		}
		if s[0] != 'e' && s[0] != 'E' {
			return false
		}
		exp = true
		s = s[1:]
	case 'e', 'E':
		exp = true
		s = s[1:]
	default:
		return false
	}
	_ = exp
	if s == "" {
		return false
	}
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	return skipDigits(s) == ""
}

const hexUpper = "0123456789ABCDEF"

func appendYAMLString[S string | []byte](b []byte, s S) []byte {
	switch needsQuotes(s) {
	case quoteNone:
		return append(b, s...)
	case quoteSingle:
		b = append(b, '\'')
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == '\'' {
				b = append(b, '\'')
			}
			b = append(b, c)
		}
		return append(b, '\'')
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			b = append(b, `\\`...)
		case '"':
			b = append(b, `\"`...)
		case 0:
			b = append(b, `\0`...)
		case 7:
			b = append(b, `\a`...)
		case 8:
			b = append(b, `\b`...)
		case 9:
			b = append(b, `\t`...)
		case 10:
			b = append(b, `\n`...)
		case 11:
			b = append(b, `\v`...)
		case 12:
			b = append(b, `\f`...)
		case 13:
			b = append(b, `\r`...)
		case 0x1b:
			b = append(b, `\e`...)
		default:
			switch {
			case c < 0x20:
				b = append(b, '\\', 'x', hexUpper[c>>4], hexUpper[c&15])
			case c < 0x80:
				b = append(b, c)
			default:
				r, n := utf8.DecodeRune([]byte(s[i:min(i+utf8.UTFMax, len(s))]))
				if r == utf8.RuneError && n <= 1 {
					// LLVM writes U+FFFD and drops the rest of the string
					b = append(b, "\uFFFD"...)
					return append(b, '"')
				}
				switch {
				case r == 0x85:
					b = append(b, `\N`...)
				case r == 0xA0:
					b = append(b, `\_`...)
				case r == 0x2028:
					b = append(b, `\L`...)
				case r == 0x2029:
					b = append(b, `\P`...)
				case unicode.IsGraphic(r):
					b = append(b, s[i:i+n]...)
				default:
					h := strconv.FormatUint(uint64(r), 16)
					switch {
					case len(h) <= 2:
						b = append(b, `\x`...)
						b = appendPadded(b, h, 2)
					case len(h) <= 4:
						b = append(b, `\u`...)
						b = appendPadded(b, h, 4)
					default:
						b = append(b, `\U`...)
						b = appendPadded(b, h, 8)
					}
				}
				i += n - 1
			}
		}
	}
	return append(b, '"')
}

func appendPadded(b []byte, h string, w int) []byte {
	for i := len(h); i < w; i++ {
		b = append(b, '0')
	}
	for _, c := range []byte(h) {
		if c >= 'a' {
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}
