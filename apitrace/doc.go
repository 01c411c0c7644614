// Package apitrace reads and writes apitrace's binary trace files (.trace),
// stream versions 0 to 6, in the snappy and gzip containers, in constant
// memory and without allocating per call.
//
// # Levels
//
// A Reader returns the events of the stream: Enter events (thread,
// signature, flags, backtrace, input arguments) and Leave events (call
// number, output arguments, return value). Signatures — functions, enums,
// bitmasks, structs and backtrace frames — are defined by the stream at
// their first use; the Reader owns them and hands out pointers that stay
// valid for its life.
//
// A CallReader pairs the events into calls as apitrace's parser does: a call
// is returned when its leave is read (so calls come in leave order), with
// the arguments of both events merged by index; a leave for a call that is
// not pending is dropped; at the end of the stream the calls still pending
// come back in enter order with Incomplete set, then the error that ended
// the stream. This is the order `apitrace dump` prints.
//
// A Writer writes events back, defining each signature at its first use and
// keeping the caller's ids, in the snappy container (chunks of 1 MiB of
// stream, what apitrace's tracer writes and the most its reader accepts) or
// gzip.
//
// CallReader.Index records where every frame starts (the event after each
// glXSwapBuffers, eglSwapBuffers, ... see FunctionSig.EndsFrame) as
// Positions — chunk file offset plus offset in the decompressed chunk, as
// qapitrace's bookmarks — and CallReader.SeekFrame jumps there without
// parsing from the start. Calls of other threads in flight across a frame
// boundary are not returned after such a jump.
//
// # Text
//
// Dumper (dump.go) prints calls exactly as `apitrace dump` 11.1 does, with
// its options (ParseDumpArgs reads its command line: --calls, --call-nos,
// --arg-names, --thread-ids, --multiline, -v, --grep, --blobs, --color), and
// ReadInfo (info.go) summarises a trace like `apitrace info`, with its known
// mistakes corrected. Their doc comments list the remaining differences.
//
// # Versions and containers
//
// Version 6 (apitrace 8.0 to 13.0) adds the semantic version, header
// properties, the call flags detail (0x05, bit 0 = fake call) and real wide
// strings; 5 adds backtraces; 4 the thread number in enter events; 3 whole
// enum signatures (before, an enum signature is one name/value pair and the
// enum value is that pair's). Versions 1 and 2 differ from 0 in meaning
// only. The container is told from the first bytes as apitrace does: "at"
// is snappy, 1f 8b gzip, 28 b5 2f fd zstd (apitrace master), anything else
// Brotli (which has no magic). Brotli and zstd are refused with ErrContainer
// and a message naming the container and `apitrace repack`, which converts
// to snappy. The snappy block codec is the package
// github.com/tracefmt/tracefmt/apitrace/snappy, our own.
//
// # Where the format document and the real tool disagree
//
// apitrace's docs/FORMAT.markdown (and the seed spec) is out of date; this
// package follows what the tools write and read:
//   - version 6 exists: its header has semantic_version and a property list
//     (name/value strings ended by an empty name) after version_no;
//   - call detail 0x05 (flags) exists; detail 0x03 (thread, "version < 4")
//     is read by no released parser and is an error here too;
//   - struct signatures carry the struct's name before the member count;
//   - bitmask flag values and the bitmask value are bare integers, not typed
//     values;
//   - before version 3 an enum is "id [name sint]" without a trailing value;
//     enum values are typed integers (0x03 or 0x04), anything else is an
//     error;
//   - double is 64-bit double precision (the document says single); floats
//     and doubles are little-endian;
//   - the snappy container is "at" then chunks of a 32-bit little-endian
//     compressed length and one raw snappy block; a zero length ends the
//     file.
//
// # Round trips
//
// Writing the events a Reader returns, in order, reproduces the decompressed
// stream byte for byte for every trace in the test data (every version and
// producer we have) and the header is kept. The container bytes differ:
// snappy output depends on the compressor (ours is deterministic), and gzip
// is written by compress/gzip at its default level, not by zlib at level 9
// as apitrace repack does. Streams no apitrace writes may not come back
// byte for byte, though their events do: integers in non-minimal form,
// "negative zero" (0x03 0x00) in enum signatures, call details in another
// order than enter flags, backtrace, arguments / leave arguments, return,
// frame details out of order or repeated. A truncated trace is written up
// to its last whole event.
//
// # Limits
//
// Every length and count read from the stream is checked against a limit
// (Reader fields; 0 means the default) and against what the input still
// holds before anything is allocated; buffers grow only as bytes arrive:
//
//	MaxStringLen  DefaultMaxStringLen  256 MiB  bytes in a string or blob
//	MaxArrayLen   DefaultMaxArrayLen   2^24     elements of an array or wide string
//	MaxValues     DefaultMaxValues     2^22     value nodes in one event
//	MaxDepth      DefaultMaxDepth      64       nesting of arrays, structs, reprs
//	MaxCount      DefaultMaxCount      65536    signature entries, backtrace frames, argument index
//	MaxChunkSize  DefaultMaxChunkSize  64 MiB   decompressed bytes of one snappy chunk
//	CallReader.MaxPending  DefaultMaxPending  4096  calls entered and not left
//
// Memory is bounded by the largest event (plus the calls in flight for a
// CallReader), not by the trace. apitrace itself checks none of these.
//
// # Ownership
//
// An Event or Call returned by Read points into buffers the reader owns:
// strings and blobs into its decompressed window, composite values into its
// value arena. They are valid until the next call to Read; Clone makes a
// copy to keep. Signatures and frames are owned by the Reader, never change
// once defined, and stay valid until Reset. A Writer does not retain what
// it is given.
//
// # Errors
//
// Bad or cut-short input yields a *FormatError with Offset, the position in
// the decompressed stream, and Chunk, the file offset of the snappy chunk
// header that holds it (-1 for gzip), wrapping a sentinel (ErrEvent,
// ErrDetail, ErrValue, ErrVersion, ErrTooLarge, ErrOverflow, ErrCorrupt,
// ErrContainer) or io.ErrUnexpectedEOF. Errors are sticky. io.EOF is
// returned only at an event boundary after a clean end of the container.
//
// A trace cut short gives every complete event; a CallReader then returns
// the pending calls as incomplete (a call whose leave was cut is dropped,
// as apitrace drops it) and an error wrapping io.ErrUnexpectedEOF. A snappy
// chunk cut short is decoded as far as its complete elements go, and a gzip
// stream without its trailer (apitrace-tests' zlib-no-eof.trace) gives all
// it holds. Unlike apitrace, which takes one to three bytes left where a
// chunk length belongs for a clean end of file, the Reader reports them as
// io.ErrUnexpectedEOF. The Writer refuses what it cannot encode with
// ErrWrite.
//
// # Performance
//
// Measured 2026-11-21 on the project machine (2 cores shared with other
// jobs, amd64, go1.26.8), on glxgears-20s.trace (6.0 MB snappy, 17.3 MB of
// stream, 778,015 calls, 35,303 frames), by bench/apitrace/compare.sh:
// reading every call with CallReader and counting frames, as a whole
// process, against `apitrace info` (Debian's apitrace 11.1, which parses
// every call too) on the same file, interleaved run by run, median of 11:
//
//	                 ours      apitrace info   ratio
//	wall             0.080 s   0.150 s         1.88x   (0.120 s / 0.200 s = 1.67x under heavier load)
//	user+sys CPU     0.080 s   0.140 s         1.75x
//
// The whole-process dump of the same trace with examples/apitracedump is
// 3.1x faster in wall time and 3.7x in CPU time than `apitrace dump
// --color=never`, with identical output (bench/apitrace/dump-compare.sh,
// median of 11 rounds at load ~5).
//
// In process (BenchmarkCallReader, compressed input in memory) that is
// about 100 to 130 ns per call, 0 allocations per call: TestAllocs proves
// the steady state allocation-free with testing.AllocsPerRun over
// interleaved threads, blobs across chunks, backtraces and every value kind,
// and TestAllocsReal over a real trace. A signature costs a few
// allocations once, however many names it has. BenchmarkWriter rewrites
// the same trace at about 200 MB/s of stream (snappy compression included).
//
// The snappy decoder, pure Go, against github.com/golang/snappy v1.0.0
// (assembly on amd64), side by side on the same real blocks in one locked
// thread, timed by the thread's CPU time so that the machine's load falls
// on neither (bench/apitrace BenchmarkDecodeSideBySide, -benchtime 100x,
// medians of 7 runs, 2026-11-21):
//
//	blocks                       ours        golang/snappy   ratio
//	glxgears-20s (17 chunks)     2235 MB/s   2403 MB/s       0.93x
//	glxinfo-brief (1 chunk)      1113 MB/s   1172 MB/s       0.94x
//	tri_glsl (1 chunk)           1531 MB/s   1610 MB/s       0.96x
//
// Runs move by a few hundredths (0.92–0.95x, 0.93–1.01x, 0.95–0.97x), the
// MB/s columns by up to 30% with the machine's load. The small traces'
// blocks hold mostly short elements of varying lengths: the decoder's fast
// loop makes no calls and moves 16 or 64 bytes per element rather than
// branch on the length, which brought them from 0.73–0.79x to the above:
// the 0.8x goal is met on all three. Our encoder matches golang/snappy's
// compression (0.349 of the input on glxgears-20s) at about a quarter to
// half its speed.
package apitrace
