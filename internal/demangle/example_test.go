package demangle_test

import (
	"fmt"

	"github.com/tracefmt/tracefmt/internal/demangle"
)

func ExampleDemangle() {
	s, err := demangle.Demangle("_ZNKSt6vectorIiSaIiEE4sizeEv")
	fmt.Println(s, err)
	_, err = demangle.Demangle("main")
	fmt.Println(err)
	// Output:
	// std::vector<int, std::allocator<int> >::size() const <nil>
	// demangle: offset 0: not a valid mangled name
}

func ExampleFilter() {
	for _, line := range []string{
		"_ZZ4mainENKUliE_clEi",
		"_Z3fooPKc.cold",
		"call _ZN3foo3barEv@plt",
		"printf",
	} {
		fmt.Println(demangle.Filter(line))
	}
	// Output:
	// main::'lambda'(int)::operator()(int) const
	// foo(char const*) (.cold)
	// call foo::bar()@plt
	// printf
}
