package instrmap

import "github.com/tracefmt/tracefmt/internal/demangle"

// demangleName is the module's Itanium C++ demangler (the one
// llvm-cxxfilt-14's output is the reference for).
func demangleName(name string) (string, error) {
	return demangle.Demangle(name)
}
