package instrmap

import "github.com/tracefmt/tracefmt/internal/demangle"

// Demangle turns an Itanium C++ ABI name ("_Z...") into its readable
// form, spelt as llvm-cxxfilt-19 spells it, or returns an error when it
// cannot. Map.Name demangles with it when asked to, for a Map of the
// newest llvm-xray (a Map whose LLVM is LLVM14 spells as LLVM 14's
// demangler does instead). A program that wants another demangler asks
// Map.Name for the mangled name and demangles it itself.
func Demangle(name string) (string, error) {
	return demangle.LLVM19.Demangle(name)
}

// demangleName14 spells as llvm-cxxfilt-14 does.
func demangleName14(name string) (string, error) {
	return demangle.LLVM14.Demangle(name)
}
