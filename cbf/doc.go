// Package cbf reads and writes Swift's Compact Backtrace Format (CBF) and
// Compact Image Map Format, byte for byte as Swift's runtime encodes them.
//
// A CBF record is an info byte (version 0, word size 16, 32 or 64 bits)
// followed by instructions: pc, ra and async frames whose address operand
// is 1 to 8 big-endian bytes, sign-extended, absolute or relative to the
// previous address; omit (frames left out), rep (the previous frame
// repeated) and end or trunc. Swift's profiling buffers write records
// back to back; a Reader reads such a stream one record at a time (Next,
// then Frame for each frame without allocating, or Read for the whole
// record), and a Writer writes one.
//
// # Frames
//
// A Frame is a PC, RA or Async address, an Omitted count, a Repeat count
// or Truncated, which Swift's decoder yields for trunc and is always the
// last frame of its record. Repeats are kept by default: a rep
// instruction reads as one Repeat frame whose Count is the number of extra
// copies, so a million-fold repeat costs nothing to read and
// Write(Read(x)) reproduces x. Reader.Expand yields every copy instead, as
// Swift's decoder does. The Writer takes either form: like Swift's
// encoder it turns runs of equal frames into rep instructions, and it adds
// Repeat frames to the run.
//
// FromUintptrs and AppendUintptrs take runtime.Callers output (return
// addresses, so RA frames); Addrs and Uintptrs give addresses back, with
// repeats expanded, for runtime.CallersFrames or a symbolizer.
//
// # What Swift writes, and where its documentation differs
//
// The Writer follows Swift's encoder (swiftlang/swift,
// stdlib/public/RuntimeModule/CompactBacktrace.swift), not its document
// (docs/CompactBacktraceFormat.md, which this package's seed copy is an
// older revision of):
//
//   - Operands have the fewest bytes whose sign extension gives the value
//     back, and a frame is absolute only when that is strictly shorter
//     than the delta. The first frame, relative to 0, is therefore always
//     relative, though the document says it must be absolute; the
//     decoder never checked, and neither does this Reader.
//   - rep (1000xccc), absent from the older document: 1 to 8 copies in
//     the instruction, more in 1 to 8 count bytes. Swift's newest tests
//     say its encoder never writes more than 1,048,576 copies in one rep
//     (MaxRepeatRun; the code is not in the sources read, so the split
//     into several reps is unverified) and its decoder turns a larger
//     count into trunc (DefaultMaxRepeat).
//   - omit counts up to 31 go in the instruction, 32 and more in count
//     bytes (60 20 for 32, though 5f could hold it).
//   - trunc is not followed by end. A record without end or trunc is
//     truncated data for Swift's decoder, though the document calls end
//     optional when the length is known.
//   - Reserved instructions are errors, not extensions.
//   - An older revision of the codec (in its author's fork) wrote neither
//     rep nor end, and no count bytes for omit 32 and up; its records read
//     as truncated data, and its large omits are not recoverable.
//
// Round trips are byte-exact for everything Swift writes. Hand-made data
// decodes but re-encodes canonically: an absolute first frame or padded
// operands become minimal, 5f becomes 60 20, two rep instructions in a
// row become one, omit 0 (which Swift's encoder cannot write) is refused.
//
// # Image maps
//
// AppendImageMap and ImageMapDecoder follow CompactImageMap.swift: the
// info byte, a platform string, a 7-bit-group image count, then per image
// a header byte, base (absolute on a tie, unlike CBF) and end-of-text
// offset as sign-extended operands of up to 8 bytes (Swift works on
// addresses sign-extended to 64 bits, so 32-bit maps can have 5-byte
// operands), a build ID and a prefix-compressed path. Quirks kept, as
// Swift's encoder has them: counts whose bit length is a multiple of 7 get
// a redundant leading 80 (64 is 80 40, not the documented 40); the
// longest known prefix is taken again and again, so /usr/lib/libz.1.dylib
// is 81 80 09 "z.1.dylib" 00, not the documented 81 0d "/libz.1.dylib"
// 00; a framework path ends without 00, which the document's example
// shows. Decoding takes both forms, and the shallow framework form of
// newer Swift (version byte 1: /<name>.framework/<name>).
//
// Two deviations, both where Swift's output would not decode: a prefix
// code of 320 or more is written with all the bytes it needs (Swift's
// encoder computes the byte count as bitlen/8 and writes too few), and a
// framework name of more than 64 bytes is written as a plain string
// (Swift's instruction byte would overflow into another opcode). Images
// without a build ID write 00; an empty build ID is the same as none
// (Swift's encoder crashes on one). Decoded addresses are cut to the word
// size; Swift's decoder leaves the sign-extension bits of a 16- or 32-bit
// map in its UInt64s.
//
// ImageMap.Lookup finds the image whose text holds an address by binary
// search; it needs the images in increasing order of base, as Swift
// writes them.
//
// Backtrace is the JSON form of Swift's Codable Backtrace: architecture,
// base64 CBF, optional base64 image map.
//
// # Limits
//
// Reader.MaxFrames (DefaultMaxFrames, about two million) bounds the frames
// Read collects into one record, Reader.MaxRepeat (DefaultMaxRepeat =
// 1,048,577, Swift's) one rep count. ImageMapDecoder checks the image
// count (DefaultMaxImages = 1,048,576, Swift's), build ID length
// (DefaultMaxBuildID = 1024, Swift's) and decoded path length
// (DefaultMaxPath = 4096; prefix expansion could otherwise make a short
// input decode to very long paths) before allocating, and the image count
// also against the bytes left (5 bytes an image at least). With Expand,
// one 5-byte rep yields up to MaxRepeat frames, as in Swift; lower
// MaxRepeat to bound what hostile input can make a caller iterate over. The Reader's
// buffer is 64 KiB; frames grow as bytes arrive.
//
// # Ownership
//
// Record.Frames points into the Reader's buffer and is valid until the
// next call to Read or Next; Record.Clone makes a copy to keep. Frame
// values are plain values. A decoded ImageMap owns its memory (build IDs
// are copied out of the input). Writers own nothing of what they are
// given.
//
// # Errors
//
// Swift's decoder never reports an error: it ends the frames, usually with
// a truncated frame. The Reader reports a *FormatError with the offset of
// the offending byte: ErrVersion and ErrWordSize for a bad info byte,
// ErrOpcode for a reserved instruction, io.ErrUnexpectedEOF for data that
// ends inside a record (offset = where it ended), ErrNoFrame for a rep
// with nothing before it, ErrOperand for an address operand longer than
// the word, ErrOverflow for a count beyond 63 bits, ErrCount for a rep
// count of 0, ErrTooLarge past a limit. Errors are sticky. An io.Reader's
// own error is returned as it is.
//
// Reader.Lenient yields what Swift's decoder yields instead: the frames so
// far and a Truncated frame for every error inside a record; long
// operands lose their high bytes, counts wrap as Swift's Int does, a rep
// count of 0 repeats once. The next Next then reports the error (the next
// record's start is unknown), or io.EOF when the data simply ran out. Bad
// info bytes are errors in both modes (Swift yields no frames). With
// Lenient and Expand together, the first record's frames are exactly
// Swift's Decoder's.
//
// ImageMapDecoder reports the same way; with Lenient, a path that does not
// decode (unknown prefix code, invalid UTF-8, cut short) leaves its image
// without a path and decoding goes on, as in Swift's newest decoder. An
// image map whose end of text is not above its base (ErrRange), an
// invalid UTF-8 platform (ErrUTF8) or a limit exceeded fail in both modes,
// as they do in Swift.
//
// Writers refuse what Swift's encoder cannot write: ErrAddr for an address
// wider than the word, ErrCount for omit 0, ErrOverflow for counts beyond
// 63 bits, ErrNoFrame for a Repeat first, ErrKind, and ErrState for a frame
// after Truncated or outside Begin/End.
//
// # Performance
//
// Measured 2026-11-21 on the project machine (2 cores, go1.26.8, amd64,
// GOAMD64=v1), whose speed drifts by up to 2x within minutes; so every
// figure compares builds alternated process by process. Inputs: 1 MiB of
// concatenated records made at run time from runtime.Callers of real Go
// stacks (recursions, sort, encoding/json and fmt callbacks, goroutines;
// 2.58 bytes a frame, 31 frames a record) and from the real x86-64
// backtraces of testdata/sp-rtrace (4.12 bytes a frame, 6 frames a
// record). GB/s of CBF bytes read or written; "bench" is the median of
// three go test -bench runs, "best" the fastest tenth of 300-400 passes
// over the corpus in one process, median of three or four processes (it
// shows the code with the least interference):
//
//	                    Go stacks           sp-rtrace          before (bench)
//	                    bench    best       bench    best      Go      sp
//	Reader.Read         1.43     1.65       1.37     1.69      0.94    0.96
//	Reader.Next+Frame   0.67     0.79       0.84     0.99      0.63    0.73
//	Writer.Write        0.79     0.87       1.12     1.19      0.56    0.56
//	AppendAddrs         0.53     0.65       0.62     0.75      0.56    0.74
//
// None allocates per frame or per record (TestAllocs). What made the
// difference:
//
//   - Read decodes a whole record in one loop (addrWords) when it is
//     address frames up to end inside the buffer, without the state Next
//     and Frame keep; other records continue from where the loop stopped.
//   - The loop branches on the operand length and adds a constant to the
//     position: the next instruction's position comes from a predicted
//     branch instead of waiting for this instruction byte's load, which
//     had chained every frame to the one before (about 7 cycles a frame).
//     One arithmetic shift of an 8-byte big-endian load sign-extends the
//     operand.
//   - The decode and encode loops are generic over the word type, so each
//     word size gets its own copy with the mask and operand limit as
//     constants: every value of the loop stays in a register.
//   - Writer.Write encodes a record of address frames that differ from the
//     one before straight into its buffer, in one loop (putFrames) that
//     stores an 8-byte word per operand; the encoder's state is set up
//     only when a record needs more (repeats, omits, trunc).
//
// Next+Frame returns one frame a call and keeps the state between calls;
// decoding ahead into a small array in the Reader measured 8% faster on Go
// stacks and 15% slower on the short sp-rtrace records, so it was left out.
// AppendAddrs hands the addresses to the Writer's loop as frames, 16 at a
// time, through a zeroed array on the stack, which costs the short records
// most.
//
// Size, each backtrace a record of ra frames with its info and end bytes,
// against 8-byte words (TestRealBacktraces, TestBytesPerFrame):
//
//	Go stacks (runtime.Callers, non-PIE)    2.56 bytes/frame  0.32
//	sp-rtrace alloc-v1.0 (non-PIE C)        3.87 bytes/frame  0.48
//	sp-rtrace cxx (C++)                     4.15 bytes/frame  0.52
//	sp-rtrace nots-b3 (non-PIE, depth 3)    4.18 bytes/frame  0.52
//	sp-rtrace multi (PIE calling libc)      5.56 bytes/frame  0.70
//
// The PIE program pays 6-byte deltas for every jump between its 0x55…
// text and libc's 0x7f… text.
package cbf
