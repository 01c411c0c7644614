// A shared object with instrumented functions (see make.sh).
namespace lib {
template <class T> struct Box {
  T v;
  T get() const { return v; }
  Box operator*(const Box &o) const { return {v * o.v}; }
};
long square(long v) { return (Box<long>{v} * Box<long>{v}).get(); }
} // namespace lib

extern "C" long lib_entry(long v) { return lib::square(v) + 1; }

[[clang::xray_always_instrument]] int lib_always(int v) { return v - 1; }
