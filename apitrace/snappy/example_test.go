package snappy_test

import (
	"bytes"
	"fmt"

	"github.com/tracefmt/tracefmt/apitrace/snappy"
)

// Compress a block and decode it back, as apitrace's snappy container
// does with each chunk of a trace's stream.
func Example() {
	src := bytes.Repeat([]byte("glXSwapBuffers(dpy, drawable) "), 100)

	var enc snappy.Encoder // reuse it: its hash table is kept between blocks
	block := enc.Encode(nil, src)

	n, _, err := snappy.DecodedLen(block)
	if err != nil {
		panic(err)
	}
	// A trace's reader refuses blocks larger than it will hold.
	got, err := snappy.Decode(nil, block, 1<<20)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(src), "bytes in", len(block), "compressed;", n, "announced;", bytes.Equal(got, src))

	// A damaged block is refused, never misread.
	_, err = snappy.Decode(nil, block[:len(block)-1], 1<<20)
	fmt.Println(err)
	// Output:
	// 3000 bytes in 174 compressed; 3000 announced; true
	// snappy: corrupt block
}
