package gotraceraw

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/varint"
)

// textPadding follows a fuzzed text so that its lines have the bytes
// after them the TextReader's fast path wants in its buffer.
var textPadding = bytes.Repeat([]byte("#\n"), (textWindow+32)/2+1)

// readTextBoth reads text with the TextReader's fast path and without it,
// and fails the test when the two read different events or errors.
func readTextBoth(t *testing.T, text []byte, maxLineLen int) {
	t.Helper()
	read := func(noFast bool) (evs []*Event, err error) {
		r := &TextReader{MaxLineLen: maxLineLen}
		if err := r.Reset(bytes.NewReader(text)); err != nil {
			return nil, err
		}
		r.noFast = noFast
		for {
			ev, err := r.Read()
			if err != nil {
				return evs, err
			}
			evs = append(evs, ev.Clone())
		}
	}
	fast, err1 := read(false)
	careful, err2 := read(true)
	// The first difference only: go-cmp over two long lists that part
	// ways costs the fuzzer minutes.
	for i := range min(len(fast), len(careful)) {
		a, b := careful[i], fast[i]
		if a.Version != b.Version || a.Type != b.Type || !slices.Equal(a.Args, b.Args) ||
			!bytes.Equal(a.Data, b.Data) || (a.Data == nil) != (b.Data == nil) || !slices.Equal(a.Widths, b.Widths) {
			t.Fatalf("event %d: fast path %v; careful %v", i, b, a)
		}
	}
	if len(fast) != len(careful) || fmt.Sprint(err1) != fmt.Sprint(err2) {
		t.Fatalf("fast path: %d events, then %v; careful: %d events, then %v", len(fast), err1, len(careful), err2)
	}
}

// FuzzTextFast checks that the TextReader's fast path reads what the
// careful one reads, for lines followed by enough bytes to take it.
func FuzzTextFast(f *testing.F) {
	textSeeds(f)
	f.Add([]byte("Trace Go1.26\nGoStart dt=00000001 g=123456789 g_seq=12345678901234567890\n"))
	f.Add([]byte("Trace Go1.23\nGoUnblock dt=1 g=18446744073709551615 g_seq=0 stack=9\r\n"))
	f.Add([]byte("Trace Go1.22\nCPUSample time=1 p=2 g=3 m=4 stack=5\nGoBlock dt=5 reason_string=1 stack=2\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		text = append(slices.Clip(text), textPadding...) // a copy: the input is not ours to change
		readTextBoth(t, text, 0)
		readTextBoth(t, text, 1+len(text)%50) // a line limit some lines pass
	})
}

// TestTextFastNumbers reads values of every length, with leading zeros,
// up to and past the largest uint64, through the fast path and the
// careful one.
func TestTextFastNumbers(t *testing.T) {
	var b strings.Builder
	b.WriteString("Trace Go1.26\nEventBatch gen=1 m=2 time=3 size=4\n")
	values := []string{"0", "00", "0000000", "00000000", "000000000", "18446744073709551615",
		"18446744073709551616", "99999999999999999999", "0018446744073709551615", "1234567890123456789"}
	for v := uint64(1); v != 0 && v < math.MaxUint64/10; v *= 10 {
		for _, x := range []uint64{v - 1, v, v + 1, 2*v - 1, 9*v + 1} {
			values = append(values, strconv.FormatUint(x, 10))
		}
	}
	for _, v := range values {
		for i := range 3 {
			args := []string{"1", "2", "3"}
			args[i] = v
			fmt.Fprintf(&b, "GoStart dt=%s g=%s g_seq=%s\n", args[0], args[1], args[2])
		}
	}
	readTextBoth(t, append([]byte(b.String()), textPadding...), 0)
	// A line over MaxLineLen is an error, whichever path reads it.
	readTextBoth(t, append([]byte("Trace Go1.26\nSync\nGoStart dt=1 g=2 g_seq=3\n"), textPadding...), 20)
	for _, bad := range []string{"GoStart dt=1 g=2 g_seq=", "GoStart dt= g=2 g_seq=3", "GoStart dt=1 g=2 g_seq=3x",
		"GoStart dt=1 g=2 g_seq=3 ", "GoStart dt=1 g=2  g_seq=3", "GoStart  dt=1 g=2 g_seq=3", "GoStarts dt=1 g=2 g_seq=3",
		"GoStar dt=1 g=2 g_seq=3", "goStart dt=1 g=2 g_seq=3", "GoStart dt=1 g=2 g_seq=3#", "GoStart dt=1 g=2",
		"GoStart dt=1 g=2 g_seq=3 stack=4", "ProcStop dt=1", "ProcStop dt=1 p=2", "GoSyscallEndBlocked dt=7",
		"GoroutineStackAlloc dt=1 id=2 order=3", "UserLog dt=5 task=2 key_string=60 dalue_string=62 stack=22", "UserLog dt=1 task=2 key_string=3 value_string=4 stack=5", "\tGoStart dt=1 g=2 g_seq=3"} {
		readTextBoth(t, []byte("Trace Go1.26\nEventBatch gen=1 m=2 time=3 size=4\n"+bad+"\n"+string(textPadding)), 0)
		readTextBoth(t, []byte("Trace Go1.22\nEventBatch gen=1 m=2 time=3 size=4\n"+bad+"\n"+string(textPadding)), 0)
	}
}

// TestTextFastTypes prints an event of every type of every version with
// random values, and reads it back through both paths; the fast path must
// take every event of plain arguments.
func TestTextFastTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range Versions {
		for _, typ := range v.Types() {
			s, _ := v.Spec(typ)
			if s.IsStack || s.HasData {
				continue
			}
			var b bytes.Buffer
			fmt.Fprintf(&b, "Trace %v\n", v)
			for range 50 {
				e := &Event{Version: v, Type: typ, Args: make([]uint64, len(s.Args))}
				for i := range e.Args {
					e.Args[i] = rng.Uint64() >> (1 + rng.IntN(63)) // 19 digits at most, as the fast path reads
				}
				b.WriteString(e.String() + "\n")
			}
			text := append(b.Bytes(), textPadding...)
			readTextBoth(t, text, 0)
			r, err := NewTextReader(bytes.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Read(); err != nil {
				t.Fatal(err)
			}
			for i := 1; i < 50; i++ {
				pos := r.pos
				if len(s.Args) > 0 && !r.readPlain() {
					t.Fatalf("%v %v: the fast path refused %q", v, typ, bytes.SplitN(r.buf[pos:r.end], []byte("\n"), 2)[0])
				}
				if len(s.Args) == 0 {
					if _, err := r.Read(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := r.Read(); err != io.EOF {
				t.Fatalf("%v %v: after the events: %v", v, typ, err)
			}
		}
	}
}

// TestAppendPlainText checks the text writer's fast printing of every
// type of plain arguments against strconv, values of every length.
func TestAppendPlainText(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	values := []uint64{0, 9, 10, 99, 100, 127, 128, 16383, 16384, math.MaxUint64}
	for v := uint64(1); v < math.MaxUint64/10; v *= 10 {
		values = append(values, v-1, v, v+1)
	}
	for typ := range plainTexts {
		pt := &plainTexts[typ]
		if pt.nargs == 0 {
			continue
		}
		s := &specs[typ]
		for range 200 {
			args := make([]uint64, pt.nargs)
			for i := range args {
				if rng.IntN(2) == 0 {
					args[i] = values[rng.IntN(len(values))]
				} else {
					args[i] = rng.Uint64() >> rng.IntN(64)
				}
			}
			want := s.Name
			n := 1
			for i, a := range args {
				want += " " + s.Args[i] + "=" + strconv.FormatUint(a, 10)
				n += varint.Len(a)
			}
			want += "\n"
			prefix := []byte("before ")
			got, gotN := appendPlainText(prefix, args, pt)
			if string(got) != "before "+want || gotN != n {
				t.Fatalf("appendPlainText(%v, %v) = %q, %d; want %q, %d", s.Name, args, got, gotN, want, n)
			}
		}
	}
}

// TestNameSlots checks that every name of an event type of plain
// arguments has a slot of its own in the text reader's fast path.
func TestNameSlots(t *testing.T) {
	for typ := range plainTexts {
		if plainTexts[typ].nargs == 0 {
			continue
		}
		name := specs[typ].Name
		var b [8]byte
		copy(b[:], name)
		if h := nameSlot(binary.LittleEndian.Uint64(b[:]), len(name), name[len(name)-1]); nameSlots[h] != EventType(typ) {
			t.Errorf("%s: slot %d holds %v", name, h, nameSlots[h])
		}
		h := plainTexts[typ].pieces[0].w[0] * 0x9e3779b97f4a7c15 >> (64 - firstWordBits)
		if got := firstWords[h]; got != EventType(typ) && got != sharedFirstWord {
			t.Errorf("%s: first-word slot %d holds %v", name, h, got)
		}
	}
}
