// Test program for the account, stack and graph goldens: several threads,
// recursion (direct and mutual), tail calls, logged arguments, custom
// events, C++ names (namespaces, templates, operators, lambdas).
// Build: clang++-14 -O1 -fxray-instrument -fxray-instruction-threshold=1 -pthread
// Run: prog [THREADS [ROUNDS [xray-fdr|xray-basic]]]
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NOINLINE __attribute__((noinline))

namespace calc {
NOINLINE int leaf(int x) { return x * 3 + 1; }
NOINLINE int mid(int x) { return leaf(x) + leaf(x + 1); }
NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
NOINLINE int odd(int n);
NOINLINE int even(int n) { return n == 0 ? 1 : odd(n - 1); }
NOINLINE int odd(int n) { return n == 0 ? 0 : even(n - 1); }
NOINLINE int tail_target(int x) { return leaf(x) * 2; }
NOINLINE int tail_caller(int x) { return tail_target(x + 7); }
template <typename T> NOINLINE T twice(T v) { return v + v; }
struct Vec {
  int x;
  NOINLINE Vec operator+(const Vec &o) const { return Vec{x + o.x}; }
};
} // namespace calc

[[clang::xray_always_instrument, clang::xray_log_args(1)]] NOINLINE int
with_arg(long v) { return (int)(v & 0xff) + calc::leaf((int)v); }

[[clang::xray_always_instrument]] NOINLINE void event(int i) {
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "event %d", i);
  __xray_customevent(buf, n);
}

NOINLINE int work(int id, int rounds) {
  int s = 0;
  auto sq = [](int v) NOINLINE { return v * v; };
  for (int i = 0; i < rounds; i++) {
    s += calc::mid(i);
    if (i % 4 == 0) s += calc::fib(5);
    if (i % 5 == 0) s += with_arg((long)id * 1000 + i);
    if (i % 7 == 0) s += calc::tail_caller(i);
    if (i % 9 == 0) s += calc::even(i % 6);
    if (i % 11 == 0) s += calc::twice(i) + (int)calc::twice(1.5);
    if (i % 13 == 0) s += (calc::Vec{i} + calc::Vec{id}).x + sq(i);
    if (i % 17 == 0) event(i);
  }
  return s;
}

[[clang::xray_never_instrument]] int main(int argc, char **argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 4;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 60;
  const char *mode = argc > 3 ? argv[3] : "xray-fdr";
  if (__xray_log_init_mode(mode, "") != XRayLogInitStatus::XRAY_LOG_INITIALIZED) {
    std::fprintf(stderr, "%s init failed\n", mode);
    return 1;
  }
  std::vector<std::thread> ts;
  std::vector<int> results(threads);
  for (int t = 0; t < threads; t++)
    ts.emplace_back([t, rounds, &results] { results[t] = work(t, rounds + t * 7); });
  int s = work(99, rounds / 2);
  for (auto &t : ts) t.join();
  for (int r : results) s += r;
  std::printf("%d\n", s);
  __xray_log_finalize();
  __xray_log_flushLog();
  return 0;
}
