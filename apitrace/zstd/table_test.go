package zstd

import "testing"

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
