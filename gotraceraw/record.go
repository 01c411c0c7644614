package gotraceraw

// Header is what a trace's header says: its version, which decides the
// event table. Readers return it; writers take it.
type Header struct {
	Version Version
}

// Event is one raw event: a batch header, a table entry or a timed event,
// exactly as the wire holds it, uninterpreted.
//
// Reader.Read and TextReader.Read return a pointer to an Event the reader
// owns, whose slices point into the reader's buffers: it is valid until
// the next call to Read or Reset. Use Clone to keep an event longer.
type Event struct {
	// Version is the trace's version, which decides the event table.
	Version Version
	// Type is the event's type byte.
	Type EventType
	// Args holds the arguments in the order of the type's Spec.Args; for
	// EvStack the frames follow, four values per frame (FrameFields:
	// pc, func, file, line). The readers never return nil Args, even for
	// a type without arguments. The writers compute the size argument of
	// EventBatch themselves and ignore the one given.
	Args []uint64
	// Data is the trailing data of String and ExperimentalBatch. A reader
	// returns nil for zero-length data on the wire and for a text event
	// without a data line; a text data="" line reads as empty, not nil.
	// The text writers print a data line only when Data is not nil, as Go's
	// do.
	Data []byte
	// Widths is nil when every varint of the event was written in its
	// shortest form. Otherwise it holds the width in bytes of each varint in
	// wire order: one per Args entry, then the data length when the type has
	// data. The Go runtime pads the size of every batch to ten bytes; Widths
	// records that so a Writer reproduces the runtime's bytes.
	Widths []uint8
}

// Clone returns a copy of e that shares no memory with the reader.
func (e *Event) Clone() *Event {
	if e == nil {
		return nil
	}
	c := *e
	if e.Args != nil {
		c.Args = append(make([]uint64, 0, len(e.Args)), e.Args...)
	}
	if e.Data != nil {
		c.Data = append(make([]byte, 0, len(e.Data)), e.Data...)
	}
	if e.Widths != nil {
		c.Widths = append(make([]uint8, 0, len(e.Widths)), e.Widths...)
	}
	return &c
}

// Spec returns the description of the event's type in its version.
func (e *Event) Spec() (Spec, bool) {
	if e == nil {
		return Spec{}, false
	}
	return e.Version.Spec(e.Type)
}

// NumFrames returns the number of frames of an EvStack event, 0 for other
// events.
func (e *Event) NumFrames() int {
	if e == nil || e.Type != EvStack || len(e.Args) < 2 {
		return 0
	}
	return (len(e.Args) - 2) / 4
}

// Frame returns frame i of an EvStack event: its pc, function name and
// file name string IDs, and line; zeros when there is no frame i.
func (e *Event) Frame(i int) (pc, fn, file, line uint64) {
	if i < 0 || i >= e.NumFrames() {
		return 0, 0, 0, 0
	}
	f := e.Args[2+4*i : 2+4*i+4]
	return f[0], f[1], f[2], f[3]
}

// String returns the event's text form as Go's tools print it, without
// the final newline.
func (e *Event) String() string {
	if e == nil {
		return "<nil>"
	}
	b, _ := appendText(nil, e)
	return string(b[:len(b)-1])
}
