// C++23 explicit object parameters ("deducing this"), which clang++-19
// -std=c++23 mangles "NH"; the names of this.o are in names.txt.
struct S {
	int x;
	int f(this S self) { return self.x; }
	int g(this const S &self, int y) { return self.x + y; }
	template <class Self> int h(this Self &&self) { return self.x; }
};
int main() { S s{1}; return s.f() + s.g(2) + s.h() + S{2}.h(); }
