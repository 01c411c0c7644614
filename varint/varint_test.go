package varint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"
)

var values = []uint64{0, 1, 0x7f, 0x80, 0x3fff, 0x4000, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 35, 1<<49 + 3, 1<<56 - 1, 1 << 62, math.MaxUint64 - 1, math.MaxUint64}

func TestAppendConsumeAgreeWithBinary(t *testing.T) {
	for _, v := range values {
		got := Append(nil, v)
		want := binary.AppendUvarint(nil, v)
		if !bytes.Equal(got, want) {
			t.Errorf("Append(%#x) = %x, want %x", v, got, want)
		}
		if Len(v) != len(want) {
			t.Errorf("Len(%#x) = %d, want %d", v, Len(v), len(want))
		}
		d, n := Consume(got)
		if d != v || n != len(got) {
			t.Errorf("Consume(%x) = %#x, %d; want %#x, %d", got, d, n, v, len(got))
		}
		r, w, err := ReadWidth(bytes.NewReader(got))
		if err != nil || r != v || w != len(got) {
			t.Errorf("ReadWidth(%x) = %#x, %d, %v", got, r, w, err)
		}
	}
}

func TestPadded(t *testing.T) {
	for _, v := range values {
		for width := 1; width <= MaxLen; width++ {
			b, err := AppendPadded([]byte{0xaa}, v, width)
			if width < Len(v) {
				if !errors.Is(err, ErrWidth) || len(b) != 1 {
					t.Errorf("AppendPadded(%#x, %d) = %x, %v; want ErrWidth and dst unchanged", v, width, b, err)
				}
				continue
			}
			if err != nil || len(b) != 1+width {
				t.Fatalf("AppendPadded(%#x, %d) = %x, %v", v, width, b, err)
			}
			d, n := Consume(b[1:])
			if d != v || n != width {
				t.Errorf("Consume(padded %#x width %d) = %#x, %d", v, width, d, n)
			}
			if bv, bn := binary.Uvarint(b[1:]); bv != v || bn != width {
				t.Errorf("binary.Uvarint disagrees on padded %x: %#x, %d", b[1:], bv, bn)
			}
		}
	}
	if _, err := AppendPadded(nil, 1, 11); !errors.Is(err, ErrWidth) {
		t.Errorf("width 11 accepted")
	}
}

func TestConsumeErrors(t *testing.T) {
	tests := []struct {
		in []byte
		n  int
	}{
		{nil, 0},
		{[]byte{0x80}, 0},
		{[]byte{0xff, 0xff}, 0},
		{bytes.Repeat([]byte{0xff}, 9), 0},
		{bytes.Repeat([]byte{0xff}, 10), -10},
		{append(bytes.Repeat([]byte{0xff}, 9), 0x02), -10},
		{append(bytes.Repeat([]byte{0x80}, 10), 0x00), -10},
		{append(bytes.Repeat([]byte{0xff}, 9), 0x01), 10},
		{append(bytes.Repeat([]byte{0x80}, 9), 0x00), 10},
	}
	for _, tt := range tests {
		_, n := Consume(tt.in)
		if n != tt.n {
			t.Errorf("Consume(%x) n = %d, want %d", tt.in, n, tt.n)
		}
		_, bn := binary.Uvarint(tt.in)
		// binary.Uvarint reports ten continuation bytes as too short; they
		// can only overflow, so Consume says so at once.
		if (n > 0) != (bn > 0) {
			t.Errorf("Consume(%x) n = %d, binary.Uvarint n = %d", tt.in, n, bn)
		}
	}
}

func TestReadErrors(t *testing.T) {
	if _, err := Read(bytes.NewReader(nil)); err != io.EOF {
		t.Errorf("empty: %v, want io.EOF", err)
	}
	if _, err := Read(bytes.NewReader([]byte{0x80, 0x81})); err != io.ErrUnexpectedEOF {
		t.Errorf("cut: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, err := Read(bytes.NewReader(bytes.Repeat([]byte{0xff}, 11))); !errors.Is(err, ErrOverflow) {
		t.Errorf("11 bytes: %v, want ErrOverflow", err)
	}
	if _, err := Read(bytes.NewReader(append(bytes.Repeat([]byte{0xff}, 9), 2))); !errors.Is(err, ErrOverflow) {
		t.Errorf("65 bits: %v, want ErrOverflow", err)
	}
}

func TestConsumeAllocs(t *testing.T) {
	b := Append(nil, 1<<40)
	if a := testing.AllocsPerRun(100, func() { Consume(b) }); a != 0 {
		t.Errorf("Consume allocates %v times", a)
	}
}

func FuzzConsume(f *testing.F) {
	for _, v := range values {
		f.Add(Append(nil, v), v)
	}
	f.Add(bytes.Repeat([]byte{0x80}, 12), uint64(0))
	f.Fuzz(func(t *testing.T, b []byte, v uint64) {
		got, n := Consume(b)
		want, bn := binary.Uvarint(b)
		switch {
		case n > 0 && bn > 0:
			if got != want || n != bn {
				t.Fatalf("Consume(%x) = %#x, %d; binary.Uvarint = %#x, %d", b, got, n, want, bn)
			}
		case (n > 0) != (bn > 0):
			t.Fatalf("Consume(%x) n = %d, binary.Uvarint n = %d", b, n, bn)
		}
		if n > 0 {
			rv, rn, err := ReadWidth(bytes.NewReader(b))
			if err != nil || rv != got || rn != n {
				t.Fatalf("ReadWidth(%x) = %#x, %d, %v; Consume = %#x, %d", b, rv, rn, err, got, n)
			}
		}
		enc := Append(nil, v)
		if d, dn := Consume(enc); d != v || dn != len(enc) || dn != Len(v) {
			t.Fatalf("round trip %#x: %x -> %#x, %d", v, enc, d, dn)
		}
	})
}
