package cbf

import (
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/tracefmt/tracefmt/bitfield"
)

// AppendImageMap appends m in the Compact Image Map Format to dst, as the
// zero ImageMapEncoder does: with the bytes the newest Swift's encoder
// writes.
func AppendImageMap(dst []byte, m ImageMap) ([]byte, error) {
	return ImageMapEncoder{}.Append(dst, m)
}

// ImageMapEncoder writes image maps. The zero value writes the bytes the
// newest Swift writes (its main branch since September 2026).
//
// Swift's decoders differ in one thing, the framework form's version byte
// 1: Swift 6.2 and the releases after it that were branched before
// swiftlang/swift#92334 (merged 2026-09-16) read it as an ordinary
// version, /<name>.framework/Versions/\x01/<name>, and so read an iOS-style
// shallow framework path written in that form as a wrong path, silently;
// Swift with #92334 reads it as /<name>.framework/<name>. Both read the
// plain form of every path the same.
type ImageMapEncoder struct {
	// NoShallowFrameworks writes shallow framework paths (the
	// /<name>.framework/<name> of iOS, tvOS, watchOS and visionOS) as
	// plain strings, as Swift before #92334 does, so that every Swift
	// decoder reads them back. It costs about the name's length again
	// and the .framework/ text per such path.
	NoShallowFrameworks bool
}

// Append appends m in the Compact Image Map Format to dst, with the bytes
// Swift's encoder writes: bases absolute unless the delta from the
// previous base is strictly shorter (a tie goes absolute, unlike CBF),
// counts in 7-bit groups with Swift's redundant leading 0x80 when a
// count's bit length is a multiple of 7, and each path as the longest
// known prefix again and again, then the framework form (macOS's
// /<name>.framework/Versions/<v>/<name>, or with version byte 1 the
// shallow /<name>.framework/<name>) or 63-byte strings that define new
// prefixes at each slash.
//
// Three deviations, each where Swift's own output would not decode as
// it was meant: a prefix code of 320 or more is written with all the
// bytes it needs (Swift writes too few), a framework name over 64 bytes
// is written as a plain string (Swift's instruction byte would overflow),
// and so is a macOS framework path whose version is the byte 1 (which
// would read back as the shallow form).
//
// It refuses, with an error wrapping ErrInvalid, a map Swift's decoder
// would not read back the same: an invalid word size, an address wider
// than the word, an end of text not above its base, a platform or path
// that is not UTF-8, a platform over 255 bytes, more than
// DefaultMaxImages images, a build ID over DefaultMaxBuildID bytes or a
// path over DefaultMaxPath bytes.
func (e ImageMapEncoder) Append(dst []byte, m ImageMap) ([]byte, error) {
	if !m.Word.Valid() {
		return dst, invalidWord
	}
	if len(m.Platform) > 255 || len(m.Images) > DefaultMaxImages {
		return dst, invalidLong
	}
	if !utf8.ValidString(m.Platform) {
		return dst, invalidUTF8
	}
	info, _ := infoLayout.Pack(0, m.Word.code())
	dst = append(dst, byte(info), byte(len(m.Platform)))
	dst = append(dst, m.Platform...)
	dst = appendCount(dst, uint64(len(m.Images)))

	mask, wbits := m.Word.mask(), int(m.Word)
	pe := pathEncoder{shallow: !e.NoShallowFrameworks}
	var last uint64
	for i := range m.Images {
		im := &m.Images[i]
		if im.Base > mask || im.EndOfText > mask {
			return dst, invalidAddr
		}
		if im.EndOfText <= im.Base {
			return dst, invalidRange
		}
		if len(im.BuildID) > DefaultMaxBuildID || len(im.Path) > DefaultMaxPath {
			return dst, invalidLong
		}
		if !utf8.ValidString(im.Path) {
			return dst, invalidUTF8
		}
		// Swift works on addresses sign-extended to 64 bits.
		base := uint64(bitfield.SignExtend(im.Base, wbits))
		end := uint64(bitfield.SignExtend(im.EndOfText, wbits))
		delta, off := base-last, end-base
		last = base
		nAbs, nRel := bitfield.SignedLen(int64(base)), bitfield.SignedLen(int64(delta))
		nEnd := bitfield.SignedLen(int64(off))
		v, n, rel := base, nAbs, uint64(0)
		if nRel < nAbs {
			v, n, rel = delta, nRel, 1
		}
		hdr, _ := imageLayout.Pack(rel, 0, uint64(n-1), uint64(nEnd-1))
		dst = bitfield.AppendBigEndian(append(dst, byte(hdr)), v, n)
		dst = bitfield.AppendBigEndian(dst, off, nEnd)
		dst = appendCount(dst, uint64(len(im.BuildID)))
		dst = append(dst, im.BuildID...)
		dst = pe.append(dst, im.Path, im.Name())
	}
	return dst, nil
}

// appendCount appends v in 7-bit groups, most significant first, starting
// as Swift does at group bitlen/7: a count whose bit length is a multiple
// of 7 gets a leading 0x80 (64 is 80 40).
func appendCount(dst []byte, v uint64) []byte {
	for shift := 7 * (bits.Len64(v) / 7); shift > 0; shift -= 7 {
		dst = append(dst, 0x80|byte(v>>uint(shift))&0x7f)
	}
	return append(dst, byte(v)&0x7f)
}

// pathEncoder holds the prefix table of one image map being written.
type pathEncoder struct {
	dynamic []string // codes from 32 on, in the order defined
	shallow bool     // write /<name>.framework/<name> in the framework form
}

// longest finds the longest prefix of s in the table, the first one on a
// tie, fixed codes before dynamic ones.
func (pe *pathEncoder) longest(s string) (code, n int) {
	code = -1
	for c, p := range fixedPrefixes {
		if len(p) > n && strings.HasPrefix(s, p) {
			code, n = c, len(p)
		}
	}
	for i, p := range pe.dynamic {
		if len(p) > n && strings.HasPrefix(s, p) {
			code, n = firstDynamicCode+i, len(p)
		}
	}
	return code, n
}

func (pe *pathEncoder) append(dst []byte, path, name string) []byte {
	rest := path
	for rest != "" {
		code, n := pe.longest(rest)
		if code < 0 {
			break
		}
		rest = rest[n:]
		if code < 64 {
			op, _ := pathLayout.Pack(pathExpand, uint64(code))
			dst = append(dst, byte(op))
			continue
		}
		v := uint64(code - 64)
		nb := bitfield.UnsignedLen(v)
		op, _ := pathLayout.Pack(pathExpExt, uint64(nb-1))
		dst = bitfield.AppendBigEndian(append(dst, byte(op)), v, nb)
	}
	if rest == "" {
		return append(dst, 0)
	}
	// What is left may be a framework: /<name>.framework/, then
	// Versions/<v>/<name> (v not 1, which stands for the shallow form) or,
	// the shallow form, <name> alone. Like Swift, only with the image's
	// own name, and with no closing 00.
	if nl := len(name); nl > 0 && nl <= 64 && len(rest) >= 12+2*nl &&
		rest[0] == '/' && rest[1:1+nl] == name && rest[1+nl:12+nl] == ".framework/" &&
		strings.HasSuffix(rest, name) {
		var version byte
		ok := false
		switch mid := rest[12+nl : len(rest)-nl]; {
		case len(mid) == 11 && mid[:9] == "Versions/" && mid[9] != shallowFramework && mid[10] == '/':
			version, ok = mid[9], true
		case mid == "" && pe.shallow:
			version, ok = shallowFramework, true
		}
		if ok {
			op, _ := pathLayout.Pack(pathFwk, uint64(nl-1))
			dst = append(dst, byte(op), version)
			return append(dst, name...)
		}
	}
	for i := 1; i < len(rest); i++ {
		if rest[i] == '/' || rest[i] == '\\' {
			pe.dynamic = append(pe.dynamic, rest[:i])
		}
	}
	for rest != "" {
		n := min(len(rest), 63)
		dst = append(dst, byte(n))
		dst = append(dst, rest[:n]...)
		rest = rest[n:]
	}
	return append(dst, 0)
}
