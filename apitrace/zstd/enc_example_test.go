package zstd_test

import (
	"bytes"
	"fmt"
	"io"
	"log"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// A seekable file written in small frames, then one range read back:
// only the frame that holds it is decoded.
func ExampleSeekableWriter() {
	content := bytes.Repeat([]byte("glDrawArrays(GL_TRIANGLES, 0, 3)\n"), 100)
	var file bytes.Buffer
	w, err := zstd.NewSeekableWriter(&file, zstd.DefaultLevel)
	if err != nil {
		log.Fatal(err)
	}
	w.FrameSize = 1 << 10 // apitrace's frames are 2 MiB, the default
	if _, err := w.Write(content); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	s, err := zstd.OpenSeekable(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(s.Frames()), "frames,", s.Size(), "bytes of content")
	p := make([]byte, 13)
	if _, err := s.ReadAt(p, 1980); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q in frame %d\n", p, s.FrameAt(1980))
	// Output:
	// 4 frames, 3300 bytes of content
	// "glDrawArrays(" in frame 1
}

// One frame compressed at a high level and decoded again.
func ExampleEncoder() {
	data := bytes.Repeat([]byte("glXSwapBuffers(dpy = 0x1, drawable = 0x2)\n"), 1000)
	e, err := zstd.NewEncoder(19)
	if err != nil {
		log.Fatal(err)
	}
	frame := e.AppendFrame(nil, data)
	zr, err := zstd.NewReader(bytes.NewReader(frame))
	if err != nil {
		log.Fatal(err)
	}
	back, err := io.ReadAll(zr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(data), "bytes in a frame of", len(frame), "; same:", bytes.Equal(back, data))
	// Output:
	// 42000 bytes in a frame of 58 ; same: true
}
