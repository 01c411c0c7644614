package apitrace

import "fmt"

// Container is the compression wrapped around a trace stream.
type Container uint8

const (
	// Snappy is apitrace's own container: "at", then chunks of a 32-bit
	// little-endian compressed length and one raw snappy block.
	Snappy Container = iota
	// Gzip is one gzip member (apitrace repack --zlib, apitrace 1.0).
	Gzip
	// Brotli is a raw Brotli stream (apitrace repack --brotli), with no
	// magic number.
	Brotli
	// Zstd is a zstd stream read from start to end (apitrace master).
	Zstd
	// ZstdSeekable is zstd in the seekable format, what apitrace master's
	// repack -z writes: independent frames of at most 2 MiB of stream,
	// then a seek table, which lets a Reader seek. Its first bytes are
	// those of Zstd: a Reader finds the seek table at the end of the file
	// when its input is an io.ReaderAt and io.Seeker (an *os.File), and
	// reads the file as Zstd otherwise.
	ZstdSeekable
)

func (c Container) String() string {
	switch c {
	case Snappy:
		return "snappy"
	case Gzip:
		return "gzip"
	case Brotli:
		return "brotli"
	case Zstd:
		return "zstd"
	case ZstdSeekable:
		return "zstd-seekable"
	}
	return fmt.Sprintf("Container(%d)", uint8(c))
}

// Version is the newest stream version (version_no) this package reads and
// the one apitrace has written since release 8.0.
const Version = 6

// Property is one name/value pair of a version 6 header, as raw bytes
// turned into strings (no encoding is promised).
type Property struct {
	Name  string
	Value string
}

// Header is what precedes the events of a trace.
//
// Version 6 (apitrace 8.0 to 13.0) adds the semantic version, header
// properties, the call flags detail (bit 0 = fake call) and real wide
// strings; 5 adds backtraces; 4 the thread number in enter events; 3 whole
// enum signatures (before, an enum signature is one name/value pair). The
// container is told from the first bytes as apitrace does: "at" is snappy,
// 1f 8b gzip, 28 b5 2f fd zstd (apitrace master) or a zstd skippable
// frame, anything else Brotli (which has no magic; a file that is not
// Brotli either fails with ErrContainer, which is an ErrHeader: not a
// trace). Brotli is what `apitrace repack --brotli` writes (apitrace 11.1
// reads it); zstd is apitrace master's, in the seekable format: frames of
// at most 2 MiB of stream and a seek table at the end of the file, found
// when the input is an io.ReaderAt and io.Seeker (an *os.File); then
// Position, Seek and CallReader.Index work as on snappy, a seek decoding
// from the frame that holds the position. Through any other input a
// seekable file reads as a plain zstd stream, and so does a file whose
// seek table does not describe it (its frames must fill the file up to
// the table) or lists a frame larger than the zstd window limit. A trace
// whose file is zstd without a seek table, Brotli or gzip reads from start
// to end only.
//
// apitrace's format document is out of date; this package follows what
// the tools write and read: version 6's header (semantic version, then
// name/value properties ended by an empty name); call detail 0x05 (flags);
// struct signatures with the struct's name before the member count;
// bitmask values as bare integers; enum values as typed integers; doubles
// in 64 bits, little-endian; the snappy container as "at" then chunks of a
// 32-bit little-endian compressed length and one raw snappy block, a zero
// length ending the file. Call detail 0x03 (a thread number), which no
// released parser reads, is an error here too.
type Header struct {
	// Version is the stream's version_no, 0 to 6. It decides the binary
	// layout: thread numbers in enter events from 4, enum signatures with
	// the whole value list from 3, the semantic version and properties
	// from 6.
	Version uint64
	// SemanticVersion is the version whose calling conventions the calls
	// follow; tools that rewrite old traces write Version 6 and keep the
	// input's semantic version. It is only stored from Version 6 on; for
	// older streams the Reader sets it to Version.
	SemanticVersion uint64
	// Properties lists the header's properties in stream order (apitrace
	// writes them sorted by name). Only version 6 streams have them.
	Properties []Property
	// Container is the compression the Reader found, or the Writer uses.
	// The Writer accepts Snappy (the default, the zero value), Gzip, and
	// Zstd or ZstdSeekable, which it writes as seekable zstd.
	Container Container
}

// ValueKind is the type of a Value.
type ValueKind uint8

// The value kinds. KindNone is the zero Value: "no value", for an argument
// slot that no event filled (apitrace dump prints it as "?") and for a call
// without a return value. Every other kind is one value type byte of the
// stream.
const (
	KindNone    ValueKind = iota
	KindNull              // 0x00: null pointer, string or blob
	KindFalse             // 0x01
	KindTrue              // 0x02
	KindSInt              // 0x03: negative integer; Bits is the int64 value
	KindUInt              // 0x04: non-negative integer; Bits is the value
	KindFloat             // 0x05: Bits holds math.Float32bits in its low 32 bits
	KindDouble            // 0x06: Bits holds math.Float64bits
	KindString            // 0x07: Bytes are the bytes (no terminator, any encoding)
	KindBlob              // 0x08: Bytes are the bytes
	KindEnum              // 0x09: Enum is the signature, Bits the int64 value
	KindBitmask           // 0x0a: Bitmask is the signature, Bits the value
	KindArray             // 0x0b: Elems are the elements
	KindStruct            // 0x0c: Struct is the signature, Elems the members
	KindPointer           // 0x0d: opaque pointer; Bits is the address
	KindRepr              // 0x0e: Elems()[0] is the human form, Elems()[1] the machine form
	KindWString           // 0x0f: Elems are the code units, each a KindUInt
)

var kindNames = [...]string{
	KindNone: "none", KindNull: "null", KindFalse: "false", KindTrue: "true",
	KindSInt: "sint", KindUInt: "uint", KindFloat: "float", KindDouble: "double",
	KindString: "string", KindBlob: "blob", KindEnum: "enum", KindBitmask: "bitmask",
	KindArray: "array", KindStruct: "struct", KindPointer: "pointer", KindRepr: "repr",
	KindWString: "wstring",
}

func (k ValueKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ValueKind(%d)", uint8(k))
}

// FunctionSig is a call signature: the function name and its argument names.
// IDs are the tracer's own (sparse, fixed when the wrappers were generated);
// a Writer keeps them. Ids 0 to 3 are apitrace's pseudo-calls memcpy,
// malloc, free and realloc.
type FunctionSig struct {
	ID       uint64
	Name     string
	ArgNames []string
	def      int64     // stream offset just after the id of the definition
	flags    NameFlags // LookupNameFlags(Name), when cached is set
	cached   bool
}

// Flags returns LookupNameFlags(s.Name): what apitrace 11.1 knows about the
// function (frame end, verbose, no side effects...). Signatures a Reader
// defines have it computed once, at definition.
func (s *FunctionSig) Flags() NameFlags {
	if s == nil {
		return 0
	}
	if s.cached {
		return s.flags
	}
	return LookupNameFlags(s.Name)
}

// EndsFrame reports whether a call of this function ends a frame
// (glXSwapBuffers, eglSwapBuffers, IDXGISwapChain::Present...), the calls
// apitrace info counts as frames and qapitrace seeks to.
func (s *FunctionSig) EndsFrame() bool { return s.Flags()&NameEndFrame != 0 }

// EnumValue is one name/value pair of an enum signature.
type EnumValue struct {
	Name  string
	Value int64
}

// EnumSig is an enum signature. From version 3 it lists every name/value
// pair of the enum in stream order; before version 3 it has exactly one
// pair, and an enum value of that signature always has that value.
type EnumSig struct {
	ID     uint64
	Values []EnumValue
	def    int64
}

// BitmaskFlag is one flag of a bitmask signature.
type BitmaskFlag struct {
	Name  string
	Value uint64
}

// BitmaskSig is a bitmask signature: its flags in stream order (apitrace
// puts a zero-valued flag first when there is one).
type BitmaskSig struct {
	ID    uint64
	Flags []BitmaskFlag
	def   int64
}

// StructSig is a struct signature: the struct's name and its member names in
// order. An empty member name marks an anonymous nested struct.
type StructSig struct {
	ID      uint64
	Name    string
	Members []string
	def     int64
}

// Frame is one backtrace frame. Has says which details the stream recorded;
// a frame can legally have none.
type Frame struct {
	ID       uint64
	Has      FrameDetails
	Module   string
	Function string
	File     string
	Line     uint64
	Offset   uint64 // byte offset in Module
	def      int64
}

// FrameDetails is a set of the details a Frame records.
type FrameDetails uint8

// The frame details, one bit each, in the order the stream writes them.
const (
	HasModule FrameDetails = 1 << iota
	HasFunction
	HasFile
	HasLine
	HasOffset
)

// CallFlags are the flags of call detail 0x05 (version 6).
type CallFlags uint64

// FlagFake marks a call the tracer made up (for example the glViewport
// written after glXMakeCurrent); apitrace dump prints "// fake".
const FlagFake CallFlags = 1

// Kind says whether an Event enters or leaves a call.
type Kind uint8

const (
	// Enter starts call number Event.Call.
	Enter Kind = iota
	// Leave ends call number Event.Call.
	Leave
)

func (k Kind) String() string {
	switch k {
	case Enter:
		return "enter"
	case Leave:
		return "leave"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Arg is one argument detail: the argument's index in its signature and its
// value.
type Arg struct {
	Index int
	Value Value
}

// Event is one event of the stream, as a Reader returns it and a Writer
// takes it.
//
// An enter event has Thread, Sig, Flags, Backtrace and the input Args; its
// Call number is implicit in the stream (the n-th enter is call n) and the
// Reader fills it in. A leave event has Call, the output Args and Ret. The
// stream lets any detail appear in either event and the Reader keeps what is
// there; the Writer writes details in apitrace's order: enter
// flags, backtrace, args; leave args, ret. For the Writer, Call only pairs
// a leave with its enter: it numbers the calls itself.
//
// An Event returned by Read, with its slices and values, is valid until the
// next call to Read; Clone makes a copy to keep.
type Event struct {
	Kind      Kind
	Call      uint64
	Thread    uint64 // enter only; 0 before version 4
	Sig       *FunctionSig
	Flags     CallFlags
	Backtrace []*Frame
	Args      []Arg
	Ret       Value // KindNone when the event has no return value
}

// Clone returns a deep copy of e that stays valid after the next Read.
// Signatures and frames, which never change, are shared.
func (e *Event) Clone() *Event {
	if e == nil {
		return nil
	}
	var c cloner
	for i := range e.Args {
		c.count(e.Args[i].Value)
	}
	c.count(e.Ret)
	c.alloc()
	out := *e
	if e.Backtrace != nil {
		out.Backtrace = append([]*Frame{}, e.Backtrace...)
	}
	out.Args = make([]Arg, len(e.Args))
	for i, a := range e.Args {
		out.Args[i] = Arg{Index: a.Index, Value: c.value(a.Value)}
	}
	out.Ret = c.value(e.Ret)
	return &out
}

// Call is a whole call as a CallReader returns it: the details of its enter
// and leave events merged the way apitrace does.
//
// Args is indexed by argument index and is as long as the signature's
// argument list (longer if an event named a higher index); a slot no event
// filled is KindNone. Ret is KindNone when no return value was recorded.
// Incomplete is set on calls whose leave event never came (they are returned
// at the end of the stream, in enter order).
//
// Slices and values in a Call returned by Read are valid until the next call
// to Read; Clone makes a copy to keep.
type Call struct {
	No         uint64
	Thread     uint64
	Sig        *FunctionSig
	Flags      CallFlags
	Backtrace  []*Frame
	Args       []Value
	Ret        Value
	Incomplete bool
}

// Name returns the function name, or "" when c or Sig is nil.
func (c *Call) Name() string {
	if c == nil || c.Sig == nil {
		return ""
	}
	return c.Sig.Name
}

// Clone returns a deep copy of c that stays valid after the next Read.
// Signatures and frames, which never change, are shared.
func (c *Call) Clone() *Call {
	if c == nil {
		return nil
	}
	var cl cloner
	for i := range c.Args {
		cl.count(c.Args[i])
	}
	cl.count(c.Ret)
	cl.alloc()
	out := *c
	if c.Backtrace != nil {
		out.Backtrace = append([]*Frame{}, c.Backtrace...)
	}
	out.Args = make([]Value, len(c.Args))
	for i, a := range c.Args {
		out.Args[i] = cl.value(a)
	}
	out.Ret = cl.value(c.Ret)
	return &out
}
