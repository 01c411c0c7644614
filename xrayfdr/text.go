package xrayfdr

import (
	"errors"
	"io"
	"strconv"
)

// AppendText appends the text llvm-xray fdr-dump prints for rec (without
// the newline) to dst. version is the log's header version, which decides
// how a custom event prints. A nil rec appends nothing.
func AppendText(dst []byte, version uint16, rec *Record) []byte {
	if rec == nil {
		return dst
	}
	switch rec.Kind {
	case KindFunction:
		return appendFunctionText(dst, rec.Action, rec.FuncID, uint32(rec.Delta))
	case KindBufferExtents:
		dst = append(dst, "<Buffer: size = "...)
		dst = strconv.AppendUint(dst, rec.Extents, 10)
		return append(dst, " bytes>"...)
	case KindWallTime:
		dst = append(dst, "<Wall Time: seconds = "...)
		dst = strconv.AppendUint(dst, rec.Seconds, 10)
		dst = append(dst, '.')
		var tmp [10]byte
		us := strconv.AppendUint(tmp[:0], uint64(rec.Micros), 10)
		for i := len(us); i < 6; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, us...)
		return append(dst, '>')
	case KindNewCPU:
		dst = append(dst, "<CPU: id = "...)
		dst = strconv.AppendUint(dst, uint64(rec.CPU), 10)
		dst = append(dst, ", tsc = "...)
		dst = strconv.AppendUint(dst, rec.TSC, 10)
		return append(dst, '>')
	case KindTSCWrap:
		dst = append(dst, "<TSC Wrap: base = "...)
		dst = strconv.AppendUint(dst, rec.TSC, 10)
		return append(dst, '>')
	case KindCustomEvent:
		if version >= 5 {
			dst = append(dst, "<Custom Event: delta = +"...)
			dst = strconv.AppendInt(dst, rec.Delta, 10)
		} else {
			dst = append(dst, "<Custom Event: tsc = "...)
			dst = strconv.AppendUint(dst, rec.TSC, 10)
			dst = append(dst, ", cpu = "...)
			dst = strconv.AppendUint(dst, uint64(rec.CPU), 10)
		}
		return append(appendPayload(dst, rec.Data), '>')
	case KindTypedEvent:
		dst = append(dst, "<Typed Event: delta = +"...)
		dst = strconv.AppendInt(dst, rec.Delta, 10)
		dst = append(dst, ", type = "...)
		dst = strconv.AppendUint(dst, uint64(rec.EventType), 10)
		return appendPayload(dst, rec.Data) // llvm-xray prints no closing '>'
	case KindCallArg:
		dst = append(dst, "<Call Argument: data = "...)
		dst = strconv.AppendUint(dst, rec.Arg, 10)
		dst = append(dst, " (hex = 0x"...)
		dst = strconv.AppendUint(dst, rec.Arg, 16)
		return append(dst, ")>"...)
	case KindPid:
		dst = append(dst, "<PID: "...)
		dst = strconv.AppendInt(dst, int64(rec.PID), 10)
		return append(dst, '>')
	case KindNewBuffer:
		dst = append(dst, "<Thread ID: "...)
		dst = strconv.AppendInt(dst, int64(rec.TID), 10)
		return append(dst, '>')
	case KindEndOfBuffer:
		return append(dst, "<End of Buffer>"...)
	}
	return dst
}

// appendFunctionText is AppendText for a function record.
func appendFunctionText(dst []byte, act Action, id int32, delta uint32) []byte {
	switch act {
	case Enter:
		dst = append(dst, "<Function Enter: #"...)
	case EnterArg:
		dst = append(dst, "<Function Enter With Arg: #"...)
	case Exit:
		dst = append(dst, "<Function Exit: #"...)
	default:
		dst = append(dst, "<Function Tail Exit: #"...)
	}
	dst = appendUint(dst, uint64(uint32(id)))
	dst = append(dst, " delta = +"...)
	dst = appendUint(dst, uint64(delta))
	return append(dst, '>')
}

// appendPayload appends an event's size and raw bytes, quoted.
func appendPayload(dst, data []byte) []byte {
	dst = append(dst, ", size = "...)
	dst = strconv.AppendInt(dst, int64(len(data)), 10)
	dst = append(dst, ", data = '"...)
	dst = append(dst, data...)
	return append(dst, '\'')
}

// newDumpReader opens a log the way fdr-dump does: every log as FDR.
// ok is false (with a nil error) for a 16..31-byte file, which llvm-xray
// 14 reads as an empty log.
func newDumpReader(r io.Reader, data []byte) (rd *Reader, ok bool, err error) {
	rd = &Reader{ForceFDR: true}
	if r != nil {
		err = rd.Reset(r)
	} else {
		err = rd.ResetBytes(data)
	}
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) && fe.Err == io.ErrUnexpectedEOF && fe.Offset >= 16 {
			return nil, false, nil
		}
		return nil, false, err
	}
	return rd, true, nil
}

// Dump writes what llvm-xray fdr-dump prints for the log in r: one line
// per record, in file order. On a malformed log the lines of the records
// read so far are written and the *FormatError is returned; its LLVM field
// holds llvm-xray's message.
func Dump(w io.Writer, r io.Reader) error {
	if w == nil || r == nil {
		return ErrNotOpen
	}
	rd, ok, err := newDumpReader(r, nil)
	if !ok {
		return err
	}
	out := make([]byte, 0, 128<<10)
	v := rd.h.Version
	for rec, err := range rd.All() {
		if err != nil {
			if _, werr := w.Write(out); werr != nil {
				return werr
			}
			return err
		}
		if rec.Kind == KindFunction { // most records: the short way
			out = appendFunctionText(out, rec.Action, rec.FuncID, uint32(rec.Delta))
		} else {
			out = AppendText(out, v, rec)
		}
		out = append(out, '\n')
		if len(out) >= 64<<10 {
			if _, err := w.Write(out); err != nil {
				return err
			}
			out = out[:0]
		}
	}
	_, err = w.Write(out)
	return err
}

// DumpVerify writes what llvm-xray fdr-dump -verify prints for the log in
// data: the records grouped into blocks by process and thread, in
// llvm-xray's order (the newest release's; LLVM.DumpVerify for another),
// each block checked by the Verifier while it is printed. When the log
// cannot be read, it writes every record read, as Dump does, and returns
// the error; when a block fails verification, it stops there and returns
// the error.
func DumpVerify(w io.Writer, data []byte) error {
	return dumpVerify(w, data, LLVM19)
}

func dumpVerify(w io.Writer, data []byte, llvm LLVM) error {
	if w == nil {
		return ErrNotOpen
	}
	rd, ok, err := newDumpReader(nil, data)
	if !ok {
		return err
	}
	out := make([]byte, 0, 256<<10)
	groups, err := indexBlocks(rd, data, llvm)
	if err != nil {
		// print the records read so far, then the error
		rd, _, _ := newDumpReader(nil, data)
		for rec, rerr := range rd.All() {
			if rerr != nil {
				break
			}
			out = append(AppendText(out, rd.h.Version, rec), '\n')
			if len(out) >= 128<<10 {
				if _, werr := w.Write(out); werr != nil {
					return werr
				}
				out = out[:0]
			}
		}
		if _, werr := w.Write(out); werr != nil {
			return werr
		}
		return err
	}
	br := blockReader(data, rd.h)
	var v Verifier
	for _, g := range groups {
		for i := range g.Blocks {
			v.Reset()
			st := printStart
			it := g.Blocks[i].iter(br)
			for {
				// Function records, most of a log, go the short way.
				if act, id, d, off, ok := it.function(); ok {
					if err := v.step(StateFunction, off); err != nil {
						w.Write(out)
						return err
					}
					if st == printMetadata {
						out = append(out, '\n')
					}
					out = append(appendFunctionText(append(out, "-  "...), act, id, d), '\n')
					st = printFunction
				} else {
					rec, ok, err := it.record()
					if err == nil && ok {
						err = v.Next(rec)
					}
					if err != nil {
						w.Write(out)
						return err
					}
					if !ok {
						break
					}
					out, st = appendBlockText(out, st, rd.h.Version, rec)
				}
				if len(out) >= 128<<10 {
					if _, err := w.Write(out); err != nil {
						return err
					}
					out = out[:0]
				}
			}
		}
	}
	_, err = w.Write(out)
	return err
}

// states of llvm-xray's block printer
type printState uint8

const (
	printStart printState = iota
	printPreamble
	printMetadata
	printFunction
	printEvent
	printArg
	printEnd
)

// appendBlockText appends the -verify text of rec given the printer state.
func appendBlockText(dst []byte, st printState, version uint16, rec *Record) ([]byte, printState) {
	switch rec.Kind {
	case KindNewBuffer:
		if st == printStart {
			dst = append(dst, "\n[New Block]\n"...)
		}
		dst = append(dst, "Preamble: \n"...)
		st = printPreamble
	case KindWallTime, KindPid:
		st = printPreamble
	case KindNewCPU:
		switch st {
		case printPreamble:
			dst = append(dst, "\nBody:\n"...)
		case printFunction:
			dst = append(dst, "\nMetadata: "...)
		}
		dst = append(dst, ' ')
		st = printMetadata
	case KindTSCWrap:
		if st == printFunction {
			dst = append(dst, "\nMetadata:"...)
		}
		dst = append(dst, ' ')
		st = printMetadata
	case KindCustomEvent, KindTypedEvent:
		if st == printMetadata {
			dst = append(dst, '\n')
		}
		dst = append(dst, "*  "...)
		st = printEvent
	case KindFunction:
		if st == printMetadata {
			dst = append(dst, '\n')
		}
		dst = append(dst, "-  "...)
		st = printFunction
	case KindCallArg:
		dst = append(dst, " : "...)
		st = printArg
	case KindEndOfBuffer:
		dst = append(dst, " *** "...)
		st = printEnd
	case KindBufferExtents:
		dst = append(dst, "\n[New Block]\n"...)
		st = printPreamble
	}
	dst = AppendText(dst, version, rec)
	return append(dst, '\n'), st
}
