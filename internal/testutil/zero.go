package testutil

import (
	"fmt"
	"reflect"
	"testing"
)

// CheckZeroValue calls every exported method of v (a pointer to a zero
// value) with zero arguments and fails the test if one panics, or if a
// method with an error result returns a nil error, unless its name is in
// allowNil. A result that is an iterator (a func taking a yield func) is
// run too, with a yield that stops after ten values.
func CheckZeroValue(t *testing.T, v any, allowNil ...string) {
	t.Helper()
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	errType := reflect.TypeFor[error]()
	for i := 0; i < rt.NumMethod(); i++ {
		m := rt.Method(i)
		args := make([]reflect.Value, m.Type.NumIn()-1)
		for j := range args {
			args[j] = reflect.Zero(m.Type.In(j + 1))
		}
		if m.Type.IsVariadic() {
			args = args[:len(args)-1]
		}
		name := fmt.Sprintf("%s.%s", rt, m.Name)
		out, panicked := callGuarded(rv.Method(i), args)
		if panicked != nil {
			t.Errorf("%s on a zero value panics: %v", name, panicked)
			continue
		}
		for _, o := range out {
			if o.Type() == errType && o.IsNil() && !contains(allowNil, m.Name) {
				t.Errorf("%s on a zero value returns a nil error", name)
			}
			if o.Kind() == reflect.Func && o.Type().NumIn() == 1 && o.Type().In(0).Kind() == reflect.Func && !o.IsNil() {
				yt := o.Type().In(0)
				n := 0
				yield := reflect.MakeFunc(yt, func([]reflect.Value) []reflect.Value {
					n++
					return []reflect.Value{reflect.ValueOf(n < 10)}
				})
				if _, p := callGuarded(o, []reflect.Value{yield}); p != nil {
					t.Errorf("the iterator %s returns on a zero value panics: %v", name, p)
				}
			}
		}
	}
}

func callGuarded(f reflect.Value, args []reflect.Value) (out []reflect.Value, panicked any) {
	defer func() { panicked = recover() }()
	return f.Call(args), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
