// Package parsed reads Go execution traces (Go 1.22 to 1.26) as events in
// time order, each with its goroutine, P and thread, resolved stacks and
// strings, and its meaning: state transitions, ranges, tasks, regions,
// logs, metrics, CPU samples, clock snapshots and experimental events. It
// orders and checks them exactly as Go's own parser (internal/trace, used
// by `go tool trace`) does, and gives the same events in the same order:
// the text Event.AppendText prints is byte for byte what
// `go tool trace -d=parsed` prints (checked on every fixture, on Go's own
// test corpus and on traces recorded at test time by Go 1.22 to 1.26). A
// trace Go's parser rejects is rejected after the same events, with Go's
// message and where: byte offset, generation and thread.
//
// It is built on package gotraceraw, whose Reader frames the batches.
//
// # How a trace is ordered
//
// A trace is a series of generations; each holds per-thread batches of
// events, the generation's string and stack tables, CPU samples and clock
// data. Reader.Read reads a whole generation, then merges its threads'
// events by time, letting an event through only when the state it
// needs has come about (a goroutine is started after it was made runnable,
// as its sequence numbers say), and queues the events Go's parser makes
// up (a GoSwitch's block and start). Each generation starts with a Sync
// event and the trace ends with one. Memory is bounded by the largest
// generation, never by the file: see MaxGenerationSize.
//
// # Reading
//
// NewReader reads the header; Read returns the events one by one, All
// iterates over them. The Event that Read returns, and the slices its
// accessors return, belong to the Reader and are valid until the next
// Read or Reset; strings may be kept, Clone keeps an event. Reset reuses
// every buffer. A zero Reader is ready for Reset; until then Read returns
// ErrNotOpen. Steady-state reading makes no allocation per event.
//
// Validator checks a trace one generation at a time with the same rules,
// for gotraceraw's writers: a writer given one refuses a generation Go's
// parser would reject.
//
// # Errors
//
// Errors are *FormatError: the offset, generation and thread, and an
// error wrapping one of ErrGeneration, ErrEvent, ErrTable, ErrState,
// ErrOrder and ErrTooLarge (with Go's message, which Reason returns), or
// the raw level's errors (gotraceraw.ErrHeader, ErrVersion, ErrV1,
// io.ErrUnexpectedEOF for a cut trace). Errors stick.
//
// Go 1.26's runtime, under GODEBUG=traceallocfree=1 with short generations
// (a traceadvanceperiod of a few milliseconds), now and then leaves a
// goroutine's status out of a generation: about one recording in a
// hundred here. That goroutine's events can then never be ordered; Go's parser
// rejects such a trace, and so does this package, with the same message
// (ErrOrder), since what the runtime left out cannot be known.
//
// # Performance
//
// On a 25 MB trace of 4.8 million events, `gotracetext -parsed` prints
// the 1.25 GB of `go tool trace -d=parsed` text about 15 times faster
// than that command, in a quarter of its memory. Reading alone costs
// about 10 ns of CPU an event (measured 2026-11-26 11:56 and 12:27 UTC),
// 0.7 times the raw level's reading and printing its text (14 ns in the
// same runs), and 0.7 to 0.8 times it on a trace with CPU samples. On
// small traces, where each generation's string and stack tables weigh
// more, 0.7 to 0.95 times it; a small trace of deep stacks, read in a
// process of its own, 0.75 to 0.8 times it on a quiet machine and up to
// 1.3 times on a loaded one, where collecting its tables' garbage takes
// the spare core.
//
// # What this package does that Go's parser does not
//
//   - Errors say where; Go's say only what.
//   - The API is stable (Go's is internal, and golang.org/x/exp/trace
//     changes with Go releases), and reading costs no allocation per
//     event.
//   - Validator checks a trace as it is written.
//   - Event.Type gives the wire event behind each event.
//   - Accessors of the wrong kind return zero values instead of
//     panicking.
//   - Strict, and the Validator always, refuse ExperimentalBatches of
//     unknown experiments and in Go1.22 traces, which Go's parser takes.
//
// # Where this package and Go's parser differ
//
//   - A CPU sample whose stack is not in its generation's table is an
//     error (ErrTable); Go's parser takes it and `go tool trace` then
//     crashes printing it.
//   - A P's status of 256 or more is an error (ErrState); Go's parser reads
//     a status by its low byte and `go tool trace` then crashes printing
//     the P's transition. A goroutine's status is read by its low byte, as
//     Go's parser reads and prints it.
//   - An ExperimentalBatch of an experiment Go does not know is passed on
//     with its number; `go tool trace` crashes printing its Sync.
//   - A stop-the-world range that spans generations prints its reason
//     from the generation it ends in (Go's parser too), and an empty
//     reason where that generation lacks the string (where Go's crashes).
//   - Where a broken trace gives a P that is about to be stolen to several
//     threads, its status event takes the context of the lowest thread;
//     Go's parser takes one in map order, at random.
//   - When no event can come next, the error lists the goroutines, Ps and
//     threads in ID order; Go's lists them in map order.
//   - Traces of Go 1.5 to 1.21 (ErrV1) are not read; Go's parser converts
//     them.
//   - A cut inside a batch is io.ErrUnexpectedEOF; Go's messages vary.
//   - The raw level frames batches (gotraceraw.Reader.ReadBatch), so an
//     unknown byte where a batch should start is gotraceraw.ErrEventType,
//     a batch over 64 KiB gotraceraw.ErrTooLarge, with Go's messages.
package parsed
