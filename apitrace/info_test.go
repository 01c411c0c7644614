package apitrace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracefmt/tracefmt/internal/testutil"
)

// checkInfo compares our summary of trace with apitrace info's JSON
// output, on the fields where apitrace is right. It returns ours.
func checkInfo(t *testing.T, trace string, apitraceJSON []byte) Info {
	t.Helper()
	var want Info
	if err := json.Unmarshal(apitraceJSON, &want); err != nil {
		t.Fatalf("apitrace info output: %v", err)
	}
	got, err := ReadInfoFile(trace, len(want.Frames) > 0)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%s: %v", trace, err)
	}
	if want.FramesCount == 0 && len(want.Frames) == 1 && want.Frames[0] == (FrameInfo{}) {
		// apitrace prints "Frames": [{ }] for a trace without frames.
		want.Frames = []FrameInfo{}
	}
	// apitrace prints neither these nor a FileName we can predict.
	want.FileName = got.FileName
	want.Version, want.SemanticVersion, want.Properties = got.Version, got.SemanticVersion, got.Properties
	want.CallsCount, want.IncompleteCalls = got.CallsCount, got.IncompleteCalls
	// apitrace's gzip sizes come from its reader's position, which is not
	// the stream size (TestInfoGzipSize checks ours).
	if want.ContainerType == "ZLib" {
		want.ActualDataSize = got.ActualDataSize
		for i := range want.Frames {
			if i < len(got.Frames) {
				want.Frames[i].SizeInBytes = got.Frames[i].SizeInBytes
			}
		}
	}
	testutil.Diff(t, filepath.Base(trace), want, got)
	return got
}

// TestInfoGoldens compares ReadInfo with apitrace info's output saved by
// testdata/dump/gen.sh.
func TestInfoGoldens(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("testdata", "dump", "*.info.json"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no info goldens (%v)", err)
	}
	for _, g := range goldens {
		trace := strings.TrimSuffix(g, ".info.json") + ".trace"
		t.Run(filepath.Base(trace), func(t *testing.T) {
			checkInfo(t, trace, testutil.ReadFile(t, g))
		})
	}
}

// TestInfoAgainstApitrace runs apitrace info on the shared fixtures and
// compares (TestDumpAgainstApitrace does the same on recorded traces).
func TestInfoAgainstApitrace(t *testing.T) {
	traces, _ := filepath.Glob(filepath.Join(testutil.SharedFixture(t, "apitrace"), "*.trace"))
	for _, trace := range traces {
		t.Run(filepath.Base(trace), func(t *testing.T) {
			checkRealInfo(t, trace)
		})
	}
}

// Files cut before the stream's header still name their container, as
// apitrace info does (a glxgears killed before its first call leaves one).
// apitrace 11.1 reads no zstd, so there is no zstd case.
func TestInfoCutBeforeHeader(t *testing.T) {
	dir := t.TempDir()
	for i, head := range []string{"", "a", "at", "at\x01", "\x1f\x8b", "xyz"} {
		trace := filepath.Join(dir, fmt.Sprintf("cut%d.trace", i))
		if err := os.WriteFile(trace, []byte(head), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("%q", head), func(t *testing.T) { checkRealInfo(t, trace) })
	}
}

// TestInfoGzipSize checks ActualDataSize on gzip, where apitrace info is
// wrong: zlib-no-eof.trace holds 2,395 stream bytes before its cut (1,250
// says apitrace).
// checkRealInfo runs apitrace info on trace (with its frames when the
// trace is small) and compares our summary with it.
func checkRealInfo(t *testing.T, trace string) {
	t.Helper()
	args := []string{"info", trace}
	if st, err := os.Stat(trace); err == nil && st.Size() < 1<<20 {
		args = []string{"info", "--dump-frames", trace}
	}
	out, err := exec.Command(testutil.Tool(t, "apitrace"), args...).Output()
	if err != nil {
		t.Fatalf("apitrace info: %v", err)
	}
	checkInfo(t, trace, out)
}

func TestInfoGzipSize(t *testing.T) {
	info, err := ReadInfoFile(filepath.Join("testdata", "dump", "zlib-no-eof.trace"), true)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("error %v, want one wrapping io.ErrUnexpectedEOF", err)
	}
	if info.ActualDataSize != 2395 || info.ContainerSize != 1981 || info.CallsCount != 32 {
		t.Errorf("ActualDataSize %d, ContainerSize %d, CallsCount %d; want 2395, 1981, 32",
			info.ActualDataSize, info.ContainerSize, info.CallsCount)
	}
}

// TestInfoWriteJSON checks that WriteJSON reproduces apitrace info's text
// byte for byte where apitrace is right: snappy traces with frames.
func TestInfoWriteJSON(t *testing.T) {
	goldens, _ := filepath.Glob(filepath.Join("testdata", "dump", "*.info.json"))
	checked := 0
	for _, g := range goldens {
		want := testutil.ReadFile(t, g)
		var w Info
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if w.ContainerType != "Snappy" || w.FramesCount == 0 {
			continue
		}
		info, err := ReadInfoFile(strings.TrimSuffix(g, ".info.json")+".trace", true)
		if err != nil {
			t.Fatal(err)
		}
		info.FileName = w.FileName
		var got bytes.Buffer
		if err := info.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		testutil.DiffText(t, filepath.Base(g), want, got.Bytes())
		checked++
	}
	if checked < 2 {
		t.Errorf("only %d goldens checked", checked)
	}
}

func TestInfoJSON(t *testing.T) {
	info := Info{FileName: "a<b>.trace", ContainerVersion: 6, ContainerType: "Snappy", API: infoAPIGL}
	var b bytes.Buffer
	if err := info.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"FileName": "a<b>.trace",`)) || !bytes.HasSuffix(b.Bytes(), []byte("}\n")) ||
		bytes.Contains(b.Bytes(), []byte(`"Frames":`)) || !json.Valid(b.Bytes()) {
		t.Errorf("JSON:\n%s", b.Bytes())
	}
	info.Frames = []FrameInfo{}
	b.Reset()
	if err := info.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"Frames": []`)) || !json.Valid(b.Bytes()) {
		t.Errorf("JSON without frames:\n%s", b.Bytes())
	}
	for name, want := range map[string]string{
		"glXChooseVisual": infoAPIGL, "wglCreateContext": infoAPIGL, "wglx": "", "CGLChoosePixelFormat": infoAPIGL,
		"eglGetDisplay": infoAPIEGL, "eglx": "", "Direct3DCreate9": infoAPIDX, "D3D11CreateDevice": infoAPIDX,
		"CreateDXGIFactory": infoAPIDX, "glClear": "",
	} {
		if got := infoAPI(name); got != want {
			t.Errorf("infoAPI(%s) = %q, want %q", name, got, want)
		}
	}
}
