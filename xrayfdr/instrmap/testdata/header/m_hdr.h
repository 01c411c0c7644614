// Functions with internal linkage defined in a header: llvm-xray names
// the header in account's file:line:col prefix (the line table's file),
// not the compilation unit that the symbol table's STT_FILE names.
#pragma once
#include <functional>
#include <vector>

template <typename T> static T twice(T x) { return x + x; }
static inline int helper(int x) { return x * 3 + 1; }
namespace {
template <typename T> struct Box {
  T v;
  T get() const { return v; }
};
} // namespace
