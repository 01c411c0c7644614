package gotraceraw

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
	"github.com/tracefmt/tracefmt/internal/testutil/gorecord"
)

// TestRecorded records traces with the Go toolchain on the machine and
// compares our text form with `go tool trace -d=wire` run now, and checks
// the round trips.
func TestRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("records traces")
	}
	minor := testutil.GoMinor(t)
	if minor < 24 {
		t.Skipf("needs `go tool trace -d=wire` of Go 1.24 or later; the go command here is Go 1.%d", minor)
	}
	for _, tc := range []struct {
		name, mode, godebug string
	}{
		{"all", "all", ""},
		// Experimental events, and generations of 2 ms.
		{"allocfree-gens", "light", "traceallocfree=1,traceadvanceperiod=2000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := gorecord.Workload(tc.mode)
			p.Env = []string{"GODEBUG=" + tc.godebug}
			data := gorecord.Record(t, gorecord.Local, p)
			file := filepath.Join(t.TempDir(), tc.name+".trace")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			cmd := gorecord.Command(t, gorecord.Local, "tool", "trace", "-d=wire", file)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("go tool trace -d=wire: %v\n%s", err, stderr.Bytes())
			}
			v, evs := readEvents(t, data)
			want := append([]byte("Trace "+v.String()+"\n"), stdout.Bytes()...)
			got, err := toText(data)
			if err != nil {
				t.Fatal(err)
			}
			testutil.DiffText(t, "text of "+tc.name, want, got)

			back, err := wireToWire(data)
			if err != nil || !bytes.Equal(back, data) {
				t.Errorf("wire round trip: %v, %d bytes, want %d", err, len(back), len(data))
			}
			padded, err := toWire(want, true)
			if err != nil || !bytes.Equal(padded, data) {
				t.Errorf("text to wire: %v, %d bytes, want %d", err, len(padded), len(data))
			}

			// What the recording was meant to hold.
			seen := map[EventType]int{}
			deepest := 0
			for _, e := range evs {
				seen[e.Type]++
				deepest = max(deepest, e.NumFrames())
			}
			if tc.mode == "all" && deepest < 128 {
				t.Errorf("deepest stack has %d frames, want the runtime's 128", deepest)
			}
			mustSee := []EventType{EvGoCreate, EvGoStart, EvGoBlock, EvGoUnblock, EvGCBegin, EvStack, EvString}
			if minor >= 26 {
				mustSee = append(mustSee, EvEndOfGeneration)
			}
			if tc.mode == "all" {
				mustSee = append(mustSee, EvGoSyscallBegin, EvUserTaskBegin, EvUserRegionBegin, EvUserLog, EvCPUSample)
			} else {
				mustSee = append(mustSee, EvHeapObjectAlloc, EvSpanAlloc, EvExperimentalBatch)
			}
			for _, typ := range mustSee {
				if seen[typ] == 0 {
					t.Errorf("no %v event in the recording", typ)
				}
			}
			if tc.mode != "all" && minor >= 26 && seen[EvEndOfGeneration] < 2 {
				t.Errorf("%d generations, want several", seen[EvEndOfGeneration])
			}
			t.Logf("%d bytes, %d events, %d generations", len(data), len(evs), seen[EvEndOfGeneration])
		})
	}
}
