package testutil

import (
	"errors"
	"testing"
)

type safeZero struct{ buf []byte }

func (z *safeZero) Read() (byte, error) {
	if z.buf == nil {
		return 0, errors.New("not open")
	}
	return z.buf[0], nil
}

type panickyZero struct{ buf []byte }

func (z *panickyZero) Read() (byte, error) { return z.buf[0], nil }

type nilErrZero struct{}

func (z *nilErrZero) Flush() error { return nil }

func TestCheckZeroValue(t *testing.T) {
	CheckZeroValue(t, new(safeZero))
	CheckZeroValue(t, new(nilErrZero), "Flush")
	for _, v := range []any{new(panickyZero), new(nilErrZero)} {
		ft := new(testing.T)
		done := make(chan struct{})
		go func() { defer close(done); CheckZeroValue(ft, v) }()
		<-done
		if !ft.Failed() {
			t.Errorf("CheckZeroValue(%T) passed", v)
		}
	}
}
