// Test program for the file:line:col prefix of account: header-defined
// internal functions (m_hdr.h), std::function instantiated with lambdas
// (internal linkage, defined in libstdc++'s headers) and nested templates
// (">>" in LLVM 19's demangling, "> >" in LLVM 14's). The analysis tests
// build it with clang++-14 and clang++-19 (-O0 -g -fxray-instrument), run
// it in FDR mode and compare account with llvm-xray-14's and -19's.
#include "m_hdr.h"
#include <cstdio>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int run(const std::function<int(int)> &f, int x) { return f(x); }
NOINLINE int nested(const std::vector<std::vector<int>> &v) { return int(v.size()); }

[[clang::xray_never_instrument]] int main() {
  if (__xray_log_init_mode("xray-fdr", "") != XRayLogInitStatus::XRAY_LOG_INITIALIZED) {
    std::fprintf(stderr, "xray-fdr init failed\n");
    return 1;
  }
  int s = 0;
  for (int i = 0; i < 3; i++) {
    s += twice(i) + helper(i);
    s += run([](int y) { return y + 1; }, i);
    s += run([&](int y) { return y * s; }, i);
    Box<int> b{i};
    s += b.get();
    std::vector<std::vector<int>> vv(2);
    s += nested(vv);
  }
  std::printf("%d\n", s);
  __xray_log_finalize();
  __xray_log_flushLog();
  return 0;
}
