package cbfjson

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracefmt/tracefmt/cbf"
	"github.com/tracefmt/tracefmt/internal/testutil"
)

// FuzzRead reads any bytes as JSON backtraces within a small bound: no
// panic, every object given is one that decodes again to the same record
// bytes through MarshalJSON, and an error or the end comes.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"crash.json", "two.json"} {
		data, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(f), "examples", "cbfdump", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"architecture": "arm64", "backtrace": "AhV-_w=="}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		read(bytes.NewReader(data), 4<<10, func(n int, bt *cbf.Backtrace) error {
			j, err := bt.MarshalJSON()
			if err != nil {
				t.Fatalf("backtrace %d does not encode: %v", n, err)
			}
			var again cbf.Backtrace
			if err := again.UnmarshalJSON(j); err != nil || !bytes.Equal(again.Backtrace, bt.Backtrace) || !bytes.Equal(again.ImageMap, bt.ImageMap) {
				t.Fatalf("backtrace %d does not read back: %v", n, err)
			}
			bt.Frames()
			bt.Images()
			return nil
		})
	})
}
