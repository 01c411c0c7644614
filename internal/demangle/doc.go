// Package demangle turns mangled C++ symbol names (the Itanium C++ ABI,
// used by GCC and Clang on every ELF and Mach-O platform) back into C++,
// printed byte for byte as llvm-cxxfilt-14 (Debian llvm-14) prints them,
// or with a Version's methods as llvm-cxxfilt-19 does.
//
// Demangle demangles one name and says when it is not a mangled name;
// Filter is what llvm-cxxfilt-14 prints for one line of input: each word
// that demangles is replaced, everything else is kept.
//
//	s, err := demangle.Demangle("_ZNKSt6vectorIiSaIiEE4sizeEv")
//	// s == "std::vector<int, std::allocator<int> >::size() const"
//
// # What is demangled
//
// Like llvm-cxxfilt-14 on Linux (which strips no leading underscore):
//
//   - names starting with "_Z": functions, data, special names (vtable,
//     VTT, typeinfo, typeinfo name, thunks, covariant return thunks,
//     construction vtables, guard variables, reference temporaries,
//     thread-local wrappers and initialisers, template parameter objects);
//     a trailing clone suffix is shown in parentheses: "_Z1fv.cold" is
//     "f() (.cold)", "_Z1fv.constprop.0" is "f() (.constprop.0)";
//   - block invocations "___Z…_block_invoke[_N]";
//   - import thunks "__imp_" followed by a mangled name or a type.
//
// Names starting with "__Z" or "____Z" are left alone, as llvm-cxxfilt-14
// leaves them. The whole grammar LLVM 14's demangler accepts is handled:
// nested and local names with discriminators, templates with type,
// literal, expression and pack arguments, substitutions, template
// parameters (including forward references from conversion operators and
// generic lambdas' "auto"), function, pointer, reference, array, vector,
// pointer-to-member and qualified types, cv- and ref-qualifiers,
// exception specifications, every operator name, constructors and
// destructors (including inheriting constructors), ABI tags, vendor
// qualifiers and types, decltype, pack expansions, fold expressions,
// closure and unnamed types, structured bindings, enable_if attributes,
// Objective-C protocol qualifiers.
//
// LLVM 14's spelling is kept where other demanglers differ: "'lambda'(int)"
// and "'lambda0'(int)" (not "{lambda(int)#1}"), "'unnamed'", "(anonymous
// namespace)", "> >" between closing template brackets, "std::string" for
// "Ss" except in a constructor or destructor name, where LLVM spells out
// "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
// every operand of an expression in parentheses ("((1) > (2))"),
// "(char)65" for character literals, "fp" and "fp0" for function
// parameters, floating literals printed with C's %a.
//
// # Limits
//
// Demangle never panics and never recurses without bound: parsing stops at
// 400 nested levels, printing at 600. Substitutions and pack expansions can
// make a short name demangle to an exponentially long one; the output is
// capped at 64 times the name's length plus 4 KiB, and the printing work at
// 256 steps a byte of the name plus 65536, beyond which Demangle returns an
// error wrapping ErrTooLarge (and Filter keeps the name). No real symbol
// comes near either limit (the largest ratio seen is 22).
//
// Errors are *Error values wrapping ErrInvalid or ErrTooLarge with the
// offset in the name where parsing stopped. The functions are safe for
// concurrent use.
//
// # LLVM 19
//
// LLVM19.Demangle and LLVM19.Filter print what llvm-cxxfilt-19 prints.
// LLVM's demangler changed its spelling since LLVM 14 in these ways, which
// LLVM19 follows:
//
//   - closing template brackets are not spaced:
//     "std::vector<int, std::allocator<int>>";
//   - expressions keep only the parentheses C++ needs, by precedence
//     ("decltype(fp + fp0 * 2)" where LLVM 14 prints
//     "decltype((fp) + ((fp0) * (2)))"), with a '>' directly inside
//     template arguments still in parentheses;
//   - a constructor or destructor of a class with an ABI tag is named
//     ("Widget[abi:v2]::Widget(int)"; LLVM 14 prints "Widget[abi:v2]::(int)");
//   - a leading "::" (mangled "gs") is printed on names and new-expressions
//     in expressions, "delete" is followed by a space;
//   - manglings LLVM 14 does not read: _BitInt(N), "operator co_await",
//     template arguments declared with their parameter ("TnN...E", which
//     clang 17 on writes in libstdc++'s constructors) or with a concept
//     ("Tk"), explicit object parameters ("NH": "S::f(this S)"), C++20
//     modules ("W": "Thing@mymod::get() const", "initializer for module
//     mymod"), requires-clauses ("Q", printed after a function's or a
//     lambda's parameters, not in template arguments), printed with LLVM 19's
//     quirks ("std::_Index_tuple<...>" for an empty pack so declared, a
//     template parameter in a requires-clause as mangled: "requires
//     C<T>"); LLVM 19 in turn refuses a function named "operator->*".
//
// LLVM 19 also forgets the template arguments of a local entity once it
// has read its name, and so refuses a function whose parameters refer to
// them, as clang's generic lambdas in a function do
// ("_ZZ4mainENK3$_0clIiEEDaT_"; LLVM 14 prints
// "auto main::$_0::operator()<int>(int) const"); LLVM19 does the same.
//
// Measured on the 128,508 dynamic C++ symbols of a Debian machine's 454
// libraries, libstdc++ and libLLVM-19 among them, and on 30,372 symbols of
// LLVM 19's static libraries (with internal names and lambdas), on
// 2026-11-26: every one identical to llvm-cxxfilt-19 (585 of the first
// spelt otherwise than LLVM 14's output with tight brackets).
//
// # Compared with llvm-cxxfilt-14
//
// Tested on every defined dynamic C++ symbol ("_Z…") of the shared libraries
// of the 446 shared libraries of a Debian machine with llvm-14 installed
// (libstdc++, libLLVM-14, libclang-cpp, ICU, Abseil...: 99,786 names), on the
// 150,762 C++ symbols of its static libraries (libLLVM*.a, libclang*.a,
// with internal names, lambdas and ".cold" clones), on 103,854 more C++
// symbols that the machine's programs and LLVM tools define or import, on
// 193,199 dynamic symbols of any kind, and on 250,000 mutated and spliced
// names, most of them invalid: every output is identical (0 differences).
//
// Known differences, none of which occur in those libraries:
//
//   - Rust v0 names ("_R…"), which llvm-cxxfilt-14 also demangles, are left
//     alone: this is a C++ demangler.
//   - Names nested deeper than the limits above, or whose demangling is
//     far longer than the name, are refused; llvm-cxxfilt-14 prints them
//     (or runs out of memory).
//   - llvm-cxxfilt's -t (demangle bare types) and -_ (strip an underscore)
//     options have no counterpart.
package demangle
