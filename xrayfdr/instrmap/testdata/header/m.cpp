// Test program for the file:line:col prefix of account: header-defined
// internal functions (m_hdr.h), std::function instantiated with lambdas
// (internal linkage, defined in libstdc++'s headers), nested templates
// (">>" in LLVM 19's demangling, "> >" in LLVM 14's), and std::map and
// std::tuple, whose constructors clang++-19 mangles with template
// parameter declarations (TnN...) that only LLVM 15 on demangles. The analysis tests
// build it with clang++-14 and clang++-19 (-O0 -g -fxray-instrument), run
// it in FDR mode and compare account with llvm-xray-14's and -19's.
#include "m_hdr.h"
#include <cstdio>
#include <map>
#include <tuple>
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
    std::map<int, std::vector<int>> mm;
    mm[i].push_back(i);
    s += int(mm.size());
    auto t = std::make_tuple(i, 2.0, 'c');
    s += std::get<0>(t);
  }
  std::printf("%d\n", s);
  __xray_log_finalize();
  __xray_log_flushLog();
  return 0;
}
