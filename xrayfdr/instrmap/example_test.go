package instrmap_test

import (
	"fmt"

	"github.com/tracefmt/tracefmt/xrayfdr/instrmap"
)

// ExampleOpen reads the instrumentation map of an instrumented
// shared object and names its functions, as llvm-xray extract --symbolize
// does.
func ExampleOpen() {
	m, err := instrmap.Open("testdata/elf/libx.so")
	if err != nil {
		panic(err)
	}
	for id := range m.Functions {
		fmt.Println(id+1, m.Name(int32(id+1), true))
	}
	// Output:
	// 1 lib::square(long)
	// 2 lib_entry
	// 3 lib_always(int)
}
