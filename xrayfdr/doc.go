// Package xrayfdr reads and writes LLVM XRay logs: flight data recorder
// (FDR) logs of versions 1 to 5 and basic-mode logs of versions 1 to 3, as
// the compiler-rt XRay runtime and LLVM's own trace writer produce them,
// and prints them exactly as llvm-xray 14 does.
//
// # Reading and writing records
//
// A Reader returns the records of a log one by one, in file order:
// NewReader streams from an io.Reader, NewBytesReader reads a log held in
// memory in place. Every metadata kind (0 NewBuffer to 9 Pid), the four
// function actions, call arguments, custom and typed events with their
// payloads, BufferExtents and the version 1 EndOfBuffer are records (see
// Kind). A basic-mode log (header type 0) gives KindFunction records with
// absolute TSC, CPU, thread and process, and KindCallArg records for its
// argument payloads. Set ForceFDR to read every log as FDR, as llvm-xray
// fdr-dump does.
//
// The Reader follows llvm-xray's producer: from version 3 on, records are
// read only inside the byte count each BufferExtents announces, a record
// that crosses it is an error, and when a buffer is used up the bytes up to
// the next BufferExtents record are skipped (they are kept in the
// Skipped field of that record). Versions 1 and 2 are read back to back, so
// the garbage a version 1 runtime leaves after EndOfBuffer is read as
// records, as llvm-xray reads it; the expander ignores it until the next
// NewBuffer.
//
// A Writer writes records back. Each record is encoded over a copy of its
// Raw bytes, so rewriting what a Reader read reproduces the log byte for
// byte, the runtime's uninitialised metadata padding included (tested on
// every fixture, and on the logs the interop test makes the LLVM 14 runtime
// write). WriteBuffer writes a thread buffer with its BufferExtents
// computed. The Writer writes every version it reads; llvm-xray-14
// fdr-dump -verify accepts the version 1 to 5 logs it writes (tested).
// Round trips are not byte-exact only where nothing was read: the bytes
// after a read error, and a log of fewer than 32 bytes. (A last
// BufferExtents record cut after its 8-byte count is read, as llvm-xray
// reads it, with a short Raw, and written back as short.)
//
// # llvm-xray's outputs
//
// Dump prints what llvm-xray fdr-dump prints, DumpVerify what fdr-dump
// -verify prints: blocks grouped by process and thread in the iteration
// order of LLVM's DenseMap (reproduced), each checked by the Verifier, a
// copy of llvm-xray's block state machine, while it is printed. Verify
// checks a whole log as llvm-xray convert does (end states included).
// Expand turns a log into function entries, exits and events with absolute
// TSC, CPU, thread and process, as llvm-xray's expander does: groups in
// DenseMap order, each thread's blocks sorted by wall time with llvm-xray's
// comparator (not a strict weak order) and libstdc++'s std::sort
// (reproduced, so ties and disorder come out the same), the sticky fields
// of llvm-xray's expander kept (custom and typed events carry the previous
// function id; a typed event's type stays on the thread's later events),
// then a stable sort by TSC. WriteYAML prints the result as llvm-xray
// convert --output-format=yaml --symbolize=false does, LLVM 14's YAML
// quoting and escaping included. All of this is compared byte for byte
// with llvm-xray-14's output on every fixture (testdata/gen.sh makes the
// goldens with the real tool), on fdr_big (10 MB), in the interop test on
// logs a freshly built instrumented program writes in FDR and basic mode,
// on generated logs (70 threads, threads of 40 blocks with tied wall
// times, misplaced records, every version) and on real logs with bytes
// changed or cut (over a thousand such logs agreed in long runs; about
// fifty are in the suite). Error
// messages carry llvm-xray's wording in FormatError.LLVM.
//
// WriteChrome writes Chrome trace-event JSON (Perfetto, chrome://tracing):
// per-thread nested spans, custom and typed events as instant events with
// their payloads, timestamps in exact integer arithmetic (llvm-xray's own
// trace_event output loses the low digits of large TSCs in a double and
// drops events), and function names from an llvm-xray extract map
// (ReadInstrMap).
//
// # Where the real tools and the seed spec disagree
//
// The seed document (FDR "version 1 as of 2017-07-20") is out of date; the
// tools win:
//   - LLVM 14's runtime writes FDR version 5 and basic-mode version 3;
//     versions 1 to 4 come from older runtimes and LLVM's FDRTraceWriter.
//   - Header bytes 16..23 hold the per-thread buffer size, not the data
//     size; one file holds the buffers of all threads, in buffer-slot
//     order (flight-recorder rings rotate them).
//   - Version 2 added BufferExtents (kind 7) and dropped EndOfBuffer, which
//     a reader must reject from version 2 on; version 3 added Pid (kind
//     9); version 4 the CPU of custom events; version 5 made custom events
//     delta-timed and added typed events (kind 8).
//   - NewBuffer's thread id is 4 bytes; WallTimeMarker holds CLOCK_MONOTONIC
//     seconds and microseconds.
//   - A tail exit carries the id of the function that makes the tail call.
//   - Metadata padding is uninitialised memory; records after an event
//     payload are unaligned; the LLVM 14 runtime leaves each typed event's
//     16-byte marker out of the buffer extents (the last 16 bytes of such a
//     buffer are lost, or the log is unreadable when the cut falls inside
//     a record: the reader then fails as llvm-xray does).
//   - llvm-xray keeps the BufferExtents count in 32 bits, so a count of
//     4 GiB or more acts modulo 2^32 (Record.Extents keeps all 64 bits).
//   - llvm-xray reads the CPU field of every pre-version-5 custom event,
//     and reads a v1 or v2 log's BufferExtents without enforcing it; so do
//     we. llvm-xray fdr-dump checks neither the version nor the type.
//
// # Byte order
//
// XRay writes host-endian integers and C bit-fields. llvm-xray reads only
// little-endian logs. The Reader takes a log as big-endian when its header
// makes sense only big-endian (version 1..5, type 0 or 1) and, for FDR,
// the first record's first byte has its top bit set, which is where a
// big-endian C compiler puts the metadata flag (a byte-swapped header in
// front of little-endian records, as in testdata/invalid, is read
// little-endian like llvm-xray reads it). Big-endian bit-fields are laid
// out from the most significant bit (package bitfield, MSBFirst). The
// Writer writes big-endian when Header.BigEndian is set. Big-endian logs
// are tested by round trips only: no available tool writes or reads them.
//
// # Differences from llvm-xray 14
//
//   - A file of 16 to 31 bytes is an empty log to llvm-xray; the Reader
//     reports io.ErrUnexpectedEOF (Dump and DumpVerify print nothing and
//     return nil, as llvm-xray does).
//   - The limits below; llvm-xray has none.
//   - For YAML, the printable test of non-ASCII code points is Go's
//     unicode.IsGraphic, not LLVM's table: they may differ on rare code
//     points (payload bytes only).
//   - Where libstdc++'s unguarded loops would run off the array with
//     llvm-xray's non-strict block comparator (undefined behaviour), our
//     copy stops at the ends.
//
// # Limits
//
// Reader.MaxEventSize (0: DefaultMaxEventSize, 16 MiB) bounds an event
// payload and Reader.MaxSkip (0: DefaultMaxSkip, 16 MiB) the bytes skipped
// between buffers; beyond them Read returns ErrTooLarge. A size larger
// than what the input still holds is reported as a cut
// (io.ErrUnexpectedEOF) without allocating it: the Reader's buffer grows
// only as bytes arrive, to at most the limit. Sizes from the input never
// drive an allocation by themselves. The in-memory functions (DumpVerify,
// Index, Verify, Expand) hold the log and its index; Expand holds one
// 48-byte Event per function record or event.
//
// # Ownership
//
// Read returns a Record by value; its Data, Raw and Skipped slices point
// into the Reader's buffer and are valid until the next call to Read (for
// a NewBytesReader, into the caller's bytes, valid as long as they are).
// Record.Clone makes a copy to keep. A Trace's event payloads point into
// the log bytes given to Expand. Writers copy what they are given.
//
// # Errors
//
// Malformed input is a *FormatError with the byte offset of the offending
// record (or of the cut) and one of the sentinels (ErrMetadataKind,
// ErrEndOfBuffer, ErrAction, ErrEventSize, ErrOverRead, ErrNoExtents,
// ErrBasicRecord, ErrArgMismatch, ErrTooLarge, ErrTransition, ErrTerminal,
// ErrHeader) or io.ErrUnexpectedEOF; errors.As and errors.Is reach both.
// Its LLVM field holds what llvm-xray-14 prints for the same input. A log
// cut short returns every complete record first, then the error wrapping
// io.ErrUnexpectedEOF (a cut among the bytes a version 3+ reader skips
// between buffers is ErrNoExtents, as for llvm-xray). io.EOF comes only at
// a record boundary. Errors are sticky, in Reader and Writer; errors of the
// underlying io.Reader are returned as they are. The Writer refuses values
// that do not fit (ErrField: a function id over 28 bits, a delta over 32
// bits), EndOfBuffer after version 1 and empty event payloads. The
// malformed logs of testdata/invalid give llvm-xray's messages, or, where
// llvm-xray accepts them, the same output.
//
// # Performance
//
// Measured 2026-11-21 on the project machine (2 cores, AMD EPYC, go1.26.8)
// while other jobs shared it (load average 2 to 8), so every figure is
// noisy; ranges are over repeated runs, the high ends from quiet moments.
// Inputs: testdata/fdr_threads.xray (34 KB) and the shared 10.6 MB
// fdr_big.xray (1,316,804 records) that the LLVM 14 runtime wrote.
//
//	BenchmarkReader/fdr_big        0.8-1.6 GB/s, 0 allocs per record
//	BenchmarkBytesReader/fdr_big   0.85-1.7 GB/s (in place)
//	BenchmarkReader/fdr_threads    0.6-1.5 GB/s; TestReadAllocs proves 0
//	                               allocations for both readers
//	BenchmarkDump/fdr_big          39-80 ms (fdr-dump text, 1.3 M lines)
//	BenchmarkYAML/fdr_big          71-150 ms (Expand + WriteYAML, 182 MB)
//
// (The same code measured 0.8 and 1.6 GB/s minutes apart: the reader
// figures follow the machine's load more than anything.)
//
// Whole process, examples/xraydump against llvm-xray-14 on fdr_big, side
// by side in one run of bench/xrayfdr/compare.sh (median of 5 runs,
// output to /dev/null, outputs checked identical first; CPU = user +
// system of all threads), load average 2.7:
//
//	                  llvm-xray-14      xraydump          ratio
//	                  wall    cpu       wall    cpu       wall   cpu
//	fdr-dump          0.36 s  0.35 s    0.038 s 0.038 s    9.3x   9.2x
//	fdr-dump -verify  0.43 s  0.42 s    0.057 s 0.056 s    7.5x   7.4x
//	convert (YAML)    1.22 s  1.20 s    0.157 s 0.154 s    7.7x   7.8x
//
// Other runs of the same script the same day: fdr-dump 9.1x to 15.3x,
// -verify 4.9x to 9.3x, YAML 6.0x to 10.4x (wall; the lower YAML figures
// are from before the last optimisations, under heavier load).
//
// The reader's hot path decodes a function record from the buffer with two
// loads and two bitfield extractions into the named result; an Event holds
// no pointer (payloads and arguments live in the Trace), so millions of
// them cost the garbage collector nothing; the TSC sort merges the runs the
// log is already in, with a heap, in one pass; the YAML lines are
// formatted in chunks on all cores and written in order, reusing the text
// of recent thread contexts and the leading digits of the previous TSC.
package xrayfdr
