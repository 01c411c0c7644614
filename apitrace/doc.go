// Package apitrace reads and writes apitrace's binary trace files (.trace),
// stream versions 0 to 6, in constant memory and without allocating per
// call. It reads the four containers apitrace knows (snappy, gzip, Brotli,
// zstd) and writes snappy, gzip and seekable zstd.
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
// Arguments and return values are Values of 24 bytes, read through
// methods (Kind, Bits, Bytes, Elems, Enum...) and built by the functions
// named after their kinds (Int, String, Enum, Array, Struct...), so that an
// event holding millions of them, such as an array of 2^22 integers,
// costs about what apitrace spends on it.
//
// Reader.Strict also refuses what no tracer writes though apitrace reads
// it (integers not in their shortest form, a frame detail given twice).
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
// rule, what apitrace would crash on, warn about or print otherwise than
// written, and what the Reader would refuse with its default limits (see
// Writer). A refused event leaves the writer as it was: nothing of it reaches the
// output, and Close still finishes the trace with every event accepted
// before it (a CallWriter accepts or refuses a call whole). The refusal
// sticks: Write, Flush and Close return it. Check applies the same rules
// without writing, for a caller that would rather skip what is refused.
// Strings may hold NUL bytes; apitrace dump prints them up to the first,
// as Dumper does.
//
// Profile counts calls into a pprof profile: per function, and per
// backtrace where the trace records them.
//
// # Versions and containers
//
// Stream versions 0 to 6 are read and written (Header says what each
// added, how the container is told from the first bytes as apitrace
// does, and where apitrace's format document is out of date).
//
// # Limits
//
// Every length and count read from the stream is checked against a limit
// (the Reader's Max fields, 0 meaning their Default constants; a
// CallReader's are its Reader's, plus MaxPending) and against what the
// input still holds before anything is allocated; buffers grow only as
// bytes arrive, so memory is bounded by the largest event (plus the calls
// in flight for a CallReader), not by the trace. apitrace itself checks
// none of these. An event may hold MaxValues values and the arrays,
// structs and reprs holding them (the Reader's doc says how they count):
// an array of exactly DefaultMaxValues integers is read. A Writer does not
// copy a string of a chunk (1 MiB) or more: once its event is accepted,
// the string goes from the caller's value into the output a chunk at a
// time, so a trace is repacked holding each string once.
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
// Bad or cut-short input yields a *FormatError with the position in the
// decompressed stream (and the chunk holding it), wrapping a sentinel or
// io.ErrUnexpectedEOF; it prints "apitrace: offset N: ...". A file that
// is no trace is refused by NewReader with ErrHeader, whatever the
// options: apitrace's formats are told by their container, so the error
// is ErrContainer (in no container apitrace reads), which wraps
// ErrHeader. Errors are sticky. io.EOF is returned only at an event boundary after a clean end
// of the container. A trace cut short gives every complete event first
// (see Reader.Read and CallReader.Read).
//
// The codecs are packages of their own, pure Go:
// github.com/tracefmt/tracefmt/apitrace/snappy (both ways), and the
// decoders apitrace/brotli and apitrace/zstd.
package apitrace
