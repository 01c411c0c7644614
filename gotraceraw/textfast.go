package gotraceraw

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/tracefmt/tracefmt/internal/decimal"
	"github.com/tracefmt/tracefmt/varint"
)

// The fast paths of the text form: the events of plain arguments (no
// frames, no data), nearly every event of a trace, printed and parsed a
// machine word at a time in a fixed window of the buffer, with masked
// indexes that need no bounds checks. Anything else, or anything that
// does not look exactly as the writers print it, takes the careful path.

// textPiece is up to 24 bytes of text as little-endian words, stored
// and compared a word at a time: w holds the text, zero-padded, and m
// has a 0xff byte for each byte of it.
type textPiece struct {
	w, m [3]uint64
	n    int
}

func newTextPiece(s string) textPiece {
	if len(s) > 24 {
		panic("gotraceraw: text piece " + s + " is over 24 bytes")
	}
	var b, m [24]byte
	copy(b[:], s)
	for i := range s {
		m[i] = 0xff
	}
	le := binary.LittleEndian
	return textPiece{n: len(s),
		w: [3]uint64{le.Uint64(b[0:]), le.Uint64(b[8:]), le.Uint64(b[16:])},
		m: [3]uint64{le.Uint64(m[0:]), le.Uint64(m[8:]), le.Uint64(m[16:])}}
}

// plainText is the text of an event type with arguments but no frames or
// data: pieces[i] is what comes before argument i, the name and " dt="
// for the first.
type plainText struct {
	nargs  uint8 // 0: not such a type
	pieces [maxPlainArgs]textPiece
}

// plainTexts holds every event type's plainText, indexed by type byte.
var plainTexts = func() (m [256]plainText) {
	for t := range specs {
		s := &specs[t]
		if s.Name == "" || s.IsStack || s.HasData || len(s.Args) == 0 {
			continue
		}
		m[t].nargs = uint8(len(s.Args))
		for i := range s.Args {
			text := argText[t][i]
			if i == 0 {
				text = s.Name + text
			}
			m[t].pieces[i] = newTextPiece(text)
		}
	}
	return m
}()

// appendPlainText writes in a decimal.Window: 256 bytes, more than the
// longest text of a plain event (five 24-byte pieces and five 20-digit
// numbers), and 32 more for the bytes a piece's last word stores past it.
const plainMask = decimal.WindowMask

// appendPlainText appends the text of an event of type pt with arguments
// args (as many as the type has) and a newline, and returns the length of
// the event on the wire with minimal varints. It writes into a fixed
// window of the buffer, pieces and digits a word at a time, with indexes
// that need no bounds checks.
func appendPlainText(b []byte, args []uint64, pt *plainText) ([]byte, int) {
	const room = len(decimal.Window{})
	if cap(b)-len(b) < room {
		b = slices.Grow(b, room)
	}
	off := len(b)
	w := (*decimal.Window)(b[off : off+room])
	p, n := 0, 1
	for i, a := range args {
		pc := &pt.pieces[i]
		q := p & plainMask
		d := w[q : q+24 : q+24]
		binary.LittleEndian.PutUint64(d[0:8], pc.w[0])
		binary.LittleEndian.PutUint64(d[8:16], pc.w[1])
		if pc.n > 16 {
			binary.LittleEndian.PutUint64(d[16:24], pc.w[2])
		}
		p += pc.n
		if a < 100 {
			// Most values of a trace: one or two digits, one byte on
			// the wire.
			q := p & plainMask
			binary.LittleEndian.PutUint16(w[q:q+2], decimal.Small[a])
			p++
			if a >= 10 {
				p++
			}
			n++
			continue
		}
		p = decimal.Put(w, p, a)
		n += varint.Len(a)
	}
	w[p&plainMask] = '\n'
	return b[:off+p+1], n
}

// The parser's fast path reads in a window of textWindow bytes (and
// the 24 a piece's words read past an index in it): more than the
// longest line it parses, five 24-byte pieces and five 19-digit numbers.
const (
	textWindow = 256
	textMask   = textWindow - 1
)

// nameSlots maps nameSlot of each plain event type's name to the type,
// for the parser's fast path; EvNone where no name lands. Every name has
// a slot of its own (TestNameSlots); were two to share one, the first
// would keep it and the other take the careful path.
var nameSlots = func() (m [1 << nameSlotBits]EventType) {
	for t := range plainTexts {
		if plainTexts[t].nargs == 0 {
			continue
		}
		name := specs[t].Name
		var b [8]byte
		copy(b[:], name)
		h := nameSlot(binary.LittleEndian.Uint64(b[:]), len(name), name[len(name)-1])
		if m[h] == EvNone {
			m[h] = EventType(t)
		}
	}
	return m
}()

const nameSlotBits = 10

// firstWords maps a hash of the first eight bytes of an event's text to
// the type of plain arguments whose text starts so, sharedFirstWord where
// several do (GoCreate, GoCreateSyscall...) or two hash alike, EvNone
// where none does. Every plain type's text (name and first argument's
// prefix) is eight bytes or more.
var firstWords = func() (m [1 << firstWordBits]EventType) {
	for t := range plainTexts {
		pt := &plainTexts[t]
		if pt.nargs == 0 {
			continue
		}
		if pt.pieces[0].n < 8 {
			panic("gotraceraw: the text of " + specs[t].Name + " is under eight bytes")
		}
		h := pt.pieces[0].w[0] * 0x9e3779b97f4a7c15 >> (64 - firstWordBits)
		if m[h] == EvNone {
			m[h] = EventType(t)
		} else {
			m[h] = sharedFirstWord
		}
	}
	return m
}()

const (
	firstWordBits = 10
	// sharedFirstWord is no event type: plainTexts holds nothing for it.
	sharedFirstWord EventType = 255
)

// nameSlot hashes an event name of n bytes from its first eight bytes (or
// the whole name, zero-padded), n and its last byte: names that share
// their first eight bytes differ in length or last byte.
func nameSlot(w0 uint64, n int, last byte) uint {
	w0 &= ^uint64(0) >> (64 - 8*min(n, 8))
	h := (w0 ^ uint64(n)<<56 ^ uint64(last)<<48) * 0x9e3779b97f4a7c17 // the first odd multiplier from 2^64/φ that separates the names
	return uint(h >> (64 - nameSlotBits))
}

// readPlain parses the line at r.buf[r.pos:] into r.ev when it is the
// text of an event of plain arguments exactly as the writers print it
// (name, each " arg=" and at most 19 digits, and a newline), and reports
// whether it did; otherwise it leaves r as it was. The caller has checked
// that textWindow+32 bytes are in the buffer.
func (r *TextReader) readPlain() bool {
	const (
		ones   = 0x0101010101010101
		zeros  = '0' * ones
		at     = '@' * ones
		high   = 0x80 * ones
		hiNibs = 0xf0 * ones
	)
	le := binary.LittleEndian
	w := (*[textWindow + 32]byte)(r.buf[r.pos : r.pos+textWindow+32])
	// The type: most names tell from their first eight bytes (with
	// the text after them, as printed), and the rest from their length
	// and last byte too. A type's first piece, checked below, makes
	// sure of it.
	w0 := le.Uint64(w[0:8])
	t := firstWords[w0*0x9e3779b97f4a7c15>>(64-firstWordBits)]
	if t == sharedFirstWord {
		// The name: the bytes before the first one below '@' (a
		// space, a newline), found a word at a time. Names are
		// letters.
		n := bits.TrailingZeros64((w0-at)&^w0&high) >> 3
		if n == 8 {
			w1 := le.Uint64(w[8:16])
			n += bits.TrailingZeros64((w1-at)&^w1&high) >> 3
			if n == 16 {
				w2 := le.Uint64(w[16:24])
				n += bits.TrailingZeros64((w2-at)&^w2&high) >> 3
			}
		}
		if n == 0 || n == 24 {
			return false
		}
		t = nameSlots[nameSlot(w0, n, w[(n-1)&textMask])]
	}
	pt := &plainTexts[t]
	if r.tab.plain[t] == 0 || pt.nargs == 0 {
		return false
	}
	args := r.argBuf[:pt.nargs]
	p := 0
	for i := range args {
		// The text before the value, the name with the first: one
		// comparison a word.
		pc := &pt.pieces[i]
		q := p & textMask
		d := w[q : q+24 : q+24]
		// (^ and | bind alike in Go: each difference in parentheses.)
		if (le.Uint64(d[0:8])&pc.m[0]^pc.w[0])|(le.Uint64(d[8:16])&pc.m[1]^pc.w[1])|(le.Uint64(d[16:24])&pc.m[2]^pc.w[2]) != 0 {
			return false
		}
		p += pc.n
		// The value: up to eight digits at once. A byte is a digit
		// when it is 0x30 to 0x39: x's byte holds the digit, with
		// neither its high nibble nor, 6 added, bit 4 set.
		q = p & textMask
		x := le.Uint64(w[q:q+8]) ^ zeros
		notDigit := x&hiNibs | (x+6*ones)&(0x10*ones)
		k := bits.TrailingZeros64(notDigit) >> 3
		if k == 0 {
			return false
		}
		var v uint64
		if k <= 2 {
			// Three values in four: one or two digits.
			v = x & 0xff
			if k == 2 {
				v = v*10 + x>>8&0xff
			}
		} else if k < 8 {
			v = decimal8(x << (64 - 8*k))
		} else {
			v = decimal8(x)
			for j := 8; ; j++ {
				c := w[(p+j)&textMask] - '0'
				if c > 9 {
					k = j
					break
				}
				if j == 19 {
					return false // the careful path knows overflow
				}
				v = v*10 + uint64(c)
			}
		}
		p += k
		args[i] = v
	}
	if w[p&textMask] != '\n' || p > r.maxLineLen() {
		return false
	}
	r.pos += p + 1
	r.line++
	r.ev.Type = t
	r.ev.Args = args
	return true
}

// decimal8 returns the number whose decimal digits are the bytes of x, the
// first (most significant) in the low byte, each 0 to 9.
func decimal8(x uint64) uint64 {
	x = x * (10<<8 + 1) >> 8                                // pairs of digits in the even bytes
	x = (x & 0x00ff00ff00ff00ff) * (100<<16 + 1) >> 16      // fours in the even 16-bit words
	return (x & 0x0000ffff0000ffff) * (10000<<32 + 1) >> 32 // eight in the low 32 bits
}
