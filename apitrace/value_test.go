package apitrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// valueSize is what a Value costs: a trace holds millions of them in one
// event, and apitrace about 40 bytes a value. It is a 64-bit payload and
// an interface (two words): 24 bytes on 64-bit platforms, 16 on 32-bit.
const valueSize = 8 + 2*strconv.IntSize/8

func TestValueSize(t *testing.T) {
	if got := reflect.TypeFor[Value]().Size(); got != valueSize {
		t.Errorf("a Value is %d bytes, want %d", got, valueSize)
	}
}

// TestValueKinds builds one value of every kind and reads it back through
// every method: each gives what its kind holds and a zero result for the
// rest, the zero Value included.
func TestValueKinds(t *testing.T) {
	en := &EnumSig{ID: 1, Values: []EnumValue{{"A", -3}}}
	bm := &BitmaskSig{ID: 2, Flags: []BitmaskFlag{{"B", 1}}}
	st := &StructSig{ID: 3, Name: "S", Members: []string{"x", "y"}}
	type want struct {
		kind    ValueKind
		bits    uint64
		bytes   string
		elems   int
		enum    *EnumSig
		bitmask *BitmaskSig
		strct   *StructSig
	}
	for name, c := range map[string]struct {
		v Value
		w want
	}{
		"zero":        {Value{}, want{kind: KindNone}},
		"null":        {Null(), want{kind: KindNull}},
		"false":       {Bool(false), want{kind: KindFalse}},
		"true":        {Bool(true), want{kind: KindTrue}},
		"sint":        {Int(-2), want{kind: KindSInt, bits: math.MaxUint64 - 1}},
		"uint":        {Uint(7), want{kind: KindUInt, bits: 7}},
		"float":       {Float32(1.5), want{kind: KindFloat, bits: uint64(math.Float32bits(1.5))}},
		"double":      {Float64(-2.5), want{kind: KindDouble, bits: math.Float64bits(-2.5)}},
		"pointer":     {Pointer(0xbeef), want{kind: KindPointer, bits: 0xbeef}},
		"scalar sint": {Scalar(KindSInt, 5), want{kind: KindSInt, bits: 5}},
		"scalar none": {Scalar(KindNone, 5), want{kind: KindNone}},
		"string":      {String([]byte("ab")), want{kind: KindString, bytes: "ab"}},
		"blob":        {Blob([]byte("xyz")), want{kind: KindBlob, bytes: "xyz"}},
		"enum":        {Enum(en, -3), want{kind: KindEnum, bits: math.MaxUint64 - 2, enum: en}},
		"bitmask":     {Bitmask(bm, 3), want{kind: KindBitmask, bits: 3, bitmask: bm}},
		"array":       {Array(Uint(1), Uint(2), Uint(3)), want{kind: KindArray, elems: 3}},
		"empty array": {Array(), want{kind: KindArray}},
		"struct":      {Struct(st, Uint(1), Null()), want{kind: KindStruct, elems: 2, strct: st}},
		"repr":        {Repr(String([]byte("h")), Uint(1)), want{kind: KindRepr, elems: 2}},
		"wstring":     {WString(Uint('a')), want{kind: KindWString, elems: 1}},
		// A composite kind made by Scalar holds nothing.
		"scalar array":  {Scalar(KindArray, 9), want{kind: KindArray, bits: 9}},
		"scalar string": {Scalar(KindString, 0), want{kind: KindString}},
		"scalar struct": {Scalar(KindStruct, 0), want{kind: KindStruct}},
		"beyond":        {Scalar(ValueKind(99), 1), want{kind: 99, bits: 1}},
	} {
		v := c.v
		got := want{v.Kind(), v.Bits(), string(v.Bytes()), len(v.Elems()), v.Enum(), v.Bitmask(), v.Struct()}
		if got != c.w {
			t.Errorf("%s: got %+v, want %+v", name, got, c.w)
		}
		if v.Int() != int64(c.w.bits) || v.Uint() != c.w.bits {
			t.Errorf("%s: Int %d, Uint %d, want bits %d", name, v.Int(), v.Uint(), c.w.bits)
		}
		if !v.Equal(v) || !v.Clone().Equal(v) {
			t.Errorf("%s: not equal to itself or its clone", name)
		}
	}
	if f := Float32(1.5); f.Float32() != 1.5 || f.Float64() != 1.5 {
		t.Errorf("Float32(1.5) gives %v, %v", f.Float32(), f.Float64())
	}
	if f := Float64(-2.5); f.Float64() != -2.5 {
		t.Errorf("Float64(-2.5) gives %v", f.Float64())
	}
	if e := Struct(st, Uint(1), Null()).Elems(); !e[0].Equal(Uint(1)) || !e[1].Equal(Null()) {
		t.Errorf("struct members %v", e)
	}
}

// TestValueEqual checks that Equal tells apart what differs anywhere in a
// tree, and that a copy of a tree is equal to it.
func TestValueEqual(t *testing.T) {
	st := &StructSig{ID: 3, Name: "S", Members: []string{"x"}}
	st2 := &StructSig{ID: 3, Name: "S", Members: []string{"x"}}
	en, en2 := &EnumSig{ID: 1}, &EnumSig{ID: 1}
	tree := func(leaf Value, sig *StructSig) Value {
		return Array(Uint(1), Struct(sig, Repr(String([]byte("h")), leaf)), WString(Uint('w')))
	}
	a := tree(Blob([]byte("m")), st)
	for name, b := range map[string]Value{
		"leaf bytes":     tree(Blob([]byte("n")), st),
		"leaf kind":      tree(String([]byte("m")), st),
		"struct sig":     tree(Blob([]byte("m")), st2),
		"array length":   Array(Uint(1)),
		"enum sig":       Enum(en2, 1),
		"sint and uint":  Scalar(KindSInt, 1),
		"empty string":   Scalar(KindString, 0),
		"other scalar":   Uint(2),
		"zero":           {},
		"wstring, array": WString(Uint(1), Struct(st, Repr(String([]byte("h")), Blob([]byte("m")))), WString(Uint('w'))),
	} {
		if a.Equal(b) || b.Equal(a) {
			t.Errorf("%s: equal", name)
		}
	}
	if !a.Equal(tree(Blob([]byte("m")), st)) || !Enum(en, 1).Equal(Enum(en, 1)) || !Uint(1).Equal(Scalar(KindUInt, 1)) {
		t.Error("equal trees are not Equal")
	}
	if Enum(en, 1).Equal(Uint(1)) || String(nil).Equal(Scalar(KindString, 0)) {
		t.Error("different kinds of value are Equal")
	}
	// What Equal's doc says of nil bytes, floats and Scalar.
	nan := math.NaN()
	if !String(nil).Equal(String([]byte{})) || !Blob([]byte{}).Equal(Blob(nil)) || !Float64(nan).Equal(Float64(nan)) {
		t.Error("nil and empty bytes, or a NaN and itself, are not Equal")
	}
	if Float64(0).Equal(Float64(math.Copysign(0, -1))) || Scalar(KindArray, 0).Equal(Array()) || Array().Equal(Scalar(KindArray, 0)) {
		t.Error("0 and -0, or an array Scalar made and an empty one, are Equal")
	}
}

// TestValueScalarRoundTrip writes the forms only Scalar makes and reads
// them back the same, byte for byte: a KindSInt of 0 (what a stream may
// hold as "-0") and of a positive value, and float bits that are not a
// canonical NaN. A composite kind made by Scalar is refused.
func TestValueScalarRoundTrip(t *testing.T) {
	sig := &FunctionSig{ID: 1, Name: "f", ArgNames: []string{"a", "b", "c"}}
	vals := []Value{Scalar(KindSInt, 0), Scalar(KindSInt, 5), Scalar(KindFloat, 0x7fc00001)}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	ev := &Event{Kind: Enter, Sig: sig}
	for i, v := range vals {
		ev.Args = append(ev.Args, Arg{Index: i, Value: v})
	}
	if err := w.Write(ev); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []ValueKind{KindString, KindBlob, KindEnum, KindBitmask, KindArray, KindStruct, KindRepr, KindWString, 16} {
		w, err := NewWriter(io.Discard, Header{Version: 6, SemanticVersion: 6})
		if err != nil {
			t.Fatal(err)
		}
		bad := &Event{Kind: Enter, Sig: sig, Args: []Arg{{Index: 0, Value: Array(Scalar(k, 1))}}}
		if err := w.Write(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Scalar(%v, 1): %v, want ErrInvalid", k, err)
		}
	}
	file := buf.Bytes()
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if !got.Args[i].Value.Equal(v) {
			t.Errorf("argument %d read back as %v %#x, want %v %#x", i, got.Args[i].Value.Kind(), got.Args[i].Value.Bits(), v.Kind(), v.Bits())
		}
	}
	var again bytes.Buffer
	w2, err := NewWriter(&again, r.Header())
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Write(got); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("%v, want io.EOF", err)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, again.Bytes()) {
		t.Error("Write(Read(x)) differs from x")
	}
}

// TestValueStale reads values after the Reader has moved on, which the
// contract forbids: they may hold anything, but no method panics.
func TestValueStale(t *testing.T) {
	st := &StructSig{ID: 3, Name: "S", Members: []string{"x", "y"}}
	sig := &FunctionSig{ID: 1, Name: "f", ArgNames: []string{"a"}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 6, SemanticVersion: 6})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]Value, 1000)
	for i := range big {
		big[i] = Struct(st, Uint(uint64(i)), String([]byte("s")))
	}
	for i, v := range []Value{Array(big...), Uint(1)} {
		if err := w.Write(&Event{Kind: Enter, Call: uint64(i), Sig: sig, Args: []Arg{{Index: 0, Value: v}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := bytes.Clone(buf.Bytes())
	r, err := NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	elems := ev.Args[0].Value.Elems()
	kept := append([]Value{ev.Args[0].Value}, elems[len(elems)-1])
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	r.Reset(bytes.NewReader(nil))
	for _, v := range kept {
		_, _, _, _ = v.Kind(), v.Elems(), v.Struct(), v.Bytes()
		_, _ = v.Clone(), v.Equal(v)
	}
	// Through every method, a Writer and the Dumper too, from a
	// CallReader's calls as well.
	h := Header{Version: 6, SemanticVersion: 6}
	for i, v := range kept {
		checkValueSafe(t, fmt.Sprintf("stale %d", i), v, h, sig)
	}
	cr, err := NewCallReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var calls []Value
	for {
		c, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, c.Args...)
		if e := c.Args[0].Elems(); len(e) > 0 {
			calls = append(calls, e[len(e)-1])
		}
	}
	for i, v := range calls {
		checkValueSafe(t, fmt.Sprintf("stale call value %d", i), v, h, sig)
	}
}

// userValues returns, by name, the values a user can build by hand: the
// zero Value, Scalar of every kind with bits that fit and bits that do
// not, each constructor given nil, empty and zero arguments, and trees
// nested deeper than the Writer takes.
func userValues() map[string]Value {
	st := &StructSig{ID: 3, Name: "S", Members: []string{"x", "y"}}
	anon := &StructSig{ID: 4, Name: "A", Members: []string{"", "y"}}
	en := &EnumSig{ID: 1, Values: []EnumValue{{"A", 1}}}
	bm := &BitmaskSig{ID: 2, Flags: []BitmaskFlag{{"B", 1}}}
	vals := map[string]Value{
		"zero":                 {},
		"String(nil)":          String(nil),
		"String(empty)":        String([]byte{}),
		"Blob(nil)":            Blob(nil),
		"Blob(empty)":          Blob([]byte{}),
		"Array()":              Array(),
		"Array(nil...)":        Array([]Value(nil)...),
		"Array(zero)":          Array(Value{}),
		"Array(Array())":       Array(Array(), Array(Array())),
		"WString()":            WString(),
		"WString(0)":           WString(Uint(0)),
		"WString(2^32)":        WString(Uint(1 << 32)),
		"WString(zero)":        WString(Value{}),
		"WString(null)":        WString(Null()),
		"WString(array)":       WString(Array(Uint(1))),
		"Struct(nil)":          Struct(nil),
		"Struct(nil, 1)":       Struct(nil, Uint(1)),
		"Struct(sig)":          Struct(st),
		"Struct(sig, 1)":       Struct(st, Uint(1)),
		"Struct(sig, zero)":    Struct(st, Value{}, Value{}),
		"Struct(sig, 1, 2)":    Struct(st, Uint(1), Uint(2)),
		"Struct(anon, uint)":   Struct(anon, Uint(1), Uint(2)),
		"Struct(anon, struct)": Struct(anon, Struct(st, Uint(1), Uint(2)), Uint(2)),
		"Enum(nil)":            Enum(nil, 1),
		"Enum(sig)":            Enum(en, 1),
		"Bitmask(nil)":         Bitmask(nil, 1),
		"Bitmask(sig)":         Bitmask(bm, 3),
		"Repr(zero, zero)":     Repr(Value{}, Value{}),
		"Repr(string, uint)":   Repr(String([]byte("h")), Uint(1)),
		"Repr(scalar array)":   Repr(Scalar(KindArray, 1), Uint(1)),
		"nested": Array(Array(Struct(st, Array(), Repr(String(nil), Enum(en, 1)))),
			WString(Uint('w')), Struct(st, Blob([]byte{}), Bitmask(bm, 1))),
	}
	for k := range 256 {
		for _, bits := range []uint64{0, 1, 1 << 32, math.MaxUint64} {
			vals[fmt.Sprintf("Scalar(%d, %#x)", k, bits)] = Scalar(ValueKind(k), bits)
		}
	}
	deep := Uint(1)
	for range DefaultMaxDepth + 1 {
		deep = Array(deep)
	}
	vals["deep"] = deep
	return vals
}

// TestValueSafety gives each value a user can build to every method, to
// Clone and Equal, to a CallWriter and to the Dumper: none panics; the
// clone is equal and spells the same, nil bytes staying nil; the writer
// accepts the value or refuses it with ErrInvalid, Check saying the same;
// and a value it accepts reads back as built, which the Dumper prints
// the same.
func TestValueSafety(t *testing.T) {
	sig := &FunctionSig{ID: 1, Name: "f", ArgNames: []string{"a"}}
	h := Header{Version: 6, SemanticVersion: 6}
	for name, v := range userValues() {
		checkValueSafe(t, name, v, h, sig)
	}
}

// checkValueSafe is TestValueSafety's check of one value.
func checkValueSafe(t *testing.T, name string, v Value, h Header, sig *FunctionSig) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("%s: panic: %v", name, p)
		}
	}()
	_, _, _, _, _ = v.Kind(), v.Bits(), v.Int(), v.Uint(), v.Float32()
	_, _, _ = v.Float64(), v.Bytes(), v.Elems()
	_, _, _ = v.Enum(), v.Bitmask(), v.Struct()
	c := v.Clone()
	if !v.Equal(v) || !c.Equal(v) || !v.Equal(c) {
		t.Errorf("%s: not Equal to itself or its clone", name)
	}
	if render(c) != render(v) || (c.Bytes() == nil) != (v.Bytes() == nil) {
		t.Errorf("%s: clone %s (nil bytes %v), want %s (%v)", name, render(c), c.Bytes() == nil, render(v), v.Bytes() == nil)
	}
	d := NewDumper(io.Discard, DumpOptions{})
	call := &Call{Sig: sig, Args: []Value{v}, Ret: v}
	text := string(d.AppendCall(nil, call))
	NewDumper(io.Discard, DumpOptions{Color: true}).AppendCall(nil, call)

	var buf bytes.Buffer
	w, err := NewCallWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	checked := w.Check(call)
	err = w.Write(call)
	if err != nil && (!errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "runtime error")) {
		t.Errorf("%s: Write: %v, want nil or ErrInvalid", name, err)
	}
	if (checked == nil) != (err == nil) {
		t.Errorf("%s: Check says %v, Write %v", name, checked, err)
	}
	if err != nil {
		return
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	r, err := NewCallReader(&buf)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := r.Read()
	if err != nil {
		t.Fatalf("%s: read back: %v", name, err)
	}
	for _, g := range []Value{got.Args[0], got.Ret} {
		if render(g) != render(v) {
			t.Errorf("%s: written, read back as %s, want %s", name, render(g), render(v))
		}
	}
	if back := string(d.AppendCall(nil, got)); back != text {
		t.Errorf("%s: read back, dumped as %q, built as %q", name, back, text)
	}
}

// TestValueString: a value prints as apitrace dump prints it, so fmt
// shows what a user reading a dump expects.
func TestValueString(t *testing.T) {
	enum := &EnumSig{ID: 1, Values: []EnumValue{{"GL_FRONT", 0x404}, {"GL_BACK", 0x405}}}
	for _, c := range []struct {
		v    Value
		want string
	}{
		{Value{}, ""},
		{Int(-1), "-1"},
		{Uint(7), "7"},
		{Float64(0.5), "0.5"},
		{Bool(true), "true"},
		{Null(), "NULL"},
		{String([]byte("hi")), `"hi"`},
		{Blob([]byte{1, 2, 3}), "blob(3)"},
		{Pointer(0x1234), "0x1234"},
		{Array(Uint(1), Uint(2)), "{1, 2}"},
		{Array(Uint(1)), "&1"},
		{Enum(enum, 0x405), "GL_BACK"},
		{Enum(enum, 3), "3"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%v: String() = %q, want %q", c.v.Kind(), got, c.want)
		}
		if got := fmt.Sprint(c.v); got != c.want {
			t.Errorf("%v: fmt.Sprint = %q, want %q", c.v.Kind(), got, c.want)
		}
	}
}
