package xrayfdr

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/randcase"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// readRecords returns copies of the records of a log.
func readRecords(t *testing.T, data []byte) (Header, []Record) {
	t.Helper()
	rd, err := NewBytesReader(data)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, *rec.Clone())
	}
	return rd.Header(), recs
}

// index returns the index of the n-th (from 0) record of kind k.
func index(recs []Record, k Kind, n int) int {
	for i := range recs {
		if recs[i].Kind == k {
			if n == 0 {
				return i
			}
			n--
		}
	}
	panic("no such record")
}

// TestWriterRefusesBlockOrder writes fdr_simple.xray back with the edits
// llvm-xray's verifier rejects: each is refused with ErrInvalid naming
// llvm-xray's rule, and the log Close finishes holds the records accepted
// before it, which our Verify and llvm-xray-14 (fdr-dump -verify and
// convert) take.
func TestWriterRefusesBlockOrder(t *testing.T) {
	h, recs := readRecords(t, testutil.ReadFile(t, "testdata/fdr_simple.xray"))
	fn := index(recs, KindFunction, 2) + 1 // after function records
	for _, c := range []struct {
		name, rule string
		edit       func([]Record) []Record
	}{
		{"WallTime dropped", "Pid record after NewBuffer", func(r []Record) []Record { return drop(r, index(r, KindWallTime, 0)) }},
		{"NewBuffer dropped", "WallTime record after Unknown", func(r []Record) []Record { return drop(r, index(r, KindNewBuffer, 0)) }},
		{"NewCPU dropped", "Function record after PIDEntry", func(r []Record) []Record { return drop(r, index(r, KindNewCPU, 0)) }},
		{"Pid after function records", "Pid record after Function", func(r []Record) []Record { return randcase.Insert(r, fn, Record{Kind: KindPid, PID: 1}) }},
		{"WallTime after function records", "WallTime record after Function", func(r []Record) []Record { return randcase.Insert(r, fn, Record{Kind: KindWallTime}) }},
		{"NewBuffer after function records", "Function record after NewBuffer", func(r []Record) []Record { return randcase.Insert(r, fn, Record{Kind: KindNewBuffer, TID: 9}) }},
		{"preamble swapped", "WallTime record after Unknown", func(r []Record) []Record {
			i, j := index(r, KindNewBuffer, 0), index(r, KindWallTime, 0)
			r[i], r[j] = r[j], r[i]
			return r
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			edited := c.edit(append([]Record(nil), recs...))
			var buf bytes.Buffer
			wr, err := NewWriter(&buf, h)
			if err != nil {
				t.Fatal(err)
			}
			var refusal error
			accepted := 0
			for i := range edited {
				cerr := wr.Check(&edited[i])
				if refusal = wr.Write(&edited[i]); refusal != nil {
					if cerr == nil || cerr.Error() != refusal.Error() {
						t.Errorf("Check said %v before Write said %v", cerr, refusal)
					}
					break
				}
				accepted++
			}
			if !errors.Is(refusal, ErrInvalid) || !strings.Contains(refusal.Error(), c.rule) {
				t.Fatalf("Write: %v, want ErrInvalid saying %q", refusal, c.rule)
			}
			if err := wr.Close(); err != refusal {
				t.Errorf("Close: %v, want the refusal", err)
			}
			// What was accepted is there, less a last block that never
			// got past its preamble.
			want := closed(h, edited[:accepted])
			if msg := checkBack(h, buf.Bytes(), want); msg != "" {
				t.Error(msg)
			}
			if !hasBlock(buf.Bytes()) {
				// nothing left of the log: its header alone, as the
				// Writer's doc says, not an empty thread buffer
				if buf.Len() != HeaderSize {
					t.Errorf("a log without a block is %d bytes, want its %d-byte header alone", buf.Len(), HeaderSize)
				}
				return
			}
			if err := Verify(buf.Bytes()); err != nil {
				t.Errorf("Verify: %v", err)
			}
			t.Run("llvm-xray", func(t *testing.T) {
				tool := testutil.Tool(t, "llvm-xray-14")
				if msg := checkLLVM(t, tool, h, buf.Bytes()); msg != "" {
					t.Error(msg)
				}
			})
		})
	}
}

func drop(r []Record, i int) []Record { return append(r[:i], r[i+1:]...) }

// TestWriterDropsUnfinishedBlock checks that Close drops a last block that
// ends in its preamble, and says so, and that the log is then one
// llvm-xray reads.
func TestWriterDropsUnfinishedBlock(t *testing.T) {
	h, recs := readRecords(t, testutil.ReadFile(t, "testdata/fdr_simple.xray"))
	recs = append(recs, Record{Kind: KindBufferExtents}, Record{Kind: KindNewBuffer, TID: 5}, Record{Kind: KindWallTime})
	var buf bytes.Buffer
	wr, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := wr.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	err = wr.Close()
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "last block ends after its WallClockTime record") {
		t.Fatalf("Close: %v", err)
	}
	// the block and its buffer's BufferExtents record are dropped
	if msg := checkBack(h, buf.Bytes(), recs[:len(recs)-3]); msg != "" {
		t.Error(msg)
	}
	if err := Verify(buf.Bytes()); err != nil {
		t.Errorf("Verify: %v", err)
	}
	if err2 := wr.Close(); err2 != err {
		t.Errorf("second Close: %v, want %v", err2, err)
	}
}

// TestWriterBasicArgs checks basic mode's rule: a call argument follows a
// record of the same function, thread and process.
func TestWriterBasicArgs(t *testing.T) {
	fn := Record{Kind: KindFunction, Action: EnterArg, FuncID: 2, TID: 5, PID: 7}
	for _, c := range []struct {
		name string
		recs []Record
	}{
		{"argument first", []Record{{Kind: KindCallArg, FuncID: 2, TID: 5, PID: 7}}},
		{"other function", []Record{fn, {Kind: KindCallArg, FuncID: 3, TID: 5, PID: 7}}},
		{"other thread", []Record{fn, {Kind: KindCallArg, FuncID: 2, TID: 6, PID: 7}}},
		{"other process", []Record{fn, {Kind: KindCallArg, FuncID: 2, TID: 5, PID: 8}}},
	} {
		var buf bytes.Buffer
		wr, _ := NewWriter(&buf, Header{Version: 3, Type: TypeBasic})
		var err error
		for i := range c.recs {
			if err = wr.Write(&c.recs[i]); err != nil {
				break
			}
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestWriterCheckChangesNothing writes the fixtures with Check called on
// every record first: the bytes are those written without it.
func TestWriterCheckChangesNothing(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.xray")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h, recs := readRecords(t, data)
		var with, without bytes.Buffer
		for _, check := range []bool{false, true} {
			out := &without
			if check {
				out = &with
			}
			wr, err := NewWriter(out, h)
			if err != nil {
				t.Fatal(err)
			}
			wr.KeepCutCount = true
			for i := range recs {
				if check {
					if err := wr.Check(&recs[i]); err != nil {
						t.Fatalf("%s: Check: %v", f, err)
					}
				}
				if err := wr.Write(&recs[i]); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
			}
			if err := wr.Close(); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		if !bytes.Equal(with.Bytes(), without.Bytes()) || !bytes.Equal(without.Bytes(), data) {
			t.Errorf("%s: Check changed what was written", f)
		}
	}
}

// TestWriterRefusalKeepsLog writes fdr_simple.xray, then a record that
// does not fit its fields: the refusal leaves the log Close writes as it
// was, byte for byte, and Flush and Close return the refusal.
func TestWriterRefusalKeepsLog(t *testing.T) {
	data := testutil.ReadFile(t, "testdata/fdr_simple.xray")
	h, recs := readRecords(t, data)
	var buf bytes.Buffer
	wr, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := wr.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	refusal := wr.Write(&Record{Kind: KindFunction, FuncID: 1 << 28})
	if !errors.Is(refusal, ErrInvalid) {
		t.Fatalf("Write: %v", refusal)
	}
	if err := wr.Write(&recs[len(recs)-1]); err != refusal {
		t.Errorf("Write after the refusal: %v", err)
	}
	if err := wr.Flush(); err != refusal {
		t.Errorf("Flush: %v, want the refusal", err)
	}
	if err := wr.Close(); err != refusal {
		t.Errorf("Close: %v, want the refusal", err)
	}
	if !bytes.Equal(buf.Bytes(), data) {
		t.Errorf("wrote %d bytes, want the %d of the log", buf.Len(), len(data))
	}
}
