package xrayfdr

import (
	"strconv"

	"github.com/tracefmt/tracefmt/bitfield"
)

// Log types found in the header's type field.
const (
	TypeBasic = 0 // basic ("naive") mode: fixed 32-byte records
	TypeFDR   = 1 // flight data recorder mode
)

// Header is the 32-byte file header.
//
// XRay writes host-endian integers; llvm-xray reads only little-endian
// logs. The Reader takes a log as big-endian when only that reading of its
// header makes sense (for FDR, with the metadata flag where a big-endian
// compiler puts it); the Writer writes Header.BigEndian logs. Big-endian
// logs are tested by round trips only.
//
// What the runtimes write that no spec says:
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
type Header struct {
	Version uint16 // FDR 1..5 (LLVM 14 writes 5), basic 1..3 (LLVM 14 writes 3)
	Type    uint16 // TypeBasic or TypeFDR
	// Flags is the raw 32-bit bitfield word: bit 0 constant TSC, bit 1
	// non-stop TSC. The other bits are uninitialised memory in basic-mode
	// logs and are kept so a rewrite reproduces them.
	Flags          uint32
	CycleFrequency uint64 // ticks per second
	// FreeForm holds bytes 16..31 as written. FDR logs keep the per-thread
	// buffer size in the first 8; nothing reads them.
	FreeForm [16]byte
	// BigEndian is true for a log written by a big-endian machine
	// (see Header for how it is detected).
	BigEndian bool
}

// HeaderSize is the size of the file header.
const HeaderSize = 32

var (
	flagLayout  = bitfield.Must(32, bitfield.LSBFirst, 1, 1)
	flagConst   = flagLayout.Field(0)
	flagNonstop = flagLayout.Field(1)
)

// ConstantTSC reports the header's constant_tsc bit.
func (h Header) ConstantTSC() bool { return flagConst.Get(uint64(h.Flags)) != 0 }

// NonstopTSC reports the header's nonstop_tsc bit.
func (h Header) NonstopTSC() bool { return flagNonstop.Get(uint64(h.Flags)) != 0 }

// BufferSize is the per-thread buffer size an FDR runtime records in the
// free-form bytes (0 when absent).
func (h Header) BufferSize() uint64 {
	if h.BigEndian {
		return bitfield.BigEndian(h.FreeForm[:8])
	}
	return bitfield.LittleEndian(h.FreeForm[:8])
}

// Kind is the kind of a record: an FDR metadata kind (0..9) or
// KindFunction.
type Kind uint8

// Record kinds. The metadata kinds carry the values of the file format.
const (
	KindNewBuffer     Kind = 0 // thread id (FDR)
	KindEndOfBuffer   Kind = 1 // end of a version 1 buffer
	KindNewCPU        Kind = 2 // CPU id and absolute TSC
	KindTSCWrap       Kind = 3 // absolute TSC
	KindWallTime      Kind = 4 // seconds and microseconds
	KindCustomEvent   Kind = 5 // custom event marker and payload
	KindCallArg       Kind = 6 // function argument (FDR and basic arg payload)
	KindBufferExtents Kind = 7 // bytes in the buffer that follows
	KindTypedEvent    Kind = 8 // typed event marker and payload (v5)
	KindPid           Kind = 9 // process id
	KindFunction      Kind = 16
)

var kindNames = [...]string{
	KindNewBuffer:     "NewBuffer",
	KindEndOfBuffer:   "EndOfBuffer",
	KindNewCPU:        "NewCPUId",
	KindTSCWrap:       "TSCWrap",
	KindWallTime:      "WallTime",
	KindCustomEvent:   "CustomEvent",
	KindCallArg:       "CallArg",
	KindBufferExtents: "BufferExtents",
	KindTypedEvent:    "TypedEvent",
	KindPid:           "Pid",
	KindFunction:      "Function",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Action is what a function record records.
type Action uint8

// Function record actions.
const (
	Enter    Action = 0
	Exit     Action = 1
	TailExit Action = 2
	EnterArg Action = 3 // an Enter followed by CallArg records
)

func (a Action) String() string {
	switch a {
	case Enter:
		return "enter"
	case Exit:
		return "exit"
	case TailExit:
		return "tail-exit"
	case EnterArg:
		return "enter-arg"
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// Record is one record of a log. Which fields are meaningful depends on
// Kind; the others are zero.
//
// A Record that Read returns belongs to the Reader: it and its Data, Raw
// and Skipped slices are valid until the next call to Read or Reset;
// Clone makes a copy to keep.
type Record struct {
	Kind   Kind
	Action Action // KindFunction
	// CPU: KindNewCPU, pre-v5 KindCustomEvent, basic-mode functions.
	CPU uint16
	// FuncID: KindFunction (28 bits in FDR logs, int32 in basic logs);
	// basic-mode KindCallArg.
	FuncID int32
	// Delta: KindFunction (unsigned 32 bits), v5 KindCustomEvent and
	// KindTypedEvent (signed 32 bits): ticks since the previous TSC.
	Delta int64
	// TSC: KindNewCPU, KindTSCWrap, pre-v5 KindCustomEvent, basic-mode
	// functions.
	TSC uint64
	// TID: KindNewBuffer, basic-mode records.
	TID int32
	// PID: KindPid, basic-mode records.
	PID       int32
	Seconds   uint64 // KindWallTime
	Micros    uint32 // KindWallTime: the sub-second part (microseconds)
	EventType uint16 // KindTypedEvent
	Arg       uint64 // KindCallArg
	Extents   uint64 // KindBufferExtents
	// Data is the payload of an event.
	Data []byte
	// Raw holds the record as read (8, 16 or 32 bytes, payload excluded),
	// padding included, so a Writer can reproduce it. A Writer overwrites
	// the fields it encodes and keeps the other bytes; nil means zeros.
	Raw []byte
	// Skipped holds the bytes a version 3+ reader skipped before this
	// BufferExtents record while looking for it.
	Skipped []byte
	// Offset is the record's position in the file (Read sets it; the
	// Writer ignores it).
	Offset int64
}

// clearUnused zeroes the fields a function record of an FDR log leaves
// zero, which the record before it, or a caller, may have set. The ones
// that fill 16 bytes together (TSC with TID and PID, Arg with Extents)
// take one store a pair; the narrow ones are tested first, with the
// slices, and rarely need a store: three narrow stores a record cost
// more than three loads and a test.
func (r *Record) clearUnused() {
	r.TSC, r.TID, r.PID, r.Arg, r.Extents = 0, 0, 0, 0, 0
	if r.Data != nil || r.Skipped != nil || r.Seconds|uint64(r.Micros)|uint64(r.EventType) != 0 {
		r.Seconds, r.Micros, r.EventType, r.Data, r.Skipped = 0, 0, 0, nil, nil
	}
}

// Clone returns a copy of r that owns its slices, to keep after the next
// Read (nil for a nil r).
func (r *Record) Clone() *Record {
	if r == nil {
		return nil
	}
	c := *r
	c.Data = cloneBytes(r.Data)
	c.Raw = cloneBytes(r.Raw)
	c.Skipped = cloneBytes(r.Skipped)
	return &c
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// Record sizes.
const (
	FunctionSize = 8
	MetadataSize = 16
	BasicSize    = 32
)

// Size is the number of bytes r takes in an FDR (or basic when basic is
// true) log, payload included and Skipped excluded.
func (r *Record) Size(basic bool) int {
	switch {
	case r == nil:
		return 0
	case basic:
		return BasicSize
	case r.Kind == KindFunction:
		return FunctionSize
	case r.Kind == KindCustomEvent || r.Kind == KindTypedEvent:
		return MetadataSize + len(r.Data)
	}
	return MetadataSize
}
