package zstd_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/tracefmt/tracefmt/apitrace/zstd"
)

// frame is what `printf 'Hello, zstd! Hello, zstd! Hello, zstd!\n' | zstd -19 -c --no-check`
// writes (zstd 1.5.4).
var frame = []byte{
	0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x68, 0xa5, 0x00, 0x00, 0x70, 0x48, 0x65,
	0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x7a, 0x73, 0x74, 0x64, 0x21, 0x20, 0x0a,
	0x01, 0x00, 0xb0, 0xcc, 0x2f,
}

func ExampleReader() {
	zr, err := zstd.NewReader(bytes.NewReader(frame))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := io.Copy(os.Stdout, zr); err != nil {
		fmt.Println(err)
	}
	// Output: Hello, zstd! Hello, zstd! Hello, zstd!
}

func ExampleSeekable() {
	// A seekable file holding the frame twice, and its seek table.
	file := append(bytes.Clone(frame), frame...)
	var table []byte
	for range 2 {
		table = binary.LittleEndian.AppendUint32(table, uint32(len(frame))) // compressed size
		table = binary.LittleEndian.AppendUint32(table, 39)                 // decompressed size
	}
	table = binary.LittleEndian.AppendUint32(table, 2) // frames
	table = append(table, 0)                           // no checksums
	table = append(table, zstd.SeekableMagic[:]...)
	file = binary.LittleEndian.AppendUint32(file, 0x184D2A5E) // skippable frame
	file = binary.LittleEndian.AppendUint32(file, uint32(len(table)))
	file = append(file, table...)

	s, err := zstd.OpenSeekable(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		fmt.Println(err)
		return
	}
	i := s.FrameAt(50)
	f := s.Frames()[i]
	content, err := s.ReadFrame(nil, i)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("offset 50 is in frame %d (file offset %d, content offset %d): %q\n", i, f.Offset, f.DataOffset, content[50-f.DataOffset:])
	// Output: offset 50 is in frame 1 (file offset 29, content offset 39): "! Hello, zstd! Hello, zstd!\n"
}
