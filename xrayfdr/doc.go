// Package xrayfdr reads and writes LLVM XRay logs: flight data recorder
// (FDR) logs of versions 1 to 5 and basic-mode logs of versions 1 to 3.
//
// This is a placeholder while the package is built; see the final doc.
package xrayfdr
