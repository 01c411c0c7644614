package gotraceraw

import (
	"fmt"
	"io"
	"strconv"

	"github.com/tracefmt/tracefmt/varint"
)

// Writer writes events in the binary format. It buffers its output: call
// Flush at the end.
type Writer struct {
	// PadBatchLengths writes the size of each EventBatch and the data
	// length of each ExperimentalBatch as a ten-byte varint, as the Go
	// runtime does, for events without Widths. With it, events read from
	// the text form of a runtime-written trace are written back to the
	// runtime's exact bytes. Events with Widths are written with those
	// widths either way.
	PadBatchLengths bool

	sink
	v   Version
	tab *table
}

// sink is the buffered output both writers append to.
type sink struct {
	w   io.Writer
	buf []byte
	err error // sticky
}

// flush writes the buffered bytes to the underlying writer.
func (s *sink) flush() error {
	if s.err == nil && len(s.buf) > 0 {
		_, s.err = s.w.Write(s.buf)
		s.buf = s.buf[:0]
	}
	return s.err
}

const flushAt = 64 << 10

// NewWriter returns a Writer of version v traces to w. The header is
// written with the first Flush.
func NewWriter(w io.Writer, v Version) (*Writer, error) {
	if !v.Valid() {
		return nil, fmt.Errorf("%w: Go 1.%d", ErrVersion, uint8(v))
	}
	buf := make([]byte, 0, flushAt+4096)
	buf = append(buf, "go 1."...)
	buf = strconv.AppendUint(buf, uint64(v), 10)
	buf = append(buf, " trace\x00\x00\x00"...)
	return &Writer{sink: sink{w: w, buf: buf}, v: v, tab: v.table()}, nil
}

// Write encodes one event. It refuses an event that does not fit its type
// (see check) with an error wrapping ErrEvent or ErrEventType. Errors from
// the underlying writer are sticky.
func (w *Writer) Write(e *Event) error {
	if w.err != nil {
		return w.err
	}
	k, err := check(e, w.v, w.tab)
	if err != nil {
		return err
	}
	b := append(w.buf, byte(e.Type))
	if e.Widths == nil {
		for _, a := range e.Args {
			b = varint.Append(b, a)
		}
		if w.PadBatchLengths && e.Type == EvEventBatch {
			b = b[:len(b)-varint.Len(e.Args[3])]
			b, _ = varint.AppendPadded(b, e.Args[3], varint.MaxLen)
		}
		if k&kData != 0 {
			if w.PadBatchLengths && e.Type == EvExperimentalBatch {
				b, _ = varint.AppendPadded(b, uint64(len(e.Data)), varint.MaxLen)
			} else {
				b = varint.Append(b, uint64(len(e.Data)))
			}
		}
	} else {
		for i, a := range e.Args {
			b, _ = varint.AppendPadded(b, a, int(e.Widths[i]))
		}
		if k&kData != 0 {
			b, _ = varint.AppendPadded(b, uint64(len(e.Data)), int(e.Widths[len(e.Args)]))
		}
	}
	b = append(b, e.Data...)
	w.buf = b
	if len(b) >= flushAt {
		return w.Flush()
	}
	return nil
}

// Flush writes the buffered bytes to the underlying writer.
func (w *Writer) Flush() error { return w.flush() }

// check reports whether e can be written as a version v event: its
// version is v (or 0), its type is one of v's, it has the type's number of
// arguments (for a Stack, 2 + 4*nframes), data only on a type with data,
// and Widths, when set, has one width per varint, each wide enough for its
// value and at most ten bytes. It returns the type's table flags.
func check(e *Event, v Version, tab *table) (uint8, error) {
	if e.Version != v && e.Version != 0 {
		return 0, fmt.Errorf("%w: %v event in a %v trace", ErrEvent, e.Version, v)
	}
	k := tab.kind[e.Type]
	if k == 0 {
		return 0, fmt.Errorf("%w %d in a %v trace", ErrEventType, uint8(e.Type), v)
	}
	na := int(tab.nargs[e.Type])
	if k&kStack != 0 {
		if len(e.Args) < na || e.Args[1] != uint64(len(e.Args)-na)/4 || (len(e.Args)-na)%4 != 0 {
			return 0, fmt.Errorf("%w: %v needs 2 arguments and 4 per frame, has %d", ErrEvent, e.Type, len(e.Args))
		}
	} else if len(e.Args) != na {
		return 0, fmt.Errorf("%w: %v needs %d arguments, has %d", ErrEvent, e.Type, na, len(e.Args))
	}
	hasData := 0
	if k&kData != 0 {
		hasData = 1
	} else if e.Data != nil {
		return 0, fmt.Errorf("%w: %v has no data", ErrEvent, e.Type)
	}
	if e.Widths != nil {
		if len(e.Widths) != len(e.Args)+hasData {
			return 0, fmt.Errorf("%w: %v has %d widths for %d varints", ErrEvent, e.Type, len(e.Widths), len(e.Args)+hasData)
		}
		for i, wd := range e.Widths {
			var x uint64
			if i < len(e.Args) {
				x = e.Args[i]
			} else {
				x = uint64(len(e.Data))
			}
			if int(wd) < varint.Len(x) || wd > varint.MaxLen {
				return 0, fmt.Errorf("%w: %v varint %d is %d, which needs %d bytes, given %d", ErrEvent, e.Type, i, x, varint.Len(x), wd)
			}
		}
	}
	return k, nil
}
