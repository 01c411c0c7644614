package xrayfdr

import (
	"encoding/binary"
	"io"

	"github.com/tracefmt/tracefmt/bitfield"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/llvmorder"
)

// State is a state of the block state machine of llvm-xray's verifier.
type State uint8

// Verifier states, named as llvm-xray names them in its messages.
const (
	StateUnknown State = iota
	StateBufferExtents
	StateNewBuffer
	StateWallClockTime
	StatePIDEntry
	StateNewCPUId
	StateTSCWrap
	StateCustomEvent
	StateFunction
	StateCallArg
	StateEndOfBuffer
	StateTypedEvent
)

var stateNames = [...]string{"Unknown", "BufferExtents", "NewBuffer", "WallClockTime", "PIDEntry",
	"NewCPUId", "TSCWrap", "CustomEvent", "Function", "CallArg", "EndOfBuffer", "TypedEvent"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "Unknown"
}

func stateSet(ss ...State) uint16 {
	var m uint16
	for _, s := range ss {
		m |= 1 << s
	}
	return m
}

// body states that may follow any record of the body
var bodyNext = stateSet(StateNewCPUId, StateTSCWrap, StateCustomEvent, StateTypedEvent, StateFunction, StateEndOfBuffer)

var transitions = [...]uint16{
	StateUnknown:       stateSet(StateBufferExtents, StateNewBuffer),
	StateBufferExtents: stateSet(StateNewBuffer),
	StateNewBuffer:     stateSet(StateWallClockTime),
	StateWallClockTime: stateSet(StatePIDEntry, StateNewCPUId),
	StatePIDEntry:      stateSet(StateNewCPUId),
	StateNewCPUId:      bodyNext,
	StateTSCWrap:       bodyNext,
	StateCustomEvent:   bodyNext,
	StateTypedEvent:    bodyNext,
	StateFunction:      bodyNext | stateSet(StateCallArg),
	StateCallArg:       bodyNext | stateSet(StateCallArg),
	StateEndOfBuffer:   0,
}

var kindStates = [...]State{
	KindNewBuffer:     StateNewBuffer,
	KindEndOfBuffer:   StateEndOfBuffer,
	KindNewCPU:        StateNewCPUId,
	KindTSCWrap:       StateTSCWrap,
	KindWallTime:      StateWallClockTime,
	KindCustomEvent:   StateCustomEvent,
	KindCallArg:       StateCallArg,
	KindBufferExtents: StateBufferExtents,
	KindTypedEvent:    StateTypedEvent,
	KindPid:           StatePIDEntry,
	KindFunction:      StateFunction,
}

// Verifier checks the order of the records of one block (one thread
// buffer) with llvm-xray's state machine. The zero Verifier is at the
// start of a block.
type Verifier struct {
	state   State
	lastOff int64
}

// Reset puts v back at the start of a block.
func (v *Verifier) Reset() { *v = Verifier{} }

// State is the state after the last record.
func (v *Verifier) State() State { return v.state }

// Next checks that rec may follow the records seen so far. After an
// EndOfBuffer record every record but a NewBuffer is ignored.
func (v *Verifier) Next(rec *Record) error {
	to := StateUnknown
	if rec == nil {
		return v.step(to, v.lastOff)
	}
	if int(rec.Kind) < len(kindStates) {
		to = kindStates[rec.Kind]
	}
	return v.step(to, rec.Offset)
}

// step moves to state to for the record at off.
func (v *Verifier) step(to State, off int64) error {
	v.lastOff = off
	if v.state == StateEndOfBuffer && to != StateNewBuffer {
		return nil
	}
	if to == StateUnknown || transitions[v.state]&(1<<to) == 0 {
		return &FormatError{Offset: off, Err: ErrTransition,
			LLVM: "BlockVerifier: Invalid transition from " + v.state.String() + " to " + to.String() + "."}
	}
	v.state = to
	return nil
}

// End checks that a block may end in the current state.
func (v *Verifier) End() error {
	switch v.state {
	case StateEndOfBuffer, StateNewCPUId, StateCustomEvent, StateTypedEvent, StateFunction, StateCallArg, StateTSCWrap:
		return nil
	}
	return &FormatError{Offset: v.lastOff, Err: ErrTerminal,
		LLVM: "BlockVerifier: Invalid terminal condition " + v.state.String() + ", malformed block."}
}

// Block is one thread buffer of an FDR log: the records from a NewBuffer
// record to the next one, BufferExtents records left out.
type Block struct {
	PID, TID int32  // from the block's Pid and NewBuffer records (0 when absent)
	Seconds  uint64 // from its WallTime record
	Micros   uint32
	HasWall  bool
	Offset   int64 // first record
	Records  int   // number of records
	budget   uint64
}

// Group holds the blocks of one (process, thread) pair, in file order.
type Group struct {
	PID, TID int32
	Blocks   []Block
}

// Index reads the FDR log in data and groups its blocks by process and
// thread, in the order llvm-xray visits them (the iteration order of its
// hash map, reproduced here for the newest release; LLVM.Index for
// another).
func Index(data []byte) (Header, []Group, error) {
	return LLVM19.Index(data)
}

func indexBlocks(rd *Reader, data []byte, v LLVM) ([]Group, error) {
	var (
		m   llvmorder.Map[blockKey64]
		cur Block
		grp []Group
	)
	flush := func() {
		// llvm-xray keys its index on the process id widened to 64 bits.
		k := blockKey64{uint64(int64(cur.PID)), cur.TID}
		i, fresh := m.Insert(k, llvmorder.HashBlockKey(v.Is19(), k.pid, uint32(k.tid)), len(grp))
		if fresh {
			grp = append(grp, Group{PID: cur.PID, TID: cur.TID})
		}
		grp[i].Blocks = append(grp[i].Blocks, cur)
		cur = Block{}
	}
	for {
		if cur.Records > 0 && rd.skipFunction() {
			cur.Records++
			continue
		}
		rec, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch rec.Kind {
		case KindBufferExtents:
			continue
		case KindNewBuffer:
			if cur.Records > 0 {
				flush()
			}
			cur.TID = rec.TID
		case KindPid:
			cur.PID = rec.PID
		case KindWallTime:
			cur.Seconds, cur.Micros, cur.HasWall = rec.Seconds, rec.Micros, true
		}
		if cur.Records == 0 {
			cur.Offset = rec.Offset
			cur.budget = rd.left() + uint64(rec.Size(false))
		}
		cur.Records++
	}
	flush() // llvm-xray flushes the last block even when it is empty
	out := make([]Group, 0, len(grp))
	m.Each(func(_ blockKey64, i int) { out = append(out, grp[i]) })
	return out, nil
}

// blockReader returns a Reader over data for re-reading blocks.
func blockReader(data []byte, h Header) *Reader {
	return &Reader{ForceFDR: true, buf: data, end: len(data), eof: true, h: h, c: newCodec(h.BigEndian)}
}

// blockIter reads the records of a block again (BufferExtents left out).
type blockIter struct {
	br   *Reader
	left int
}

func (b *Block) iter(br *Reader) blockIter {
	br.seek(int(b.Offset), b.budget)
	return blockIter{br, b.Records}
}

// next reads the next record into rec; false at the end of the block.
// rec is the caller's (on its stack: nothing here keeps it).
func (it *blockIter) next(rec *Record) (bool, error) {
	for it.left > 0 {
		r, err := it.br.Read()
		if err != nil {
			return false, err
		}
		*rec = *r
		if rec.Kind != KindBufferExtents {
			it.left--
			return true, nil
		}
	}
	return false, nil
}

// record reads the next record; ok is false at the end of the block. The
// record is the Reader's, valid until its next read.
func (it *blockIter) record() (rec *Record, ok bool, err error) {
	for it.left > 0 {
		r, err := it.br.Read()
		if err != nil {
			return nil, false, err
		}
		if r.Kind != KindBufferExtents {
			it.left--
			return r, true, nil
		}
	}
	return nil, false, nil
}

// function returns the next record when it is a function record the
// Reader can take on its fast path (see Reader.skipFunction), with its
// file offset; ok is false otherwise, and nothing is consumed.
func (it *blockIter) function() (act Action, id int32, delta uint32, off int64, ok bool) {
	br := it.br
	if it.left == 0 {
		return 0, 0, 0, 0, false
	}
	p := br.pos
	if p+FunctionSize <= br.lim { // as Read's fast path
		if x := binary.LittleEndian.Uint64(br.buf[p : p+FunctionSize]); x&badFunctionLE == 0 {
			br.pos = p + FunctionSize
			it.left--
			act, id := bitfield.FieldAt(actShiftLE, actWidthLE), bitfield.FieldAt(idShiftLE, idWidthLE)
			return Action(act.Get(x)), int32(id.Get(x)), uint32(x >> 32), br.off + int64(p), true
		}
	}
	if !br.skipFunction() {
		return 0, 0, 0, 0, false
	}
	it.left--
	b := br.buf[p : p+FunctionSize]
	o := binary.LittleEndian
	w, d := o.Uint32(b), o.Uint32(b[4:])
	if !br.c.le {
		w, d = binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])
	}
	return Action(br.c.fAct.Get(uint64(w))), int32(br.c.fID.Get(uint64(w))), d, br.off + int64(p), true
}

// each calls fn for the records of b, read again from br.
func (b *Block) each(br *Reader, fn func(*Record) error) error {
	it := b.iter(br)
	rec := new(Record) // one per block: fn may keep the pointer
	for {
		ok, err := it.next(rec)
		if !ok {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// Verify reads the FDR log in data and checks every block with the
// Verifier, end states included, as llvm-xray convert does before it
// expands a log.
func Verify(data []byte) error {
	h, groups, err := Index(data)
	if err != nil {
		return err
	}
	return verifyGroups(blockReader(data, h), groups)
}

// blockKey64 is the key of llvm-xray's block index.
type blockKey64 struct {
	pid uint64
	tid int32
}
