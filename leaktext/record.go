package leaktext

import "strings"

// Kind tells which record a Record holds.
type Kind uint8

const (
	// KindMemoryMap is a ": path => 0xstart-0xend" line.
	KindMemoryMap Kind = iota + 1
	// KindContext is a "@ id : name" context registry line.
	KindContext
	// KindResource is a "<id> : type (desc) [flags]" resource registry line.
	KindResource
	// KindAttachment is a "& name : path" line.
	KindAttachment
	// KindCall is an allocation or free line with the argument and frame
	// lines that follow it directly.
	KindCall
	// KindTrace is argument and frame lines that do not follow a call line
	// directly: in a compressed report, the backtrace shared by the group
	// of calls above it (after its "# allocation summary" comment).
	KindTrace
	// KindComment is any other line, kept as it is.
	KindComment
	// KindBlank is an empty line: the end of a call group.
	KindBlank
)

var kindNames = [...]string{"invalid", "memory map", "context", "resource", "attachment", "call", "trace", "comment", "blank"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Record is one record of a report. Which fields are used depends on
// Kind. A Record returned by Reader.Read, and every slice in it, belongs
// to the Reader and is valid until the next call to Read or Reset; use
// Clone to keep one.
type Record struct {
	Kind Kind
	// Line is the 1-based line number of the record's first line.
	Line int

	// Map is set for KindMemoryMap.
	Map MemoryMap
	// Context is set for KindContext.
	Context Context
	// Resource is set for KindResource.
	Resource Resource
	// Attachment is set for KindAttachment.
	Attachment Attachment
	// Call is set for KindCall; for KindTrace only its Args and Frames are.
	Call Call
	// Text is the whole line of a KindComment, without its line ending.
	Text []byte
}

// MemoryMap is an executable mapping of the traced process: [Start, End).
type MemoryMap struct {
	Path       []byte
	Start, End uint64
}

// Context is an entry of the context registry. ID is a single bit in the
// files sp-rtrace writes; call records carry masks of them.
type Context struct {
	ID   uint32
	Name []byte
}

// Resource is an entry of the resource type registry. ID is the bit the
// formatter prints (1, 2, 4, 8, …: the type's ordinal n is printed as
// 1<<(n-1)). Flags is the text between the brackets, nil when absent.
type Resource struct {
	ID    uint32
	Type  []byte
	Desc  []byte
	Flags []byte
}

// Refcount reports whether the type's frees and allocations count
// references ("[refcount]").
func (r Resource) Refcount() bool { return strings.Contains(string(r.Flags), "refcount") }

// Attachment names a file attached to the report.
type Attachment struct {
	Name, Path []byte
}

// Call is an allocation ("5. malloc(64) = 0x1000") or a free
// ("6. free(0x1000)") with the lines that follow it directly.
type Call struct {
	// Index is the event counter (1-based, over all resource types). The
	// real tools keep a call's number through filtering, so gaps are
	// normal; the real reader holds it in 32 bits.
	Index int64
	// Context is the mask of contexts active at the call; 0 when none.
	Context uint32
	// HasTime tells whether the line has a "[HH:MM:SS.mmm]" timestamp;
	// Time is it in milliseconds.
	HasTime bool
	Time    int64
	// Func is the traced function's name, Type the resource type name
	// ("<fd>"), nil when the line has none (single-type reports).
	Func []byte
	Type []byte
	// Free tells a free from an allocation. Size is the allocation size
	// (0 for frees); ID is the resource id (address, fd, …).
	Free bool
	Size int64
	ID   uint64
	// Args are the "\t$name = value" lines, Frames the "\t0x…" lines that
	// follow the call line (arguments first, as the formatter writes
	// them). In a compressed report a run of call lines shares the frames
	// that follow the last of them; Report does that sharing.
	Args   []Arg
	Frames []Frame
	// Verbatim is the call line as read when it is not in the exact form
	// the Writer produces from the fields (the real reader's leniency:
	// "[1:2:3.5]", upper-case or zero-padded hex, trailing text; numbers
	// beyond the 32 bits the real reader keeps). The Writer writes
	// Verbatim when it is set; clear it after changing fields.
	Verbatim []byte
}

// Arg is a "\t$name = value" line. Value is the rest of the line, spaces
// and all, and may be empty (the file module writes "$path = " for an
// unnamed socket).
type Arg struct {
	Name, Value []byte
}

// Frame is a backtrace line: an address and the text a resolver added
// after it, nil when none ("main() at demo.c:12", "from /lib/libc.so.6",
// "in ??", "<unknown>").
type Frame struct {
	Addr     uint64
	Resolved []byte
	// Verbatim is the line (without the tab) as read when it is not in the
	// form the Writer produces; the Writer writes it when set.
	Verbatim []byte
}

// Temporary reports whether a comment is temporary ("# " prefix): the
// real post-processor drops such lines when it reads a report.
func (r *Record) Temporary() bool {
	return r != nil && r.Kind == KindComment && len(r.Text) >= 2 && r.Text[0] == '#' && r.Text[1] == ' '
}

// Clone returns a deep copy of r that shares no memory with the Reader.
func (r *Record) Clone() *Record {
	if r == nil {
		return nil
	}
	c := new(Record)
	*c = *r
	c.Map.Path = clone(r.Map.Path)
	c.Context.Name = clone(r.Context.Name)
	c.Resource.Type = clone(r.Resource.Type)
	c.Resource.Desc = clone(r.Resource.Desc)
	c.Resource.Flags = clone(r.Resource.Flags)
	c.Attachment.Name = clone(r.Attachment.Name)
	c.Attachment.Path = clone(r.Attachment.Path)
	c.Text = clone(r.Text)
	c.Call = r.Call.Clone()
	return c
}

// Clone returns a deep copy of c.
func (c Call) Clone() Call {
	d := c
	d.Func = clone(c.Func)
	d.Type = clone(c.Type)
	d.Verbatim = clone(c.Verbatim)
	if c.Args != nil {
		d.Args = make([]Arg, len(c.Args))
		for i, a := range c.Args {
			d.Args[i] = Arg{Name: clone(a.Name), Value: clone(a.Value)}
		}
	}
	if c.Frames != nil {
		d.Frames = make([]Frame, len(c.Frames))
		for i, f := range c.Frames {
			d.Frames[i] = Frame{Addr: f.Addr, Resolved: clone(f.Resolved), Verbatim: clone(f.Verbatim)}
		}
	}
	return d
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// Header is the first line of a report: "key=value, " pairs.
//
// The real reader stops reading the header at an empty value (the
// formatter writes "process=, " for a process without a name), losing the
// pid and every field after it; the Reader reads them all, and the Writer
// refuses an empty value that is not the last one.
type Header struct {
	// Fields are the pairs in the order read.
	Fields []Field
	// CRLF tells that the header line ended in "\r\n": every line of the
	// report then must, and the Writer ends lines so.
	CRLF bool
	// Verbatim is the header line as read when it is not in the form
	// "k=v, k=v, " the Writer produces from Fields, or when it has an
	// empty value before other fields. The Writer writes it when set;
	// clear it after changing Fields.
	Verbatim []byte
}

// Field is one key=value pair of the header.
type Field struct {
	Key, Value string
}

// Header keys the real tools write, in the order they write them.
const (
	KeyVersion        = "version"
	KeyArch           = "arch"
	KeyTimestamp      = "timestamp"
	KeyTime           = "time" // protocol 1.0 files
	KeyProcess        = "process"
	KeyPID            = "pid"
	KeyFilter         = "filter"
	KeyBacktraceDepth = "backtrace depth"
	KeyOrigin         = "origin"
)

// Get returns the value of the first field named key.
func (h Header) Get(key string) (string, bool) {
	for _, f := range h.Fields {
		if f.Key == key {
			return f.Value, true
		}
	}
	return "", false
}

// depth returns the header's backtrace depth as the real reader takes it
// (C's atoi), or -1 when the header sets none or a negative one.
func (h Header) depth() int {
	v, ok := h.Get(KeyBacktraceDepth)
	if !ok {
		return -1
	}
	d := atoi(v)
	if d < 0 {
		return -1
	}
	return d
}
