package brotli

import (
	_ "embed"
)

// dictionary is RFC 7932 Appendix A's static dictionary; see README.md
// for where the bytes come from.
//
//go:embed dictionary.bin
var dictionary string

const (
	minWordLen    = 4
	maxWordLen    = 24
	numTransforms = 121
)

// dictBits is, for each word length, log2 of the number of words of that
// length (RFC 7932 section 8); dictOffset is where they start.
var (
	dictBits   = [maxWordLen + 1]uint{4: 10, 10, 11, 11, 10, 10, 10, 10, 10, 9, 9, 8, 7, 7, 8, 7, 7, 6, 6, 5, 5}
	dictOffset = func() (o [maxWordLen + 2]int) {
		for l := minWordLen; l <= maxWordLen; l++ {
			o[l+1] = o[l] + l<<dictBits[l]
		}
		return o
	}()
)

// transform is one of RFC 7932 Appendix B's word transforms: kind 0 is
// the identity, 1 to 9 omit that many last bytes, 10 upper-cases the first
// character, 11 all of them, 12 to 20 omit 1 to 9 first bytes.
type transform struct {
	prefix string
	kind   uint8
	suffix string
}

// transformWord writes transform t of word to dst and returns its length.
func transformWord(dst []byte, word string, t int) int {
	tr := &transforms[t]
	n := copy(dst, tr.prefix)
	switch k := int(tr.kind); {
	case k >= 1 && k <= 9:
		word = word[:max(len(word)-k, 0)]
	case k >= 12:
		word = word[min(k-11, len(word)):]
	}
	w := dst[n : n+copy(dst[n:], word)]
	n += len(w)
	switch tr.kind {
	case 10:
		if len(w) > 0 {
			upper(w, 0)
		}
	case 11:
		for i := 0; i < len(w); {
			i += upper(w, i)
		}
	}
	return n + copy(dst[n:], tr.suffix)
}

// upper upper-cases the character at w[i] the way RFC 7932 does (ASCII
// letters, and a bit flip in the later bytes of longer UTF-8 sequences)
// and returns the length of that character.
func upper(w []byte, i int) int {
	c := w[i]
	switch {
	case c < 0xc0:
		if c >= 'a' && c <= 'z' {
			w[i] ^= 0x20
		}
		return 1
	case c < 0xe0:
		if i+1 < len(w) {
			w[i+1] ^= 0x20
		}
		return 2
	default:
		if i+2 < len(w) {
			w[i+2] ^= 0x05
		}
		return 3
	}
}
