package apitrace

import (
	"bytes"
	"math"
)

// Value is one node of a value tree: a scalar, a string or blob, an enum or
// bitmask with its signature, or a composite (an array, a struct, a repr
// pair or a wide string) whose children Elems returns. Kind says which; the
// methods give what that kind holds and a zero result for what it does
// not hold, on any Value, the zero one included (KindNone).
//
// A Value is 24 bytes (16 on 32-bit platforms), about what apitrace spends
// on one, because a trace may hold millions of them in one event (an array
// of 2^22 integers is a value apitrace reads): the children of a composite
// live together in one block, which the Value indexes, and a string or
// blob is a pointer to its slice. Values are built by the functions named
// after the kinds (Null, Bool, Int, Uint, Float32, Float64, Pointer,
// String, Blob, Enum, Bitmask, Array, Struct, Repr, WString), and by Scalar
// for any scalar the stream can hold; they are compared with Equal.
//
// Values returned by a Reader or CallReader point into buffers the reader
// owns (a string's bytes into its decompressed stream, a composite's
// children into its value arena): they are valid until the next call to
// Read. Use Clone to keep one. A Value built for a Writer holds what it was
// built from. Values are trees: Array and WString do not copy their
// elements, so a value can be made to hold itself, and Clone, Equal and a
// Dumper would then never end (a Writer refuses it as nested too deep).
type Value struct {
	// num is the scalar payload, as Bits returns it; for a composite, the
	// index of its first child in its block (low 32 bits) and the number
	// of children (high 32 bits).
	num uint64
	// ref tells the kind: a ValueKind for the scalars, the signature of an
	// enum or bitmask, a *stringBytes or *blobBytes, or the block of a
	// composite's children as one of the block types below; nil is
	// KindNone. A ValueKind in an interface takes no allocation.
	ref any
}

// The types of Value.ref that are not a ValueKind or a signature. The
// block types are the same []Value under one name per kind; a struct's
// block holds, just before its members, a node whose ref is its signature.
type (
	stringBytes  []byte
	blobBytes    []byte
	arrayBlock   []Value
	structBlock  []Value
	reprBlock    []Value
	wstringBlock []Value
)

// noValues is the block of composites with no children.
var noValues []Value

// Kind returns the kind of v; KindNone for the zero Value.
func (v Value) Kind() ValueKind {
	switch r := v.ref.(type) {
	case ValueKind:
		return r
	case *arrayBlock:
		return KindArray
	case *stringBytes:
		return KindString
	case *EnumSig:
		return KindEnum
	case *BitmaskSig:
		return KindBitmask
	case *structBlock:
		return KindStruct
	case *blobBytes:
		return KindBlob
	case *reprBlock:
		return KindRepr
	case *wstringBlock:
		return KindWString
	}
	return KindNone
}

// Bits returns the scalar payload: the integer (int64 bits for KindSInt
// and KindEnum), the float bits (math.Float32bits in the low 32 bits for
// KindFloat, math.Float64bits for KindDouble), the pointer address, the
// bitmask value. It is 0 for the other kinds, but for a value Scalar made
// of a kind that holds more than bits, which keeps the bits it was given.
func (v Value) Bits() uint64 {
	switch v.ref.(type) {
	case ValueKind, *EnumSig, *BitmaskSig:
		return v.num
	}
	return 0
}

// Int returns the value of an integer or enum as an int64 (a KindUInt above
// math.MaxInt64 wraps).
func (v Value) Int() int64 { return int64(v.Bits()) }

// Uint returns Bits: the value of a KindUInt, KindBitmask or KindPointer.
func (v Value) Uint() uint64 { return v.Bits() }

// Float32 returns the value of a KindFloat.
func (v Value) Float32() float32 { return math.Float32frombits(uint32(v.Bits())) }

// Float64 returns the value of a KindDouble, or of a KindFloat widened.
func (v Value) Float64() float64 {
	if v.ref == KindFloat {
		return float64(v.Float32())
	}
	return math.Float64frombits(v.Bits())
}

// Bytes returns the bytes of a string or blob (no terminator, any
// encoding), nil for the other kinds.
func (v Value) Bytes() []byte {
	switch r := v.ref.(type) {
	case *stringBytes:
		if r != nil {
			return *r
		}
	case *blobBytes:
		if r != nil {
			return *r
		}
	}
	return nil
}

// Elems returns the children of a composite: the elements of an array, the
// members of a struct, the human then the machine form of a repr, the code
// units of a wide string (each a KindUInt). It is nil for the other kinds
// and for an empty array or struct.
func (v Value) Elems() []Value {
	_, elems := v.split()
	return elems
}

// split returns Kind and Elems, looking at ref once.
func (v Value) split() (ValueKind, []Value) {
	var k ValueKind
	var p *[]Value
	switch r := v.ref.(type) {
	case ValueKind:
		return r, nil
	case *arrayBlock:
		k, p = KindArray, (*[]Value)(r)
	case *structBlock:
		k, p = KindStruct, (*[]Value)(r)
	case *reprBlock:
		k, p = KindRepr, (*[]Value)(r)
	case *wstringBlock:
		k, p = KindWString, (*[]Value)(r)
	default:
		return v.Kind(), nil
	}
	if p == nil {
		return k, nil
	}
	lo, n := uint64(uint32(v.num)), v.num>>32
	if n == 0 || lo+n > uint64(len(*p)) {
		return k, nil
	}
	return k, (*p)[lo : lo+n : lo+n]
}

// Enum returns the signature of an enum, nil for the other kinds.
// Signatures are owned by the Reader that defined them and live as long
// as it; they are never changed once defined.
func (v Value) Enum() *EnumSig {
	s, _ := v.ref.(*EnumSig)
	return s
}

// Bitmask returns the signature of a bitmask, nil for the other kinds.
func (v Value) Bitmask() *BitmaskSig {
	s, _ := v.ref.(*BitmaskSig)
	return s
}

// Struct returns the signature of a struct, nil for the other kinds.
func (v Value) Struct() *StructSig {
	r, ok := v.ref.(*structBlock)
	if !ok || r == nil {
		return nil
	}
	lo := uint64(uint32(v.num))
	if lo == 0 || lo > uint64(len(*r)) {
		return nil
	}
	s, _ := (*r)[lo-1].ref.(*StructSig)
	return s
}

// fromScalar reports whether v was made by Scalar with a kind that holds
// more than bits: such a value has that kind and nothing in it, and a
// Writer refuses it.
func (v Value) fromScalar() bool {
	k, ok := v.ref.(ValueKind)
	return ok && !isScalarKind(k)
}

// isScalarKind reports whether values of kind k hold only their Bits.
func isScalarKind(k ValueKind) bool {
	switch k {
	case KindNull, KindFalse, KindTrue, KindSInt, KindUInt, KindFloat, KindDouble, KindPointer:
		return true
	}
	return false
}

// String returns v as apitrace dump prints a value (13.0's text, without
// colour): -1, 0.5, "text", NULL, {1, 2}, &1 (an array of one), GL_BACK (an
// enum's name), blob(12), 0x1234 (a pointer). The zero Value, which the
// dump prints as "?" where it stands for an argument, is "".
func (v Value) String() string {
	d := Dumper{newline: dumpNewline}
	return string(d.appendValue(nil, &v))
}

// Equal reports whether v and w are the same value: same kind and bits,
// the same bytes, equal children, the same signature pointers. A nil and
// an empty string or blob are equal, as the stream holds them alike;
// floats are compared by their bits (a NaN equals itself, 0 and -0
// differ); a value Scalar made of a kind that holds more than bits equals
// only another such.
func (v Value) Equal(w Value) bool {
	k := v.Kind()
	if k != w.Kind() || v.Bits() != w.Bits() || v.fromScalar() != w.fromScalar() {
		return false
	}
	switch k {
	case KindString, KindBlob:
		return bytes.Equal(v.Bytes(), w.Bytes())
	case KindEnum:
		return v.Enum() == w.Enum()
	case KindBitmask:
		return v.Bitmask() == w.Bitmask()
	case KindStruct, KindArray, KindRepr, KindWString:
		if v.Struct() != w.Struct() {
			return false
		}
		a, b := v.Elems(), w.Elems()
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !a[i].Equal(b[i]) {
				return false
			}
		}
	}
	return true
}

// Clone returns a deep copy of v that shares nothing with the reader's
// buffers (signatures, which never change, are shared).
func (v Value) Clone() Value {
	var c cloner
	c.count(v)
	c.alloc()
	return c.value(v)
}

// Null returns a KindNull: a null pointer, string or blob.
func Null() Value { return Value{ref: KindNull} }

// Bool returns KindTrue or KindFalse.
func Bool(b bool) Value {
	if b {
		return Value{ref: KindTrue}
	}
	return Value{ref: KindFalse}
}

// Int returns a KindSInt for negative i and a KindUInt otherwise, the choice
// apitrace's writer makes.
func Int(i int64) Value {
	if i < 0 {
		return Value{num: uint64(i), ref: KindSInt}
	}
	return Value{num: uint64(i), ref: KindUInt}
}

// Uint returns a KindUInt.
func Uint(u uint64) Value { return Value{num: u, ref: KindUInt} }

// Float32 returns a KindFloat.
func Float32(f float32) Value { return Value{num: uint64(math.Float32bits(f)), ref: KindFloat} }

// Float64 returns a KindDouble.
func Float64(f float64) Value { return Value{num: math.Float64bits(f), ref: KindDouble} }

// Pointer returns a KindPointer.
func Pointer(addr uint64) Value { return Value{num: addr, ref: KindPointer} }

// Scalar returns a value of kind k holding bits, as Bits describes them:
// also the forms Int does not make, such as a KindSInt of 0 or more, which
// a stream may hold and a Writer then reproduces. KindNone gives the zero
// Value; KindNull, KindFalse and KindTrue, which hold no bits, drop them
// (the stream has no room for them). Any kind that holds more than bits (a
// string, an array, an enum...) gives a value of that kind holding
// nothing, which a Writer refuses with ErrInvalid.
func Scalar(k ValueKind, bits uint64) Value {
	switch k {
	case KindNone:
		return Value{}
	case KindNull, KindFalse, KindTrue:
		bits = 0
	}
	return Value{num: bits, ref: k}
}

// String returns a KindString holding b (not copied).
func String(b []byte) Value {
	s := stringBytes(b)
	return Value{ref: &s}
}

// Blob returns a KindBlob holding b (not copied).
func Blob(b []byte) Value {
	s := blobBytes(b)
	return Value{ref: &s}
}

// Enum returns a KindEnum of signature sig holding v.
func Enum(sig *EnumSig, v int64) Value { return Value{num: uint64(v), ref: sig} }

// Bitmask returns a KindBitmask of signature sig holding v.
func Bitmask(sig *BitmaskSig, v uint64) Value { return Value{num: v, ref: sig} }

// Array returns a KindArray of elems (not copied).
func Array(elems ...Value) Value { return holding(KindArray, elems) }

// WString returns a KindWString of the code units units (not copied), each
// a KindUInt from 1 to 2^32-1 for a Writer to accept it. apitrace reads
// them into a wchar_t: UTF-32 on Linux, UTF-16 on Windows.
func WString(units ...Value) Value { return holding(KindWString, units) }

// holding returns an array or wide string of kind k whose children are
// elems, or, for more than a Value counts, an empty value of kind k, which
// a Writer refuses.
func holding(k ValueKind, elems []Value) Value {
	if len(elems) == 0 {
		return composite(k, &noValues, 0, 0)
	}
	if uint64(len(elems)) > math.MaxUint32 {
		return Value{ref: k}
	}
	return composite(k, &elems, 0, len(elems))
}

// Struct returns a KindStruct of signature sig with members (copied), one
// for each member name of sig for a Writer to accept it.
func Struct(sig *StructSig, members ...Value) Value {
	if uint64(len(members)) >= math.MaxUint32 {
		return Value{ref: KindStruct}
	}
	b := make([]Value, 1+len(members))
	b[0] = Value{ref: sig}
	copy(b[1:], members)
	return composite(KindStruct, &b, 1, len(members))
}

// Repr returns a KindRepr: a value apitrace records in two forms, human
// (shown by apitrace dump) and machine (an integer the value converts to,
// used by the replayer and by blob dumps).
func Repr(human, machine Value) Value {
	b := []Value{human, machine}
	return composite(KindRepr, &b, 0, 2)
}

// composite returns a Value of kind k whose n children start at index
// first of *blk; k is KindArray, KindStruct (whose signature node is at
// first-1), KindRepr or KindWString.
func composite(k ValueKind, blk *[]Value, first, n int) Value {
	v := Value{num: uint64(first) | uint64(n)<<32}
	switch k {
	case KindArray:
		v.ref = (*arrayBlock)(blk)
	case KindStruct:
		v.ref = (*structBlock)(blk)
	case KindRepr:
		v.ref = (*reprBlock)(blk)
	default:
		v.ref = (*wstringBlock)(blk)
	}
	return v
}

// cloner deep-copies value trees into exactly sized buffers, so that a
// copy costs a few allocations whatever its size.
type cloner struct {
	nn, ns, nb int
	// blk is the block the copies' children are in: nodes' whole
	// backing array, which appends fill and never move.
	blk   *[]Value
	nodes []Value
	strs  [][]byte // the copies' string and blob slices, pointed to
	bytes []byte
	// share keeps strings and blobs of shareMin bytes or more where they
	// are instead of copying them: a CallReader's pending call shares
	// them with a window the Reader then leaves alone.
	share bool
	kept  bool // value kept a string or blob where it was
}

// shareMin is the size from which a pending call shares a string or blob
// with the Reader's window rather than copying it.
const shareMin = 1 << 20

// count adds what a copy of v needs to c's counts.
func (c *cloner) count(v Value) {
	switch v.ref.(type) {
	case ValueKind, *EnumSig, *BitmaskSig, nil:
		return
	case *stringBytes, *blobBytes:
		c.ns++
		if b := v.Bytes(); !c.share || len(b) < shareMin {
			c.nb += len(b)
		}
		return
	case *structBlock:
		c.nn++ // the signature node
	}
	elems := v.Elems()
	c.nn += len(elems)
	for i := range elems {
		c.count(elems[i])
	}
}

// alloc makes buffers of the counted sizes.
func (c *cloner) alloc() {
	nodes := make([]Value, c.nn)
	c.blk, c.nodes = &nodes, nodes[:0]
	c.strs = make([][]byte, 0, c.ns)
	c.bytes = make([]byte, 0, c.nb)
}

// fits reports whether c's buffers have room for what need counted.
func (c *cloner) fits(need *cloner) bool {
	return len(c.nodes)+need.nn <= cap(c.nodes) && len(c.strs)+need.ns <= cap(c.strs) &&
		len(c.bytes)+need.nb <= cap(c.bytes)
}

// reuse empties c's buffers for new copies.
func (c *cloner) reuse() {
	c.nodes = c.nodes[:0]
	clear(c.strs)
	c.strs = c.strs[:0]
	c.bytes = c.bytes[:0]
	c.kept = false
}

// value returns a copy of v in c's buffers, which count(v) sized.
func (c *cloner) value(v Value) Value {
	switch r := v.ref.(type) {
	case ValueKind, *EnumSig, *BitmaskSig, nil:
		return v
	case *stringBytes, *blobBytes:
		b := v.Bytes()
		if c.share && len(b) >= shareMin {
			c.kept = true
		} else if b != nil {
			start := len(c.bytes)
			c.bytes = append(c.bytes, b...)
			b = c.bytes[start:len(c.bytes):len(c.bytes)]
		}
		c.strs = append(c.strs, b)
		p := &c.strs[len(c.strs)-1]
		if _, ok := r.(*blobBytes); ok {
			return Value{ref: (*blobBytes)(p)}
		}
		return Value{ref: (*stringBytes)(p)}
	case *arrayBlock, *structBlock, *reprBlock, *wstringBlock:
	default:
		return v // nothing this package builds
	}
	k, elems := v.split()
	if k == KindStruct {
		c.nodes = append(c.nodes, Value{ref: v.Struct()})
	}
	first := len(c.nodes)
	c.nodes = append(c.nodes, elems...)
	for i := first; i < first+len(elems); i++ {
		c.nodes[i] = c.value(c.nodes[i])
	}
	return composite(k, c.blk, first, len(elems))
}
