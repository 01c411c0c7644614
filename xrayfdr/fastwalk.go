package xrayfdr

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/tracefmt/tracefmt/xrayfdr/internal/llvmorder"
)

// The fast path of Walk, for what LLVM 14's runtime writes: a
// little-endian FDR log of version 3 or more whose buffers are exactly
// covered by their BufferExtents counts, each one thread buffer that
// starts with NewBuffer and that llvm-xray's block checks accept. One
// pass over the records checks all that and indexes the buffers (no
// record is handed out before the whole log passed), a second decodes
// the records of each thread in time order straight from the bytes.
// Anything else goes the general way, which reads as llvm-xray reads.

type fastBlock struct {
	start, end int // the records' bytes
	pid, tid   int32
	seconds    uint64
	micros     uint32
	tsc        uint64
}

type fastGroup struct {
	blocks []fastBlock
}

// fastIndex indexes data for the fast path, or reports false.
func (w *Walker) fastIndex(data []byte, h Header) ([]fastGroup, []int, bool) {
	if h.Type != TypeFDR || h.Version < 3 || h.BigEndian {
		return nil, nil, false
	}
	le := binary.LittleEndian
	var (
		groups []fastGroup
		keys   llvmorder.Map[[2]int32]
		v      Verifier
	)
	for pos := HeaderSize; pos < len(data); {
		if pos+MetadataSize > len(data) || data[pos] != 1|byte(KindBufferExtents)<<1 {
			return nil, nil, false
		}
		n := int(le.Uint32(data[pos+1:])) // llvm-xray keeps 32 bits
		start := pos + MetadataSize
		end := start + n
		if n == 0 || end > len(data) {
			return nil, nil, false
		}
		b := fastBlock{start: start, end: end}
		v.Reset()
		sawCPU := false
		for q := start; q < end; {
			c := data[q]
			if c&1 == 0 {
				if q+FunctionSize > end || (le.Uint32(data[q:])>>1)&7 > uint32(EnterArg) || v.step(StateFunction, int64(q)) != nil {
					return nil, nil, false
				}
				q += FunctionSize
				continue
			}
			if q+MetadataSize > end {
				return nil, nil, false
			}
			k := Kind(c >> 1)
			size := MetadataSize
			switch k {
			case KindNewBuffer:
				if q != start {
					return nil, nil, false
				}
				b.tid = int32(le.Uint32(data[q+1:]))
			case KindWallTime:
				b.seconds, b.micros = le.Uint64(data[q+1:]), le.Uint32(data[q+9:])
			case KindPid:
				b.pid = int32(le.Uint32(data[q+1:]))
			case KindNewCPU, KindTSCWrap:
				if !sawCPU {
					sawCPU = true
					if k == KindNewCPU {
						b.tsc = le.Uint64(data[q+3:])
					} else {
						b.tsc = le.Uint64(data[q+1:])
					}
				}
			case KindCallArg:
			case KindCustomEvent, KindTypedEvent:
				sz := int32(le.Uint32(data[q+1:]))
				if sz <= 0 || int(sz) > DefaultMaxDataLen || q+MetadataSize+int(sz) > end {
					return nil, nil, false
				}
				size += int(sz)
			default:
				return nil, nil, false
			}
			if q == start && k != KindNewBuffer {
				return nil, nil, false
			}
			if v.step(kindStates[k], int64(q)) != nil {
				return nil, nil, false
			}
			q += size
		}
		if v.End() != nil {
			return nil, nil, false
		}
		gi, fresh := keys.Insert([2]int32{b.pid, b.tid}, llvmorder.HashBlockKey(w.LLVM.Is19(), uint64(int64(b.pid)), uint32(b.tid)), len(groups))
		if fresh {
			groups = append(groups, fastGroup{})
		}
		groups[gi].blocks = append(groups[gi].blocks, b)
		pos = end
	}
	if len(groups) == 0 {
		return nil, nil, false // llvm-xray's reading of an empty log is the general path's
	}
	var order []int
	keys.Each(func(_ [2]int32, i int) { order = append(order, i) })
	return groups, order, true
}

// fastWalk walks a log fastIndex accepted.
func (w *Walker) fastWalk(data []byte, h Header, groups []fastGroup, order []int, fn func(e *Event) error) error {
	for _, gi := range order {
		blocks := groups[gi].blocks
		slices.SortStableFunc(blocks, func(a, b fastBlock) int {
			if c := cmp.Compare(a.seconds, b.seconds); c != 0 {
				return c
			}
			if c := cmp.Compare(a.micros, b.micros); c != 0 {
				return c
			}
			return cmp.Compare(a.tsc, b.tsc)
		})
		if err := w.handOut(func(fn func(e *Event) error) error {
			return fastThread(data, h, blocks, fn)
		}, fn); err != nil {
			return err
		}
	}
	return nil
}

// fastThread hands the events of one thread's blocks to fn.
func fastThread(data []byte, h Header, blocks []fastBlock, fn func(e *Event) error) error {
	le := binary.LittleEndian
	var rec Record
	st := threadState{version: h.Version}
	for _, b := range blocks {
		for q := b.start; q < b.end; {
			c := data[q]
			if c&1 == 0 {
				x := le.Uint32(data[q:])
				st.ev.TSC += uint64(le.Uint32(data[q+4:]))
				st.ev.Kind, st.ev.FuncID = EventKind((x>>1)&7), int32(x>>4)
				if err := fn(&st.ev); err != nil {
					return err
				}
				q += FunctionSize
				continue
			}
			k := Kind(c >> 1)
			rec = Record{Kind: k, Offset: int64(q)}
			size := MetadataSize
			switch k {
			case KindNewBuffer:
				rec.TID = int32(le.Uint32(data[q+1:]))
			case KindPid:
				rec.PID = int32(le.Uint32(data[q+1:]))
			case KindNewCPU:
				rec.CPU, rec.TSC = le.Uint16(data[q+1:]), le.Uint64(data[q+3:])
			case KindTSCWrap:
				rec.TSC = le.Uint64(data[q+1:])
			case KindCustomEvent, KindTypedEvent:
				size += int(int32(le.Uint32(data[q+1:])))
				if k == KindTypedEvent || h.Version >= 5 {
					rec.Delta = int64(int32(le.Uint32(data[q+5:])))
					if k == KindTypedEvent {
						rec.EventType = le.Uint16(data[q+9:])
					}
				} else {
					rec.TSC, rec.CPU = le.Uint64(data[q+5:]), le.Uint16(data[q+13:])
				}
			}
			if err := st.visit(&rec, fn); err != nil {
				return err
			}
			q += size
		}
	}
	return nil
}
