package apitrace

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// DumpOptions are the options of apitrace dump. The zero value is
// apitrace dump --color=never with no other option.
type DumpOptions struct {
	// Calls limits the dump to these calls (--calls=SET); the zero CallSet
	// holds every call. Reading a trace stops at the first call numbered
	// more than 100 above the set's last call, as apitrace 13.0 does, so
	// that the calls a multithreaded trace writes out of order and the
	// incomplete calls flushed at its end are printed too; with Compat
	// set to Dump11 it stops at the first call above the last one.
	Calls CallSet
	// Verbose also dumps the calls apitrace calls verbose (-v): the 84
	// query functions of its name table (glGetString, glIs*, glXGetCurrent*,
	// ...) and glGetError calls that return 0.
	Verbose bool
	// Grep, when set, dumps only the calls whose function name it matches
	// anywhere (--grep=REGEX) and drops the property lines. apitrace uses
	// ECMAScript regular expressions; Go's RE2 syntax agrees on everything
	// but back-references and look-arounds.
	Grep *regexp.Regexp
	// ThreadIDs prints "@N " (the tracer's thread number in hex) before each
	// call (--thread-ids).
	ThreadIDs bool
	// NoCallNos drops the call number in front of each call (--call-nos=no).
	NoCallNos bool
	// NoArgNames prints only argument values (--arg-names=no).
	NoArgNames bool
	// NoMultiline prints each call on exactly one line (--multiline=no):
	// newlines in strings become \n, and neither backtraces nor the empty
	// line after a frame's last call are printed.
	NoMultiline bool
	// Blobs writes each blob into a file named blob_callN.bin, or
	// blob_callN_K.bin for the K-th (from 0) blob of a call after the first,
	// and prints blob("NAME") instead of blob(SIZE) (--blobs). A value with
	// a human and a machine form then prints its machine form, so that its
	// bytes land in a file (apitrace 12.0 on; Dump11 prints the human form).
	Blobs bool
	// BlobDir is the directory the blob files go to; "" is the current
	// directory, where apitrace writes them.
	BlobDir string
	// Color adds apitrace's ANSI colours (--color=always).
	Color bool
	// Compat is the apitrace release whose output to reproduce where
	// releases differ (--compat=11.1); the zero value is the newest.
	Compat DumpVersion
}

// A DumpVersion names the apitrace release whose dump text a Dumper
// reproduces. Releases print every call the same way; they differ in which
// calls --calls prints, in what --blobs prints for a value with two forms,
// and in the option values they accept.
type DumpVersion uint8

const (
	// Dump13 is apitrace 13.0 and master (checked at 18cfd388 of
	// 2026-01-30), the default.
	Dump13 DumpVersion = iota
	// Dump11 is apitrace 11.1, the release Debian 12 ships: --calls stops
	// at the first call past the set, --blobs prints a value's human form,
	// and a boolean option's value 1 is refused with a warning (the option
	// then keeps apitrace's default, yes), a mistake 12.0 fixed.
	Dump11
)

// String returns the release's number as --compat takes it.
func (v DumpVersion) String() string {
	switch v {
	case Dump13:
		return "13.0"
	case Dump11:
		return "11.1"
	}
	return "DumpVersion(" + strconv.Itoa(int(v)) + ")"
}

// ParseDumpVersion reads a release number as --compat takes it: 11.1, or
// 13.0 (also master, the default).
func ParseDumpVersion(s string) (DumpVersion, error) {
	switch s {
	case "11.1":
		return Dump11, nil
	case "13.0", "master":
		return Dump13, nil
	}
	return 0, fmt.Errorf("%w: --compat: unknown apitrace version %q (11.1 or 13.0)", ErrDumpOption, s)
}

// Dumper prints calls as apitrace dump 13.0 (or 11.1, see DumpVersion)
// does, byte for byte, with its options. It buffers its output: call Flush at the end (Trace does).
//
// apitrace's text has rules that look like mistakes but that users' diffs
// depend on, and the Dumper keeps them: strings stop at the first NUL, bytes
// outside printable ASCII get a malformed octal escape (0xe9 prints as
// \551), carriage returns are dropped, a one-element array prints as &x,
// floats use C's %.7g and %.16g (nan, -nan, inf), verbose calls are hidden.
// GUID structs print as apitrace's symbolic name (its 687-entry table) or
// as uuid(...). Known differences, all on input that Linux tracers never
// write: an argument index beyond the signature's names prints as argN
// instead of apitrace's undefined behaviour, and values that make apitrace
// abort (a GUID of the wrong shape, an anonymous struct member that is not
// a struct) print in the ordinary way. Also: a trace cut inside its header
// prints nothing (apitrace prints the properties it half read, padded with
// bytes read past the end), zstd traces are read (apitrace 11.1 reads
// none; they print what the same trace in snappy prints), and --grep uses
// Go's RE2 syntax.
type Dumper struct {
	w    io.Writer
	opts DumpOptions
	buf  []byte
	tail []byte // text of the incomplete calls at the end of a trace
	err  error
	// streaming is set while Call renders into buf: a large string or
	// array is then written out as its text is made.
	streaming bool

	// What the Dumper knows of each signature it has printed: by id for
	// the small ids tracers use, in a map beyond (and for a second
	// signature of one id).
	sigs      []dumpSig
	bigSigs   map[*FunctionSig]*dumpSig
	scratch   []byte // where a signature's texts are made
	ends      []int
	enumIndex map[*EnumSig]map[int64]int

	// The text of the last call number printed, no.
	no     uint32
	noText [10]byte
	noLen  int

	// --blobs state: the call being printed and its blob count.
	blobCall uint32
	blobNo   int

	// Colour escapes, all empty without Color.
	normal, bold, red, pointer, literal string
	// newline is what a newline inside a string prints as.
	newline string
}

// NewDumper returns a Dumper writing to w. A zero Dumper has no output:
// its Flush and Trace return ErrNotOpen.
func NewDumper(w io.Writer, opts DumpOptions) *Dumper {
	d := &Dumper{
		w:         w,
		opts:      opts,
		buf:       make([]byte, 0, 64<<10),
		enumIndex: make(map[*EnumSig]map[int64]int),
	}
	d.newline = dumpNewline
	if opts.Color {
		d.normal, d.bold, d.red = "\x1b[0m", "\x1b[1m", "\x1b[31m"
		d.pointer, d.literal = "\x1b[32m", "\x1b[34m"
		// Every newline in a string resets the colour and starts it
		// again on the next line.
		d.newline = dumpNewlineColor
	}
	if opts.NoMultiline {
		d.newline = dumpNewlineFlat
	}
	return d
}

// dumpFlushSize is how much text the Dumper gathers before writing.
const dumpFlushSize = 60 << 10

// Header prints the property lines of a trace header, sorted by name as
// apitrace prints them (a repeated name keeps its last value), unless the
// Grep option is set.
func (d *Dumper) Header(h *Header) {
	if h == nil || d.opts.Grep != nil || len(h.Properties) == 0 {
		return
	}
	props := slices.Clone(h.Properties)
	for i := range props {
		props[i].Name = cstr(props[i].Name)
	}
	slices.SortStableFunc(props, func(a, b Property) int { return strings.Compare(a.Name, b.Name) })
	for i, p := range props {
		if i+1 < len(props) && props[i+1].Name == p.Name {
			continue
		}
		d.buf = append(d.buf, "// "...)
		d.buf = append(d.buf, p.Name...)
		d.buf = append(d.buf, " = "...)
		d.buf = d.appendString(d.buf, []byte(p.Value))
		d.buf = append(d.buf, '\n')
	}
	d.maybeFlush()
}

// dumpSig is what the Dumper keeps of a function signature: its flags
// and the fixed text of its calls, made once.
type dumpSig struct {
	sig   *FunctionSig
	flags NameFlags // of the name up to its first NUL, as apitrace sees it
	// getError is set for glGetError(), verbose when it returns 0.
	getError bool
	// head is the text before the arguments: the name's colour, the
	// name up to its first NUL, "("; args[i] the text before argument
	// i: ", " but for the first, then its name and " = " (without
	// NoArgNames).
	head string
	args []string
}

// maxDumpSigID bounds the signature ids kept by id; larger ones go to a map.
const maxDumpSigID = 1 << 14

// sig returns what the Dumper knows of s, learning it at first sight.
func (d *Dumper) sig(s *FunctionSig) *dumpSig {
	if s.ID < maxDumpSigID {
		if s.ID < uint64(len(d.sigs)) && d.sigs[s.ID].sig == s {
			return &d.sigs[s.ID]
		}
		for uint64(len(d.sigs)) <= s.ID {
			d.sigs = append(d.sigs, dumpSig{})
		}
		if p := &d.sigs[s.ID]; p.sig == nil {
			d.learn(p, s)
			return p
		}
		// Another signature has this id (hand-built ones may): the
		// map keeps this one.
	}
	p := d.bigSigs[s]
	if p == nil {
		if d.bigSigs == nil {
			d.bigSigs = make(map[*FunctionSig]*dumpSig)
		}
		p = new(dumpSig)
		d.learn(p, s)
		d.bigSigs[s] = p
	}
	return p
}

// learn fills ds in for s.
func (d *Dumper) learn(ds *dumpSig, s *FunctionSig) {
	name := cstr(s.Name)
	*ds = dumpSig{sig: s, flags: LookupNameFlags(name), getError: name == "glGetError" && len(s.ArgNames) == 0}
	// All the texts are pieces of one string, made in scratch space.
	b := d.appendHead(d.scratch[:0], name, ds.flags)
	ends := append(d.ends[:0], len(b))
	for i, a := range s.ArgNames {
		b = d.appendArgName(b, i, cstr(a))
		ends = append(ends, len(b))
	}
	d.scratch, d.ends = b, ends
	all := string(b)
	ds.head = all[:ends[0]]
	ds.args = make([]string, len(s.ArgNames))
	for i := range ds.args {
		ds.args[i] = all[ends[i]:ends[i+1]]
	}
}

// appendHead appends the text of a call before its arguments.
func (d *Dumper) appendHead(b []byte, name string, f NameFlags) []byte {
	if d.opts.Color {
		if f&NameNoSideEffects != 0 {
			b = append(b, d.normal...)
		} else {
			b = append(b, d.bold...)
		}
	}
	b = append(b, name...)
	b = append(b, d.normal...)
	return append(b, '(')
}

// appendArgName appends the text before argument i, named name.
func (d *Dumper) appendArgName(dst []byte, i int, name string) []byte {
	if i > 0 {
		dst = append(dst, ", "...)
	}
	if d.opts.NoArgNames {
		return dst
	}
	dst = append(dst, name...)
	dst = append(dst, d.normal...)
	return append(dst, " = "...)
}

// Flags returns the flags apitrace gives the call c: those of its name
// (cached per signature), plus NameVerbose for a glGetError() that
// returned 0.
func (d *Dumper) Flags(c *Call) NameFlags {
	if c == nil || c.Sig == nil {
		return 0
	}
	return d.flags(c, d.sig(c.Sig))
}

// flags is Flags for a call with a signature, whose Dumper entry is ds.
func (d *Dumper) flags(c *Call, ds *dumpSig) NameFlags {
	f := ds.flags
	if ds.getError && c.Ret.ref != nil && dumpToInt(&c.Ret) == 0 {
		f |= NameVerbose
	}
	return f
}

// dumpToInt converts a return value to a signed integer the way apitrace's
// toSInt does for the kinds it defines, and gives 0 for the others.
func dumpToInt(v *Value) int64 {
	switch v.Kind() {
	case KindTrue:
		return 1
	case KindSInt, KindUInt, KindEnum, KindBitmask, KindPointer:
		return v.Int()
	case KindFloat, KindDouble:
		f := v.Float64()
		if f != f || f >= 1<<63 || f < -(1<<63) {
			return 1 // any non-zero: the conversion is undefined in C++
		}
		return int64(f)
	case KindRepr:
		if e := v.Elems(); len(e) == 2 {
			return dumpToInt(&e[1])
		}
	}
	return 0
}

// Want reports whether the options select the call c for printing: it is
// in the call set, matches Grep, and is not verbose unless Verbose is set.
func (d *Dumper) Want(c *Call) bool {
	if c == nil {
		return false
	}
	return d.want(c, d.Flags(c))
}

func (d *Dumper) want(c *Call, f NameFlags) bool {
	if !d.opts.Calls.Contains(c.No, f) {
		return false
	}
	if !d.opts.Verbose && f&NameVerbose != 0 {
		return false
	}
	if d.opts.Grep != nil && !d.opts.Grep.MatchString(cstr(c.Name())) {
		return false
	}
	return true
}

// Call prints c if the options select it. Errors writing the output are
// sticky and returned by Flush.
func (d *Dumper) Call(c *Call) {
	d.streaming = true
	d.buf = d.render(d.buf, c)
	d.streaming = false
	d.maybeFlush()
}

// render appends the text of c to dst when the options select it.
func (d *Dumper) render(dst []byte, c *Call) []byte {
	if d.err != nil || c == nil {
		return dst
	}
	var ds *dumpSig
	var f NameFlags
	if c.Sig != nil {
		ds = d.sig(c.Sig)
		f = d.flags(c, ds)
	}
	if !d.want(c, f) {
		return dst
	}
	dst = d.appendCall(dst, c, f, ds)
	if d.opts.NoMultiline {
		dst = append(dst, '\n')
	}
	return dst
}

// AppendCall appends the text of c, whatever the filters say, and returns
// the extended buffer. In multiline mode the text ends with a newline (and
// the backtrace and the empty line after a frame's last call); with
// NoMultiline it has no newline at all, as apitrace's own call printer.
func (d *Dumper) AppendCall(dst []byte, c *Call) []byte {
	if c == nil {
		return dst
	}
	var ds *dumpSig
	var f NameFlags
	if c.Sig != nil {
		ds = d.sig(c.Sig)
		f = d.flags(c, ds)
	}
	return d.appendCall(dst, c, f, ds)
}

func (d *Dumper) maybeFlush() {
	if len(d.buf) >= dumpFlushSize {
		d.flush()
	}
}

func (d *Dumper) flush() {
	if d.w == nil && d.err == nil {
		d.err = ErrNotOpen
	}
	if d.err == nil && len(d.buf) > 0 {
		_, d.err = d.w.Write(d.buf)
	}
	d.buf = d.buf[:0]
}

// Flush writes the buffered text and returns the first error met while
// writing (to the output or to a blob file).
func (d *Dumper) Flush() error {
	d.flush()
	return d.err
}

// appendCall appends the text of c, whose flags are f and whose
// signature's entry is ds (nil when c has no signature).
func (d *Dumper) appendCall(dst []byte, c *Call, f NameFlags, ds *dumpSig) []byte {
	if !d.opts.NoCallNos {
		dst = d.appendCallNo(dst, uint32(c.No))
		dst = append(dst, ' ')
	}
	if d.opts.ThreadIDs {
		dst = append(dst, '@')
		dst = strconv.AppendUint(dst, uint64(uint32(c.Thread)), 16)
		dst = append(dst, ' ')
	}
	var args []string
	if ds != nil {
		dst = append(dst, ds.head...)
		args = ds.args
	} else {
		dst = d.appendHead(dst, "", f)
	}
	d.blobCall, d.blobNo = uint32(c.No), 0
	for i := range c.Args {
		if i < len(args) {
			dst = append(dst, args[i]...)
		} else {
			// An index beyond the signature's names.
			var num [24]byte
			dst = d.appendArgName(dst, i, string(strconv.AppendInt(append(num[:0], "arg"...), int64(i), 10)))
		}
		if c.Args[i].ref == nil {
			dst = append(dst, '?')
		} else {
			dst = d.appendValue(dst, &c.Args[i])
		}
	}
	dst = append(dst, ')')
	if c.Ret.ref != nil {
		dst = append(dst, " = "...)
		dst = d.appendValue(dst, &c.Ret)
	}
	if c.Flags&FlagFake != 0 || c.Incomplete {
		dst = append(dst, " //"...)
		if c.Flags&FlagFake != 0 {
			dst = append(dst, " fake"...)
		}
		if c.Incomplete {
			dst = append(dst, ' ')
			dst = append(dst, d.red...)
			dst = append(dst, "incomplete"...)
			dst = append(dst, d.normal...)
		}
	}
	if d.opts.NoMultiline {
		return dst
	}
	dst = append(dst, '\n')
	if c.Backtrace != nil {
		dst = append(dst, d.bold...)
		dst = append(dst, d.red...)
		dst = append(dst, "Backtrace:\n"...)
		dst = append(dst, d.normal...)
		for _, fr := range c.Backtrace {
			if fr != nil {
				dst = appendDumpFrame(dst, fr)
			} else {
				dst = append(dst, '?')
			}
			dst = append(dst, '\n')
		}
	}
	if f&NameEndFrame != 0 {
		dst = append(dst, '\n')
	}
	return dst
}

// appendCallNo appends n in decimal. Calls mostly come numbered one after
// the other, so the digits of the last number are kept and counted up.
func (d *Dumper) appendCallNo(dst []byte, n uint32) []byte {
	t := d.noText[:d.noLen]
	if d.noLen > 0 && n != 0 && n-1 == d.no {
		i := len(t) - 1
		for i >= 0 && t[i] == '9' {
			t[i] = '0'
			i--
		}
		if i >= 0 {
			t[i]++
		} else {
			t = append(t, '0')
			t[0] = '1'
		}
	} else {
		t = strconv.AppendUint(d.noText[:0], uint64(n), 10)
	}
	d.no, d.noLen = n, len(t)
	return append(dst, t...)
}

func (d *Dumper) appendString(dst, s []byte) []byte {
	dst = append(dst, d.literal...)
	if d.streaming && len(s) > dumpFlushSize {
		dst = d.streamQuoted(dst, s)
	} else {
		dst = appendDumpQuoted(dst, s, d.newline)
	}
	return append(dst, d.normal...)
}

// streamQuoted appends s quoted as appendDumpQuoted does, writing the text
// out piece by piece, so that a large string's text is never held whole
// beside the string. It is used while Call renders into the Dumper's own
// buffer, which dst then is.
func (d *Dumper) streamQuoted(dst, s []byte) []byte {
	dst = append(dst, '"')
	for len(s) > 0 {
		n := min(len(s), dumpFlushSize)
		var ended bool
		dst, ended = appendDumpEscaped(dst, s[:n], d.newline)
		if ended {
			break
		}
		s = s[n:]
		dst = d.spill(dst)
	}
	return append(dst, '"')
}

// spill writes dst out once it holds dumpFlushSize bytes and returns it
// emptied, so that a large value's text is never held whole; dst is the
// Dumper's own buffer, as while Call renders into it.
func (d *Dumper) spill(dst []byte) []byte {
	if len(dst) < dumpFlushSize {
		return dst
	}
	d.buf = dst
	d.flush()
	return d.buf
}

func (d *Dumper) appendLiteral(dst []byte, s string) []byte {
	dst = append(dst, d.literal...)
	dst = append(dst, s...)
	return append(dst, d.normal...)
}

func (d *Dumper) appendValue(dst []byte, v *Value) []byte {
	if k, ok := v.ref.(ValueKind); ok && !d.opts.Color {
		// The usual kinds, with no colour escapes around them.
		switch k {
		case KindFloat:
			return appendDumpFloat(dst, math.Float32frombits(uint32(v.num)))
		case KindUInt:
			return strconv.AppendUint(dst, v.num, 10)
		case KindSInt:
			return strconv.AppendInt(dst, int64(v.num), 10)
		case KindPointer:
			return appendDumpHex(dst, v.num)
		}
	}
	if v.fromScalar() {
		return dst // a composite kind made by Scalar: nothing to print
	}
	kind, elems := v.split()
	switch kind {
	case KindNone:
		return dst
	case KindNull:
		return d.appendLiteral(dst, "NULL")
	case KindFalse:
		return d.appendLiteral(dst, "false")
	case KindTrue:
		return d.appendLiteral(dst, "true")
	case KindSInt:
		dst = append(dst, d.literal...)
		dst = strconv.AppendInt(dst, v.Int(), 10)
		return append(dst, d.normal...)
	case KindUInt:
		dst = append(dst, d.literal...)
		dst = strconv.AppendUint(dst, v.Uint(), 10)
		return append(dst, d.normal...)
	case KindFloat:
		dst = append(dst, d.literal...)
		dst = appendDumpFloat(dst, v.Float32())
		return append(dst, d.normal...)
	case KindDouble:
		dst = append(dst, d.literal...)
		dst = appendDumpDouble(dst, v.Float64())
		return append(dst, d.normal...)
	case KindString:
		return d.appendString(dst, v.Bytes())
	case KindWString:
		dst = append(dst, d.literal...)
		dst = append(dst, 'L')
		dst = append(dst, d.literal...)
		dst = appendDumpWide(dst, elems, d.newline)
		return append(dst, d.normal...)
	case KindEnum:
		dst = append(dst, d.literal...)
		if name, ok := d.enumName(v); ok {
			dst = append(dst, cstr(name)...)
		} else {
			dst = strconv.AppendInt(dst, v.Int(), 10)
		}
		return append(dst, d.normal...)
	case KindBitmask:
		var flags []BitmaskFlag
		if s := v.Bitmask(); s != nil {
			flags = s.Flags
		}
		return appendDumpBitmask(dst, v.Uint(), flags, d.literal, d.normal)
	case KindArray:
		if len(elems) == 1 {
			dst = append(dst, '&')
			return d.appendValue(dst, &elems[0])
		}
		dst = append(dst, '{')
		for i := range elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = d.appendValue(dst, &elems[i])
			if d.streaming {
				// A large array's text is written out as it is
				// made, as a large string's is.
				dst = d.spill(dst)
			}
		}
		return append(dst, '}')
	case KindStruct:
		if guid, ok := dumpGUID(v); ok {
			dst = append(dst, d.literal...)
			if name, ok := dumpGUIDNames()[guid]; ok {
				dst = append(dst, name...)
			} else {
				dst = appendDumpGUID(dst, guid)
			}
			return append(dst, d.normal...)
		}
		dst = append(dst, '{')
		dst, _ = d.appendMembers(dst, v, false)
		return append(dst, '}')
	case KindBlob:
		dst = append(dst, d.pointer...)
		if d.opts.Blobs {
			dst = d.appendBlobFile(dst, v.Bytes())
		} else {
			dst = append(dst, "blob("...)
			dst = strconv.AppendUint(dst, uint64(len(v.Bytes())), 10)
			dst = append(dst, ')')
		}
		return append(dst, d.normal...)
	case KindPointer:
		dst = append(dst, d.pointer...)
		dst = appendDumpHex(dst, v.Uint())
		return append(dst, d.normal...)
	case KindRepr:
		// apitrace's blob dumper, from 12.0 on, prints the machine form.
		if d.opts.Blobs && d.opts.Compat != Dump11 && len(elems) > 1 {
			return d.appendValue(dst, &elems[1])
		}
		if len(elems) > 0 {
			return d.appendValue(dst, &elems[0])
		}
		return dst
	}
	return dst
}

// appendMembers appends the members of a struct as name = value pairs,
// flattening anonymous (unnamed) struct members into the list. more says
// whether a member was already printed, so that a separator is needed.
func (d *Dumper) appendMembers(dst []byte, v *Value, more bool) ([]byte, bool) {
	elems, sig := v.Elems(), v.Struct()
	for i := range elems {
		name := ""
		if sig != nil && i < len(sig.Members) {
			name = cstr(sig.Members[i])
		}
		m := &elems[i]
		if name == "" && m.Kind() == KindStruct {
			dst, more = d.appendMembers(dst, m, more)
			continue
		}
		if more {
			dst = append(dst, ", "...)
		}
		dst = append(dst, name...)
		dst = append(dst, d.normal...)
		dst = append(dst, " = "...)
		dst = d.appendValue(dst, m)
		more = true
	}
	return dst, more
}

// enumName returns the name of the first signature entry whose value is
// the enum's value. Big signatures (GL's GLenum has thousands of names)
// get an index, built once per signature.
func (d *Dumper) enumName(v *Value) (string, bool) {
	sig := v.Enum()
	if sig == nil {
		return "", false
	}
	want := v.Int()
	if len(sig.Values) <= 16 {
		for i := range sig.Values {
			if sig.Values[i].Value == want {
				return sig.Values[i].Name, true
			}
		}
		return "", false
	}
	idx, ok := d.enumIndex[sig]
	if !ok {
		idx = make(map[int64]int, len(sig.Values))
		for i := len(sig.Values) - 1; i >= 0; i-- {
			idx[sig.Values[i].Value] = i
		}
		if d.enumIndex == nil {
			d.enumIndex = make(map[*EnumSig]map[int64]int)
		}
		d.enumIndex[sig] = idx
	}
	if i, ok := idx[want]; ok {
		return sig.Values[i].Name, true
	}
	return "", false
}

// appendBlobFile writes a blob into its file and appends blob("NAME").
func (d *Dumper) appendBlobFile(dst, data []byte) []byte {
	start := len(dst)
	dst = append(dst, "blob_call"...)
	dst = strconv.AppendUint(dst, uint64(d.blobCall), 10)
	if d.blobNo > 0 {
		dst = append(dst, '_')
		dst = strconv.AppendInt(dst, int64(d.blobNo), 10)
	}
	dst = append(dst, ".bin"...)
	name := string(dst[start:])
	d.blobNo++
	if err := os.WriteFile(filepath.Join(d.opts.BlobDir, name), data, 0o644); err != nil && d.err == nil {
		d.err = err
	}
	dst = append(dst[:start], "blob(\""...)
	dst = append(dst, name...)
	return append(dst, "\")"...)
}

// dumpGUID recognises apitrace's GUID special case: a struct named GUID
// with four members (Data1, Data2, Data3, and Data4 an array of 8 bytes).
func dumpGUID(v *Value) (g [16]byte, ok bool) {
	sig, elems := v.Struct(), v.Elems()
	if sig == nil || cstr(sig.Name) != "GUID" || len(elems) != 4 {
		return g, false
	}
	data4 := elems[3].Elems()
	if elems[3].Kind() != KindArray || len(data4) != 8 {
		return g, false
	}
	d1, d2, d3 := uint32(elems[0].Bits()), uint16(elems[1].Bits()), uint16(elems[2].Bits())
	g[0], g[1], g[2], g[3] = byte(d1>>24), byte(d1>>16), byte(d1>>8), byte(d1)
	g[4], g[5], g[6], g[7] = byte(d2>>8), byte(d2), byte(d3>>8), byte(d3)
	for i := range data4 {
		g[8+i] = byte(data4[i].Bits())
	}
	return g, true
}
