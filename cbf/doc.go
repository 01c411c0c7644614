// Package cbf reads and writes Swift's Compact Backtrace Format (CBF) and
// Compact Image Map Format, byte for byte as Swift's runtime encodes them.
//
// A CBF record is one backtrace: an info byte (version 0, word size 16,
// 32 or 64 bits), then instructions: pc, ra and async frames, whose
// address is 1 to 8 big-endian bytes, sign-extended, absolute or relative
// to the address before; omit (frames left out while capturing); rep (the
// frame before, repeated); and end or trunc. Swift's profiling buffers
// write records back to back: a Reader reads such a stream one record at
// a time, a Writer writes one. Backtrace is the JSON form of Swift's
// Codable Backtrace (architecture, base64 CBF, optional base64 image map).
//
// The rules are those of Swift's encoder and decoder in the runtime's
// Backtracing module, not of its older format document, where they differ
// (see Record). No Swift toolchain ran the tests: the test vectors come from
// Swift's own tests and from its encoder's rules worked out by hand.
//
// # Frames
//
// A Frame is a PC, RA or Async address, an Omitted count, a Repeat count,
// or Truncated, which ends a backtrace that was cut short (Swift's decoder
// yields it for trunc and for data it cannot decode). A rep instruction
// reads as one Repeat frame whose Count is the number of extra copies, so
// a million-fold repeat costs nothing and Write(Read(x)) reproduces x;
// Reader.Expand yields every copy instead, as Swift's decoder does.
//
// FromUintptrs and AppendUintptrs take runtime.Callers output (return
// addresses, so RA frames); Addrs and Uintptrs give the addresses back,
// repeats expanded, for runtime.CallersFrames or a symbolizer. Frame's
// String and ParseFrame are the text form cbfdump prints: "pc 0x401379",
// "ra 0x7f…", "omit 12", "rep 3", "trunc".
//
// # Writing
//
// A Writer (and Append, AppendAddrs) writes the bytes Swift's encoder
// writes, deriving every rep count and operand itself, so a filter may
// drop, add or change frames freely; what Swift's decoder would not read
// back as given, or a Reader would not collect whole, is refused with an
// error wrapping ErrInvalid, which drops that record only (see Writer).
//
// Round trips are byte-exact for everything Swift writes. Hand-made data
// decodes but re-encodes canonically: an absolute first frame or padded
// operands become minimal, 5f becomes 60 20, two reps in a row become one;
// omit 0 is refused.
//
// # Image maps
//
// AppendImageMap (or an ImageMapEncoder, which also writes for the Swift
// decoders older than swiftlang/swift#92334) and ImageMapDecoder write and
// read the image map as Swift does, its quirks included (see
// ImageMapEncoder and ImageMapDecoder).
//
// ImageMap.Lookup finds the image holding an address; it needs the images
// in increasing order of base, as Swift writes them.
//
// Profile counts backtraces into a pprof profile, with an image map as its
// mappings.
//
// # Strict
//
// By default the Reader decodes what Swift's decoder decodes: an error
// inside a record ends it with a Truncated frame; an operand longer than
// the word loses its high bytes, counts wrap as Swift's Int does, a rep
// count of 0 repeats once. As the next record's start is then unknown, the
// next Read or Next reports the error (wrapping io.ErrUnexpectedEOF when
// the data ran out), so io.EOF still comes only between records. With
// Expand too, a record's frames are exactly those of Swift's decoder.
// Reader.Strict reports every such error at once, without the Truncated
// frame. A bad info byte is an error in both modes (Swift yields no
// frames for it).
//
// # Limits
//
// Reader.MaxFrames (DefaultMaxFrames, about two million) bounds the frames
// of one backtrace that Read collects; Reader.MaxRepeat (DefaultMaxRepeat,
// Swift's) bounds one rep count. With Expand one 5-byte rep yields up to
// MaxRepeat frames, as in Swift: lower it to bound what hostile input can
// make a caller iterate over. The Reader's buffer is 64 KiB; frames grow
// as bytes arrive. ImageMapDecoder checks the image count
// (DefaultMaxImages, Swift's), a build ID's length (DefaultMaxBuildID,
// Swift's) and a decoded path's length (DefaultMaxPath; prefix expansion
// could otherwise make a short input decode to very long paths) before
// allocating, and the image count also against the bytes left.
//
// # Ownership
//
// The Record that Read returns, and its Frames, belong to the Reader and
// are valid until the next call to Read, Next or Reset; Record.Clone makes
// a copy to keep. Frame values are plain values. A decoded ImageMap owns
// its memory. Writers keep nothing of what they are given.
//
// # Errors
//
// Damaged input is a *FormatError with the stream offset of the offending
// byte, wrapping a sentinel (each says what it means) or
// io.ErrUnexpectedEOF for data that ends inside a record; a bad first byte
// of a stream is ErrHeader, which NewReader and Reset report, as that byte
// is all that tells CBF data from other bytes. An
// io.Reader's own error is returned as it is. Errors are sticky. A zero
// Reader or Writer is usable after Reset; before that every method
// returns ErrNotOpen. After Writer.Close, every call but Close returns
// ErrClosed.
//
// # Performance
//
// Reading and writing make no allocation per record or frame. Read decodes
// runtime.Callers backtraces at over 1 GB/s and Write encodes them at
// about 0.7 to 1.1 GB/s on the project machine; PERFORMANCE.md at the root
// of the repository has the figures and how to reproduce them. On real
// 64-bit backtraces CBF takes 2.6 to 5.6 bytes a frame, 0.32 to 0.70 of
// raw 8-byte words.
package cbf
