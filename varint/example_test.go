package varint_test

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/tracefmt/tracefmt/varint"
)

func Example() {
	b := varint.Append(nil, 300)
	v, n := varint.Consume(b)
	fmt.Printf("% x -> %d in %d bytes\n", b, v, n)
	// Output: ac 02 -> 300 in 2 bytes
}

// The Go runtime writes each batch length as a ten-byte varint so it can
// fill it in after the batch; a writer reproducing such a file keeps the
// width it read.
func ExampleAppendPadded() {
	b, err := varint.AppendPadded(nil, 300, 10)
	fmt.Printf("% x %v\n", b, err)
	v, n := varint.Consume(b)
	fmt.Println(v, n)
	// Output:
	// ac 82 80 80 80 80 80 80 80 00 <nil>
	// 300 10
}

func ExampleConsume_errors() {
	_, n := varint.Consume([]byte{0x80, 0x80})
	fmt.Println("cut short:", n)
	_, n = varint.Consume(bytes.Repeat([]byte{0xff}, 11))
	fmt.Println("overflow:", n)
	// Output:
	// cut short: 0
	// overflow: -10
}

func ExampleRead() {
	r := bufio.NewReader(bytes.NewReader([]byte{0x01, 0xac, 0x02, 0x80}))
	for {
		v, err := varint.Read(r)
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println(v)
	}
	// Output:
	// 1
	// 300
	// unexpected EOF
}
