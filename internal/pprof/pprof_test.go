package pprof

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// Expected bytes from the protobuf encoding spec's examples.
func TestFieldEncoding(t *testing.T) {
	for _, c := range []struct {
		name string
		got  []byte
		want []byte
	}{
		{"varint 150", appendUint(nil, 1, 150), []byte{0x08, 0x96, 0x01}},
		{"zero left out", appendUint(nil, 1, 0), nil},
		{"string", appendBytes(nil, 2, []byte("testing")), []byte{0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'}},
		{"negative int", appendInt(nil, 1, -1), []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"packed negative", appendPacked(nil, 2, []int64{-1, 1}), []byte{0x12, 0x0b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x01}},
		{"packed empty", appendPacked[uint64](nil, 1, nil), nil},
	} {
		if !bytes.Equal(c.got, c.want) {
			t.Errorf("%s: got % x, want % x", c.name, c.got, c.want)
		}
	}
}

// TestSampleBytes checks a sample's encoding: packed location ids, then
// packed values (the spec's packed example is 3, 270, 86942).
func TestSampleBytes(t *testing.T) {
	var out bytes.Buffer
	e := NewEncoder(&out, Header{})
	if err := e.Sample([]uint64{3, 270, 86942}, []int64{150}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x12, 0x0c, 0x0a, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05, 0x12, 0x02, 0x96, 0x01,
		0x32, 0x00} // the string table's ""
	if !bytes.Equal(b, want) {
		t.Errorf("got % x\nwant % x", b, want)
	}
	if err := e.Sample(nil, nil); err != ErrClosed {
		t.Errorf("Sample after Close: %v, want ErrClosed", err)
	}
	if m, f, l := e.Mapping(Mapping{Start: 1}), e.Function("f", "", "", 0), e.Location(Location{Address: 1}); m|f|l != 0 || len(e.maps)+len(e.fns)+len(e.locs) != 0 {
		t.Errorf("after Close: ids %d %d %d and %d bytes kept, want none", m, f, l, len(e.maps)+len(e.fns)+len(e.locs))
	}
}

// TestGoTool checks that go tool pprof reads every kind of entry back.
func TestGoTool(t *testing.T) {
	goTool := testutil.Tool(t, "go")
	var out bytes.Buffer
	e := NewEncoder(&out, Header{
		SampleTypes:       []ValueType{{"inuse_objects", "count"}, {"inuse_space", "bytes"}},
		DefaultSampleType: "inuse_space",
		PeriodType:        ValueType{"space", "bytes"},
		Period:            1,
		Comments:          []string{"made by a test"},
	})
	m := e.Mapping(Mapping{Start: 0x400000, Limit: 0x500000, File: "/bin/prog", BuildID: "abcd", HasFunctions: true})
	main := e.Function("main", "", "prog.c", 10)
	alloc := e.Function("alloc", "_alloc", "prog.c", 3)
	if again := e.Function("main", "", "prog.c", 10); again != main {
		t.Errorf("Function gave %d for a function it had as %d", again, main)
	}
	l1 := e.Location(Location{Mapping: m, Address: 0x401000, Lines: []Line{{alloc, 4}}})
	l2 := e.Location(Location{Mapping: m, Address: 0x402000, Lines: []Line{{main, 12}}})
	for i := 0; i < 3000; i++ { // more than one compressor write
		if err := e.Sample([]uint64{l1, l2}, []int64{1, 64}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Sample([]uint64{l2}, []int64{2, 16}, Label{"resource", "fd"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.pb.gz")
	if err := os.WriteFile(path, out.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(goTool, "tool", "pprof", "-raw", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -raw: %v\n%s", err, got)
	}
	for _, want := range []string{
		"PeriodType: space bytes",
		"inuse_objects/count inuse_space/bytes[dflt]",
		"          2         16: 2 \n                resource:[fd]\n",
		"     1: 0x401000 M=1 alloc prog.c:4:0 s=3(_alloc)\n",
		"     2: 0x402000 M=1 main prog.c:12:0 s=10\n",
		"1: 0x400000/0x500000/0x0 /bin/prog abcd [FN]",
		"made by a test",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("go tool pprof -raw: no %q in\n%s", want, got)
		}
	}
	if n := strings.Count(string(got), "          1         64: 1 2 \n"); n != 3000 {
		t.Errorf("go tool pprof -raw: %d samples of 1 2, want 3000", n)
	}
}

// A Tally gives back the stacks it was given, and sums per stack.
func TestTally(t *testing.T) {
	ty := NewTally(2)
	stacks := [][]uint64{{1, 2, 3}, {}, {^uint64(0), 0x0102030405060708}, {1, 2}}
	for i, s := range stacks {
		ty.Add(s, int64(i), 1)
		ty.Add(s, int64(i), 1)
	}
	if ty.Len() != len(stacks) {
		t.Fatalf("Len %d, want %d", ty.Len(), len(stacks))
	}
	for i, s := range stacks {
		j := ty.Intern(s)
		if got := ty.Stack(nil, j); !slices.Equal(got, s) {
			t.Errorf("stack %d: %x, want %x", i, got, s)
		}
		if got := ty.Values(j); got[0] != 2*int64(i) || got[1] != 2 {
			t.Errorf("stack %d: values %v, want [%d 2]", i, got, 2*i)
		}
	}
	if n := testing.AllocsPerRun(100, func() { ty.Stack(make([]uint64, 0, 4), 2) }); n > 1 {
		t.Errorf("Stack: %v allocations, want at most the destination's", n)
	}
}
