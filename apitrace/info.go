package apitrace

import (
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
)

// Info summarises a trace the way `apitrace info` (11.1) does, with the
// same JSON field names first, then fields apitrace does not print.
//
// apitrace info's known mistakes, and what Info does instead:
//   - "ContainerVersion" holds the semantic version of the stream, not a
//     container version; Info keeps that meaning for drop-in use and adds
//     Version and SemanticVersion under their own names.
//   - "ActualDataSize" is the reader's position at the end, which is the
//     decompressed size for snappy but not for gzip (for a gzip trace
//     whose stream is 151,513 bytes, apitrace says 116,457); Info counts
//     decompressed bytes for every container.
//   - "FileName" is printed without JSON escaping; WriteJSON escapes it.
//   - A trace without frames gets "Frames": [{ }] with --dump-frames;
//     WriteJSON writes "Frames": [].
//   - Its frames leave out the calls after the last frame-ending call;
//     Info counts them in CallsCount but, like apitrace, lists only
//     complete frames.
type Info struct {
	FileName string `json:"FileName,omitempty"`
	// ContainerVersion is apitrace's name for the semantic version.
	ContainerVersion uint64
	// ContainerType is "Snappy", "ZLib" (gzip), "Brotli", "Zstandard
	// (seekable)" (apitrace master's name) or "Zstandard".
	ContainerType string
	// API is guessed, as apitrace does, from the first function whose name
	// starts with glX, wgl, CGL (OpenGL), egl (EGL), or Direct, D3D, Create
	// (DirectX).
	API string
	// FramesCount counts the calls that end a frame (glXSwapBuffers,
	// eglSwapBuffers, ...; see NameEndFrame).
	FramesCount uint64
	// ActualDataSize is the size of the decompressed stream.
	ActualDataSize int64
	// ContainerSize is the size of the file, every byte counted. For a
	// seekable zstd trace apitrace master prints the sum of the frames'
	// compressed sizes instead, which leaves out the seek table at the
	// end; Info counts the whole file, as for every other container.
	ContainerSize int64

	// Version is the stream's version_no.
	Version uint64
	// SemanticVersion is the version whose conventions the calls follow.
	SemanticVersion uint64
	// Properties are the header's properties (version 6).
	Properties map[string]string `json:",omitempty"`
	// CallsCount counts every call read, IncompleteCalls those whose leave
	// event never came.
	CallsCount      uint64
	IncompleteCalls uint64
	// Frames lists each frame when asked for (apitrace info --dump-frames).
	Frames []FrameInfo `json:",omitempty"`
}

// FrameInfo describes one frame: its first and last (frame-ending) call
// numbers, how many calls it holds and how many bytes of the decompressed
// stream its calls take.
type FrameInfo struct {
	FirstCallId uint64
	LastCallId  uint64
	TotalCalls  uint64
	SizeInBytes int64
}

// The API names apitrace info prints.
const (
	infoAPIUnknown = "Unknown API"
	infoAPIGL      = "OpenGL + GLX/WGL/CGL"
	infoAPIEGL     = "OpenGL/GLES1/GLES2/VG + EGL"
	infoAPIDX      = "DirectX"
)

// infoAPI returns the API apitrace guesses from a function name, or "".
func infoAPI(n string) string {
	upper := func(i int) bool { return len(n) > i && n[i] >= 'A' && n[i] <= 'Z' }
	switch {
	case strings.HasPrefix(n, "glX"), strings.HasPrefix(n, "wgl") && upper(3), strings.HasPrefix(n, "CGL"):
		return infoAPIGL
	case strings.HasPrefix(n, "egl") && upper(3):
		return infoAPIEGL
	case strings.HasPrefix(n, "Direct"), strings.HasPrefix(n, "D3D"), strings.HasPrefix(n, "Create"):
		return infoAPIDX
	}
	return ""
}

// infoContainer returns apitrace's name for a container.
func infoContainer(c Container) string {
	switch c {
	case Snappy:
		return "Snappy"
	case Gzip:
		return "ZLib"
	case Brotli:
		return "Brotli"
	case Zstd:
		// apitrace master names only its seekable reader's container
		// (lib/trace/trace_file_zstd_seekable.cpp); this is the same
		// name without the qualifier.
		return "Zstandard"
	case ZstdSeekable:
		return "Zstandard (seekable)"
	}
	return c.String()
}

// infoCounter counts the bytes read through it.
type infoCounter struct {
	r    io.Reader
	n    int64
	head []byte // the first bytes read, to name the container of a trace cut before its header
}

func (c *infoCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if len(c.head) < 4 {
		c.head = append(c.head, p[:min(n, 4-len(c.head))]...)
	}
	c.n += int64(n)
	return n, err
}

// infoSeekCounter is an infoCounter that also seeks and reads at offsets,
// so that a seekable zstd trace is read through its seek table. The bytes
// read at offsets are not counted: reading what is left at the end counts
// them.
type infoSeekCounter struct {
	infoCounter
	io.ReaderAt
	io.Seeker
}

// ReadInfo reads a whole trace from r and summarises it; frames asks for
// the per-frame list. It returns the summary of what was read along with
// the error that stopped reading, if any (a trace cut short gives an error
// wrapping io.ErrUnexpectedEOF and the summary of every call before the
// cut). ContainerSize counts every byte of r.
func ReadInfo(r io.Reader, frames bool) (Info, error) {
	if r == nil {
		return Info{}, ErrNotOpen
	}
	cnt := &infoCounter{r: r}
	var in io.Reader = cnt
	ra, isAt := r.(io.ReaderAt)
	sk, isSeeker := r.(io.Seeker)
	if isAt && isSeeker {
		sc := &infoSeekCounter{infoCounter{r: r}, ra, sk}
		in, cnt = sc, &sc.infoCounter
	}
	info, err := readInfo(in, frames)
	if info.ContainerType == "" {
		// Cut before the stream's header: apitrace still names the
		// container from the first bytes (an empty file reads as Brotli,
		// its fallback) and the API as unknown.
		c, ok := Detect(cnt.head)
		if !ok && len(cnt.head) < 2 {
			c = Brotli
		}
		info.ContainerType, info.API = infoContainer(c), infoAPIUnknown
	}
	// The container may end before the file does (a snappy chunk of length
	// 0, the gzip trailer): count the rest too.
	if _, cerr := io.Copy(io.Discard, cnt); err == nil {
		err = cerr
	}
	info.ContainerSize = cnt.n
	return info, err
}

// ReadInfoFile summarises the trace file name, with FileName set.
func ReadInfoFile(name string, frames bool) (Info, error) {
	f, err := os.Open(name)
	if err != nil {
		return Info{FileName: name}, err
	}
	defer f.Close()
	info, err := ReadInfo(f, frames)
	info.FileName = name
	return info, err
}

func readInfo(r io.Reader, frames bool) (Info, error) {
	var info Info
	if frames {
		info.Frames = []FrameInfo{}
	}
	cr, err := NewCallReader(r)
	if err != nil {
		return info, err
	}
	h := cr.Header()
	info.ContainerVersion = h.SemanticVersion
	info.ContainerType = infoContainer(h.Container)
	info.Version, info.SemanticVersion = h.Version, h.SemanticVersion
	if len(h.Properties) > 0 {
		info.Properties = make(map[string]string, len(h.Properties))
		for _, p := range h.Properties {
			info.Properties[p.Name] = p.Value
		}
	}
	var (
		apiCall    uint64
		frameStart int64 // apitrace counts the first frame from the start of the stream
		frameFirst uint64
		frameCalls uint64
	)
	for {
		c, err := cr.Read()
		if err != nil {
			// Decompressed, not Offset: apitrace counts an event cut at
			// the end of the stream too.
			info.ActualDataSize = cr.Decompressed()
			if info.API == "" {
				info.API = infoAPIUnknown
			}
			if err == io.EOF {
				err = nil
			}
			return info, err
		}
		info.CallsCount++
		if c.Incomplete {
			info.IncompleteCalls++
		}
		if c.Sig == nil {
			continue
		}
		// Once the API is known only a call numbered before the one it
		// came from can change it: skip the name test for the others.
		if info.API == "" || c.No < apiCall {
			if a := infoAPI(c.Sig.Name); a != "" {
				info.API, apiCall = a, c.No
			}
		}
		f := c.Sig.Flags()
		if frameCalls == 0 {
			frameFirst = c.No
		}
		frameCalls++
		if f&NameEndFrame == 0 {
			continue
		}
		info.FramesCount++
		if frames {
			end := cr.Offset()
			info.Frames = append(info.Frames, FrameInfo{
				FirstCallId: frameFirst, LastCallId: c.No, TotalCalls: frameCalls, SizeInBytes: end - frameStart,
			})
			frameStart = end
		}
		frameCalls = 0
	}
}

// WriteJSON writes the summary in the layout of apitrace info's output:
// the same fields in the same order, indented the same way, so that for a
// snappy trace it matches apitrace info byte for byte (given the same file
// name). It differs where apitrace is wrong: the sizes of gzip traces, JSON
// escaping of the file name, and "Frames": [] instead of [{ }] for a trace
// without frames (Frames is written when frames were asked for, that is
// when Frames is not nil). The fields apitrace does not print are left out
// here; encoding/json writes all of them.
func (i *Info) WriteJSON(w io.Writer) error {
	if w == nil {
		return wrapf(ErrInvalid, "WriteJSON to a nil io.Writer")
	}
	b := []byte("{\n")
	field := func(name string, last bool, value []byte) {
		b = append(b, "  \""...)
		b = append(b, name...)
		b = append(b, "\": "...)
		b = append(b, value...)
		if !last {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	quote := func(s string) []byte {
		var q strings.Builder
		enc := json.NewEncoder(&q)
		enc.SetEscapeHTML(false)
		enc.Encode(s) // a string always encodes
		return []byte(strings.TrimSuffix(q.String(), "\n"))
	}
	num := func(v int64) []byte { return strconv.AppendInt(nil, v, 10) }
	field("FileName", false, quote(i.FileName))
	field("ContainerVersion", false, strconv.AppendUint(nil, i.ContainerVersion, 10))
	field("ContainerType", false, quote(i.ContainerType))
	field("API", false, quote(i.API))
	field("FramesCount", false, strconv.AppendUint(nil, i.FramesCount, 10))
	field("ActualDataSize", false, num(i.ActualDataSize))
	field("ContainerSize", i.Frames == nil, num(i.ContainerSize))
	if i.Frames != nil {
		b = append(b, "  \"Frames\": ["...)
		for k, f := range i.Frames {
			if k > 0 {
				b = append(b, ", "...)
			}
			b = append(b, "{\n    \"FirstCallId\": "...)
			b = strconv.AppendUint(b, f.FirstCallId, 10)
			b = append(b, ",\n    \"LastCallId\": "...)
			b = strconv.AppendUint(b, f.LastCallId, 10)
			b = append(b, ",\n    \"TotalCalls\": "...)
			b = strconv.AppendUint(b, f.TotalCalls, 10)
			b = append(b, ",\n    \"SizeInBytes\": "...)
			b = strconv.AppendInt(b, f.SizeInBytes, 10)
			b = append(b, "\n  }"...)
		}
		b = append(b, "]\n"...)
	}
	b = append(b, "}\n"...)
	_, err := w.Write(b)
	return err
}
