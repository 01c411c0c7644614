// Package zstd decodes and encodes Zstandard (RFC 8878), the container
// apitrace master writes with `apitrace repack -z`, and its seekable format
// (the zstd project's contrib/seekable_format), where frames decode on
// their own. It is written from the specifications, in Go only.
//
// A Reader is a streaming io.Reader over one or more frames: every block
// type, raw, RLE and Huffman literals (one or four streams, and repeated
// tables), sequences with predefined, RLE, FSE and repeated tables, and
// repeat offsets. Skippable frames are skipped, so a seekable file also
// reads as a plain stream. Content checksums (XXH64) are verified when a
// frame has one. Frames that need a dictionary are refused with
// ErrDictionary.
//
// A Seekable reads a seekable file through an io.ReaderAt: OpenSeekable
// reads the seek table at the end of the file (whose last 4 bytes are
// SeekableMagic); Frames lists where each frame lies in the file and in
// the content, FrameAt finds the frame holding a content offset, ReadFrame
// decodes one frame, and ReadAt reads any range of the content.
//
// An Encoder compresses a frame at a level from 1 to 22 (3 by default, as
// the zstd command and apitrace): levels 1-2 find matches with one hash
// table, 3-4 with two (8-byte and short prefixes), 5-11 with hash chains
// and lazy evaluation, 12-22 with hash chains and an optimal parser that
// prices each path by the statistics of the block before. Literals are
// Huffman-coded and sequences FSE-coded, each block choosing new,
// predefined, RLE or repeated tables by their cost; blocks that would not
// shrink are stored raw or as a run. A SeekableWriter writes the seekable
// format as apitrace master does: frames of 2 MiB of content, no
// checksums, the seek table last. At level 3 its files are within 1% of
// master's (libzstd 1.5.4) on apitrace's traces; at 19 and 22 up to 7%
// larger; any zstd decoder reads them.
//
// # Limits
//
// Reader.MaxWindow (default DefaultMaxWindow, 128 MiB: the zstd command's
// own limit, which reads `zstd --long` and `zstd --ultra -22`) bounds the
// window a frame may ask for; for a single-segment frame the window is its
// content size. A larger window is ErrTooLarge, found in the frame header
// before anything is allocated. Buffers then grow with the output actually
// produced, up to the window plus the larger of the window and 8 MiB, plus
// a block; the input buffer grows only once it is full of bytes actually
// read. The output buffer grows at most fourfold at a time, by steps that
// end on its largest size, so the buffers it outgrew add a third of that
// until the garbage collector frees them: decoding a frame allocates at
// most about 2.7 times its window, and a process holds that much at its
// peak (a 128 MiB window: 341 MiB allocated, 353 MB of peak RSS, measured
// 2026-11-26; it was 512 MiB and 528 MB while the buffer grew by
// doubling). Blocks are bounded by the format: 128 KiB,
// and no more output than the window when it is smaller. A Seekable
// decodes one frame at a time into a cache of that frame's size, and
// refuses a seek table that lists a frame over its window limit.
//
// An Encoder's hash tables take at most 2 MiB, sized down for small
// frames, and the optimal parser of levels 12-22 up to 6 MiB more; a
// SeekableWriter also buffers one frame of content and one compressed
// frame.
//
// # Errors
//
// Bad input is a *FormatError giving the offset in the compressed input of
// the frame, block or seek table entry at fault, wrapping ErrHeader,
// ErrTooLarge, ErrDictionary, ErrChecksum, ErrTable (an FSE or Huffman
// table that is not valid), ErrCorrupt, ErrSeekTable, or
// io.ErrUnexpectedEOF when the input is cut short. Errors are sticky: a
// Reader keeps returning the first one until Reset. An Encoder or
// SeekableWriter refuses a level or frame size out of range with
// ErrInvalid; a SeekableWriter keeps returning its first error (its
// writer's, or a refusal), and ErrClosed after Close.
//
// # Ownership and reuse
//
// Reset reuses every buffer: reading stream after stream through one Reader
// allocates nothing once its buffers have grown. NewReader and Reset read
// up to the first frame header. A zero Reader, Seekable or SeekableWriter
// returns ErrNotOpen until Reset; a zero Encoder compresses at level 3.
// None is safe for concurrent use.
//
// # Differences from the zstd command
//
// Match offsets must lie within both the window and the frame's output so
// far (as github.com/klauspost/compress/zstd checks); the seek table's
// frames must end before the seek table, and its checksums are verified.
package zstd
