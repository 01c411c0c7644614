// A C++20 module (clang++-19 -std=c++20 -c mod.cppm): names attached to it
// are mangled "W5mymod"; the names of mod.o are in names.txt.
export module mymod;
export struct Thing {
	Thing(int);
	~Thing();
	int get() const;
	virtual void v();
};
Thing::Thing(int) {}
Thing::~Thing() {}
int Thing::get() const { return 1; }
void Thing::v() {}
export int use(Thing t, Thing *p) { return t.get() + p->get(); }
namespace ns {
export template <class T> int tmpl(T t, const Thing &x) { return x.get(); }
template int tmpl<int>(int, const Thing &);
}
