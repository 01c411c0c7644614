package parsed

// index maps IDs to states: goroutine and P IDs are small and dense in
// practice, so IDs below 1<<24 live in pages of a slice, found without
// hashing, and the rest in a map. A page goes when its last entry does,
// so memory follows the IDs in use, not the highest ever seen.
type index[T any] struct {
	pages []*page[T]
	big   map[int64]*T
	n     int
}

type page[T any] struct {
	s [pageSize]*T
	n int
}

const (
	pageBits = 8
	pageSize = 1 << pageBits
	maxPaged = 1 << 24
)

func (x *index[T]) get(id int64) *T {
	if uint64(id) < uint64(len(x.pages))<<pageBits {
		if p := x.pages[id>>pageBits]; p != nil {
			return p.s[id&(pageSize-1)]
		}
		return nil
	}
	if uint64(id) < maxPaged || x.big == nil {
		return nil
	}
	return x.big[id]
}

// set maps id to v, which is not nil; id must not be mapped.
func (x *index[T]) set(id int64, v *T) {
	x.n++
	if uint64(id) >= maxPaged {
		if x.big == nil {
			x.big = make(map[int64]*T)
		}
		x.big[id] = v
		return
	}
	pi := int(id >> pageBits)
	if pi >= len(x.pages) {
		x.pages = append(x.pages, make([]*page[T], pi+1-len(x.pages))...)
	}
	p := x.pages[pi]
	if p == nil {
		p = new(page[T])
		x.pages[pi] = p
	}
	p.s[id&(pageSize-1)] = v
	p.n++
}

// del unmaps id and returns what it mapped to.
func (x *index[T]) del(id int64) *T {
	if uint64(id) >= maxPaged {
		v, ok := x.big[id]
		if ok {
			delete(x.big, id)
			x.n--
		}
		return v
	}
	if uint64(id) >= uint64(len(x.pages))<<pageBits {
		return nil
	}
	p := x.pages[id>>pageBits]
	if p == nil {
		return nil
	}
	v := p.s[id&(pageSize-1)]
	if v != nil {
		p.s[id&(pageSize-1)] = nil
		x.n--
		if p.n--; p.n == 0 {
			x.pages[id>>pageBits] = nil
		}
	}
	return v
}

// each calls f on every entry, in no order.
func (x *index[T]) each(f func(int64, *T)) {
	for pi, p := range x.pages {
		if p == nil {
			continue
		}
		for i, v := range p.s {
			if v != nil {
				f(int64(pi)<<pageBits|int64(i), v)
			}
		}
	}
	for id, v := range x.big {
		f(id, v)
	}
}

func (x *index[T]) clear() {
	clear(x.pages)
	x.pages = x.pages[:0]
	x.big = nil
	x.n = 0
}
