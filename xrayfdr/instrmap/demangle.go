package instrmap

import "github.com/tracefmt/tracefmt/internal/demangle"

// demangleName is the module's Itanium C++ demangler, spelling as
// llvm-cxxfilt-19 does; demangleName14 as llvm-cxxfilt-14 does.
func demangleName(name string) (string, error) {
	return demangle.LLVM19.Demangle(name)
}

func demangleName14(name string) (string, error) {
	return demangle.LLVM14.Demangle(name)
}
