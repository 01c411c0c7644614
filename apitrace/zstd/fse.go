package zstd

import (
	"encoding/binary"
	"math/bits"
)

// FSE tables (RFC 8878 section 4.1). A table description is a list of
// normalized probabilities; the decoding table spreads the symbols over
// 1<<accuracyLog states and gives each state its symbol, how many bits to
// read and the base of the next state.

const (
	maxLLSymbol  = 35
	maxMLSymbol  = 52
	maxOFSymbol  = 31
	maxLLLog     = 9
	maxMLLog     = 9
	maxOFLog     = 8
	maxWeightLog = 6 // Huffman weights' FSE table
)

// fseEntry is one state of a plain FSE decoding table.
type fseEntry struct {
	sym    uint8
	nbBits uint8
	base   uint16 // next state = base + read(nbBits)
}

// readProbs reads an FSE table description from src: the normalized
// probability of each symbol up to maxSym (-1 is "less than 1"). It returns
// the accuracy log and the bytes the description used.
func readProbs(src []byte, probs *[64]int16, maxSym, maxLog int) (nsym, accLog, used int, err error) {
	// A forward little-endian bit reader; bits past the end read as zeros
	// and are caught by the length check at the end.
	var pos uint // bits consumed
	peek := func() uint32 {
		i := pos >> 3
		var v uint64
		if i+8 <= uint(len(src)) {
			v = binary.LittleEndian.Uint64(src[i:])
		} else if i < uint(len(src)) {
			var tmp [8]byte
			copy(tmp[:], src[i:])
			v = binary.LittleEndian.Uint64(tmp[:])
		}
		return uint32(v >> (pos & 7))
	}
	if len(src) == 0 {
		return 0, 0, 0, ErrTable
	}
	accLog = int(src[0]&15) + 5
	if accLog > maxLog {
		return 0, 0, 0, ErrTable
	}
	pos = 4
	remaining := int32(1<<accLog) + 1
	threshold := int32(1 << accLog)
	nbBits := uint(accLog + 1)
	sym := 0
	for remaining > 1 {
		if sym > maxSym {
			return 0, 0, 0, ErrTable
		}
		v := int32(peek())
		max := 2*threshold - 1 - remaining
		var count int32
		if v&(threshold-1) < max {
			count = v & (threshold - 1)
			pos += nbBits - 1
		} else {
			count = v & (2*threshold - 1)
			if count >= threshold {
				count -= max
			}
			pos += nbBits
		}
		count--
		if count < 0 {
			remaining--
		} else {
			remaining -= count
		}
		probs[sym] = int16(count)
		sym++
		if remaining < 1 {
			return 0, 0, 0, ErrTable
		}
		if count == 0 {
			// Runs of zero probabilities: 2-bit repeat counts, 3 meaning
			// "three more, and another repeat count follows".
			for {
				r := int(peek() & 3)
				pos += 2
				if sym+r > maxSym+1 {
					return 0, 0, 0, ErrTable
				}
				for i := 0; i < r; i++ {
					probs[sym] = 0
					sym++
				}
				if r != 3 {
					break
				}
			}
		}
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
	}
	if remaining != 1 || pos > uint(len(src))*8 {
		return 0, 0, 0, ErrTable
	}
	return sym, accLog, int((pos + 7) >> 3), nil
}

// buildFSE fills table (1<<accLog entries) from the probabilities of nsym
// symbols. The probabilities must sum to 1<<accLog (readProbs checks it).
func buildFSE(table []fseEntry, probs []int16, accLog int) error {
	var next [256]uint16
	if err := spreadFSE(table, probs, accLog, &next); err != nil {
		return err
	}
	size := 1 << accLog
	for i := range table[:size] {
		s := table[i].sym
		n := next[s]
		next[s]++
		if n == 0 {
			return ErrTable
		}
		nb := accLog - (bits.Len16(n) - 1)
		table[i].nbBits = uint8(nb)
		table[i].base = uint16(int(n)<<nb - size)
	}
	return nil
}

// spreadFSE spreads the symbols over the table's 1<<accLog states (their
// sym fields) and sets next to each symbol's count of states.
func spreadFSE(table []fseEntry, probs []int16, accLog int, next *[256]uint16) error {
	size := 1 << accLog
	table = table[:size]
	high := size - 1
	for s, p := range probs {
		if p == -1 {
			table[high].sym = uint8(s)
			high--
			next[s] = 1
		} else {
			next[s] = uint16(p)
		}
	}
	step := size>>1 + size>>3 + 3
	mask := size - 1
	pos := 0
	for s, p := range probs {
		for i := 0; i < int(p); i++ {
			table[pos].sym = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	if pos != 0 {
		return ErrTable
	}
	return nil
}

// Sequence decoding tables pack, per state, the symbol's value baseline
// and extra bits with the state transition, so one load serves a state:
// bits 0-7 state bits, 8-15 extra bits, 16-31 next state base, 32-63
// baseline. The bit counts sit in the low bytes, where extracting them
// takes one instruction.
type seqEntry uint64

func packSeq(baseline uint32, extra uint8, e fseEntry) seqEntry {
	return seqEntry(uint64(e.nbBits) | uint64(extra)<<8 | uint64(e.base)<<16 | uint64(baseline)<<32)
}

var (
	llBase = [maxLLSymbol + 1]uint32{
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096,
		8192, 16384, 32768, 65536}
	llExtra = [maxLLSymbol + 1]uint8{
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12,
		13, 14, 15, 16}
	mlBase = [maxMLSymbol + 1]uint32{
		3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
		19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
		35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051,
		4099, 8195, 16387, 32771, 65539}
	mlExtra = [maxMLSymbol + 1]uint8{
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11,
		12, 13, 14, 15, 16}

	// The predefined distributions (RFC 8878 section 3.1.1.3.2.2).
	llDefault = []int16{
		4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
		-1, -1, -1, -1}
	mlDefault = []int16{
		1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
		-1, -1, -1, -1, -1}
	ofDefault = []int16{
		1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}
)

// seqKind tells the three sequence tables apart.
type seqKind int

const (
	kindLL seqKind = iota
	kindOF
	kindML
)

func (k seqKind) maxSym() int {
	return [...]int{maxLLSymbol, maxOFSymbol, maxMLSymbol}[k]
}

func (k seqKind) maxLog() int {
	return [...]int{maxLLLog, maxOFLog, maxMLLog}[k]
}

func (k seqKind) value(sym uint8) (uint32, uint8) {
	switch k {
	case kindLL:
		return llBase[sym], llExtra[sym]
	case kindML:
		return mlBase[sym], mlExtra[sym]
	}
	// Offset code N reads N bits on top of 1<<N.
	return 1 << sym, sym
}

// seqTable is the decoding table of one of the three sequence symbols.
type seqTable struct {
	entries [512]seqEntry
	log     uint8
	valid   bool
	noExtra bool // no state reads extra bits
	rep1    bool // offsets: code 0 (mostly the first repeat offset) has 15/16 of the states or more
}

// fill builds the table from probabilities: the states' symbols spread
// in scratch, then each state's transition packed with its symbol's value.
func (t *seqTable) fill(k seqKind, probs []int16, accLog int, scratch *[512]fseEntry) error {
	var next [256]uint16
	if err := spreadFSE(scratch[:], probs, accLog, &next); err != nil {
		return err
	}
	info := &symInfo[k]
	size := 1 << accLog
	for i, e := range scratch[:size] {
		n := next[e.sym]
		next[e.sym]++
		if n == 0 {
			return ErrTable
		}
		nb := accLog - (bits.Len16(n) - 1)
		t.entries[i&511] = info[e.sym&63] | seqEntry(nb) | seqEntry(int(n)<<nb-size)<<16
	}
	t.log = uint8(accLog)
	t.valid = true
	t.noExtra = len(probs) <= firstExtra[k]
	t.rep1 = k == kindOF && len(probs) > 0 && int(probs[0])*16 >= 15<<accLog
	return nil
}

// rle makes the one-state table of RLE mode.
func (t *seqTable) rle(k seqKind, sym uint8) {
	base, extra := k.value(sym)
	t.entries[0] = packSeq(base, extra, fseEntry{})
	t.log = 0
	t.valid = true
	t.noExtra = extra == 0
	t.rep1 = k == kindOF && sym == 0
}

// firstExtra is each kind's first symbol with extra bits.
var firstExtra = [3]int{kindLL: 16, kindOF: 1, kindML: 32}

var (
	predefined [3]seqTable
	// symInfo holds each symbol's baseline and extra bits, packed as in
	// seqEntry.
	symInfo [3][64]seqEntry
)

func init() {
	for k := kindLL; k <= kindML; k++ {
		for sym := 0; sym <= k.maxSym(); sym++ {
			base, extra := k.value(uint8(sym))
			symInfo[k][sym] = packSeq(base, extra, fseEntry{})
		}
	}
	var scratch [512]fseEntry
	for k, d := range [][]int16{llDefault, ofDefault, mlDefault} {
		log := 6
		if seqKind(k) == kindOF {
			log = 5
		}
		if err := predefined[k].fill(seqKind(k), d, log, &scratch); err != nil {
			panic("zstd: predefined table: " + err.Error())
		}
	}
}
