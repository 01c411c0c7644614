package cbf

import (
	"io"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tracefmt/tracefmt/bitfield"
)

// Limits of ImageMapDecoder when its fields are 0.
const (
	// DefaultMaxImages is Swift's limit on the image count.
	DefaultMaxImages = 1 << 20
	// DefaultMaxBuildID is Swift's limit on a build ID's length.
	DefaultMaxBuildID = 1024
	// DefaultMaxPath bounds a decoded path (Linux's PATH_MAX); prefix
	// expansion could otherwise make a short input decode to huge paths.
	DefaultMaxPath = 4096
)

// ImageMap is the list of binary images a backtrace's addresses fall in:
// the Compact Image Map Format's content.
type ImageMap struct {
	// Platform names the system, such as "linux" or "macosx"; at most
	// 255 bytes of UTF-8.
	Platform string
	Word     WordSize
	// Images are in increasing order of Base, as Swift writes them;
	// Lookup relies on it.
	Images []Image
}

// Image is one binary image: where its text lies, its build ID and path.
type Image struct {
	Base      uint64
	EndOfText uint64 // first address after the image's text
	BuildID   []byte // nil when the image has none
	Path      string // "" when the image has no path
}

// Name is the last element of the path, after its last slash or
// backslash, as Swift names images.
func (im Image) Name() string {
	return im.Path[strings.LastIndexAny(im.Path, `/\`)+1:]
}

// Lookup returns the index of the image whose text holds addr.
func (m *ImageMap) Lookup(addr uint64) (int, bool) {
	if m == nil {
		return -1, false
	}
	i := sort.Search(len(m.Images), func(i int) bool { return m.Images[i].Base > addr }) - 1
	if i >= 0 && addr < m.Images[i].EndOfText {
		return i, true
	}
	return -1, false
}

// fixedPrefixes are the path prefixes codes 0-11 stand for; 12-31 are
// reserved, and codes from 32 on are defined by the paths themselves.
var fixedPrefixes = [...]string{
	`/lib`, `/usr/lib`, `/usr/local/lib`, `/opt/lib`,
	`/System/Library/Frameworks`, `/System/Library/PrivateFrameworks`,
	`/System/iOSSupport`, `/Library/Frameworks`, `/System/Applications`, `/Applications`,
	`C:\Windows\System32`, `C:\Program Files`,
}

const firstDynamicCode = 32

// shallowFramework is the framework version byte that newer Swift reads
// as /<name>.framework/<name>.
const shallowFramework = 1

// Path instructions: the top two bits of a path byte.
const (
	pathStr    = 0 // 00cccccc: c bytes follow (c = 0 is end)
	pathFwk    = 1 // 01cccccc: version byte, c+1 name bytes
	pathExpand = 2 // 10cccccc: prefix c
	pathExpExt = 3 // 11cccccc: c+1 bytes of code-64
)

// ImageMapDecoder decodes the Compact Image Map Format. The zero value
// uses the default limits and decodes what Swift's decoder decodes.
//
// AppendImageMap and ImageMapDecoder read and write the image map as
// Swift does: info byte, platform, image count, then per image its base
// (absolute on a tie, unlike CBF), end of text, build ID and a
// prefix-compressed path. Swift's quirks are kept on writing and accepted
// on reading: a count whose bit length is a multiple of 7 gets a leading
// 80 (64 is 80 40); the longest known prefix is taken again and again;
// a framework path has no closing 00. iOS-style shallow framework paths
// (/<name>.framework/<name>) are written in the framework form with
// version byte 1, as Swift writes them since swiftlang/swift#92334, and
// read back (see ImageMapEncoder for the decoders before it). Three
// deviations, each where Swift's own output would not decode as meant: a
// prefix code of 320 or more is written with all the bytes it needs, and a
// framework name over 64 bytes or a macOS framework version that is the
// byte 1 is written as a plain path.
// An empty build ID is written as none (Swift's encoder crashes on one).
// Decoded addresses are cut to the word size; Swift leaves the sign
// extension of 16- and 32-bit maps in its 64-bit values.
//
// ImageMapDecoder, by default, leaves an image whose path does not decode
// (unknown prefix code, invalid UTF-8, cut short) without a path and goes
// on, as Swift's newest decoder does; with Strict that is an error. An end
// of text not above its base, an invalid UTF-8 platform or a limit fail
// in both modes, as in Swift.
type ImageMapDecoder struct {
	// Strict reports a path that cannot be decoded (an unknown prefix
	// code, invalid UTF-8, data cut short in the last image) as an error.
	// By default, as in Swift's decoder, it leaves that image without a
	// path and decoding goes on.
	Strict bool
	// MaxImages, MaxBuildID and MaxPath bound the image count, a build
	// ID's length and a decoded path's length; 0 means DefaultMaxImages,
	// DefaultMaxBuildID and DefaultMaxPath. Nothing is allocated from a
	// count before it is checked against its limit and against the bytes
	// left.
	MaxImages  int
	MaxBuildID int
	MaxPath    int
}

// DecodeImageMap decodes an image map as the zero ImageMapDecoder does.
// Bytes after the map are ignored, as Swift ignores them.
func DecodeImageMap(b []byte) (ImageMap, error) {
	m, _, err := ImageMapDecoder{}.Decode(b)
	return m, err
}

// imageDecoder is the state of one Decode.
type imageDecoder struct {
	ImageMapDecoder
	b       []byte
	pos     int
	word    WordSize
	dynamic []string // prefixes from code 32 on
	scratch []byte
	pending []pendingPrefix
}

// pendingPrefix is a prefix defined inside the path being decoded, a range
// of scratch until the path is done.
type pendingPrefix struct {
	code       int
	start, end int
}

// Decode decodes the image map at the start of b and returns it with the
// number of bytes it took. The map owns its memory.
func (d ImageMapDecoder) Decode(b []byte) (ImageMap, int, error) {
	z := imageDecoder{ImageMapDecoder: d, b: b}
	if z.MaxImages <= 0 {
		z.MaxImages = DefaultMaxImages
	}
	if z.MaxBuildID <= 0 {
		z.MaxBuildID = DefaultMaxBuildID
	}
	if z.MaxPath <= 0 {
		z.MaxPath = DefaultMaxPath
	}
	m, err := z.decode()
	if err != nil {
		return ImageMap{}, z.pos, err
	}
	return m, z.pos, nil
}

func (z *imageDecoder) errAt(off int, err error) error {
	return &FormatError{Offset: int64(off), Err: err}
}

func (z *imageDecoder) short() error {
	z.pos = len(z.b)
	return z.errAt(len(z.b), io.ErrUnexpectedEOF)
}

func (z *imageDecoder) decode() (ImageMap, error) {
	var m ImageMap
	if len(z.b) == 0 {
		return m, z.short()
	}
	info := uint64(z.b[0])
	if infoVersion.Get(info) != 0 {
		return m, z.errAt(0, ErrVersion)
	}
	switch infoSize.Get(info) {
	case 0:
		m.Word = Word16
	case 1:
		m.Word = Word32
	case 2:
		m.Word = Word64
	default:
		return m, z.errAt(0, ErrWordSize)
	}
	z.word, z.pos = m.Word, 1
	if z.pos >= len(z.b) {
		return m, z.short()
	}
	n := int(z.b[z.pos])
	if len(z.b)-z.pos-1 < n {
		return m, z.short()
	}
	platform := z.b[z.pos+1 : z.pos+1+n]
	if !utf8.Valid(platform) {
		return m, z.errAt(z.pos+1, ErrUTF8)
	}
	m.Platform = string(platform)
	z.pos += 1 + n

	countOff := z.pos
	count, err := z.count()
	if err != nil {
		return m, err
	}
	if count > uint64(z.MaxImages) {
		return m, z.errAt(countOff, ErrTooLarge)
	}
	// Each image takes at least 5 bytes: header, base, end, build ID
	// length, path.
	if count > uint64(len(z.b)-z.pos)/5 {
		return m, z.short()
	}
	if count > 0 {
		m.Images = make([]Image, 0, count)
	}
	mask := m.Word.mask()
	var last uint64
	var ids []byte
	for range count {
		if z.pos >= len(z.b) {
			return m, z.short()
		}
		hdrOff := z.pos
		hdr := uint64(z.b[z.pos])
		z.pos++
		v, err := z.operand(int(imageBase.Get(hdr)) + 1)
		if err != nil {
			return m, err
		}
		base := v
		if imageRel.Get(hdr) != 0 {
			base += last
		}
		last = base
		off, err := z.operand(int(imageEnd.Get(hdr)) + 1)
		if err != nil {
			return m, err
		}
		im := Image{Base: base & mask, EndOfText: (base + off) & mask}
		if im.EndOfText <= im.Base {
			return m, z.errAt(hdrOff, ErrRange)
		}
		idOff := z.pos
		n, err := z.count()
		if err != nil {
			return m, err
		}
		if n > uint64(z.MaxBuildID) {
			return m, z.errAt(idOff, ErrTooLarge)
		}
		if n > uint64(len(z.b)-z.pos) {
			return m, z.short()
		}
		if n > 0 {
			start := len(ids)
			ids = append(ids, z.b[z.pos:z.pos+int(n)]...)
			im.BuildID = ids[start:len(ids):len(ids)]
			z.pos += int(n)
		}
		if im.Path, err = z.path(); err != nil && z.Strict {
			return m, err
		}
		m.Images = append(m.Images, im)
	}
	return m, nil
}

// count reads a count in 7-bit groups, most significant first. Swift's
// encoder sometimes writes a redundant leading 0x80; it is accepted.
func (z *imageDecoder) count() (uint64, error) {
	start := z.pos
	var v uint64
	for {
		if z.pos >= len(z.b) {
			return 0, z.short()
		}
		c := z.b[z.pos]
		z.pos++
		if v > math.MaxUint64>>7 {
			return 0, z.errAt(start, ErrOverflow)
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, nil
		}
	}
}

// operand reads an n-byte sign-extended big-endian operand. Swift's
// encoder works on addresses sign-extended to 64 bits, so any word size
// may have up to 8 bytes.
func (z *imageDecoder) operand(n int) (uint64, error) {
	if len(z.b)-z.pos < n {
		return 0, z.short()
	}
	v := uint64(bitfield.BigEndianSigned(z.b[z.pos : z.pos+n]))
	z.pos += n
	return v, nil
}

// path decodes one prefix-compressed path. On an error it returns "" and
// leaves pos after what it consumed, where Swift's decoder carries on.
func (z *imageDecoder) path() (string, error) {
	if z.pos >= len(z.b) {
		return "", z.short()
	}
	if z.b[z.pos] == 0 {
		z.pos++
		return "", nil
	}
	z.scratch, z.pending = z.scratch[:0], z.pending[:0]
	stringBase := -1
	err := z.pathOps(&stringBase)
	// Prefixes defined in this path stay defined even when it fails, as
	// in Swift; they share the memory of the path string.
	s := string(z.scratch)
	for _, p := range z.pending {
		z.dynamic[p.code-firstDynamicCode] = s[p.start:p.end]
	}
	if err != nil {
		return "", err
	}
	if !utf8.ValidString(s) {
		return "", z.errAt(z.pos-1, ErrUTF8)
	}
	return s, nil
}

func (z *imageDecoder) pathOps(stringBase *int) error {
	for {
		if z.pos >= len(z.b) {
			return z.short()
		}
		opOff := z.pos
		op := uint64(z.b[z.pos])
		z.pos++
		arg := int(pathArg.Get(op))
		switch pathOp.Get(op) {
		case pathStr:
			if arg == 0 {
				return nil
			}
			if len(z.b)-z.pos < arg {
				return z.short()
			}
			if *stringBase < 0 {
				*stringBase = len(z.scratch)
			}
			if len(z.scratch)+arg > z.MaxPath {
				return z.errAt(opOff, ErrTooLarge)
			}
			for _, c := range z.b[z.pos : z.pos+arg] {
				if (c == '/' || c == '\\') && len(z.scratch) > *stringBase {
					code := firstDynamicCode + len(z.dynamic)
					z.dynamic = append(z.dynamic, "")
					z.pending = append(z.pending, pendingPrefix{code, *stringBase, len(z.scratch)})
				}
				z.scratch = append(z.scratch, c)
			}
			z.pos += arg
		case pathFwk:
			n := arg + 1
			if len(z.b)-z.pos < 1+n {
				return z.short()
			}
			ver, name := z.b[z.pos], z.b[z.pos+1:z.pos+1+n]
			z.pos += 1 + n
			if len(z.scratch)+2*n+23 > z.MaxPath {
				return z.errAt(opOff, ErrTooLarge)
			}
			z.scratch = append(z.scratch, '/')
			z.scratch = append(z.scratch, name...)
			if ver == shallowFramework {
				// Newer Swift: a shallow bundle, /<name>.framework/<name>.
				z.scratch = append(z.scratch, ".framework/"...)
			} else {
				z.scratch = append(z.scratch, ".framework/Versions/"...)
				z.scratch = append(z.scratch, ver, '/')
			}
			z.scratch = append(z.scratch, name...)
			return nil
		default:
			code := arg
			if pathOp.Get(op) == pathExpExt {
				n := arg + 1
				if len(z.b)-z.pos < n {
					return z.short()
				}
				b := z.b[z.pos : z.pos+n]
				z.pos += n
				for len(b) > 8 && b[0] == 0 {
					b = b[1:]
				}
				v := bitfield.BigEndian(b)
				if len(b) > 8 || v > math.MaxInt32 {
					return z.errAt(opOff, ErrPath)
				}
				code = int(v) + 64
			}
			if err := z.expand(code, opOff); err != nil {
				return err
			}
		}
	}
}

// expand appends prefix code to the path.
func (z *imageDecoder) expand(code, off int) error {
	var p string
	switch {
	case code < len(fixedPrefixes):
		p = fixedPrefixes[code]
	case code >= firstDynamicCode && code-firstDynamicCode < len(z.dynamic):
		p = z.dynamic[code-firstDynamicCode]
		for _, pp := range z.pending {
			if pp.code == code { // defined earlier in this very path
				p = string(z.scratch[pp.start:pp.end])
			}
		}
	default:
		return z.errAt(off, ErrPath)
	}
	if len(z.scratch)+len(p) > z.MaxPath {
		return z.errAt(off, ErrTooLarge)
	}
	z.scratch = append(z.scratch, p...)
	return nil
}
