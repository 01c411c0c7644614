package instrmap_test

import (
	"fmt"
	"os"
	"strings"

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

// ExampleMap_WriteYAML prints a map as llvm-xray extract --symbolize does,
// and reads the text back.
func ExampleMap_WriteYAML() {
	m, err := instrmap.Open("testdata/elf/libx.so")
	if err != nil {
		panic(err)
	}
	var text strings.Builder
	if err := m.WriteYAML(&text, true, true); err != nil {
		panic(err)
	}
	os.Stdout.WriteString(text.String())
	back, err := instrmap.ReadYAML(strings.NewReader(text.String()))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(back.Sleds), "sleds,", back.Name(3, true))
	// Output:
	// ---
	// - { id: 1, address: 0x1100, function: 0x1100, kind: function-enter, always-instrument: false, function-name: 'lib::square(long)', version: 2 }
	// - { id: 1, address: 0x1112, function: 0x1100, kind: function-exit, always-instrument: false, function-name: 'lib::square(long)', version: 2 }
	// - { id: 2, address: 0x1120, function: 0x1120, kind: function-enter, always-instrument: false, function-name: lib_entry, version: 2 }
	// - { id: 2, address: 0x1134, function: 0x1120, kind: function-exit, always-instrument: false, function-name: lib_entry, version: 2 }
	// - { id: 3, address: 0x1140, function: 0x1140, kind: function-enter, always-instrument: true, function-name: 'lib_always(int)', version: 2 }
	// - { id: 3, address: 0x114E, function: 0x1140, kind: function-exit, always-instrument: true, function-name: 'lib_always(int)', version: 2 }
	// ...
	// 6 sleds, lib_always(int)
}
