// Package nilpkg is what CheckNilArgs's own test reads: the exported
// declarations of a package.
package nilpkg

// Safe refuses nil.
func Safe(p *int) error { return nil }

// Panics dereferences p.
func Panics(p *int) int { return *p }

// Forgotten is left out of the test's list.
func Forgotten() {}

// T is a value type.
type T struct{ n []int }
