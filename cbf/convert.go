package cbf

// NativeWord is the word size of uintptr on this machine.
const NativeWord = WordSize(32 << (^uintptr(0) >> 63))

// FromAddrs appends one frame of kind k for each address to dst.
func FromAddrs(dst []Frame, k Kind, addrs []uint64) []Frame {
	for _, a := range addrs {
		dst = append(dst, Frame{Kind: k, Addr: a})
	}
	return dst
}

// FromUintptrs appends one frame of kind k for each pc to dst. The
// program counters runtime.Callers returns are return addresses (RA),
// as are those of every frame but the first in Swift's own backtraces.
func FromUintptrs(dst []Frame, k Kind, pcs []uintptr) []Frame {
	for _, pc := range pcs {
		dst = append(dst, Frame{Kind: k, Addr: uint64(pc)})
	}
	return dst
}

// Addrs appends the address of every PC, RA and Async frame to dst,
// repeating an address as often as a Repeat frame says. Omitted and
// Truncated frames have no address and are skipped; a Repeat of one of
// them adds nothing.
func Addrs(dst []uint64, frames []Frame) []uint64 {
	var prev Frame
	for _, f := range frames {
		switch {
		case f.Kind.HasAddr():
			dst = append(dst, f.Addr)
		case f.Kind == Repeat && prev.Kind.HasAddr():
			for range f.Count {
				dst = append(dst, prev.Addr)
			}
		}
		if f.Kind != Repeat {
			prev = f
		}
	}
	return dst
}

// Uintptrs is Addrs for uintptr, as runtime.CallersFrames takes them.
// Addresses wider than uintptr are truncated.
func Uintptrs(dst []uintptr, frames []Frame) []uintptr {
	var prev Frame
	for _, f := range frames {
		switch {
		case f.Kind.HasAddr():
			dst = append(dst, uintptr(f.Addr))
		case f.Kind == Repeat && prev.Kind.HasAddr():
			for range f.Count {
				dst = append(dst, uintptr(prev.Addr))
			}
		}
		if f.Kind != Repeat {
			prev = f
		}
	}
	return dst
}

// AppendAddrs appends one record of word size w holding a frame of kind k
// for each address, encoded as Swift encodes it, without allocating.
func AppendAddrs(dst []byte, w WordSize, k Kind, addrs []uint64) ([]byte, error) {
	return appendChunks(dst, w, k, addrs)
}

// AppendUintptrs is AppendAddrs for the output of runtime.Callers: RA
// frames in the native word size.
func AppendUintptrs(dst []byte, pcs []uintptr) ([]byte, error) {
	return appendChunks(dst, NativeWord, RA, pcs)
}

// appendChunks encodes a record of address frames through frames on the
// stack, 16 at a time, and the Writer's loop.
func appendChunks[T uint64 | uintptr](dst []byte, w WordSize, k Kind, addrs []T) ([]byte, error) {
	var e encoder
	dst, err := e.begin(dst, w)
	var chunk [16]Frame
	for i := 0; err == nil && i < len(addrs); i += len(chunk) {
		fs := chunk[:min(len(chunk), len(addrs)-i)]
		for j := range fs {
			fs[j] = Frame{Kind: k, Addr: uint64(addrs[i+j])}
		}
		dst, err = e.frames(dst, fs)
	}
	if err != nil {
		return dst, err
	}
	return e.end(dst)
}
