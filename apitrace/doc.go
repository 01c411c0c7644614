// Package apitrace reads and writes apitrace's binary trace files (.trace),
// stream versions 0 to 6, in constant memory and without allocating per
// call. It reads the four containers apitrace knows (snappy, gzip, Brotli,
// zstd) and writes snappy and gzip.
//
// Traces come from apitrace's tracers (apitrace 1.0 to 13.0; Debian's 11.1
// made the test traces). The text forms are those of the real tool:
// Dumper prints calls byte for byte as `apitrace dump` 13.0 and master do,
// or as 11.1 (Debian 12's) does where they differ (DumpOptions.Compat),
// with its options (ParseDumpArgs reads its command line), and ReadInfo
// summarises a trace as `apitrace info` 11.1, 13.0 and master do, with
// their known mistakes corrected (see Info).
//
// # Reading
//
// A Reader returns the events of the stream: Enter events (thread,
// signature, flags, backtrace, input arguments) and Leave events (call
// number, output arguments, return value). Signatures — functions, enums,
// bitmasks, structs and backtrace frames — are defined by the stream at
// their first use.
//
// A CallReader pairs the events into calls as apitrace does: a call is
// returned when its leave is read (so calls come in leave order, the order
// `apitrace dump` prints), with the arguments of both events merged by
// index; a leave for a call that is not pending is dropped; at the end of
// the stream the calls still pending come back in enter order with
// Incomplete set, then the error that ended the stream.
//
// CallReader.Index records where every frame starts, and SeekFrame jumps
// there without parsing from the start (snappy and seekable zstd traces).
//
// # Writing
//
// A Writer writes events; a CallWriter writes whole calls as a CallReader
// returns them, so that reading calls, keeping some and writing them gives
// a trace that `apitrace dump` prints as exactly the calls kept. Both keep
// what the stream derives consistent: calls are numbered densely in the
// order written, a leave event is written with its enter's new number (a
// leave whose enter was not written is dropped, as apitrace would drop
// it), and every signature is defined in full the first time the new
// stream uses it; a different signature under an id already written (from
// another trace, or built by hand) gets a free id, so that calls of several
// traces can be merged; so does one whose id is above MaxWriteID, since
// apitrace keeps a table entry for every id up to the largest. Output is
// snappy (chunks of 1 MiB of stream, as apitrace's tracer writes) or gzip.
//
// The writers refuse, with an error wrapping ErrInvalid that names the
// rule, what apitrace 11.1 would crash on, warn about or print otherwise
// than written, and what the Reader would refuse with its default limits:
//   - an argument index beyond the signature's argument names (apitrace
//     dump crashes);
//   - a wide string code unit that is not a uint from 1 to 2^32-1
//     (apitrace keeps 32 bits and ends the string at 0);
//   - nesting deeper than DefaultMaxDepth, more than DefaultMaxValues
//     values in an event, or more than the other Default limits allow;
//   - what apitrace asserts on: a glGetError() whose return value is not
//     an integer, bool, float or null (or is an unsigned one above
//     2^63-1), a struct named GUID with four members that are not three
//     unsigned integers and an array of eight;
//   - an anonymous struct member (empty name) holding anything but a
//     struct, which apitrace dump does not print; a bitmask signature
//     whose zero flag is not first, which apitrace warns about;
//   - a thread number above 2^32-1, a frame line above 2^31-1, a frame
//     offset above 2^63-1 (apitrace's C types), unknown frame details;
//   - a header property whose name is empty or starts with NUL (it ends
//     apitrace's list), or two names equal up to their first NUL;
//   - what the format cannot hold: a value without its signature, a struct
//     with the wrong number of values, a repr without two, float bits
//     above 32, an enum value its version 0-2 signature does not hold, a
//     thread in a stream before version 4, a call entered twice before its
//     leave.
//
// A refused event leaves the writer as it was: nothing of it reaches the
// output, and Close still finishes the trace with every event accepted
// before it (a CallWriter accepts or refuses a call whole). The refusal
// sticks: Write, Flush and Close return it. Check applies the same rules
// without writing, for a caller that would rather skip what is refused.
// Strings may hold NUL bytes; apitrace dump prints them up to the first,
// as Dumper does.
//
// Writing the events a Reader returns, in order, reproduces the
// decompressed stream byte for byte for every trace apitrace writes, and
// keeps the header. The container bytes differ: our snappy compressor is
// not google's, and gzip is written at Go's default level, not zlib's
// level 9. Streams no apitrace writes may not come back byte for byte,
// though their events do: integers in non-minimal form, call details in
// another order than apitrace's, repeated frame details.
//
// # Versions and containers
//
// Version 6 (apitrace 8.0 to 13.0) adds the semantic version, header
// properties, the call flags detail (bit 0 = fake call) and real wide
// strings; 5 adds backtraces; 4 the thread number in enter events; 3 whole
// enum signatures (before, an enum signature is one name/value pair). The
// container is told from the first bytes as apitrace does: "at" is snappy,
// 1f 8b gzip, 28 b5 2f fd zstd (apitrace master), anything else Brotli
// (which has no magic; a file that is not Brotli either fails with
// ErrContainer, which is an ErrHeader: not a trace). Brotli is what
// `apitrace repack --brotli` writes (apitrace 11.1 reads it); zstd is apitrace master's, in the seekable format: frames
// of at most 2 MiB of stream and a seek table at the end of the file, found
// when the input is an io.ReaderAt and io.Seeker (an *os.File); then
// Position, Seek and CallReader.Index work as on snappy, a seek decoding
// from the frame that holds the position. Through any other input a
// seekable file reads as a plain zstd stream. A trace whose file is zstd
// without a seek table, Brotli or gzip reads from start to end only.
//
// apitrace's format document is out of date; this package follows what
// the tools write and read: version 6's header (semantic version, then
// name/value properties ended by an empty name); call detail 0x05 (flags);
// struct signatures with the struct's name before the member count;
// bitmask values as bare integers; enum values as typed integers; doubles
// in 64 bits, little-endian; the snappy container as "at" then chunks of a
// 32-bit little-endian compressed length and one raw snappy block, a zero
// length ending the file. Call detail 0x03 (a thread number), which no
// released parser reads, is an error here too.
//
// # Limits
//
// Every length and count read from the stream is checked against a limit
// (Reader fields; 0 means the default) and against what the input still
// holds before anything is allocated; buffers grow only as bytes arrive:
//
//	MaxDataLen    DefaultMaxDataLen    256 MiB  bytes in one string or blob
//	MaxArrayLen   DefaultMaxArrayLen   2^24     elements of an array or wide string
//	MaxValues     DefaultMaxValues     2^22     value nodes in one event
//	MaxDepth      DefaultMaxDepth      64       nesting of arrays, structs, reprs
//	MaxEntries    DefaultMaxEntries    65536    names in a signature, header properties, argument index
//	MaxFrames     DefaultMaxFrames     65536    frames in one backtrace
//	MaxChunkSize  DefaultMaxChunkSize  64 MiB   decompressed bytes of one snappy chunk or zstd frame
//	CallReader.MaxPending  DefaultMaxPending  4096  calls entered and not left
//
// Memory is bounded by the largest event (plus the calls in flight for a
// CallReader), not by the trace. apitrace itself checks none of these.
//
// # Ownership
//
// Read returns a pointer to an Event or Call the reader owns: it and every
// slice in it (strings and blobs point into the decompressed stream,
// composite values into a value arena) are valid until the next Read or
// Reset; Clone makes a copy to keep. Signatures and frames are owned by the
// Reader, never change once defined, and stay valid until Reset. Writers
// keep the signatures they were given (to check ids), and nothing else:
// a signature must not change once written.
//
// A zero Reader, CallReader, Writer or CallWriter is usable after Reset;
// before that every method returns ErrNotOpen.
//
// # Errors
//
// Bad or cut-short input yields a *FormatError with Offset, the position in
// the decompressed stream, and Chunk, the file offset of the snappy chunk
// header or seekable zstd frame that holds it (-1 for the other
// containers), wrapping a sentinel or io.ErrUnexpectedEOF; it prints
// "apitrace: offset N: ...". A Brotli or zstd stream that does not decode
// gives a FormatError wrapping the decoder's own *FormatError, whose Offset
// is the position in the file (zstd.ErrSeekTable for a seek table that
// points past the file, for example). Errors are
// sticky. io.EOF is returned only at an event boundary after a clean end
// of the container.
//
// A trace cut short gives every complete event; a CallReader then returns
// the pending calls as incomplete (a call whose leave was cut is dropped,
// as apitrace drops it) and an error wrapping io.ErrUnexpectedEOF. A snappy
// chunk cut short is decoded as far as its complete elements go, and a gzip
// stream without its trailer gives all it holds. Unlike apitrace, which
// takes one to three bytes left where a chunk length belongs for a clean
// end of file, the Reader reports them as io.ErrUnexpectedEOF.
//
// The codecs are packages of their own, pure Go:
// github.com/tracefmt/tracefmt/apitrace/snappy (both ways), and the
// decoders apitrace/brotli and apitrace/zstd.
package apitrace
