// Package xrayfdr reads and writes LLVM XRay logs: flight data recorder
// (FDR) logs of versions 1 to 5 and basic-mode logs of versions 1 to 3, as
// the compiler-rt XRay runtime and LLVM's own trace writer produce them,
// and prints them exactly as llvm-xray 19 does, or llvm-xray 14 (see
// LLVM).
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
// The Reader reads what llvm-xray 14 and 19 read, as they read it (see
// Reader for where it differs). A Writer writes records back: rewriting
// what a Reader read reproduces the log byte for byte, uninitialised
// padding included, and the Writer keeps each buffer's extents right when
// records are dropped or added (llvm-xray-14 and -19 read our edited logs
// in the tests). It refuses with ErrInvalid, before writing any of it, a
// record it cannot encode or that would make llvm-xray reject or misread
// the log — the
// block order its verifier checks above all (see Writer) — and a refusal
// leaves every record accepted before it in the log Close finishes.
// Header says what the runtimes write that no spec does.
//
// # llvm-xray's outputs
//
// Dump prints what llvm-xray fdr-dump prints, DumpVerify what fdr-dump
// -verify prints: blocks grouped by process and thread in the iteration
// order of LLVM's DenseMap (reproduced for each release: LLVM 19 hashes
// differently from LLVM 14, so llvm-xray-19 prints the blocks of a
// multithreaded log in another order), each checked by the Verifier, a
// copy of llvm-xray's block state machine. Verify checks a whole log as
// llvm-xray convert does. Expand turns a log into function entries, exits
// and events with absolute TSC, CPU, thread and process, as llvm-xray's
// expander does (its block order, libstdc++'s std::sort with llvm-xray's
// comparator, the fields it carries from record to record), and WriteYAML
// prints them as llvm-xray convert --output-format=yaml does. All of this
// is compared byte for byte with llvm-xray-14 and llvm-xray-19 (Debian's
// llvm-14 and llvm-19) on every fixture, on logs recorded at test time
// (programs built with clang++-14 and clang++-19), on generated logs of every version and on real
// logs with bytes changed or cut. Error messages carry llvm-xray's wording
// in FormatError.LLVM.
//
// The package-level functions follow the newest release, llvm-xray 19;
// the methods of LLVM14 (Index, DumpVerify, Expand) and Walker.LLVM give
// llvm-xray 14's order.
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
// record (or of the cut) and a sentinel or io.ErrUnexpectedEOF; it prints
// as "xrayfdr: offset N: message". NewReader refuses a header no XRay
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
// Reading makes no allocation per record (tested); a range loop over All
// is the fastest way through a log (see All). Measured figures are in the
// repository's PERFORMANCE.md.
package xrayfdr
