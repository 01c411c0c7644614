package testutil

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// API is a package's exported API, for CheckNilArgs. Go's reflection
// cannot list a package's functions, so the test lists them, and
// CheckNilArgs reads the package's source to fail on any it left out.
type API struct {
	// Dir is the package's directory; "" is the current one, where a
	// package's tests run.
	Dir string
	// Funcs holds every exported function of the package by name (a
	// generic one instantiated).
	Funcs map[string]any
	// Types holds a pointer to a zero value of every exported type.
	Types []any
	// Open holds receivers in use (a Reader that has read a header, a
	// Writer that has written one): their methods are called with zero
	// arguments too.
	Open []any
	// Samples holds, by function name or "Type.Method" (the method of
	// an Open receiver of that type), one valid argument list: the call
	// is made again with each pointer, interface, map or func argument
	// in turn set to nil.
	Samples map[string][]any
	// AllowNil names the functions and methods ("Type.Method") that may
	// return a nil error when given nil: those for which nil is a valid
	// input (an empty list, no options).
	AllowNil []string
	// MayPanic names the functions whose contract is to panic on bad
	// arguments, as regexp.MustCompile does (Must...): they are not
	// called.
	MayPanic []string
	// NotOpen, when set, is the package's ErrNotOpen: a function or
	// method given a nil io.Reader, io.ReaderAt or io.Writer (an
	// interface with a Read, ReadAt or Write method) must return an
	// error wrapping it.
	NotOpen error
}

// CheckNilArgs calls every exported function and method of a package with
// nil and zero arguments, and fails the test if one panics, or if one that
// has an error result and was given a nil pointer, interface, map or func
// returns a nil error (unless AllowNil names it). Methods are called on
// the zero value (as CheckZeroValue does), on Open receivers, and on a nil
// pointer when they have a pointer receiver and their type is a value (a
// record, a map, an error), not a stream (a type with a Reset, Read, Write
// or Flush method): a nil value
// must give an error or a zero result, never a panic. It also fails when the package in
// the current directory declares an exported function or type that api
// does not list, so that a new one cannot escape the check.
//
// A nil io.Reader or io.Writer is refused as NewReader(nil) refuses it,
// with the package's ErrNotOpen (checked when api.NotOpen is set); a nil
// record or value with a clear error; a method of a nil value gives the
// zero result (Clone returns nil). An error that reads as a recovered
// runtime panic ("runtime error: …") fails too: recovering from a nil
// dereference hides the mistake behind a message about the input.
func CheckNilArgs(t *testing.T, api API) {
	t.Helper()
	dir := api.Dir
	if dir == "" {
		dir = "."
	}
	funcs, types := exportedDecls(t, dir)
	for _, name := range funcs {
		if _, ok := api.Funcs[name]; !ok {
			t.Errorf("the exported function %s is not in the API the nil-argument test checks", name)
		}
	}
	listed := map[string]bool{}
	for _, v := range api.Types {
		listed[reflect.TypeOf(v).Elem().Name()] = true
	}
	for _, name := range types {
		if !listed[name] {
			t.Errorf("the exported type %s is not in the API the nil-argument test checks", name)
		}
	}
	allow := func(name string) bool { return slices.Contains(api.AllowNil, name) }
	names := make([]string, 0, len(api.Funcs))
	for name := range api.Funcs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if slices.Contains(api.MayPanic, name) {
			continue
		}
		f := reflect.ValueOf(api.Funcs[name])
		checkCall(t, name, f, zeroArgs(f.Type(), 0), allow(name), api.NotOpen)
		if s, ok := api.Samples[name]; ok {
			checkSample(t, name, f, s, allow(name), api.NotOpen)
		}
	}
	for _, v := range api.Types {
		rt := reflect.TypeOf(v)
		tname := rt.Elem().Name()
		CheckZeroValue(t, v, allowedMethods(api.AllowNil, tname)...)
		if isStream(rt) {
			// A Reader or Writer is made by New or is a zero value
			// (checked above); a nil one is a mistake Go reports with
			// a panic, as for a nil *bufio.Reader.
			continue
		}
		for i := 0; i < rt.NumMethod(); i++ {
			m := rt.Method(i)
			if _, isValue := rt.Elem().MethodByName(m.Name); isValue {
				continue // Go itself panics calling a value method through nil
			}
			name := "nil *" + tname + "." + m.Name
			recv := reflect.Zero(rt)
			checkCall(t, name, recv.Method(i), zeroArgs(m.Type, 1), allow(tname+"."+m.Name), api.NotOpen)
		}
	}
	for _, v := range api.Open {
		rv := reflect.ValueOf(v)
		rt := rv.Type()
		tname := rt.Elem().Name()
		for i := 0; i < rt.NumMethod(); i++ {
			m := rt.Method(i)
			name := tname + "." + m.Name
			if strings.HasPrefix(m.Name, "Reset") {
				continue // resetting to nil would leave the receiver closed for the next methods
			}
			checkCall(t, "open "+name, rv.Method(i), zeroArgs(m.Type, 1), true, api.NotOpen)
			if s, ok := api.Samples[name]; ok {
				checkSample(t, name, rv.Method(i), s, allow(name), api.NotOpen)
			}
		}
	}
}

// isStream reports whether rt is a reader or writer: a type with a Reset,
// Read, Write or Flush method.
func isStream(rt reflect.Type) bool {
	for _, m := range []string{"Reset", "Read", "Write", "Flush"} {
		if _, ok := rt.MethodByName(m); ok {
			return true
		}
	}
	return false
}

// allowedMethods returns the method names of type tname that list names.
func allowedMethods(list []string, tname string) []string {
	var out []string
	for _, s := range list {
		if m, ok := strings.CutPrefix(s, tname+"."); ok {
			out = append(out, m)
		}
	}
	return out
}

// zeroArgs returns zero values for the parameters of ft from the skip-th
// on, leaving out a final variadic one.
func zeroArgs(ft reflect.Type, skip int) []reflect.Value {
	n := ft.NumIn()
	if ft.IsVariadic() {
		n--
	}
	var args []reflect.Value
	for j := skip; j < n; j++ {
		args = append(args, reflect.Zero(ft.In(j)))
	}
	return args
}

// nillable reports whether an argument of kind k set to nil must be
// refused with an error. A nil slice is an empty one, and no error.
func nillable(k reflect.Kind) bool {
	switch k {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Func, reflect.Chan:
		return true
	}
	return false
}

// checkSample calls f with sample, then with each nillable argument of it
// set to nil in turn.
func checkSample(t *testing.T, name string, f reflect.Value, sample []any, allowNil bool, notOpen error) {
	t.Helper()
	ft := f.Type()
	args := make([]reflect.Value, len(sample))
	for i, a := range sample {
		if a == nil {
			args[i] = reflect.Zero(ft.In(i))
		} else {
			args[i] = reflect.ValueOf(a)
		}
	}
	for i := range args {
		if !nillable(ft.In(i).Kind()) {
			continue
		}
		call := slices.Clone(args)
		call[i] = reflect.Zero(ft.In(i))
		checkCall(t, fmt.Sprintf("%s (argument %d nil)", name, i+1), f, call, allowNil, notOpen)
	}
}

// checkCall calls f with args: it must not panic, and when an argument (or
// the receiver: a name starting "nil ") is a nil pointer or interface it
// must return an error if it has an error result, unless allowNil; given
// a nil stream (see isStreamArg) that error must wrap notOpen, when set.
// No error it returns may be a recovered runtime panic.
func checkCall(t *testing.T, name string, f reflect.Value, args []reflect.Value, allowNil bool, notOpen error) {
	t.Helper()
	hasNil := strings.HasPrefix(name, "nil ")
	nilStream := false
	for _, a := range args {
		if nillable(a.Kind()) && a.IsNil() {
			hasNil = true
			nilStream = nilStream || isStreamArg(a.Type())
		}
	}
	out, panicked := callGuarded(f, args)
	if panicked != nil {
		t.Errorf("%s, called with nil and zero arguments, panics: %v", name, panicked)
		return
	}
	errType := reflect.TypeFor[error]()
	for _, o := range out {
		if o.Type() != errType {
			continue
		}
		if o.IsNil() {
			if hasNil && !allowNil {
				t.Errorf("%s, called with nil arguments, returns a nil error", name)
			}
			continue
		}
		err := o.Interface().(error)
		if msg := err.Error(); strings.Contains(msg, "runtime error") {
			t.Errorf("%s, called with nil and zero arguments, recovers a panic: %v", name, err)
		}
		if nilStream && notOpen != nil && !errors.Is(err, notOpen) {
			t.Errorf("%s, given a nil reader or writer, returns %q, want an error wrapping %q", name, err, notOpen)
		}
	}
}

// isStreamArg reports whether an argument of type at is an io.Reader,
// io.ReaderAt or io.Writer: an interface with a Read, ReadAt or Write
// method.
func isStreamArg(at reflect.Type) bool {
	if at.Kind() != reflect.Interface {
		return false
	}
	for _, m := range []string{"Read", "ReadAt", "Write"} {
		if _, ok := at.MethodByName(m); ok {
			return true
		}
	}
	return false
}

// exportedDecls lists the exported functions and types that the package
// in dir declares outside its tests.
func exportedDecls(t *testing.T, dir string) (funcs, types []string) {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, dir+"/"+n, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name == "main" || strings.HasSuffix(f.Name.Name, "_test") {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					funcs = append(funcs, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.IsExported() {
						types = append(types, ts.Name.Name)
					}
				}
			}
		}
	}
	return funcs, types
}
