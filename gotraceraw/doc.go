// Package gotraceraw reads and writes Go execution traces (the v2 format of
// Go 1.22 to 1.26) at the raw level, in the binary form the runtime writes
// and in the text form `go tool trace -d=wire` prints.
//
// It is the library to pick over copying Go's internal/trace/raw: one
// import reads every v2 header, reports truncation and bad input with
// offsets or line numbers, decodes without allocating, writes back byte
// for byte, and with a Validator keeps an edited trace valid for Go's
// tools. It does not
// interpret events (no ordering, no goroutine states): that is the
// gotraceraw/parsed package's job.
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
// writers and events are not safe for concurrent use. Reader.ReadBatch
// reads a whole batch instead, its events left as bytes, framed as Go's
// parser frames it; the ordered, checked events are package
// gotraceraw/parsed's.
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
// A writer whose Validate field is set writes only what Go's parser
// accepts, as far as the Validator judges as Go does: it holds each
// generation whole until the Validator accepts it (see Writer).
//
// A refusal sticks, as every error does: nothing of the refused event,
// nor anything after it, is written. What came before it is written
// whole: without a Validator every batch before it and the open batch's
// events before it; with one, every generation accepted before it, which
// makes a trace Go's parser reads (but for a trace of Go 1.22 to 1.25
// with no generation at all, which it refuses as empty).
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
// not judge the trace (Go's parser does, at 1 KiB and 128). A length or
// count beyond a limit is ErrTooLarge as soon as it is read; below it, buffers grow only as the input's bytes arrive, so a
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
// Where the readers differ from Go's tools is listed on Reader, how each
// round trip comes back on Writer.
package gotraceraw
