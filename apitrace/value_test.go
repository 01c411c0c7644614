package apitrace

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
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
}
