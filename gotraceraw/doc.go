// Package gotraceraw reads and writes Go execution traces (the v2 format of
// Go 1.22 to 1.26) at the raw level, in the binary form the runtime writes
// and in the text form `go tool trace -d=wire` prints.
//
// It is the library to pick over copying Go's internal/trace/raw: one
// import reads every v2 header, reports truncation and bad input with
// offsets or line numbers, decodes without allocating, writes back byte
// for byte, and with a Validator keeps an edited trace valid for Go's
// tools. It does not
// interpret events (no ordering, no goroutine states): that is
// golang.org/x/exp/trace's job.
//
// # Format
//
// A binary trace is a 16-byte header, "go 1.NN trace" padded with NUL
// bytes, then a flat stream of events: a type byte and the type's
// arguments as unsigned LEB128 varints. A Stack is followed by its frames,
// four varints each (pc, func, file, line); a String and an
// ExperimentalBatch end with a varint length and that many bytes. Events
// come in batches: an EventBatch, whose last argument is the size in bytes
// of the events after it, and those events; an ExperimentalBatch, whose
// data is its batch; and, from Go 1.26, a lone EndOfGeneration. Here every
// one of them is an Event: batch headers are not nested around their
// events. The text form is a line "Trace Go1.NN", then per event its name
// and "arg=value" pairs, a tab-indented line per Stack frame and a "data="
// line holding the data quoted as strconv.Quote quotes.
//
// The headers, and the event tables that Version.Spec, Version.Types and
// Version.Lookup describe:
//
//	Go1.22  written by Go 1.22          types 1–44
//	Go1.23  written by Go 1.23 and 1.24 types 1–49 and 128–136
//	Go1.25  written by Go 1.25          types 1–51 and 128–136
//	Go1.26  written by Go 1.26          types 1–52 and 128–136
//
// # Reading
//
// NewReader and NewTextReader read the header (Header reports it); Read
// returns the events one by one, All iterates over them. The Event that
// Read returns and every slice in it (Args, Data, Widths) belong to the
// reader and stay valid until the next Read or Reset; Event.Clone makes a
// copy to keep. Reset reuses every buffer for another trace. Readers,
// writers and events are not safe for concurrent use.
//
// The text this package prints for a binary trace is byte for byte
// "Trace Go1.NN" and then what `go tool trace -d=wire` prints (checked on
// every fixture, on Go's own test corpus and on traces recorded at test
// time). An event decodes to the same Event from either form, except that
// the binary form cannot tell empty data from none: a String read from it
// has nil Data when its data is empty.
//
// # Writing
//
// NewWriter and NewTextWriter take the Header; Write takes one event at a
// time; Close ends the trace (it does not close the io.Writer underneath);
// Write after Close returns ErrClosed.
//
// The writers keep the batches valid, whatever the caller drops, adds or
// changes. Each batch is held until it ends, and its EventBatch is written
// with the size of the events actually written after it (the size
// argument given is ignored); Flush writes the batches that have ended.
// The writers refuse, with ErrInvalid, an event that does not fit its type
// or version, an event outside any batch (before the first EventBatch, or
// after an ExperimentalBatch or EndOfGeneration), and an event that would
// make its batch longer than MaxBatchSize, which Go's parser rejects.
// That is all they check by themselves: like Go's raw writer, they write
// any sequence of events that frames well, so that a raw trace, even a
// broken one, is written back byte for byte.
//
// A writer whose Validate field is set before the first Write writes only
// what Go's parser accepts, as far as the Validator judges as Go does. It
// holds each generation whole, until a batch of another generation
// number, an EndOfGeneration (which ends its generation and is its last
// byte) or Close, passes the generation's wire bytes to the Validator, and
// writes them only if it accepts; the TextWriter passes the wire bytes of
// what it prints. It also refuses at once, before the generation ends:
// an event where Go's parser takes no such event (a batch of strings holds
// a Strings event and then String events only; stacks, CPU samples and
// the sync batch of Frequency and ClockSnapshot likewise; other batches
// hold timed events only), a string or stack id defined twice in a
// generation (or id 0, which stands for none), a string over 1 KiB or a
// stack over 128 frames, a second Frequency or ClockSnapshot in a
// generation, a generation numbered 0 and, before Go1.26, a generation
// that does not follow the one before it. At the end of a generation it
// refuses one that uses a string or stack id it does not define (ids are
// per generation). The refusal wraps ErrInvalid and the Validator's error.
// Memory grows with the largest generation, not with the trace.
//
// A refusal sticks, as every error does: nothing of the refused event,
// nor anything after it, is written. What came before it is written
// whole: without a Validator every batch before it and the open batch's
// events before it; with one, every generation accepted before it, which
// makes a trace Go's parser reads (but for a trace of Go 1.22 to 1.25
// with no generation at all, which it refuses as empty).
//
// Round trips:
//
//   - Binary to binary reproduces the input byte for byte whenever its batch
//     sizes are right, which they are in every trace the runtime writes:
//     Event.Widths records each varint written longer than needed (the
//     runtime pads every batch size to ten bytes), and the Writer uses it.
//   - Text to binary, with Writer.PadBatchLengths, reproduces the runtime's
//     bytes (every fixture). Without it varints come out minimal.
//   - Text to text reproduces text in the form the writers print. Comments,
//     blank lines, other white space, CRLF, leading zeros and other
//     quotings come out in the printed form.
//
// # Limits
//
// Reader and TextReader take MaxDataLen (the data of one event; 0 means
// DefaultMaxDataLen, 256 MiB; the runtime writes at most 1 KiB a string
// and 64 KiB a batch) and MaxFrames (the frames of one Stack; 0 means
// DefaultMaxFrames, 65,536; the runtime writes at most 128); TextReader
// also MaxLineLen (0 means DefaultMaxLineLen, 1 MiB, room for a batch's
// data quoted). The defaults are those of every tracefmt reader, far
// above what Go writes: a limit bounds the memory of one event, it does
// not judge the trace (Go's parser does, at 1 KiB and 128). A length or count beyond a limit is ErrTooLarge as soon as it
// is read; below it, buffers grow only as the input's bytes arrive, so a
// short input claiming a long event costs nothing.
//
// # Errors
//
// The Reader's errors are *FormatError, with the byte offset of the header
// (0) or of the event that failed; the TextReader's are *SyntaxError, with
// the line (blank and comment lines counted). They wrap io.ErrUnexpectedEOF
// (the input ends inside the header or an event) or one of ErrHeader,
// ErrVersion, ErrV1, ErrEventType, ErrTooLarge, ErrOverflow and ErrSyntax.
// io.EOF comes only between events. Errors stick: after the first, every
// Read returns it. A zero Reader, TextReader, Writer or TextWriter is
// ready for Reset, and until then every method returns ErrNotOpen.
//
// # Where this package and Go's tools differ
//
//   - The AllocFree experiment's events 128–136 (GODEBUG=traceallocfree=1)
//     are read under every header from Go1.23 on, as the Go 1.23–1.25
//     runtimes write them. Go 1.26's `-d=wire` refuses them under Go1.23
//     and Go1.25 headers; our text for those traces is what the producing
//     toolchain printed.
//   - The binary header must be exactly the 16-byte form: Go also takes
//     "go  1.26  trace\x00" and "go 1.026 trace\x00\x00\x00". Headers of Go
//     1.5 to 1.21 (the v1 format, another encoding) give ErrV1, naming the
//     version; Go's raw reader takes the header and fails on the first
//     event.
//   - Types 53–127 under Go1.26 are ErrEventType; Go's raw reader takes
//     them as events with no name and no arguments.
//   - A cut inside an event is io.ErrUnexpectedEOF; Go's raw reader returns
//     io.EOF there, so that a truncated trace looks complete.
//   - The TextReader reads all Go's reads (blank lines, whole-line "#"
//     comments, any Unicode white space, CRLF, leading zeros, any quoting
//     strconv.Unquote takes) and also: a String or ExperimentalBatch without
//     a data line, as empty data (Go ≤ 1.25 runtimes write empty strings,
//     Go's writer prints them without a data line, and Go's reader then
//     refuses its own output); lines longer than Go's 64 KiB, up to
//     MaxLineLen; and the CPUSample lines of Go 1.22's tools, which name
//     the arguments "time p g m stack" for values the runtime wrote in the
//     order m, p, g (the values are read in wire order; the writers print
//     Go 1.23's names, "time m p g stack"). A trailing "# comment" is an
//     error, as in Go.
//   - ExperimentalBatch's exp argument is read as a varint, as Go's raw
//     reader does; Go's parser reads one byte, so the writers refuse a
//     value over 127.
//   - The writers recompute batch sizes (see Writing): Go's raw writer
//     writes the size it is given, so that dropping an event makes a trace
//     `go tool trace` cannot read ("expected batch event"). Go has no
//     validating writer.
package gotraceraw
