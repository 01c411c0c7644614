// Package gotraceraw reads and writes Go execution traces (the v2 format of
// Go 1.22 to 1.26) at the raw level, in the binary wire format and in the
// text form of Go's internal/trace/raw package and `go tool trace -d=wire`.
//
// It is the library to pick over copying internal/trace/raw: one import
// reads every v2 header, reports truncation and bad input with offsets or
// line numbers, decodes without allocating, and writes back byte for byte.
// It does not interpret events (no ordering, no goroutine states): that is
// golang.org/x/exp/trace's job.
//
// # Format
//
// A binary trace is a 16-byte header, "go 1.NN trace" padded with NUL
// bytes, then a flat stream of events: a type byte and the type's arguments
// as unsigned LEB128 varints. Stack (EvStack) is followed by nframes frames
// of four varints, pc, func, file, line (the order the runtime writes; a
// comment in Go's tracev2 says "PC, file ID, func ID", which is wrong).
// String and ExperimentalBatch end with a varint length and that many bytes.
// Batch headers (EventBatch) are ordinary events here; the events of the
// batch follow them. Nothing checks or recomputes a batch's size argument
// (the byte length of the events after its header; Go's raw reader ignores
// it too): a program that drops or edits events must adjust it. The text form is a line "Trace Go1.NN", then per event
// its name and "arg=value" pairs, a tab-indented line per frame and a
// "data=" line holding strconv.Quote of the data.
//
// Headers and their event tables, exported through Version.Spec,
// Version.Types and Version.Lookup (names, argument names, which arguments
// are string and stack IDs, the stack and data flags, the experiment):
//
//	Go1.22  Go 1.22          types 1–44
//	Go1.23  Go 1.23, 1.24    types 1–49 and 128–136
//	Go1.25  Go 1.25          types 1–51 and 128–136
//	Go1.26  Go 1.26          types 1–52 and 128–136
//
// There is no Go1.24 header: Go 1.24 writes Go1.23.
//
// # Where this package and Go's tools differ
//
// The text this package writes for a binary trace is byte for byte
// "Trace Go1.NN\n" followed by the output of `go tool trace -d=wire` (tested
// on every fixture and on traces recorded at test time). Beyond that:
//
//   - The AllocFree experiment's events 128–136 are read under every header
//     from Go1.23 on. The Go 1.23–1.25 runtimes write them with
//     GODEBUG=traceallocfree=1, but Go 1.26's raw tables stop at type 49 or
//     51 for those headers, so its `-d=wire` refuses such traces ("invalid
//     event type: 128"). Our text for them equals what the producing
//     toolchain printed.
//   - The binary header must be exactly the 16-byte form. Go parses it with
//     fmt.Fscanf and so also takes "go  1.26  trace\x00" and "go 1.026
//     trace\x00\x00\x00"; we return ErrHeader for those. Headers of Go 1.5 to
//     1.21 (the v1 format, a different encoding) give ErrV1, naming the
//     version; Go's raw reader takes the header and fails on the first event.
//   - Types 53–127 under Go1.26 are ErrEventType. Go's raw reader takes them
//     as events with no name and no arguments and prints empty lines.
//   - A cut inside an event (after its type byte, between arguments, inside
//     frames or data) is io.ErrUnexpectedEOF; Go's raw reader returns a
//     plain io.EOF there, so a truncated trace looks complete.
//   - The TextReader reads what Go's reads (blank lines, whole-line #
//     comments, any unicode.IsSpace white space, CRLF, leading zeros,
//     any strconv.Unquote form of the data) and also: a String or
//     ExperimentalBatch with no data line, which reads as empty data (nil).
//     Go ≤ 1.25 runtimes write empty strings, Go's writer prints them
//     without a data line, and Go's own TextReader then refuses its output.
//     Lines may be up to MaxLineLen long; Go's stop at 64 KiB. A trailing
//     "# comment" is an error, as in Go.
//   - ExperimentalBatch's exp argument is read as a varint, as Go's raw
//     reader does (the full parser reads one byte; the same for IDs < 128).
//
// # Round trips
//
//   - Binary → Reader → Writer reproduces the input byte for byte, for any
//     input the Reader accepts: Event.Widths records every varint written
//     longer than needed (the runtime pads each batch length to ten bytes).
//   - Text → TextReader → Writer with PadBatchLengths reproduces a
//     runtime-written trace byte for byte (every fixture). Without it, or for
//     a trace whose non-minimal varints were not the batch lengths, the
//     varints come out minimal: same events, fewer bytes.
//   - Text → TextReader → TextWriter reproduces the text byte for byte when
//     it is in the form the writers print. Comments, blank lines, other white
//     space, CRLF, leading zeros and other quotings of the data come out in
//     the printed form.
//   - Text → wire → text is byte-exact except for `data=""` lines: the wire
//     cannot tell empty data from a missing data line, and Go's rule (print
//     the line only for non-nil Data, nil for empty wire data) drops it.
//
// # Limits
//
// Reader and TextReader have MaxDataLen (data of one event, default
// DefaultMaxDataLen, 1 MiB; the runtime writes at most 1 KiB per string and
// 64 KiB per batch) and MaxFrames (frames of one Stack, default
// DefaultMaxFrames, 16384; the runtime writes at most 128); TextReader also
// MaxLineLen (default DefaultMaxLineLen, room for quoted MaxDataLen data).
// 0 means the default. A length or count beyond a limit is ErrTooLarge as
// soon as it is read. Below the limit nothing is allocated from it: the
// buffers grow only as the input's bytes arrive, so a short input claiming a
// long event costs nothing.
//
// # Ownership
//
// Read returns a pointer to an Event the reader owns, whose Args, Data and
// Widths point into the reader's buffers: all of it is valid until the
// next call to Read, and Event.Clone copies it. The writers take a pointer
// too and do not keep the events they are given. Reader, TextReader,
// Writer and TextWriter are not safe for concurrent use.
//
// The conventions of this module have a Read return its record by value.
// An Event is ten words, and returned by value it cost every caller that
// used it a copy through memory, which the processor could not forward
// from the stores that had just written it: reading the large trace of
// Performance and touching each event took 15 ns an event that way and
// 6 ns through a pointer (archive/tar's Next returns a pointer for the same
// kind of record).
//
// # Errors
//
// The Reader's errors are *FormatError with the byte offset of the header
// (0) or of the event that failed; the TextReader's are *SyntaxError with
// the line (counting blank and comment lines). Both wrap io.ErrUnexpectedEOF
// or one of the sentinels ErrHeader, ErrVersion, ErrV1, ErrEventType,
// ErrTooLarge, ErrVarint, ErrSyntax. io.EOF comes only at an event boundary.
// Errors are sticky. The writers refuse an event that does not fit its type
// (ErrEvent, ErrEventType) and keep the first error of the underlying
// writer.
//
// # Performance
//
// Reader decodes from its own buffer, refilled in 64 KiB reads. While 64
// bytes of it remain, an event of plain arguments is decoded from a
// fixed-size window with masked indexes (no bounds checks), its one- and
// two-byte varints in line, into the Event the Reader keeps: only Type and
// the length of Args change. Stacks, data, padded varints and the last
// bytes of the buffer take the careful path. It allocates nothing per event
// (TestReadAllocs proves 0 allocations for a whole trace with
// testing.AllocsPerRun; BenchmarkReader reports 0 allocs/op). The
// TextReader reads lines in place and parses the printed "name=digits" form
// in one pass, comparing argument names a word at a time; the TextWriter
// appends into one buffer with its own number formatting.
//
// bench/gotraceraw/compare.sh runs Go's own internal/trace/raw (copied from
// GOROOT at run time) and this package side by side, in interleaved rounds
// of 2 s per benchmark, on a trace recorded by bench/gotraceraw/largeprog
// (25.4 MB, 4.83 million events, 33% each GoUnblock, GoStart, GoBlock; text
// form 177 MB, which the script first checks is byte for byte what Go's
// TextWriter prints). Both readers' loops take the type and argument count
// of every event, as any use does. Measured 2026-11-21 on the project
// machine (2 cores, go1.26.8 linux/amd64, GOAMD64=v1) in two runs of five
// rounds; per event, the medians of the rounds of each run, CPU time of all
// threads (GC included), and the ratios Go's over ours in CPU time and in
// wall-clock time:
//
//	              CPU ns: Go     ours        ratio CPU    ratio wall
//	wire Reader   52.3, 45.6   5.9, 5.4    8.9x, 8.5x   8.5x, 8.1x
//	TextReader   279.8, 266.0  49.4, 47.8  5.7x, 5.6x   5.6x, 5.5x
//	TextWriter   262.6, 187.7  36.2, 33.3  7.3x, 5.6x   7.0x, 5.3x
//	wire Writer   17.3, 16.3   16.8, 16.5  1.0x, 1.0x   1.0x, 1.0x
//
// The machine's speed drifts while it runs, so single rounds scatter: the
// wire Reader's wall-clock ratio per round was 4.9x to 9.8x, the
// TextReader's 4.2x to 6.4x, the TextWriter's 4.9x to 7.9x; the medians
// meet the aims (8x, 5x, 5x) in both runs. A run just before the last
// change to the fast path (5% fewer instructions an event) gave the wire
// Reader 7.8x wall-clock and 8.3x CPU. Returning the Event by value, as
// this package did before, the wire Reader was 6.6x to 7.1x with the events
// left untouched and under 3x once the loop used them. Go's Reader
// allocates one Args slice per event (27 B) and reads through bufio byte by
// byte; its TextReader allocates twice per event and its TextWriter five
// times. Ours allocate nothing per event. Both wire Writers append varints
// into a buffer and are about as
// fast; ours also checks every event against its type.
package gotraceraw
