package xrayfdr

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/xrayfdr/internal/xraytest"
)

// rewrite reads data and writes every record it reads back; it returns the
// bytes written and the offset where reading stopped, the reader's error
// and the Writer's refusal (a log llvm-xray does not read is refused).
func rewrite(t testing.TB, data []byte, force bool) ([]byte, int64, error, error) {
	rd := &Reader{ForceFDR: force}
	if err := rd.Reset(bytes.NewReader(data)); err != nil {
		return nil, 0, err, nil
	}
	var out bytes.Buffer
	wr, err := NewWriter(&out, rd.Header())
	if err != nil {
		return nil, 0, err, nil
	}
	wr.KeepCutCount = true // what was read, cut or not, is written back as it was
	var rerr error
	end := int64(HeaderSize)
	for {
		rec, err := rd.Read()
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
		if err := wr.Write(rec); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("write %v at %d: %v", rec.Kind, rec.Offset, err)
			}
			break
		}
		end = rd.Offset()
	}
	werr := wr.Close()
	if werr != nil && !errors.Is(werr, ErrInvalid) {
		t.Fatal(werr)
	}
	return out.Bytes(), end, rerr, werr
}

// hasBlock reports whether data is an FDR log with a NewBuffer record.
func hasBlock(data []byte) bool {
	rd, err := NewBytesReader(data)
	if err != nil || rd.Header().Type != TypeFDR {
		return false
	}
	for rec, err := range rd.All() {
		if err != nil {
			return false
		}
		if rec.Kind == KindNewBuffer {
			return true
		}
	}
	return false
}

// checkRewrite checks the rewrite of a log: byte for byte when the Writer
// took every record; else the log is one llvm-xray refuses, and what was
// written is one it reads (or the bare header, when nothing was left).
func checkRewrite(t testing.TB, data, got []byte, end int64, rerr, werr error) {
	t.Helper()
	if werr == nil {
		if !bytes.Equal(got, data[:end]) {
			t.Errorf("rewrite differs from the first %d bytes (got %d bytes)", end, len(got))
		}
		return
	}
	// What llvm-xray reads: an FDR log whose blocks verify. Verify, like
	// fdr-dump, would read a basic-mode log as FDR: such a log counts when
	// it was read whole, with records, and Close alone refused it.
	readable := Verify(data) == nil
	if parseHeader(data).Type == TypeBasic {
		readable = rerr == nil && end == int64(len(data)) && end > HeaderSize
	}
	if readable {
		t.Errorf("the Writer refuses a log llvm-xray reads: %v", werr)
	}
	if hasBlock(got) {
		if err := Verify(got); err != nil {
			t.Errorf("after the refusal %v, what was written does not verify: %v", werr, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, g := range goldens(t) {
		t.Run(g.name, func(t *testing.T) {
			if len(g.data) < HeaderSize {
				return
			}
			h := parseHeader(g.data)
			if (h.Type != TypeFDR || h.Version < 1 || h.Version > 5) && (h.Type != TypeBasic || h.Version > 3) {
				return // the Writer refuses what llvm-xray does not read
			}
			got, end, err, werr := rewrite(t, g.data, false)
			if err == nil && werr == nil && end != int64(len(g.data)) {
				t.Fatalf("read ended at %d of %d without error", end, len(g.data))
			}
			checkRewrite(t, g.data, got, end, err, werr)
		})
	}
}

// sample builds a small log of the given header with every record kind the
// version holds.
func sample(h Header) []Record {
	var recs []Record
	for tid := int32(7); tid < 9; tid++ {
		buf := []Record{
			{Kind: KindNewBuffer, TID: tid},
			{Kind: KindWallTime, Seconds: 100 + uint64(tid), Micros: 42},
		}
		if h.Version >= 3 {
			buf = append(buf, Record{Kind: KindPid, PID: 4321})
		}
		buf = append(buf,
			Record{Kind: KindNewCPU, CPU: 3, TSC: 1000 * uint64(tid)},
			Record{Kind: KindFunction, Action: Enter, FuncID: 1},
			Record{Kind: KindFunction, Action: EnterArg, FuncID: 2, Delta: 10},
			Record{Kind: KindCallArg, Arg: 0xdeadbeef},
			Record{Kind: KindFunction, Action: Exit, FuncID: 2, Delta: 20},
		)
		if h.Version >= 5 {
			buf = append(buf,
				Record{Kind: KindCustomEvent, Delta: 5, Data: []byte("custom 'q'")},
				Record{Kind: KindTypedEvent, Delta: -3, EventType: 9, Data: []byte{0, 1, 0xff}})
		} else {
			buf = append(buf, Record{Kind: KindCustomEvent, TSC: 1000*uint64(tid) + 31, CPU: 3, Data: []byte("ev")})
		}
		buf = append(buf,
			Record{Kind: KindTSCWrap, TSC: 1 << 40},
			Record{Kind: KindFunction, Action: TailExit, FuncID: 1, Delta: 0},
			Record{Kind: KindFunction, Action: Enter, FuncID: 1<<28 - 1, Delta: 1<<32 - 1},
			Record{Kind: KindFunction, Action: Exit, FuncID: 1<<28 - 1, Delta: 7},
		)
		if h.Version == 1 {
			buf = append(buf, Record{Kind: KindEndOfBuffer})
		}
		recs = append(recs, buf...)
	}
	return recs
}

func writeSample(t testing.TB, h Header) []byte {
	var out bytes.Buffer
	wr, err := NewWriter(&out, h)
	if err != nil {
		t.Fatal(err)
	}
	recs := sample(h)
	// one WriteBuffer per thread buffer
	start := 0
	for i := 1; i <= len(recs); i++ {
		if i == len(recs) || recs[i].Kind == KindNewBuffer {
			if err := wr.WriteBuffer(recs[start:i]); err != nil {
				t.Fatal(err)
			}
			start = i
		}
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestWriterEveryVersion(t *testing.T) {
	for _, big := range []bool{false, true} {
		for v := uint16(1); v <= 5; v++ {
			h := Header{Version: v, Type: TypeFDR, Flags: 3, CycleFrequency: 1e9, BigEndian: big}
			data := writeSample(t, h)
			rd, err := NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if rd.Header() != h {
				t.Fatalf("v%d big=%v: header %+v, want %+v", v, big, rd.Header(), h)
			}
			want := sample(h)
			var got []Record
			for rec, err := range rd.All() {
				if err != nil {
					t.Fatalf("v%d big=%v: %v", v, big, err)
				}
				if rec.Kind == KindBufferExtents {
					continue
				}
				c := rec.Clone()
				c.Raw, c.Offset = nil, 0
				got = append(got, *c)
			}
			testutil.Diff(t, "records", want, got)
			if err := Verify(data); err != nil {
				t.Errorf("v%d big=%v: verify: %v", v, big, err)
			}
			again, _, err, werr := rewrite(t, data, false)
			if err != nil || werr != nil || !bytes.Equal(again, data) {
				t.Errorf("v%d big=%v: rewrite differs (%v, %v)", v, big, err, werr)
			}
		}
	}
}

func TestWriterRefuses(t *testing.T) {
	if _, err := NewWriter(io.Discard, Header{Version: 6, Type: TypeFDR}); !errors.Is(err, ErrVersion) {
		t.Errorf("version 6: %v", err)
	}
	if _, err := NewWriter(io.Discard, Header{Version: 4, Type: TypeBasic}); !errors.Is(err, ErrVersion) {
		t.Errorf("basic version 4: %v", err)
	}
	for _, c := range []struct {
		rec  Record
		want error
	}{
		{Record{Kind: KindFunction, FuncID: 1 << 28}, ErrInvalid},
		{Record{Kind: KindFunction, FuncID: -1}, ErrInvalid},
		{Record{Kind: KindFunction, Delta: 1 << 32}, ErrInvalid},
		{Record{Kind: KindFunction, Action: 4}, ErrInvalid},
		{Record{Kind: KindCustomEvent}, ErrInvalid},
		{Record{Kind: KindTypedEvent, Data: []byte("x"), Delta: 1 << 31}, ErrInvalid},
		{Record{Kind: KindEndOfBuffer}, ErrInvalid},
		{Record{Kind: 10}, ErrInvalid},
		{Record{Kind: KindNewBuffer, Skipped: []byte{1}}, ErrInvalid},
		{Record{Kind: KindBufferExtents, Skipped: []byte{0x0f}}, ErrInvalid},
	} {
		wr, _ := NewWriter(io.Discard, Header{Version: 5, Type: TypeFDR})
		if err := wr.Write(&Record{Kind: KindBufferExtents}); err != nil {
			t.Fatal(err)
		}
		if err := wr.Write(&c.rec); !errors.Is(err, c.want) {
			t.Errorf("%+v: got %v, want %v", c.rec, err, c.want)
		}
		if err := wr.Write(&Record{Kind: KindPid}); !errors.Is(err, c.want) {
			t.Errorf("error not sticky: %v", err)
		}
	}
	wr, _ := NewWriter(io.Discard, Header{Version: 3, Type: TypeBasic})
	if err := wr.Write(&Record{Kind: KindFunction, CPU: 256}); !errors.Is(err, ErrInvalid) {
		t.Errorf("basic cpu 256: %v", err)
	}
	wr, _ = NewWriter(io.Discard, Header{Version: 3, Type: TypeBasic})
	if err := wr.Write(&Record{Kind: KindPid}); !errors.Is(err, ErrInvalid) {
		t.Errorf("basic pid: %v", err)
	}
}

// TestWriterLLVM writes a v5 log (and v1..v4) and checks that the real
// llvm-xray-14 and -19 fdr-dump -verify accept it and print what we print.
func TestWriterLLVM(t *testing.T) {
	for _, tl := range xraytest.Tools(t) {
		writerLLVM(t, tl)
	}
}

func writerLLVM(t *testing.T, tl xraytest.Tool) {
	tool := tl.Path
	dir := t.TempDir()
	for v := uint16(1); v <= 5; v++ {
		data := writeSample(t, Header{Version: v, Type: TypeFDR, Flags: 3, CycleFrequency: 1e9})
		p := filepath.Join(dir, "w.xray")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, verify := range []bool{false, true} {
			args := []string{"fdr-dump", p}
			if verify {
				args = []string{"fdr-dump", "-verify", p}
			}
			want, err := exec.Command(tool, args...).Output()
			if err != nil {
				t.Fatalf("v%d: llvm-xray %v: %v", v, args, err)
			}
			var got bytes.Buffer
			if verify {
				err = LLVM(tl.Major).DumpVerify(&got, data)
			} else {
				err = Dump(&got, bytes.NewReader(data))
			}
			if err != nil {
				t.Fatal(err)
			}
			testutil.DiffText(t, tl.Name()+" v"+string(rune('0'+v))+" "+args[len(args)-2], want, got.Bytes())
		}
	}
}

// TestRoundTripShared rewrites the big shared fixtures byte for byte.
func TestRoundTripShared(t *testing.T) {
	for _, name := range []string{"fdr_big.xray", "fdr_deep.xray", "basic_simple.xray"} {
		t.Run(name, func(t *testing.T) {
			data := testutil.ReadFile(t, testutil.SharedFixture(t, "xray/"+name))
			got, end, err, werr := rewrite(t, data, false)
			if err != nil || werr != nil || end != int64(len(data)) || !bytes.Equal(got, data) {
				t.Errorf("rewrite differs (read %d of %d bytes: %v, %v)", end, len(data), err, werr)
			}
		})
	}
}

// TestWriterLLVMAll writes FDR v1..v5 and basic v1..v3 logs and compares
// all three outputs (fdr-dump, -verify, convert YAML) of llvm-xray-14 and
// -19 with ours on them.
func TestWriterLLVMAll(t *testing.T) {
	for _, tool := range xraytest.Tools(t) {
		t.Run(tool.Name(), func(t *testing.T) { writerLLVMAll(t, tool) })
	}
}

func writerLLVMAll(t *testing.T, tool xraytest.Tool) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for v := uint16(1); v <= 5; v++ {
		p := write("fdr.xray", writeSample(t, Header{Version: v, Type: TypeFDR, Flags: 3, CycleFrequency: 1e9}))
		t.Run("fdr-v"+strconv.Itoa(int(v)), func(t *testing.T) { mustConvert(t, tool, p) })
	}
	// version 1 buffers were dumped whole: zeroed memory after EndOfBuffer
	// reads as "Enter #0" records, which the expander ignores
	var v1 bytes.Buffer
	wr, _ := NewWriter(&v1, Header{Version: 1, Type: TypeFDR, Flags: 3, CycleFrequency: 1e9})
	for _, r := range sample(Header{Version: 1}) {
		wr.Write(&r)
		if r.Kind == KindEndOfBuffer {
			for i := 0; i < 4; i++ {
				wr.Write(&Record{Kind: KindFunction})
			}
		}
	}
	wr.Close()
	p := write("v1-garbage.xray", v1.Bytes())
	t.Run("fdr-v1-garbage", func(t *testing.T) { mustConvert(t, tool, p) })

	for v := uint16(1); v <= 3; v++ {
		var buf bytes.Buffer
		wr, err := NewWriter(&buf, Header{Version: v, Type: TypeBasic, Flags: 3, CycleFrequency: 2e9})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range []Record{
			{Kind: KindFunction, Action: Enter, FuncID: 1, TSC: 100, TID: 5, PID: 9, CPU: 2},
			{Kind: KindFunction, Action: EnterArg, FuncID: -4, TSC: 150, TID: 6, PID: 9, CPU: 1},
			{Kind: KindCallArg, FuncID: -4, TID: 6, PID: 9, Arg: 77},
			{Kind: KindFunction, Action: TailExit, FuncID: 1, TSC: 140, TID: 5, PID: 9},
			{Kind: KindFunction, Action: Exit, FuncID: -4, TSC: 150, TID: 6, PID: 9},
		} {
			if v < 3 {
				r.PID = 0
			}
			if err := wr.Write(&r); err != nil {
				t.Fatal(i, err)
			}
		}
		wr.Close()
		p := write("basic.xray", buf.Bytes())
		t.Run("basic-v"+strconv.Itoa(int(v)), func(t *testing.T) { mustConvert(t, tool, p) })
	}
}

func mustConvert(t *testing.T, tool xraytest.Tool, path string) {
	if !compareWithLLVM(t, tool, path) {
		t.Errorf("%s cannot convert the log we wrote", tool.Name())
	}
}
