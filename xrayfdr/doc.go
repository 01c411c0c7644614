// Package xrayfdr reads and writes LLVM XRay logs: flight data recorder
// (FDR) logs of versions 1 to 5 and basic-mode logs of versions 1 to 3, as
// the compiler-rt XRay runtime and LLVM's own trace writer produce them,
// and prints them exactly as llvm-xray 14 does.
//
// # Reading and writing records
//
// A Reader returns the records of a log one by one, in file order:
// NewReader streams from an io.Reader, NewBytesReader reads a log held in
// memory in place. Every metadata kind (NewBuffer to Pid), the four
// function actions, call arguments, custom and typed events with their
// payloads and BufferExtents are records (see Kind). A basic-mode log
// gives KindFunction records with absolute TSC, CPU, thread and process,
// and KindCallArg records. Set ForceFDR to read every log as FDR, as
// llvm-xray fdr-dump does.
//
// The Reader follows llvm-xray: from version 3 on, records are read only
// inside the byte count each BufferExtents announces, a record that
// crosses it is an error, and the bytes up to the next BufferExtents are
// skipped (kept in that record's Skipped field). Versions 1 and 2 are read
// back to back, so the garbage a version 1 runtime leaves after
// EndOfBuffer is read as records, as llvm-xray reads it.
//
// A Writer writes records back, each encoded over a copy of its Raw bytes:
// rewriting what a Reader read reproduces the log byte for byte,
// uninitialised padding included (tested on every fixture and on logs the
// LLVM 14 runtime writes at test time). The Writer owns each buffer's
// extents: it holds a thread buffer until the next BufferExtents record or
// Close and writes the size that really follows, so dropping or adding
// records keeps the log readable (llvm-xray-14 fdr-dump -verify and
// convert check our edited logs in the tests). It refuses with ErrInvalid
// what it cannot encode or llvm-xray would misread: a value too wide for
// its field, an unknown record kind, EndOfBuffer after version 1, a
// record outside a buffer of a version 3+ log, an empty event payload.
//
// # llvm-xray's outputs
//
// Dump prints what llvm-xray fdr-dump prints, DumpVerify what fdr-dump
// -verify prints: blocks grouped by process and thread in the iteration
// order of LLVM's DenseMap (reproduced), each checked by the Verifier, a
// copy of llvm-xray's block state machine. Verify checks a whole log as
// llvm-xray convert does. Expand turns a log into function entries, exits
// and events with absolute TSC, CPU, thread and process, as llvm-xray's
// expander does (its block order, libstdc++'s std::sort with llvm-xray's
// comparator, the fields it carries from record to record), and WriteYAML
// prints them as llvm-xray convert --output-format=yaml does. All of this
// is compared byte for byte with llvm-xray-14 on every fixture, on logs
// recorded at test time, on generated logs of every version and on real
// logs with bytes changed or cut. Error messages carry llvm-xray's wording
// in FormatError.LLVM.
//
// Walk hands out the function entries, exits and events of a log (FDR,
// basic mode, or llvm-xray's YAML trace form) thread by thread, each
// thread's buffers in time order, checking blocks as llvm-xray does
// before it analyses a log.
//
// # Other packages
//
// Package instrmap reads instrumentation maps (function ids to addresses,
// from an instrumented binary or llvm-xray extract's YAML) and names
// functions as llvm-xray's symbolizer does. Package analysis holds what
// llvm-xray account, stack and graph print, pprof profiles, paired calls
// and Chrome trace-event JSON, all reading logs through Walk.
//
// # What the real tools do that the seed spec does not say
//
//   - LLVM 14's runtime writes FDR version 5 and basic-mode version 3;
//     versions 1 to 4 come from older runtimes and LLVM's FDRTraceWriter.
//     Version 2 added BufferExtents and dropped EndOfBuffer; version 3
//     added Pid; version 4 the CPU of custom events; version 5 made custom
//     events delta-timed and added typed events.
//   - Header bytes 16..23 hold the per-thread buffer size; one file holds
//     the buffers of all threads, in buffer-slot order.
//   - Metadata padding is uninitialised memory; the LLVM 14 runtime leaves
//     each typed event's 16-byte marker out of the buffer extents, so the
//     last 16 bytes of such a buffer are lost (or the log is unreadable,
//     and the Reader fails as llvm-xray does).
//   - llvm-xray keeps the BufferExtents count in 32 bits, so a count of
//     4 GiB or more acts modulo 2^32 (Record.Extents keeps all 64 bits).
//
// # Byte order
//
// XRay writes host-endian integers; llvm-xray reads only little-endian
// logs. The Reader takes a log as big-endian when only that reading of its
// header makes sense (for FDR, with the metadata flag where a big-endian
// compiler puts it); the Writer writes Header.BigEndian logs. Big-endian
// logs are tested by round trips only.
//
// # Differences from llvm-xray 14
//
//   - A file of 16 to 31 bytes is an empty log to llvm-xray; the Reader
//     reports io.ErrUnexpectedEOF (Dump and DumpVerify print nothing).
//   - The limits below; llvm-xray has none.
//   - For YAML, the printable test of non-ASCII code points is Go's
//     unicode.IsGraphic, not LLVM's table (payload bytes only).
//   - Where libstdc++'s unguarded loops would run off the array with
//     llvm-xray's non-strict comparator (undefined behaviour), we stop at
//     the ends.
//   - Strict (off by default) also refuses what no runtime writes though
//     llvm-xray reads it: a metadata kind the log's version lacks, and a
//     buffer extents count of 4 GiB or more (ErrOverflow).
//
// # Limits
//
// Reader.MaxDataLen (0: DefaultMaxDataLen, 256 MiB) bounds an event payload
// and Reader.MaxSkip (0: DefaultMaxSkip, 16 MiB) the bytes skipped between
// buffers; beyond them Read returns ErrTooLarge. A size larger than what
// the input still holds is a cut (io.ErrUnexpectedEOF) found without
// allocating it: the Reader's buffer grows only as bytes arrive. The
// in-memory functions (DumpVerify, Index, Verify, Expand) hold the log and
// its index; Expand holds one 48-byte Event per function record or event.
// A Writer holds one thread buffer at a time.
//
// # Ownership
//
// Read returns a pointer to a Record the Reader owns: it and its Data, Raw
// and Skipped slices are valid until the next Read or Reset (for a
// NewBytesReader the slices point into the caller's bytes). Record.Clone
// makes a copy to keep. A Trace's payloads point into the bytes given to
// Expand. Writers copy what they are given.
//
// # Errors
//
// Malformed input is a *FormatError with the byte offset of the offending
// record (or of the cut) and a sentinel (ErrMetadataKind, ErrEndOfBuffer,
// ErrAction, ErrEventSize, ErrOverRead, ErrNoExtents, ErrBasicRecord,
// ErrArgMismatch, ErrTooLarge, ErrOverflow, ErrTransition, ErrTerminal,
// ErrHeader, ErrVersion) or io.ErrUnexpectedEOF; it prints as
// "xrayfdr: offset N: message". NewReader refuses a header no XRay
// runtime writes (ErrHeader, or ErrVersion above 5), Strict or not, so
// that other bytes are not taken for a log; with ForceFDR it reads any 32
// bytes as a header, as fdr-dump does. A log cut short returns every complete
// record first. io.EOF comes only at a record boundary. Errors are sticky
// in Reader and Writer; errors of the underlying io.Reader or io.Writer
// are returned as they are. A zero Reader or Writer returns ErrNotOpen
// until Reset; Write after Close returns ErrClosed.
//
// # Performance
//
// Reading makes no allocation per record (tested). A range loop over All
// is the fastest way through a log: the compiler inlines All and the loop's
// body into one loop, so a function record, most of a log, costs no call
// (about a third faster than a call to Read per record). The
// examples/xraydump command prints fdr-dump, -verify and convert text
// faster than llvm-xray-14 (figures and how to reproduce them in the
// repository's PERFORMANCE.md).
package xrayfdr
