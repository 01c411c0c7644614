package cbf

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

func TestCallersRoundTrip(t *testing.T) {
	pcs := make([]uintptr, 64)
	pcs = pcs[:runtime.Callers(0, pcs)]
	if len(pcs) < 3 {
		t.Fatalf("only %d callers", len(pcs))
	}
	data, err := AppendUintptrs(nil, pcs)
	if err != nil {
		t.Fatal(err)
	}
	frames := FromUintptrs(nil, RA, pcs)
	viaFrames, err := Append(nil, NativeWord, frames)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, viaFrames) {
		t.Errorf("AppendUintptrs % x, Append % x", data, viaFrames)
	}
	rec, err := openReader(bytes.NewReader(data)).Read()
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "pcs", pcs, Uintptrs(nil, rec.Frames))
	// The symbols still resolve from the decoded addresses.
	fr := runtime.CallersFrames(Uintptrs(nil, rec.Frames))
	first, _ := fr.Next()
	if first.Function != "runtime.Callers" {
		t.Errorf("first frame %q", first.Function)
	}
}

func TestAddrsRepeats(t *testing.T) {
	frames := parseFrames(t, "pc 0x10; omit 3; ra 0x20")
	frames = append(frames, Frame{Kind: Repeat, Count: 2}, Frame{Kind: Omitted, Count: 1}, Frame{Kind: Repeat, Count: 4}, Frame{Kind: Truncated})
	testutil.Diff(t, "addrs", []uint64{0x10, 0x20, 0x20, 0x20}, Addrs(nil, frames))
	u64 := []uint64{1, 2, 2, 3}
	data, err := AppendAddrs(nil, Word16, PC, u64)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Diff(t, "bytes", []byte{0x00, 0x10, 0x01, 0x10, 0x01, 0x80, 0x10, 0x01, 0x00}, data)
	if _, err := AppendAddrs(nil, Word16, PC, []uint64{0x10000}); !errors.Is(err, ErrInvalid) || !errors.Is(err, errAddr) {
		t.Errorf("0x10000 in 16 bits: %v", err)
	}
}

// AppendAddrs, which goes through frames in chunks, writes what Append
// writes for the same frames.
func TestAppendAddrsProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, w := range []WordSize{Word16, Word32, Word64} {
		for range 500 {
			fs := randomFrames(rng, w)
			k := Kind(1 + rng.IntN(3))
			var addrs []uint64
			for _, f := range fs {
				if f.Kind.HasAddr() {
					addrs = append(addrs, f.Addr)
				}
			}
			want, err := Append(nil, w, FromAddrs(nil, k, addrs))
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendAddrs([]byte{0xaa}, w, k, addrs)
			if err != nil || !bytes.Equal(got[1:], want) || got[0] != 0xaa {
				t.Fatalf("%v %v %x: AppendAddrs % x (%v), Append % x", w, k, addrs, got, err, want)
			}
		}
	}
	if _, err := AppendAddrs(nil, Word64, Omitted, []uint64{1}); !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrCount) {
		t.Errorf("omit kind: %v", err)
	}
}
