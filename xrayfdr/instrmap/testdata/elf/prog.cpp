// An instrumented C++ program for the instrumentation-map tests: names in
// namespaces, templates, lambdas, operators, virtual functions, a
// logged argument, a tail call and a custom event. Built by make.sh.
#include <cstdio>
#include <cstdlib>
#ifdef XRAY_FDR // built with the XRay runtime: record an FDR log
#include <xray/xray_log_interface.h>
[[clang::xray_never_instrument]] static void fdr_start() {
  if (__xray_log_init_mode("xray-fdr", "") != XRayLogInitStatus::XRAY_LOG_INITIALIZED)
    std::exit(1);
}
[[clang::xray_never_instrument]] static void fdr_stop() {
  __xray_log_finalize();
  __xray_log_flushLog();
}
#else
static void fdr_start() {}
static void fdr_stop() {}
#endif

namespace geo {
struct Vec {
  long x, y;
  Vec operator+(const Vec &o) const { return {x + o.x, y + o.y}; }
  bool operator<(const Vec &o) const { return x < o.x || (x == o.x && y < o.y); }
  long &operator[](int i) { return i ? y : x; }
};

struct Shape {
  virtual ~Shape() {}
  virtual long area() const = 0;
  virtual const char *name() const { return "shape"; }
};

struct Rect : Shape {
  long w, h;
  Rect(long w, long h) : w(w), h(h) {}
  long area() const override { return w * h; }
  const char *name() const override { return "rect"; }
};

struct Square final : Rect {
  explicit Square(long s) : Rect(s, s) {}
  const char *name() const override { return "square"; }
};

namespace detail {
template <typename T, int N> struct Acc {
  T v[N];
  T sum() const {
    T s{};
    for (int i = 0; i < N; i++) s = s + v[i];
    return s;
  }
};
} // namespace detail
} // namespace geo

template <typename T> T twice(T v) { return v + v; }
template <> long twice<long>(long v) { return v * 2; }

template <typename F> long apply(F f, long v) { return f(v) + 1; }

namespace {
long hidden(long v) { return v ^ 0x55; }
} // namespace

static long counter;

extern "C" long c_linkage(long v) { return v + counter; }

[[clang::xray_always_instrument, clang::xray_log_args(1)]] long logged(long v) {
  counter += v;
  return counter;
}

[[gnu::noinline]] long tail_target(long v) { return v * 3 + counter; }
[[gnu::noinline]] long tail_caller(long v) { return tail_target(v + 1); }

[[clang::xray_always_instrument]] void event(long v) {
  static const char msg[] = "custom event";
  __xray_customevent(msg, sizeof msg - 1);
  counter += v;
}

struct Node {
  Node *next;
  long v;
  ~Node() { counter += v; }
};

long walk(Node *n) {
  long s = 0;
  for (; n; n = n->next) s += n->v;
  return s;
}

int main(int argc, char **argv) {
  fdr_start();
  long n = argc > 1 ? std::atol(argv[1]) : 3;
  geo::Vec a{1, 2}, b{3, 4};
  geo::Vec c = a + b;
  c[1] += a < b;
  geo::Shape *shapes[] = {new geo::Rect(2, 3), new geo::Square(n)};
  long total = 0;
  for (auto *s : shapes) {
    total += s->area();
    std::printf("%s %ld\n", s->name(), s->area());
    delete s;
  }
  geo::detail::Acc<long, 4> acc{{1, 2, 3, n}};
  geo::detail::Acc<double, 2> accd{{1.5, 2.5}};
  total += acc.sum() + long(accd.sum());
  total += twice(n) + long(twice(1.5)) + twice<int>(int(n));
  int k = 2;
  total += apply([k](long v) { return v * k; }, n);
  total += apply([](long v) { return hidden(v); }, n);
  for (long i = 0; i < n; i++) {
    total += logged(i) + tail_caller(i);
    event(i);
  }
  Node n2{nullptr, 5}, n1{&n2, 7};
  total += walk(&n1) + c_linkage(total) + c.x + c.y;
  std::printf("total %ld\n", total);
  fdr_stop();
  return 0;
}
