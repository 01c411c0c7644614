// Package leaktext reads and writes sp-rtrace text reports, the leak and
// resource reports of sp-rtrace, sp-rtrace-postproc, sp-rtrace-resolve
// and functracer, and computes leaks, groups and filters from them as
// sp-rtrace-postproc does.
//
// A report is lines: a header ("version=2.0, arch=x86_64, …, pid=42, "),
// memory maps (": /lib/libc.so.6 => 0x7f…-0x7f…"), contexts
// ("@ 1 : first context"), resource types
// ("<4> : memory (memory allocation in bytes) [refcount]"), attachments
// ("& maps : /tmp/maps"), calls ("5. @3 [00:23:44.327] malloc<memory>(64)
// = 0x558ca657d460", "6. free(0x558ca657d460)") each followed by its
// argument lines ("\t$path = /dev/null"), its backtrace ("\t0x401208",
// "\t0x401208 main() at demo.c:12") and an empty line, and comments (any
// other line; "## " persistent, "# " temporary).
//
// Reader returns these as Records, with their line numbers; Writer writes
// them. Whatever Reader reads in Strict mode, Writer writes back byte for
// byte (tested on every real report we have and by fuzzing); lines in a
// form the real reader accepts but the formatter never writes
// ("[1:2:3.5]", upper-case hex, trailing text) keep their text in a
// Verbatim field and are written from it.
//
// ReadReport loads a whole report as sp-rtrace-postproc loads a text one;
// Report's methods do what the tool's options do: FilterLeaks (-l), Groups
// (-c, -s), FilterContext (-C), FilterResources (-R), TrimBacktraces (-b),
// LeakSums (the "# Resource -" summary); PostProcess writes the result as
// the tool does. AddressMap finds the module holding an address;
// ParseResolved takes a resolved frame apart. Profile turns what leaked
// into a heap profile for go tool pprof, streaming.
//
// # Versions and producers
//
// Read: protocol 1.0, 1.3 and 2.0 reports of sp-rtrace 1.x on i686 and
// x86-64, resolved reports (every frame form of sp-rtrace-resolve),
// compressed reports (-c: runs of call lines sharing the backtrace that
// follows a "# allocation summary" comment) and functracer's forms.
// Written: the exact forms of sp-rtrace's formatter. sp-rtrace's binary
// log (first byte 0xf0) is recognised and refused (ErrBinary).
//
// # Strictness
//
// By default the Reader accepts what sp-rtrace-postproc accepts: a line
// that is no known record is a comment, kept and written back unchanged;
// frames or arguments with no call before them are a KindTrace record.
// Strict also refuses what the formatter never writes: a line that looks
// like a call, frame or argument but does not parse (ErrSyntax), a number
// that does not fit the real reader's field (ErrOverflow: an index, size
// or time beyond 32 bits, an address beyond 64), frames or arguments with
// no call (ErrOrphan), a backtrace deeper than the header's "backtrace
// depth" (ErrDepth).
//
// # Writing
//
// The Writer writes each record as lines that read back as the same
// record and refuses (ErrInvalid, the message naming the rule) what would
// read back differently or what the real reader would misread (see Writer).
//
// A refused record leaves the Writer as it was: nothing of it is
// buffered, and Flush and Close still write every record accepted before
// it, then return the refusal, which sticks. Check applies the rules
// without writing, for a caller that would rather skip what is refused.
// Close does not close the underlying writer.
//
// # Limits
//
// Reader.MaxLineLen (default DefaultMaxLineLen, 1 MiB) bounds a line,
// Reader.MaxFrames (default DefaultMaxFrames, 65536) the frames of one
// backtrace, Reader.MaxArgs (default DefaultMaxArgs, 4096) the arguments
// of one call; past them Read returns
// ErrTooLarge. The Reader's buffer starts at 64 KiB and grows only as data
// arrives, to hold the largest record. ReadReport keeps the whole report
// in memory (about 3 times its text size).
//
// # Ownership
//
// Read returns a Record the Reader owns: it and every slice in it are
// valid until the next Read or Reset; Record.Clone makes a copy to keep.
// Reader.Header's result is the caller's. A Report owns everything
// reachable from it; PostProcess and the filters change it.
//
// # Errors
//
// Reader errors are *SyntaxError{Line, Err}, printed "leaktext: line N:
// …", Err being a sentinel of this package, io.ErrUnexpectedEOF (a last
// line without "\n", or no header line: the formatter ends every line)
// or the underlying reader's error. A first line that is no header the
// formatter writes ("version=2.0, …") is ErrHeader, Strict or not: that
// is how a file that is no report is told, before its first line end is
// sought. io.EOF comes only after the last
// complete line. Reader and Writer errors are sticky. A zero Reader or
// Writer returns ErrNotOpen until Reset.
//
// Bytes are bytes: invalid UTF-8 and NUL are kept (the Writer refuses a
// NUL, which sp-rtrace's reader takes for the end of the line, and lines
// longer than it reads whole: see Writer). When the header line
// ends in "\r\n" every line must (else ErrLineEnding) and Writer ends
// lines so (Header.CRLF); in an LF report a "\r" is line content.
//
// Where the Reader keeps what sp-rtrace's reader loses is listed on
// Reader, where PostProcess differs from sp-rtrace-postproc on
// PostProcess.
package leaktext
