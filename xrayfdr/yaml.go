package xrayfdr

import (
	"io"
	"runtime"
	"slices"
	"strconv"

	"github.com/tracefmt/tracefmt/internal/decimal"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/llvmyaml"
)

// WriteYAML writes events as llvm-xray convert --output-format=yaml
// --symbolize=false does.
func WriteYAML(w io.Writer, t *Trace) error {
	if w == nil || t == nil {
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
// instrmap.Map.Name, which spells names as llvm-xray does).
func WriteYAMLNames(w io.Writer, t *Trace, name func(id int32) string) error {
	if w == nil || t == nil {
		return ErrNotOpen
	}
	if name == nil {
		return errNilFunc
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
	b := llvmyaml.AppendString(nil, n.name(id))
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
		c := new(yamlCache)
		buf := make([]byte, 0, min(len(evs), chunk)*160)
		for lo := 0; lo < len(evs); lo += chunk {
			buf = format(buf[:0], evs[lo:min(lo+chunk, len(evs))], c)
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	// Each chunk gets a channel, queued in order; at most 2*workers
	// chunks are in flight, and their buffers (with the text caches,
	// which depend only on the events) are recycled.
	type chunkText struct {
		b []byte
		c yamlCache
	}
	queue := make(chan chan *chunkText, 2*workers)
	free := make(chan *chunkText, 2*workers+1)
	sem := make(chan struct{}, workers)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(queue)
		for lo := 0; lo < len(evs); lo += chunk {
			part := evs[lo:min(lo+chunk, len(evs))]
			res := make(chan *chunkText, 1)
			select {
			case queue <- res:
			case <-done:
				return
			}
			sem <- struct{}{}
			go func() {
				var ct *chunkText
				select {
				case ct = <-free:
				default:
					ct = &chunkText{b: make([]byte, 0, chunk*160)}
				}
				ct.b = format(ct.b[:0], part, &ct.c)
				res <- ct
				<-sem
			}()
		}
	}()
	for res := range queue {
		ct := <-res
		if _, err := w.Write(ct.b); err != nil {
			return err
		}
		select {
		case free <- ct:
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
	var x lineText
	x.fill(e)
	var tsc tscCache
	return t.appendYAMLLine(b, e, &x, &tsc)
}

// yamlCache keeps the text around an event's numbers for the
// (cpu, thread, process, record type, kind) tuples met: threads
// interleave in TSC order, and each repeats its own. A tuple has two
// places in the table, found from a hash of its key; one of them is
// replaced when neither holds it.
type yamlCache struct {
	keys  [64][2]uint64 // cpu, record type, kind and a set bit; thread, process
	lines [64]lineText
	flip  int
	tsc   tscCache
}

// lineText is the fixed text of a YAML line but for the function id and
// the TSC. The arrays are copied whole into a line's window (a few
// moves, no call); only the first preN and midN bytes count.
type lineText struct {
	preN, midN uint8
	pre        [32]byte // "  - { type: T, func-id: "
	mid        [96]byte // "', cpu: C[, thread: T][, process: P], kind: K, tsc: "
}

// line returns the lineText of e's tuple.
func (c *yamlCache) line(e *Event) *lineText {
	key1 := uint64(e.CPU) | uint64(e.RecordType)<<16 | uint64(e.Kind)<<32 | 1<<40
	key2 := uint64(e.TID) | uint64(e.PID)<<32
	h := int(((key1^key2<<7^key2>>29)*0x9E3779B97F4A7C15)>>58) &^ 1
	if k := &c.keys[h]; k[0] == key1 && k[1] == key2 {
		return &c.lines[h]
	}
	if k := &c.keys[h+1]; k[0] == key1 && k[1] == key2 {
		return &c.lines[h+1]
	}
	c.flip ^= 1
	h += c.flip
	c.keys[h] = [2]uint64{key1, key2}
	x := &c.lines[h]
	x.fill(e)
	return x
}

// fill sets x to the text of e's tuple.
func (x *lineText) fill(e *Event) {
	s := append(x.pre[:0], "  - { type: "...)
	s = appendUint(s, uint64(e.RecordType))
	s = append(s, ", func-id: "...)
	x.preN = uint8(copy(x.pre[:], s))
	s = append(x.mid[:0], "', cpu: "...)
	s = appendUint(s, uint64(e.CPU))
	if e.TID != 0 {
		s = append(s, ", thread: "...)
		s = appendUint(s, uint64(e.TID))
	}
	if e.PID != 0 {
		s = append(s, ", process: "...)
		s = appendUint(s, uint64(e.PID))
	}
	s = append(s, ", kind: "...)
	s = append(s, e.Kind.String()...)
	s = append(s, ", tsc: "...)
	x.midN = uint8(copy(x.mid[:], s))
}

// A line without call arguments, payload or name is formatted in a
// window of yamlWindow bytes checked once per line: at most 181 bytes
// (28 before the id, two 10-digit ids, 13 between them, 86 after the
// second, a 20-digit TSC, 14 at the end), each piece written whole (up
// to 96 bytes past its start). Offsets into the window are masked,
// which costs nothing and spares every store its bounds check.
const (
	yamlMask   = decimal.WindowMask // the digits are written by decimal.Put
	yamlRoom   = yamlMask + 1
	yamlWindow = yamlRoom + 128
)

var (
	yamlFunction = pad16(", function: '")
	yamlNoData   = pad16(", data: '' }\n")
)

const (
	yamlFunctionLen = len(", function: '")
	yamlNoDataLen   = len(", data: '' }\n")
)

func pad16(s string) (a [16]byte) {
	copy(a[:], s)
	return a
}

func (t *Trace) appendYAMLRecord(b []byte, e *Event, c *yamlCache) []byte {
	if t.names != nil || e.extra != 0 || e.FuncID < 0 {
		return t.appendYAMLLine(b, e, c.line(e), &c.tsc)
	}
	if cap(b)-len(b) < yamlWindow {
		b = slices.Grow(b, yamlWindow)
	}
	off := len(b)
	w := (*[yamlWindow]byte)(b[off : off+yamlWindow])
	x := c.line(e)
	*(*[32]byte)(w[0:32]) = x.pre
	p := int(x.preN)
	// The id is formatted twice: reading back the digits just stored
	// (a wide load over narrow stores) stalls the processor longer.
	p = putDecimal(w, p, uint64(e.FuncID))
	q := p & yamlMask
	*(*[16]byte)(w[q : q+16]) = yamlFunction
	p = putDecimal(w, p+yamlFunctionLen, uint64(e.FuncID))
	q = p & yamlMask
	*(*[96]byte)(w[q : q+96]) = x.mid
	p += int(x.midN)
	p = c.tsc.put(w, p, e.TSC)
	q = p & yamlMask
	*(*[16]byte)(w[q : q+16]) = yamlNoData
	p += yamlNoDataLen
	return b[:off+p]
}

// appendYAMLLine formats any event (with call arguments, a payload, a
// name, or an id below zero) from the text of its tuple, x.
func (t *Trace) appendYAMLLine(b []byte, e *Event, x *lineText, tsc *tscCache) []byte {
	b = append(b, x.pre[:x.preN]...)
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
	b = append(b, x.mid[1:x.midN]...) // without the closing quote
	b = tsc.appendTSC(b, e.TSC)
	data := t.Data(e)
	if len(data) == 0 {
		return append(b, ", data: '' }\n"...)
	}
	b = append(b, ", data: "...)
	b = llvmyaml.AppendString(b, data)
	return append(b, " }\n"...)
}
