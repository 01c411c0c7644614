// Package instrmap reads XRay instrumentation maps, the table of function
// ids to addresses that llvm-xray needs to name the functions of a log,
// and names functions as llvm-xray's symbolizer does.
//
// Open reads the map straight from an instrumented ELF executable, shared
// object or relocatable object (x86-64 and AArch64; ReadELF), or from the
// YAML llvm-xray extract writes (ReadYAML); anything else is ErrNotMap, a
// damaged ELF object ErrELF. Sleds, relocations and function ids come out
// as llvm-xray 14 and 19 compute them, and binaries with typed-event
// sleds, which llvm-xray 14 refuses, are read.
//
// Map.Name names a function as llvm-xray's symbolizer does: the symbol
// table (or the dynamic one) first, DWARF for addresses no symbol covers,
// demangled by the module's Itanium demangler (Demangle), spelt as
// llvm-xray 19's (">>") or, with Map.LLVM set to LLVM14, 14's ("> >").
// Map.WriteYAML prints llvm-xray extract [--symbolize] [--no-demangle],
// and with xrayfdr.WriteYAMLNames, Map.Name gives convert --symbolize,
// byte for byte (tested against llvm-xray-14 on binaries clang++-14
// builds -O0/-O2, with and without -g, PIE or not, a shared object,
// AArch64 and x86-64 objects, without a symbol table; against
// llvm-xray-14 and -19 on programs clang++-14 and clang++-19 build). With
// a YAML map, names come from its function-name fields, where llvm-xray
// prints "@(address)". A Namer names ids and their source locations as
// llvm-xray's analyses do (the line table's file, line and column of a
// function's entry; the symbol table's file only where DWARF names none).
//
// # Limits
//
// Reading a map checks every size in the ELF object against the file's,
// so memory stays in proportion to it; a YAML map's lines are at most
// 1 MiB (longer: ErrTooLarge).
//
// # Errors
//
// An ELF object whose map cannot be read is an error wrapping ErrELF,
// ErrMachine or ErrNoSection, a *FormatError where a byte offset says
// where; a YAML map that cannot be read is a *SyntaxError with the line,
// wrapping ErrNotMap or ErrTooLarge. A nil reader or writer is ErrNotOpen.
package instrmap
