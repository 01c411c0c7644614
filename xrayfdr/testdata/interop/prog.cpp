// Small XRay-instrumented program for xrayfdr's interop test: the test
// builds it with clang++-14 and clang++-19 -fxray-instrument, runs it in
// FDR mode (argument "fdr") and in basic mode (no argument), and compares
// our reading of the logs it writes with llvm-xray-14's and -19's.
// Built with -DNO_TYPED_EVENT (for clang++-19) it writes no typed event:
// compiler-rt 19's FDR mode crashes in FDRLogWriter::writeTypedEvent.
//
// FDR mode must be started and flushed by the program; basic mode is
// started by the runtime (XRAY_OPTIONS=xray_mode=xray-basic) and written
// at exit.
#include <cstdio>
#include <cstring>
#include <thread>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int leaf(int x) { return x * 3 + 1; }
NOINLINE int fib(int n) { return n < 2 ? leaf(n) : fib(n - 1) + fib(n - 2); }
[[clang::xray_log_args(1)]] NOINLINE int with_arg(long v) { return leaf(int(v)); }
NOINLINE int tail_target(int x) { return leaf(x) + 1; }
NOINLINE int tail_caller(int x) { return tail_target(x + 1); }
[[clang::xray_always_instrument]] NOINLINE int custom(int x) {
  static const char msg[] = "custom #1, 'quoted'";
  int r = leaf(x);
  __xray_customevent(msg, sizeof msg - 1);
  return r;
}
[[clang::xray_always_instrument]] NOINLINE void typed() {
  static const char payload[] = {'t', 'y', '\n', '\x00', '\xff'};
  __xray_typedevent(5, payload, sizeof payload);
}

NOINLINE int work(int seed) {
  int s = 0;
  for (int i = 0; i < 20; i++) s += fib(6 + (i + seed) % 3);
  s += with_arg(0x1234 + seed) + with_arg(-1);
  s += tail_caller(seed);
  s += custom(seed);
  return s;
}

[[clang::xray_never_instrument]] int main(int argc, char **argv) {
  bool fdr = argc > 1 && std::strcmp(argv[1], "fdr") == 0;
  if (fdr && __xray_log_init_mode("xray-fdr", "") != XRayLogInitStatus::XRAY_LOG_INITIALIZED) {
    std::fprintf(stderr, "xray-fdr init failed\n");
    return 1;
  }
  int a = 0, b = 0;
  if (fdr) {
    // the LLVM 14 runtime leaves each typed event's 16-byte marker out of
    // the buffer extents: enough whole records must follow it
#ifndef NO_TYPED_EVENT
    typed();
#endif
    for (int i = 0; i < 4; i++) a += leaf(i);
  }
  std::thread t1([&] { a = work(1); });
  std::thread t2([&] { b = work(2); });
  t1.join();
  t2.join();
  std::printf("%d\n", a + b);
  if (fdr) {
    __xray_log_finalize();
    __xray_log_flushLog();
  }
  return 0;
}
