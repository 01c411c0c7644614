// Names whose demangling changed between LLVM 14 and LLVM 19: constructors
// and destructors of ABI-tagged classes, expressions in template arguments
// (LLVM 15 on prints only the parentheses C++ needs), C++20 constrained
// template parameters ("Tk") and requires-clauses ("Q"), which clang 17 on
// mangles, and generic lambdas in a function, whose template arguments
// LLVM 15 on forget.
#include <iterator>
#include <type_traits>
#include <utility>

struct [[gnu::abi_tag("v2")]] Widget {
	Widget(int);
	~Widget();
	virtual void f();
};
Widget::Widget(int) {}
Widget::~Widget() {}
void Widget::f() {}

namespace ns {
struct [[gnu::abi_tag("cxx11")]] Failure {
	explicit Failure(const char *);
	Failure(const Failure &);
	virtual ~Failure();
};
Failure::Failure(const char *) {}
Failure::Failure(const Failure &) {}
Failure::~Failure() {}
} // namespace ns

template <class T>
std::enable_if_t<!std::is_array<T>::value && (sizeof(T) > 2), int> notArray(T) { return 1; }
template <class T, class U>
auto sum(T t, U u) -> decltype(t + u * 2) { return t + u * 2; }
template <class T>
auto deref(T &t) -> decltype(*std::begin(t)) { return *std::begin(t); }
template <class T>
auto neg(T t) -> decltype(-t.x + ~t.y) { return -t.x + ~t.y; }
template <class T>
auto cond(T &t) -> decltype(t.x ? t.y : (t.x, t.y)) { return t.x ? t.y : t.y; }
template <class T>
auto cast(T t) -> decltype(static_cast<long>(t) << 1 >= sizeof(T)) { return static_cast<long>(t) << 1 >= sizeof(T); }
template <int N>
struct Int {};
template <int N>
Int<(N + 1) * 2 - N % 3> shift(Int<N>) { return {}; }
void f();
template <void (*F)()>
struct Fn {};
template <void (*F)()>
void call(Fn<F>) {}

template <class T>
concept Small = sizeof(T) <= 8;
template <Small T>
int small(T t) { return int(t); }

template <typename F>
int apply(F f) { return f(2); }
template <class T>
	requires(sizeof(T) > 1)
int big(T t) { return int(t) + 1; }
template <class T>
struct Box {
	int get() const
		requires Small<T>
	{ return 1; }
};

template <class U>
int user() {
	auto a = []<class T> requires Small<T>(T x) { return int(x); };
	auto b = []<class T>(T x) requires(sizeof(T) > 1) { return int(x); };
	auto c = []<Small T>(T x) { return int(x); };
	return apply(a) + apply(b) + apply(c);
}

struct P {
	int x, y;
};
int main() {
	Widget w(1);
	w.f();
	ns::Failure e("x");
	ns::Failure e2(e);
	int arr[2] = {1, 2};
	P p{1, 2};
	return notArray(1L) + sum(1, 2L) + deref(arr) + neg(p) + cond(p) + cast(3) +
	       sizeof(shift(Int<5>{})) + (call(Fn<&f>{}), 0) + small(2) + small('c') + big(3L) + user<int>() + Box<int>().get() +
	       apply([](auto x) { return int(x); }) + apply([]<Small T>(T x) { return int(x); });
}
void f() {}
