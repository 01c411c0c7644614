// Package chromejson writes Chrome trace-event JSON, the timeline format
// Perfetto's UI and chrome://tracing open: the event array written as
// events come (memory does not grow with the trace), JSON strings from
// arbitrary bytes, and timestamps in microseconds computed exactly from
// ticks of any frequency.
package chromejson

import (
	"bufio"
	"io"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// Writer writes {"traceEvents":[ ... ] ...} one event at a time.
type Writer struct {
	bw    *bufio.Writer
	first bool
	err   error // the destination's first failure
}

// NewWriter starts the event array on w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.WriteString("{\"traceEvents\":[\n")
	return &Writer{bw: bw, first: true}
}

// Event writes one event, b being its JSON object. It returns the
// destination's failure, once the buffer could not be written out, and
// every later call returns it too.
func (w *Writer) Event(b []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.first {
		w.first = false
	} else {
		w.bw.WriteString(",\n")
	}
	_, w.err = w.bw.Write(b)
	return w.err
}

// End closes the event array, writes the fields that follow it (rest
// starts with a comma, or is empty) and the closing brace, and flushes.
func (w *Writer) End(rest []byte) error {
	if w.err != nil {
		return w.err
	}
	w.bw.WriteString("\n]")
	w.bw.Write(rest)
	w.bw.WriteString("}\n")
	return w.bw.Flush()
}

const hexLower = "0123456789abcdef"

// AppendString appends s as a JSON string; bytes that are not UTF-8 become
// U+FFFD. U+2028 and U+2029 are escaped, as JavaScript needs.
func AppendString[S string | []byte](b []byte, s S) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexLower[c>>4], hexLower[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else if r == 0x2028 || r == 0x2029 {
			b = append(b, `\u202`...)
			b = append(b, hexLower[r&15])
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// AppendHex appends s in lower-case hex, two digits a byte.
func AppendHex(b, s []byte) []byte {
	for _, c := range s {
		b = append(b, hexLower[c>>4], hexLower[c&15])
	}
	return b
}

// AppendMicros appends d ticks of freq ticks a second as microseconds
// with three decimals (nanosecond digits, cut, not rounded), in integer
// arithmetic, so no tick count loses precision as it would through a
// float64. A value beyond 2^64 µs prints as that maximum. freq must not
// be 0: the callers take a rate of 0, which a header may carry, for 1 GHz.
func AppendMicros(b []byte, d, freq uint64) []byte {
	hi, lo := bits.Mul64(d, 1e6)
	var q, r uint64
	if hi < freq {
		q, r = bits.Div64(hi, lo, freq)
	} else {
		q, r = ^uint64(0), 0
	}
	b = strconv.AppendUint(b, q, 10)
	b = append(b, '.')
	hi, lo = bits.Mul64(r, 1000)
	frac, _ := bits.Div64(hi, lo, freq)
	switch {
	case frac < 10:
		b = append(b, '0', '0')
	case frac < 100:
		b = append(b, '0')
	}
	return strconv.AppendUint(b, frac, 10)
}
