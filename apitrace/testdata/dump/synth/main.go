// Command synth writes synth.trace, a version 6 trace holding the value
// kinds and corner cases that Linux tracers never write (wide strings,
// repr pairs, GUIDs, anonymous struct members, NaNs, bitmask and enum
// corner cases, odd backtrace frames, several threads), with the apitrace
// package's Writer. gen.sh then has the real apitrace dump it: the goldens
// are apitrace's text for it, never ours.
//
//	go run ./apitrace/testdata/dump/synth OUT.trace
package main

import (
	"fmt"
	"math"
	"os"

	"github.com/tracefmt/tracefmt/apitrace"
)

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func arr(vs ...apitrace.Value) apitrace.Value {
	return apitrace.Array(vs...)
}

func str(s string) apitrace.Value { return apitrace.String([]byte(s)) }

func run(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := apitrace.NewWriter(f, apitrace.Header{Version: 6, SemanticVersion: 6, Properties: []apitrace.Property{
		{Name: "process.name", Value: "/usr/bin/synth"},
		{Name: "a.weird", Value: "tab\there \"q\" \\ \x01\x7f\xc3\xa9 nl\nend"},
		{Name: "n.nul\x00hidden", Value: "v\x00hidden"},
	}})
	if err != nil {
		return err
	}
	var no uint64
	call := func(thread uint64, sig *apitrace.FunctionSig, flags apitrace.CallFlags, bt []*apitrace.Frame, args []apitrace.Value, ret apitrace.Value, leave bool) error {
		var in []apitrace.Arg
		for i, a := range args {
			if a.Kind() != apitrace.KindNone {
				in = append(in, apitrace.Arg{Index: i, Value: a})
			}
		}
		if err := w.Write(&apitrace.Event{Kind: apitrace.Enter, Call: no, Thread: thread, Sig: sig, Flags: flags, Backtrace: bt, Args: in}); err != nil {
			return err
		}
		no++
		if !leave {
			return nil
		}
		return w.Write(&apitrace.Event{Kind: apitrace.Leave, Call: no - 1, Ret: ret})
	}

	nan32 := math.Float32frombits(0x7fc00000)
	negNaN32 := math.Float32frombits(0xffc00000)
	floats := &apitrace.FunctionSig{ID: 10, Name: "glFloats", ArgNames: []string{"f", "d"}}
	var fvals, dvals []apitrace.Value
	for _, v := range []float32{nan32, negNaN32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)),
		math.SmallestNonzeroFloat32, math.MaxFloat32, 1e-5, 123456.7, 0.1, 1e7, 16777217} {
		fvals = append(fvals, apitrace.Float32(v))
	}
	for _, v := range []float64{math.NaN(), math.Copysign(math.NaN(), -1), math.Inf(-1), math.SmallestNonzeroFloat64,
		math.MaxFloat64, 0.1, 1.0 / 3, 1e21, 1e-7, 2.5e15} {
		dvals = append(dvals, apitrace.Float64(v))
	}
	if err := call(0, floats, 0, nil, []apitrace.Value{arr(fvals...), arr(dvals...)}, apitrace.Value{}, true); err != nil {
		return err
	}

	ints := &apitrace.FunctionSig{ID: 11, Name: "glInts", ArgNames: []string{"min", "max", "one", "none"}}
	if err := call(0, ints, 0, nil, []apitrace.Value{apitrace.Int(math.MinInt64), apitrace.Uint(math.MaxUint64),
		arr(apitrace.Int(-1)), arr()}, apitrace.Bool(true), true); err != nil {
		return err
	}

	units := func(us ...uint64) apitrace.Value {
		var v []apitrace.Value
		for _, u := range us {
			v = append(v, apitrace.Uint(u))
		}
		return apitrace.WString(v...)
	}
	blobSig := &apitrace.FunctionSig{ID: 12, Name: "CreateThings", ArgNames: []string{"wide", "repr", "nul", "blob0", "blob3", "nullblob"}}
	repr := apitrace.Repr(str("human\nreadable"), apitrace.Blob([]byte{1, 2, 3}))
	if err := call(0, blobSig, 0, nil, []apitrace.Value{
		units('W', 0xe9, 0x263a, '\n', '"', 0x1_0000_0041, '\r', '\t', 0, 'x'),
		repr, str("before\x00after"), apitrace.Blob([]byte{}), apitrace.Blob([]byte{7, 8, 9}), apitrace.Null(),
	}, apitrace.Blob([]byte("ret")), true); err != nil {
		return err
	}

	guidSig := &apitrace.StructSig{ID: 20, Name: "GUID", Members: []string{"Data1", "Data2", "Data3", "Data4"}}
	guid := func(d1, d2, d3 uint64, d4 ...uint64) apitrace.Value {
		var e []apitrace.Value
		for _, b := range d4 {
			e = append(e, apitrace.Uint(b))
		}
		return apitrace.Struct(guidSig, apitrace.Uint(d1), apitrace.Uint(d2), apitrace.Uint(d3), arr(e...))
	}
	inner := &apitrace.StructSig{ID: 21, Name: "Inner", Members: []string{"a", "b"}}
	outer := &apitrace.StructSig{ID: 22, Name: "Outer", Members: []string{"x", "", "y"}}
	empty := &apitrace.StructSig{ID: 23, Name: "Empty"}
	guids := &apitrace.FunctionSig{ID: 13, Name: "IUnknown::QueryInterface", ArgNames: []string{"known", "unknown", "outer", "empty"}}
	if err := call(3, guids, 0, nil, []apitrace.Value{
		guid(0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0x46),
		guid(0x01234567, 0x89ab, 0xcdef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef),
		apitrace.Struct(outer, apitrace.Uint(1),
			apitrace.Struct(inner, apitrace.Uint(2), str("s")), apitrace.Pointer(0xdeadbeef)),
		apitrace.Struct(empty),
	}, apitrace.Int(0), true); err != nil {
		return err
	}

	enumSig := &apitrace.EnumSig{ID: 30, Values: []apitrace.EnumValue{{Name: "FIRST", Value: 1}, {Name: "DUP", Value: 1}, {Name: "NEG", Value: -5}}}
	zeroMask := &apitrace.BitmaskSig{ID: 31, Flags: []apitrace.BitmaskFlag{{Name: "NONE", Value: 0}, {Name: "A", Value: 1}, {Name: "B", Value: 2}, {Name: "AB", Value: 3}, {Name: "C", Value: 0x10}}}
	lateZero := &apitrace.BitmaskSig{ID: 32, Flags: []apitrace.BitmaskFlag{{Name: "A", Value: 1}, {Name: "ZERO", Value: 0}}}
	enum := func(v int64) apitrace.Value {
		return apitrace.Enum(enumSig, v)
	}
	mask := func(s *apitrace.BitmaskSig, v uint64) apitrace.Value {
		return apitrace.Bitmask(s, v)
	}
	enums := &apitrace.FunctionSig{ID: 14, Name: "glEnums", ArgNames: []string{"e1", "e2", "e3", "m0", "m1", "m3", "m7", "m40", "late0"}}
	if err := call(0x1f, enums, apitrace.FlagFake, nil, []apitrace.Value{enum(1), enum(-5), enum(7),
		mask(zeroMask, 0), mask(zeroMask, 1), mask(zeroMask, 3), mask(zeroMask, 7), mask(zeroMask, 0x40), mask(lateZero, 0),
	}, apitrace.Value{}, true); err != nil {
		return err
	}

	frames := []*apitrace.Frame{
		{ID: 0, Has: apitrace.HasModule | apitrace.HasOffset, Module: "synth", Offset: 0x1234},
		{ID: 1, Has: apitrace.HasModule | apitrace.HasFunction | apitrace.HasFile | apitrace.HasLine | apitrace.HasOffset,
			Module: "libx.so", Function: "fn", File: "x.c", Line: 42, Offset: 0},
		{ID: 2, Has: apitrace.HasFile | apitrace.HasLine, File: "noline.c", Line: 1 << 31},
		{ID: 3, Has: apitrace.HasFunction | apitrace.HasOffset, Function: "bigoffset", Offset: 1 << 63},
		{ID: 4},
	}
	getError := &apitrace.FunctionSig{ID: 15, Name: "glGetError"}
	glenum := &apitrace.EnumSig{ID: 33, Values: []apitrace.EnumValue{{Name: "GL_NO_ERROR", Value: 0}, {Name: "GL_INVALID_ENUM", Value: 0x500}}}
	if err := call(0, getError, 0, frames, nil, apitrace.Enum(glenum, 0), true); err != nil {
		return err
	}
	if err := call(0, getError, 0, frames[1:2], nil, apitrace.Enum(glenum, 0x500), true); err != nil {
		return err
	}
	swap := &apitrace.FunctionSig{ID: 16, Name: "eglSwapBuffers", ArgNames: []string{"dpy", "surface"}}
	if err := call(2, swap, 0, nil, []apitrace.Value{apitrace.Pointer(1), apitrace.Pointer(2)}, apitrace.Bool(true), true); err != nil {
		return err
	}
	getString := &apitrace.FunctionSig{ID: 17, Name: "glGetString", ArgNames: []string{"name"}}
	if err := call(0, getString, 0, nil, []apitrace.Value{apitrace.Uint(0x1f00)}, str("multi\nline\r\nvendor"), true); err != nil {
		return err
	}
	// Names are C strings to apitrace: it prints them up to a NUL.
	nulEnum := &apitrace.EnumSig{ID: 34, Values: []apitrace.EnumValue{{Name: "E\x00X", Value: 2}}}
	nulStruct := &apitrace.StructSig{ID: 24, Name: "S", Members: []string{"m\x00n"}}
	nul := &apitrace.FunctionSig{ID: 20, Name: "glNul\x00Tail", ArgNames: []string{"a\x00b", "s"}}
	nulFrame := []*apitrace.Frame{{ID: 5, Has: apitrace.HasModule | apitrace.HasFunction | apitrace.HasFile,
		Module: "mod\x00x", Function: "fn\x00y", File: "f\x00z"}}
	if err := call(0, nul, 0, nulFrame, []apitrace.Value{apitrace.Enum(nulEnum, 2),
		apitrace.Struct(nulStruct, apitrace.Uint(1))}, apitrace.Value{}, true); err != nil {
		return err
	}
	// Two threads interleaved: call 11 leaves before call 10, so the dump
	// prints 11 first, and --calls=0-10 stops reading at it.
	flush := &apitrace.FunctionSig{ID: 19, Name: "glFlush"}
	if err := w.Write(&apitrace.Event{Kind: apitrace.Enter, Call: no, Thread: 5, Sig: flush}); err != nil {
		return err
	}
	if err := w.Write(&apitrace.Event{Kind: apitrace.Enter, Call: no + 1, Thread: 6, Sig: flush}); err != nil {
		return err
	}
	if err := w.Write(&apitrace.Event{Kind: apitrace.Leave, Call: no + 1}); err != nil {
		return err
	}
	if err := w.Write(&apitrace.Event{Kind: apitrace.Leave, Call: no}); err != nil {
		return err
	}
	no += 2
	// Two calls left pending: the dump shows them incomplete, in enter order.
	pending := &apitrace.FunctionSig{ID: 18, Name: "glFinish"}
	if err := call(1, pending, 0, nil, nil, apitrace.Value{}, false); err != nil {
		return err
	}
	if err := call(0, getString, apitrace.FlagFake, nil, []apitrace.Value{apitrace.Uint(0x1f01)}, apitrace.Value{}, false); err != nil {
		return err
	}
	return w.Close()
}
