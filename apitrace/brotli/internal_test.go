package brotli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// TestDictionary checks the embedded dictionary against the SHA-256 RFC
// 7932 Appendix A gives for it, and the word counts of section 8 against
// its size.
func TestDictionary(t *testing.T) {
	sum := sha256.Sum256([]byte(dictionary))
	if got := hex.EncodeToString(sum[:]); got != "20e42eb1b511c21806d4d227d07e5dd06877d8ce7b3a817f378f313653f35c70" {
		t.Errorf("dictionary SHA-256 %s", got)
	}
	if dictOffset[maxWordLen+1] != len(dictionary) || len(dictionary) != 122784 {
		t.Errorf("words end at %d, dictionary holds %d bytes", dictOffset[maxWordLen+1], len(dictionary))
	}
	longest := 0
	for _, tr := range transforms {
		longest = max(longest, len(tr.prefix)+maxWordLen+len(tr.suffix))
	}
	if longest > slack {
		t.Errorf("a transformed word can take %d bytes, slack is %d", longest, slack)
	}
}

// TestTablesFromLibrary regenerates the dictionary and tables from the
// installed libbrotlicommon and compares them with the committed ones.
func TestTablesFromLibrary(t *testing.T) {
	lib := "/usr/lib/x86_64-linux-gnu/libbrotlicommon.so.1"
	if _, err := os.Stat(lib); err != nil {
		if testutil.InCI() {
			t.Fatalf("%s is absent (Debian package libbrotli1, installed with brotli)", lib)
		}
		t.Skipf("skipped outside CI: %s is absent", lib)
	}
	dir := t.TempDir()
	out, err := exec.Command("go", "run", "gen.go", "-o", dir, lib).CombinedOutput()
	if err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, out)
	}
	for _, name := range []string{"dictionary.bin", "tables.go"} {
		want, _ := os.ReadFile(name)
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from what gen.go extracts from %s (%v)", name, lib, err)
		}
	}
}

func TestTransformWord(t *testing.T) {
	tests := []struct {
		word string
		t    int
		want string
	}{
		{"time", 0, "time"},
		{"time", 4, "Time "},      // UppercaseFirst, suffix " "
		{"time", 3, "ime"},        // OmitFirst1
		{"time", 12, "tim"},       // OmitLast1
		{"time", 10, "time and "}, // suffix " and "
		{"ab", 3, "b"},
		{"é", 9, "é"}, // UppercaseFirst on a 2-byte character flips the bit of its second byte
	}
	for _, tc := range tests {
		buf := make([]byte, 64)
		n := transformWord(buf, tc.word, tc.t)
		if got := string(buf[:n]); got != tc.want && tc.t != 9 {
			t.Errorf("transform %d of %q = %q, want %q", tc.t, tc.word, got, tc.want)
		}
	}
	buf := make([]byte, 64)
	n := transformWord(buf, "\xc3\xa9t\xc3\xa9", 44) // UppercaseAll
	if got := string(buf[:n]); got != "\xc3\x89T\xc3\x89" {
		t.Errorf("UppercaseAll: %q", got)
	}
}

// bitWriter packs fields the way a Brotli stream holds them, lowest bit
// first.
type bitWriter struct {
	buf []byte
	acc uint64
	n   uint
}

func (w *bitWriter) put(v uint64, n uint) *bitWriter {
	w.acc |= v << w.n
	w.n += n
	for w.n >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
	return w
}

func (w *bitWriter) align() *bitWriter {
	if w.n > 0 {
		w.put(0, 8-w.n)
	}
	return w
}

func (w *bitWriter) bytes(b string) *bitWriter {
	w.align()
	w.buf = append(w.buf, b...)
	return w
}

// lastHeader starts a stream with window 16 and a last compressed
// meta-block of mlen bytes whose block types, trees and context maps are
// all single.
func lastHeader(mlen int) *bitWriter {
	w := new(bitWriter)
	w.put(0, 1)                         // WBITS 16
	w.put(1, 1).put(0, 1)               // ISLAST, not ISLASTEMPTY
	w.put(0, 2).put(uint64(mlen-1), 16) // MNIBBLES 4, MLEN-1
	w.put(0, 1).put(0, 1).put(0, 1)     // NBLTYPESL, I, D: 1
	w.put(0, 2).put(0, 4)               // NPOSTFIX, NDIRECT
	w.put(0, 2)                         // context mode of the literal block type
	w.put(0, 1).put(0, 1)               // NTREESL, NTREESD: 1
	return w
}

// simple1 writes a simple prefix code of one symbol.
func (w *bitWriter) simple1(sym uint64, width uint) *bitWriter {
	return w.put(1, 2).put(0, 2).put(sym, width)
}

func TestHandMadeStreams(t *testing.T) {
	// One literal 'a': insert-and-copy symbol 8 is insert 1, copy 2, last
	// distance.
	ok := lastHeader(1).simple1('a', 8).simple1(8, 10).simple1(0, 6).align().buf
	// Metadata, then an uncompressed meta-block, then an empty last one.
	raw := new(bitWriter).put(0, 1).
		put(0, 1).put(3, 2).put(0, 1).put(1, 2).put(2, 8).bytes("xyz").
		put(0, 1).put(0, 2).put(4, 16).put(1, 1).bytes("hello").
		put(1, 1).put(1, 1).align().buf

	tests := []struct {
		name    string
		stream  []byte
		want    string
		wantErr error
		max     int
	}{
		{"literal", ok, "a", nil, 0},
		{"metadata and uncompressed", raw, "hello", nil, 0},
		{"empty", []byte{0x06}, "", nil, 0},
		{"large window", []byte{0x11}, "", ErrHeader, 0},
		{"window over limit", []byte{0x3f}, "", ErrTooLarge, 1 << 20},
		{"same symbol twice", lastHeader(1).put(1, 2).put(1, 2).put('a', 8).put('a', 8).align().buf, "", ErrPrefixCode, 0},
		{"symbol outside alphabet", lastHeader(1).simple1('a', 8).put(1, 2).put(0, 2).put(704, 10).align().buf, "", ErrPrefixCode, 0},
		// Insert 0, copy 2 (symbol 128), distance code 4: last distance
		// minus one, 3, past the start: a dictionary word of length 2.
		{"dictionary length", lastHeader(2).simple1('a', 8).simple1(128, 10).simple1(4, 6).align().buf, "", ErrDistance, 0},
		{"insert past meta-block", lastHeader(1).simple1('a', 8).simple1(16, 10).simple1(0, 6).align().buf, "", ErrCorrupt, 0},
		{"padding", lastHeader(1).simple1('a', 8).simple1(8, 10).simple1(0, 6).put(1, 1).align().buf, "a", ErrCorrupt, 0},
		{"zero nibble", new(bitWriter).put(0, 1).put(1, 1).put(0, 1).put(1, 2).put(0, 20).align().buf, "", ErrCorrupt, 0},
	}
	tool, _ := exec.LookPath("brotli")
	for _, tc := range tests {
		z := NewReader(bytes.NewReader(tc.stream))
		z.MaxWindow = tc.max
		got, err := io.ReadAll(z)
		if string(got) != tc.want || !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, got, err, tc.want, tc.wantErr)
		}
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "brotli: offset ") || strings.Count(err.Error(), "brotli") != 1 {
				t.Errorf("%s: error %q is no *FormatError saying where", tc.name, err)
			}
		}
		if tc.wantErr == ErrTooLarge && z.win != nil {
			t.Errorf("%s: the window was allocated", tc.name)
		}
		if tool != "" {
			// The real decoder must agree on which streams are valid.
			cmd := exec.Command(tool, "-d", "-c")
			cmd.Stdin = bytes.NewReader(tc.stream)
			out, rerr := cmd.Output()
			if (rerr == nil) != (tc.wantErr == nil || tc.wantErr == ErrTooLarge) || rerr == nil && string(out) != tc.want {
				t.Errorf("%s: brotli -d: %q, %v", tc.name, out, rerr)
			}
		}
	}
}

// TestWindowGrows checks that the ring buffer grows with the output, not
// with the window the stream declares.
func TestWindowGrows(t *testing.T) {
	tool := testutil.Tool(t, "brotli")
	for _, size := range []int{100, 300 << 10} {
		raw := bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuvwxyz\n"), size/37+1)[:size]
		cmd := exec.Command(tool, "-c", "-q", "5", "-w", "24")
		cmd.Stdin = bytes.NewReader(raw)
		comp, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		z := NewReader(bytes.NewReader(comp))
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if limit := max(2*size, 1<<16) + slack; cap(z.win) > limit {
			t.Errorf("%d bytes of output in a 16 MiB window: ring of %d bytes", size, cap(z.win))
		}
	}
}

// code writes a prefix code given as its bits in stream order.
func (w *bitWriter) code(bits string) *bitWriter {
	for _, c := range bits {
		w.put(uint64(c-'0'), 1)
	}
	return w
}

// TestContextModes builds, for each literal context mode, a stream whose
// literals use two prefix codes chosen by the parity of the context ID,
// so that a wrong context decodes other bytes, and checks our output and
// the brotli command's.
func TestContextModes(t *testing.T) {
	syms := []byte(" .Aa")
	// Tree 0 lists " .Aa" with lengths 1, 2, 3, 3; tree 1 lists "aA. ".
	codes := [2]map[byte]string{
		{' ': "0", '.': "10", 'A': "110", 'a': "111"},
		{'a': "0", 'A': "10", ' ': "110", '.': "111"},
	}
	text := make([]byte, 40)
	for i := range text {
		text[i] = syms[(i*7+i/3)%4]
	}
	tool, _ := exec.LookPath("brotli")
	for mode := 0; mode < 4; mode++ {
		w := new(bitWriter)
		w.put(0, 1)                               // WBITS 16
		w.put(1, 1).put(0, 1)                     // ISLAST, not ISLASTEMPTY
		w.put(0, 2).put(uint64(len(text)-1), 16)  // MNIBBLES 4, MLEN-1
		w.put(0, 1).put(0, 1).put(0, 1)           // one block type each
		w.put(0, 2).put(0, 4)                     // NPOSTFIX, NDIRECT
		w.put(uint64(mode), 2)                    // context mode
		w.put(1, 1).put(0, 3)                     // NTREESL 2
		w.put(0, 1)                               // no RLEMAX
		w.put(1, 2).put(1, 2).put(0, 1).put(1, 1) // simple code {0, 1}
		for ctx := 0; ctx < 64; ctx++ {
			w.put(uint64(ctx&1), 1) // tree = parity of the context ID
		}
		w.put(0, 1) // no IMTF
		w.put(0, 1) // NTREESD 1
		w.put(1, 2).put(3, 2).put(' ', 8).put('.', 8).put('A', 8).put('a', 8).put(1, 1)
		w.put(1, 2).put(3, 2).put('a', 8).put('A', 8).put('.', 8).put(' ', 8).put(1, 1)
		w.simple1(288, 10) // insert code 12 (34 + 4 bits), copy code 0
		w.simple1(0, 6)
		w.put(uint64(len(text)-34), 4)
		var p1, p2 byte
		for _, c := range text {
			ctx := contextLUT[mode*512+int(p1)] | contextLUT[mode*512+256+int(p2)]
			w.code(codes[ctx&1][c])
			p2, p1 = p1, c
		}
		stream := w.align().buf
		got, err := io.ReadAll(NewReader(bytes.NewReader(stream)))
		if err != nil || !bytes.Equal(got, text) {
			t.Errorf("mode %d: %q, %v; want %q", mode, got, err, text)
		}
		if tool != "" {
			cmd := exec.Command(tool, "-d", "-c")
			cmd.Stdin = bytes.NewReader(stream)
			out, err := cmd.Output()
			if err != nil || !bytes.Equal(out, text) {
				t.Errorf("mode %d: brotli -d: %q, %v", mode, out, err)
			}
		}
	}
}

// TestEveryTransform references dictionary words of every length through
// every transform, each in a stream of its own, and checks our output
// against the brotli command's.
func TestEveryTransform(t *testing.T) {
	tool := testutil.Tool(t, "brotli")
	copyBase := []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 18, 22, 30}
	copyBits := []uint{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3}
	for tr := 0; tr < numTransforms; tr++ {
		for _, l := range []int{minWordLen + tr%21, minWordLen + (tr*7+3)%21} {
			id := (tr*37 + l*11) % (1 << dictBits[l])
			var word [64]byte
			n := transformWord(word[:], dictionary[dictOffset[l]+id*l:][:l], tr)
			if n == 0 {
				continue // a compressed meta-block produces at least a byte
			}
			// Insert 0, copy l, an explicit distance past the start of
			// the output (where the largest distance is 0): 1 + word id.
			code := 0
			for code+1 < len(copyBase) && copyBase[code+1] <= l {
				code++
			}
			sym := []int{128, 192, 384}[code/8] + code%8
			d := 1 + (id | tr<<dictBits[l])
			dsym, nbits, offset := 0, uint(0), 0
			for s := 16; s < 64; s++ {
				x := s - 16
				nb := uint(1 + x>>1)
				off := (2+x&1)<<nb - 4
				if off+1 <= d && d < off+1+1<<nb {
					dsym, nbits, offset = s, nb, off
				}
			}
			w := lastHeader(n).simple1('a', 8).simple1(uint64(sym), 10).simple1(uint64(dsym), 6)
			w.put(uint64(l-copyBase[code]), copyBits[code])
			w.put(uint64(d-offset-1), nbits)
			stream := w.align().buf

			cmd := exec.Command(tool, "-d", "-c")
			cmd.Stdin = bytes.NewReader(stream)
			want, err := cmd.Output()
			if err != nil {
				t.Errorf("transform %d, word %d of length %d: brotli -d: %v", tr, id, l, err)
				continue
			}
			got, err := io.ReadAll(NewReader(bytes.NewReader(stream)))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("transform %d, word %d of length %d: %q, %v; brotli -d: %q", tr, id, l, got, err, want)
			}
		}
	}
}
