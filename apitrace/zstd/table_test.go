package zstd

import (
	"math/rand/v2"
	"testing"
)

// TestSeqTableNoExtra checks the flag that picks the sequence loop without
// literal length extra bits against the entries themselves, for tables of
// every symbol count, RLE tables and the predefined ones.
func TestSeqTableNoExtra(t *testing.T) {
	hasExtra := func(tab *seqTable) bool {
		for _, e := range tab.entries[:1<<tab.log] {
			if uint8(e>>8) != 0 {
				return true
			}
		}
		return false
	}
	var scratch [512]fseEntry
	for k := kindLL; k <= kindML; k++ {
		const accLog = 6
		for n := 1; n <= k.maxSym()+1; n++ {
			// A flat distribution over the first n symbols.
			probs := make([]int16, n)
			for i := range probs {
				probs[i] = 1
			}
			probs[0] += int16(1<<accLog - n)
			var tab seqTable
			if err := tab.fill(k, probs, accLog, &scratch); err != nil {
				t.Fatalf("kind %d, %d symbols: %v", k, n, err)
			}
			if tab.noExtra == hasExtra(&tab) {
				t.Errorf("kind %d, %d symbols: noExtra %v, entries disagree", k, n, tab.noExtra)
			}
			var rle seqTable
			rle.rle(k, uint8(n-1))
			if rle.noExtra == hasExtra(&rle) {
				t.Errorf("kind %d, RLE symbol %d: noExtra %v, entry disagrees", k, n-1, rle.noExtra)
			}
		}
		if p := &predefined[k]; p.noExtra == hasExtra(p) {
			t.Errorf("kind %d, predefined: noExtra %v, entries disagree", k, p.noExtra)
		}
	}
}

// TestExecChunksRep1 checks that the loop for blocks of mostly repeated
// first offsets executes any sequences as the general loop does.
func TestExecChunksRep1(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		const hist = 4096
		seqs := make([]seqVal, 1+rng.IntN(seqBatch))
		var lsum, msum int
		for i := range seqs {
			s := &seqs[i]
			s.ll = uint32(rng.IntN(40))
			if rng.IntN(4) == 0 {
				s.ll = 0
			}
			s.ml = uint32(3 + rng.IntN(40))
			if rng.IntN(20) == 0 {
				s.ml = uint32(3 + rng.IntN(300))
			}
			switch r := rng.IntN(10); {
			case r < 6:
				s.off = 1
			case r < 8:
				s.off = uint32(2 + rng.IntN(2))
			default:
				s.off = uint32(4 + rng.IntN(hist-3))
			}
			lsum += int(s.ll)
			msum += int(s.ml)
		}
		wide := make([]byte, lsum+copySlack)
		for i := range wide {
			wide[i] = byte(rng.Uint32())
		}
		lens := uint64(lsum) | uint64(msum)<<32
		var outs [2][]byte
		var reps [2][4]int
		var res [2][3]any
		for v, rep1 := range []bool{false, true} {
			out := make([]byte, hist+lsum+msum+copySlack)
			copy(out, wide[:hist%len(wide)])
			reps[v] = [4]int{1, 4, 8, 0}
			ss := append([]seqVal(nil), seqs...)
			op, lp, err := execSeqs(ss, lens, out, hist, hist+lsum+msum, wide, 0, lsum, &reps[v], 1<<20, rep1)
			outs[v], res[v] = out[:op], [3]any{op, lp, err}
		}
		if res[0] != res[1] || reps[0] != reps[1] || string(outs[0]) != string(outs[1]) {
			t.Fatalf("round %d: general loop gives %v, rep %v; first-repeat loop %v, rep %v (outputs equal: %v)",
				round, res[0], reps[0], res[1], reps[1], string(outs[0]) == string(outs[1]))
		}
	}
}
