package chromejson

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

// Strings read back through encoding/json as themselves, invalid UTF-8
// as U+FFFD.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ back`, "ctl \x00\x1f\t\n", "é ü 世界 🙂", "bad \xff\xfe end", "line\u2028sep\u2029", "cut \xe4\xb8"} {
		for _, b := range [][]byte{AppendString(nil, s), AppendString(nil, []byte(s))} {
			var got string
			if err := json.Unmarshal(b, &got); err != nil {
				t.Errorf("%q: %s does not parse: %v", s, b, err)
				continue
			}
			// each invalid byte is one U+FFFD, as in a conversion to runes
			if want := string([]rune(s)); got != want {
				t.Errorf("%q: reads back as %q, want %q", s, got, want)
			}
			if bytes.ContainsAny(b, "\u2028\u2029") {
				t.Errorf("%q: %s holds a raw line separator", s, b)
			}
		}
	}
}

// Microseconds are exact: checked against big-number arithmetic.
func TestAppendMicros(t *testing.T) {
	for _, c := range []struct{ d, freq uint64 }{
		{0, 1e9}, {1, 1e9}, {999, 1e9}, {1000, 1e9}, {123456789, 1e9},
		{1, 3}, {2, 3}, {1 << 40, 2_400_000_000}, {^uint64(0), 1e9}, {^uint64(0), 15_625_000},
		{7, 1e6}, {1 << 63, 1 << 62},
		// beyond 2^64 µs: the maximum, as the doc says
		{^uint64(0), 1}, {1 << 60, 1000}, {1<<54 + 1, 1000},
	} {
		got := string(AppendMicros(nil, c.d, c.freq))
		ns := new(big.Int).Mul(new(big.Int).SetUint64(c.d), big.NewInt(1e9))
		ns.Quo(ns, new(big.Int).SetUint64(c.freq))
		us, frac := new(big.Int).QuoRem(ns, big.NewInt(1000), new(big.Int))
		want := us.String() + "." + leftPad(frac.String())
		if us.BitLen() > 64 {
			want = "18446744073709551615.000"
		}
		if got != want {
			t.Errorf("AppendMicros(%d, %d) = %s, want %s", c.d, c.freq, got, want)
		}
	}
}

func leftPad(s string) string { return strings.Repeat("0", 3-len(s)) + s }

// The writer's output is one JSON document whatever the event count.
func TestWriter(t *testing.T) {
	for n := range 3 {
		var out bytes.Buffer
		w := NewWriter(&out)
		for i := range n {
			w.Event(append(AppendString([]byte(`{"name":`), strings.Repeat("x", i)), '}'))
		}
		if err := w.End([]byte(`,"displayTimeUnit":"ns"`)); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TraceEvents []json.RawMessage
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.TraceEvents) != n {
			t.Errorf("%d events: %v, %d read back from\n%s", n, err, len(doc.TraceEvents), out.Bytes())
		}
	}
}
