package snappy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// chunks returns the raw snappy blocks of the committed apitrace fixtures
// (written by Debian's apitrace, i.e. by google/snappy's compressor).
func chunks(t testing.TB) [][]byte {
	files, _ := filepath.Glob("../testdata/*.trace")
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("at")) {
			continue
		}
		for rest := data[2:]; len(rest) >= 4; {
			n := binary.LittleEndian.Uint32(rest)
			if n == 0 || int(n) > len(rest)-4 {
				break
			}
			out = append(out, rest[4:4+n])
			rest = rest[4+n:]
		}
	}
	if len(out) == 0 {
		t.Skip("no snappy fixtures in ../testdata")
	}
	return out
}

func TestDecodeReferenceBlocks(t *testing.T) {
	var enc Encoder
	for i, c := range chunks(t) {
		want, _, err := DecodedLen(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(nil, c, 0)
		if err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if len(got) != want {
			t.Fatalf("chunk %d: %d bytes, preamble says %d", i, len(got), want)
		}
		// Our encoder's block of the same bytes decodes to them again.
		blk := enc.Encode(nil, got)
		if len(blk) > MaxEncodedLen(len(got)) {
			t.Fatalf("chunk %d: block %d > bound %d", i, len(blk), MaxEncodedLen(len(got)))
		}
		back, err := Decode(nil, blk, 0)
		if err != nil || !bytes.Equal(back, got) {
			t.Fatalf("chunk %d: re-encoded block does not round trip: %v", i, err)
		}
	}
}

func TestRoundTripShapes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var enc Encoder
	inputs := [][]byte{nil, {}, {0}, []byte("a"), bytes.Repeat([]byte("ab"), 1000), make([]byte, 300000)}
	for _, n := range []int{1, 16, 17, 20, 63, 64, 65, 100, 4096, 70000, 1 << 20} {
		r := make([]byte, n)
		rng.Read(r)
		inputs = append(inputs, r)
		// Compressible: few distinct symbols with long repeats.
		c := make([]byte, n)
		for i := range c {
			if i > 8 && rng.Intn(4) != 0 {
				c[i] = c[i-1-rng.Intn(8)]
			} else {
				c[i] = byte(rng.Intn(4))
			}
		}
		inputs = append(inputs, c)
	}
	for i, in := range inputs {
		blk := enc.Encode(nil, in)
		if len(blk) > MaxEncodedLen(len(in)) {
			t.Errorf("input %d: %d > %d", i, len(blk), MaxEncodedLen(len(in)))
		}
		out, err := Decode(nil, blk, 0)
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("input %d (%d bytes): round trip failed: %v", i, len(in), err)
		}
		if again := enc.Encode(nil, in); !bytes.Equal(again, blk) {
			t.Fatalf("input %d: encoder not deterministic", i)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		blk  []byte
		want error
	}{
		{"empty", nil, ErrCorrupt},
		{"preamble cut", []byte{0x80}, ErrCorrupt},
		{"preamble too big", []byte{0xff, 0xff, 0xff, 0xff, 0x7f}, ErrCorrupt},
		{"short output", []byte{3, 0 << 2, 'a'}, ErrCorrupt},
		{"long output", []byte{1, 1 << 2, 'a', 'b'}, ErrCorrupt},
		{"literal past input", []byte{3, 2 << 2, 'a'}, ErrCorrupt},
		{"copy first", []byte{4, 0<<2 | 1, 1}, ErrCorrupt},
		{"offset zero", []byte{5, 0, 'a', 0<<2 | 1, 0}, ErrCorrupt},
		{"offset too far", []byte{5, 0, 'a', 0<<2 | 1, 2}, ErrCorrupt},
		{"copy past output", []byte{3, 0, 'a', 0<<2 | 1, 1}, ErrCorrupt},
		{"copy2 cut", []byte{3, 0, 'a', 2, 1}, ErrCorrupt},
		{"copy4 cut", []byte{3, 0, 'a', 3, 1, 0, 0}, ErrCorrupt},
		{"literal60 cut", []byte{3, 60 << 2}, ErrCorrupt},
		{"ratio", []byte{0xff, 0xff, 0x7f, 0}, ErrCorrupt},
	} {
		_, err := Decode(nil, tc.blk, 0)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := Decode(nil, []byte{5, 0x10, 1, 2, 3, 4, 5}, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit: got %v", err)
	}
}

func TestDecodeOverlap(t *testing.T) {
	// "ab" then a copy of 50 bytes at offset 2, and one at offset 1.
	blk := []byte{56, 1 << 2, 'a', 'b', 49<<2 | 2, 2, 0, 0<<2 | 1, 1}
	out, err := Decode(nil, blk, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := append(bytes.Repeat([]byte("ab"), 26), 'b', 'b', 'b', 'b')
	if !bytes.Equal(out, want) {
		t.Fatalf("got %q\nwant %q", out, want)
	}
}

func TestEncodeAllocs(t *testing.T) {
	var enc Encoder
	src := bytes.Repeat([]byte("hello, snappy "), 5000)
	dst := make([]byte, 0, MaxEncodedLen(len(src)))
	out := make([]byte, len(src))
	if n := testing.AllocsPerRun(10, func() {
		blk := enc.Encode(dst[:0], src)
		if _, err := Decode(out, blk, 0); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per encode+decode", n)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte{56, 1 << 2, 'a', 'b', 49<<2 | 2, 2, 0, 0<<2 | 1, 1})
	f.Add([]byte{0})
	var enc Encoder
	f.Add(enc.Encode(nil, []byte("hello hello hello hello world")))
	f.Fuzz(func(t *testing.T, blk []byte) {
		out, err := Decode(nil, blk, 1<<20)
		if err != nil {
			return
		}
		n, _, _ := DecodedLen(blk)
		if len(out) != n {
			t.Fatalf("decoded %d bytes, preamble %d", len(out), n)
		}
	})
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello hello hello hello world"))
	f.Add(bytes.Repeat([]byte{0}, 1000))
	var enc Encoder
	f.Fuzz(func(t *testing.T, in []byte) {
		blk := enc.Encode(nil, in)
		if len(blk) > MaxEncodedLen(len(in)) {
			t.Fatalf("%d > %d", len(blk), MaxEncodedLen(len(in)))
		}
		out, err := Decode(nil, blk, 0)
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("round trip: %v", err)
		}
		// A block cut anywhere decodes to a prefix of the input.
		for _, cut := range []int{len(blk) / 3, len(blk) / 2, len(blk) - 1} {
			if cut < 0 {
				continue
			}
			p := DecodePrefix(nil, blk[:cut], 0)
			if !bytes.HasPrefix(in, p) {
				t.Fatalf("cut at %d of %d: %d bytes that are no prefix", cut, len(blk), len(p))
			}
		}
	})
}

func TestDecodePrefix(t *testing.T) {
	var enc Encoder
	in := bytes.Repeat([]byte("apitrace snappy chunk cut short "), 3000)
	blk := enc.Encode(nil, in)
	prev := 0
	for cut := 0; cut <= len(blk); cut += 7 {
		p := DecodePrefix(nil, blk[:cut], 0)
		if !bytes.HasPrefix(in, p) || len(p) < prev {
			t.Fatalf("cut %d: %d bytes, previous cut %d", cut, len(p), prev)
		}
		prev = len(p)
	}
	if p := DecodePrefix(nil, blk, 0); !bytes.Equal(p, in) {
		t.Fatalf("whole block: %d of %d bytes", len(p), len(in))
	}
	if p := DecodePrefix(nil, blk, 100); len(p) != 100 {
		t.Fatalf("limit: %d bytes", len(p))
	}
}
