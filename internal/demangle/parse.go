package demangle

import "strings"

// maxParseDepth bounds the parser's recursion; real names stay far below.
const maxParseDepth = 400

// nameState is what parsing a function's name tells about its encoding.
type nameState struct {
	ctorDtorConversion bool
	endsWithTemplArgs  bool
	quals              qual
	ref                uint8
	fwdRefsBegin       int
	explicitObject     bool // "NH": the first parameter is "this T" (C++23)
}

type parser struct {
	s     string
	pos   int
	depth int
	bad   bool // depth exceeded: fail the whole name

	names []*node // scratch stack for lists being parsed
	subs  []*node

	// Template parameter lists by level; level 0 is outer.
	tparams []*[]*node
	outer   []*node

	fwdRefs           []*node
	tryTemplateArgs   bool
	permitFwdRefs     bool
	lambdaParamsLevel int
	syntheticTP       [3]int
	// llvm19 reads what LLVM 15 on read and LLVM 14 does not: a template
	// argument declared with its template parameter.
	llvm19 bool
	// inConstraint is set (with llvm19) inside a requires-clause.
	inConstraint bool
	// module is a module name read as a substitution in a nested name,
	// to which the next unqualified name is attached (with llvm19).
	module *node
	// noPush keeps the next invented template parameter out of the
	// innermost parameter list (LLVM passes that declaration no list).
	noPush bool
	// argParams are the template parameters around the template argument
	// being read, which LLVM 19 lets a parameter declaration refer to.
	argParams []*[]*node

	// Nodes and lists come from chunks kept from name to name.
	chunks     [][]node
	chunk      int // chunks[chunk] is being filled
	listChunks [][]*node
	listChunk  int
}

func (p *parser) reset(s string) {
	p.s = s
	p.pos = 0
	p.depth = 0
	p.bad = false
	p.inConstraint = false
	p.module = nil
	p.names = p.names[:0]
	p.subs = p.subs[:0]
	// Nested encodings continue these lists past their ends and drop what
	// they grew on return, so start with room.
	if cap(p.tparams) == 0 {
		p.tparams = make([]*[]*node, 0, 16)
		p.outer = make([]*node, 0, 64)
	}
	p.tparams = p.tparams[:0]
	p.outer = p.outer[:0]
	p.fwdRefs = p.fwdRefs[:0]
	p.tryTemplateArgs = true
	p.permitFwdRefs = false
	p.lambdaParamsLevel = -1
	p.syntheticTP = [3]int{}
	for i := 0; i <= p.chunk && i < len(p.chunks); i++ {
		clear(p.chunks[i])
		p.chunks[i] = p.chunks[i][:0]
	}
	p.chunk = 0
	for i := 0; i <= p.listChunk && i < len(p.listChunks); i++ {
		clear(p.listChunks[i])
		p.listChunks[i] = p.listChunks[i][:0]
	}
	p.listChunk = 0
}

const chunkNodes = 128

// newNode hands out nodes from chunks, so a name costs no allocation once
// the chunks have grown.
func (p *parser) newNode(k kind) *node {
	if len(p.chunks) == 0 {
		p.chunks = append(p.chunks, make([]node, 0, chunkNodes))
	}
	c := p.chunks[p.chunk]
	if len(c) == cap(c) {
		p.chunk++
		if p.chunk == len(p.chunks) {
			p.chunks = append(p.chunks, make([]node, 0, chunkNodes))
		}
		c = p.chunks[p.chunk]
	}
	c = c[:len(c)+1]
	p.chunks[p.chunk] = c
	n := &c[len(c)-1]
	n.kind = k
	return n
}

// popList moves the names pushed since begin into a list of their own.
func (p *parser) popList(begin int) []*node {
	n := len(p.names) - begin
	if n == 0 {
		return nil
	}
	if len(p.listChunks) == 0 {
		p.listChunks = append(p.listChunks, make([]*node, 0, 256))
	}
	c := p.listChunks[p.listChunk]
	if len(c)+n > cap(c) {
		p.listChunk++
		if p.listChunk == len(p.listChunks) {
			p.listChunks = append(p.listChunks, make([]*node, 0, max(256, n)))
		}
		c = p.listChunks[p.listChunk]
		if len(c)+n > cap(c) { // a reused chunk too small for this list
			c = make([]*node, 0, max(256, n))
			p.listChunks[p.listChunk] = c
		}
	}
	l := c[len(c) : len(c)+n : len(c)+n]
	p.listChunks[p.listChunk] = c[:len(c)+n]
	copy(l, p.names[begin:])
	p.names = p.names[:begin]
	return l
}

func (p *parser) look(i int) byte {
	if p.pos+i < len(p.s) {
		return p.s[p.pos+i]
	}
	return 0
}

func (p *parser) left() int { return len(p.s) - p.pos }

func (p *parser) consume(c byte) bool {
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *parser) consumeStr(s string) bool {
	if strings.HasPrefix(p.s[p.pos:], s) {
		p.pos += len(s)
		return true
	}
	return false
}

func (p *parser) enter() bool {
	p.depth++
	if p.depth > maxParseDepth {
		p.bad = true
		return false
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Node constructors.

func (p *parser) name(s string) *node {
	n := p.newNode(kName)
	n.s = s
	return n
}

func (p *parser) node1(k kind, a *node) *node {
	n := p.newNode(k)
	n.a = a
	return n
}

func (p *parser) node2(k kind, a, b *node) *node {
	n := p.newNode(k)
	n.a, n.b = a, b
	return n
}

func (p *parser) special(s string, a *node) *node {
	n := p.node1(kSpecialName, a)
	n.s = s
	return n
}

func (p *parser) qualType(a *node, q qual) *node {
	n := p.node1(kQual, a)
	n.quals = q
	n.rhs, n.arr, n.fun = a.rhs, a.arr, a.fun
	return n
}

func (p *parser) pointer(a *node) *node {
	n := p.node1(kPointer, a)
	n.rhs = a.rhs
	return n
}

func (p *parser) reference(a *node, r uint8) *node {
	n := p.node1(kRef, a)
	n.ref = r
	n.rhs = a.rhs
	return n
}

func (p *parser) nameWithArgs(a, ta *node) *node { return p.node2(kNameWithTemplateArgs, a, ta) }

func (p *parser) abiTag(a *node, tag string) *node {
	n := p.node1(kAbiTag, a)
	n.s = tag
	n.rhs, n.arr, n.fun = a.rhs, a.arr, a.fun
	return n
}

func (p *parser) parameterPack(l []*node) *node {
	n := p.newNode(kParameterPack)
	n.list = l
	n.rhs, n.arr, n.fun = cNo, cNo, cNo
	for _, e := range l {
		if e.rhs != cNo {
			n.rhs = cUnknown
		}
		if e.arr != cNo {
			n.arr = cUnknown
		}
		if e.fun != cNo {
			n.fun = cUnknown
		}
	}
	return n
}

// parse demangles a whole symbol: an encoding after _Z (with an optional
// clone suffix), a block invocation after ___Z, or else a type.
func (p *parser) parse() *node {
	if p.consumeStr("_Z") {
		enc := p.encoding()
		if enc == nil {
			return nil
		}
		if p.look(0) == '.' {
			n := p.node1(kDotSuffix, enc)
			n.s = p.s[p.pos:]
			p.pos = len(p.s)
			enc = n
		}
		if p.left() != 0 {
			return nil
		}
		return enc
	}
	if p.consumeStr("___Z") || p.consumeStr("____Z") {
		enc := p.encoding()
		if enc == nil || !p.consumeStr("_block_invoke") {
			return nil
		}
		requireNumber := p.consume('_')
		if p.number(false) == "" && requireNumber {
			return nil
		}
		if p.look(0) == '.' {
			p.pos = len(p.s)
		}
		if p.left() != 0 {
			return nil
		}
		return p.special("invocation function for block in ", enc)
	}
	t := p.typ()
	if t == nil || p.left() != 0 {
		return nil
	}
	return t
}

// number parses [n]digits, returning the text (with its 'n').
func (p *parser) number(allowNegative bool) string {
	start := p.pos
	if allowNegative {
		p.consume('n')
	}
	if !isDigit(p.look(0)) {
		return ""
	}
	for isDigit(p.look(0)) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// bigNumber bounds the numbers of a name: 2^40 where int has 64 bits,
// 2^20 where it has 32 (longer than any name, larger than any table).
const bigNumber = 1 << (20 + 20*(^uint(0)>>63))

// positive parses a decimal number; ok is false when there is none or it
// is absurdly large.
func (p *parser) positive() (int, bool) {
	if !isDigit(p.look(0)) {
		return 0, false
	}
	v := 0
	for isDigit(p.look(0)) {
		if v > bigNumber {
			return 0, false
		}
		v = v*10 + int(p.look(0)-'0')
		p.pos++
	}
	return v, true
}

func (p *parser) bareSourceName() string {
	n, ok := p.positive()
	if !ok || n == 0 || n > p.left() {
		return ""
	}
	s := p.s[p.pos : p.pos+n]
	p.pos += n
	return s
}

func (p *parser) encoding() *node {
	if !p.enter() {
		return nil
	}
	// The template parameters of an encoding are unrelated to those of
	// the context it is nested in (a local name in a template argument).
	// Both lists continue past their current ends, so nothing is allocated
	// and the enclosing lists are intact when they are restored.
	savedParams, savedOuter := p.tparams, p.outer
	p.tparams, p.outer = p.tparams[len(p.tparams):], p.outer[len(p.outer):]
	// (restored here rather than deferred: this body's many returns
	// would make the defers slow ones)
	n := p.encodingBody()
	p.tparams, p.outer = savedParams, savedOuter
	p.depth--
	return n
}

func (p *parser) encodingBody() *node {
	if c := p.look(0); c == 'G' || c == 'T' {
		return p.specialName()
	}
	isEnd := func() bool {
		c := p.look(0)
		return p.left() == 0 || c == 'E' || c == '.'
	}
	st := nameState{fwdRefsBegin: len(p.fwdRefs)}
	name := p.parseName(&st)
	if name == nil {
		return nil
	}
	if p.resolveFwdRefs(&st) {
		return nil
	}
	if isEnd() {
		return name
	}
	var attrs *node
	if p.consumeStr("Ua9enable_ifI") {
		begin := len(p.names)
		for !p.consume('E') {
			a := p.templateArg()
			if a == nil {
				return nil
			}
			p.names = append(p.names, a)
		}
		attrs = p.newNode(kEnableIf)
		attrs.list = p.popList(begin)
	}
	var ret *node
	if !st.ctorDtorConversion && st.endsWithTemplArgs {
		ret = p.typ()
		if ret == nil {
			return nil
		}
	}
	n := p.newNode(kFunctionEncoding)
	n.a, n.b, n.c = ret, name, attrs
	n.quals, n.ref = st.quals, st.ref
	n.rhs, n.fun = cYes, cYes
	if !p.consume('v') {
		begin := len(p.names)
		for {
			t := p.typ()
			if t == nil {
				return nil
			}
			if st.explicitObject && len(p.names) == begin {
				t = p.node1(kExplicitObject, t)
			}
			p.names = append(p.names, t)
			if isEnd() || p.llvm19 && p.look(0) == 'Q' {
				break
			}
		}
		n.list = p.popList(begin)
	}
	if p.llvm19 && p.consume('Q') {
		// A trailing requires-clause (C++20), which LLVM 15 on read
		// and print after the parameters; list2 holds it.
		req := p.constraintExpr()
		if req == nil {
			return nil
		}
		p.names = append(p.names, req)
		n.list2 = p.popList(len(p.names) - 1)
	}
	return n
}

func (p *parser) resolveFwdRefs(st *nameState) bool {
	for _, r := range p.fwdRefs[st.fwdRefsBegin:] {
		if len(p.tparams) == 0 || p.tparams[0] == nil || r.n >= len(*p.tparams[0]) {
			return true
		}
		r.a = (*p.tparams[0])[r.n]
	}
	p.fwdRefs = p.fwdRefs[:st.fwdRefsBegin]
	return false
}

func (p *parser) callOffset() bool {
	if p.consume('h') {
		return p.number(true) == "" || !p.consume('_')
	}
	if p.consume('v') {
		return p.number(true) == "" || !p.consume('_') || p.number(true) == "" || !p.consume('_')
	}
	return true
}

func (p *parser) specialName() *node {
	switch p.look(0) {
	case 'T':
		switch p.look(1) {
		case 'A':
			p.pos += 2
			if a := p.templateArg(); a != nil {
				return p.special("template parameter object for ", a)
			}
			return nil
		case 'V', 'T', 'I', 'S':
			var s string
			switch p.look(1) {
			case 'V':
				s = "vtable for "
			case 'T':
				s = "VTT for "
			case 'I':
				s = "typeinfo for "
			case 'S':
				s = "typeinfo name for "
			}
			p.pos += 2
			if t := p.typ(); t != nil {
				return p.special(s, t)
			}
			return nil
		case 'c':
			p.pos += 2
			// Two call offsets: this and the result.
			if p.callOffset() {
				return nil
			}
			if p.callOffset() {
				return nil
			}
			if e := p.encoding(); e != nil {
				return p.special("covariant return thunk to ", e)
			}
			return nil
		case 'C':
			p.pos += 2
			first := p.typ()
			if first == nil {
				return nil
			}
			if p.number(true) == "" || !p.consume('_') {
				return nil
			}
			second := p.typ()
			if second == nil {
				return nil
			}
			return p.node2(kCtorVtable, second, first)
		case 'W', 'H':
			s := "thread-local wrapper routine for "
			if p.look(1) == 'H' {
				s = "thread-local initialization routine for "
			}
			p.pos += 2
			if n := p.parseName(nil); n != nil {
				return p.special(s, n)
			}
			return nil
		default:
			p.pos++
			virt := p.look(0) == 'v'
			if p.callOffset() {
				return nil
			}
			e := p.encoding()
			if e == nil {
				return nil
			}
			if virt {
				return p.special("virtual thunk to ", e)
			}
			return p.special("non-virtual thunk to ", e)
		}
	case 'G':
		switch p.look(1) {
		case 'V':
			p.pos += 2
			if n := p.parseName(nil); n != nil {
				return p.special("guard variable for ", n)
			}
		case 'I':
			// A C++20 module's initializer (LLVM 15 on): "GI W mod".
			if !p.llvm19 {
				return nil
			}
			p.pos += 2
			if mod, ok := p.moduleName(nil); ok && mod != nil {
				return p.special("initializer for module ", mod)
			}
		case 'R':
			p.pos += 2
			n := p.parseName(nil)
			if n == nil {
				return nil
			}
			_, parsedSeq := p.seqID()
			if !p.consume('_') && parsedSeq {
				return nil
			}
			return p.special("reference temporary for ", n)
		}
	}
	return nil
}

// seqID parses a base-36 sequence number.
func (p *parser) seqID() (int, bool) {
	c := p.look(0)
	if !isDigit(c) && !(c >= 'A' && c <= 'Z') {
		return 0, false
	}
	v := 0
	for {
		c := p.look(0)
		var d int
		switch {
		case isDigit(c):
			d = int(c - '0')
		case c >= 'A' && c <= 'Z':
			d = int(c-'A') + 10
		default:
			return v, true
		}
		if v > bigNumber {
			v = 2 * bigNumber // out of range of any table; keep consuming
		} else {
			v = v*36 + d
		}
		p.pos++
	}
}

func (p *parser) parseName(st *nameState) *node {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	p.consume('L') // internal linkage, an extension
	if p.look(0) == 'N' {
		return p.nestedName(st)
	}
	if p.look(0) == 'Z' {
		return p.localName(st)
	}
	if p.look(0) == 'S' && p.look(1) != 't' {
		s := p.substitution()
		if s != nil && s.kind == kModuleName {
			// The module of the unscoped name that follows.
			p.module = s
			return p.unscopedRest(st)
		}
		if s == nil || p.look(0) != 'I' {
			return nil
		}
		ta := p.templateArgs(st != nil)
		if ta == nil {
			return nil
		}
		if st != nil {
			st.endsWithTemplArgs = true
		}
		return p.nameWithArgs(s, ta)
	}
	return p.unscopedRest(st)
}

// unscopedRest reads an unscoped name and the template arguments that may
// follow it.
func (p *parser) unscopedRest(st *nameState) *node {
	n := p.unscopedName(st)
	if n == nil {
		return nil
	}
	if p.look(0) == 'I' {
		p.subs = append(p.subs, n)
		ta := p.templateArgs(st != nil)
		if ta == nil {
			return nil
		}
		if st != nil {
			st.endsWithTemplArgs = true
		}
		return p.nameWithArgs(n, ta)
	}
	return n
}

func (p *parser) localName(st *nameState) *node {
	if !p.consume('Z') {
		return nil
	}
	enc := p.encoding()
	if enc == nil || !p.consume('E') {
		return nil
	}
	if p.consume('s') {
		p.discriminator()
		return p.node2(kLocalName, enc, p.name("string literal"))
	}
	if p.consume('d') {
		p.number(true)
		if !p.consume('_') {
			return nil
		}
		n := p.localEntity(st)
		if n == nil {
			return nil
		}
		return p.node2(kLocalName, enc, n)
	}
	entity := p.localEntity(st)
	if entity == nil {
		return nil
	}
	p.discriminator()
	return p.node2(kLocalName, enc, entity)
}

// localEntity reads the name of a local entity. LLVM 15 on forget its
// template arguments once it is read, as those of an encoding, so that a
// later template parameter cannot refer to them ("_ZZ1fvE1gIiEvT_" is
// refused); LLVM 14 keeps them.
func (p *parser) localEntity(st *nameState) *node {
	if !p.llvm19 {
		return p.parseName(st)
	}
	savedParams, savedOuter := p.tparams, p.outer
	p.tparams, p.outer = p.tparams[len(p.tparams):], p.outer[len(p.outer):]
	n := p.parseName(st)
	p.tparams, p.outer = savedParams, savedOuter
	return n
}

// discriminator skips _digit, __digits_, or trailing digits.
func (p *parser) discriminator() {
	s, i := p.s, p.pos
	if i >= len(s) {
		return
	}
	if s[i] == '_' {
		t := i + 1
		if t < len(s) {
			if isDigit(s[t]) {
				p.pos = t + 1
			} else if s[t] == '_' {
				t++
				for t < len(s) && isDigit(s[t]) {
					t++
				}
				if t < len(s) && s[t] == '_' {
					p.pos = t + 1
				}
			}
		}
	} else if isDigit(s[i]) {
		t := i + 1
		for t < len(s) && isDigit(s[t]) {
			t++
		}
		if t == len(s) {
			p.pos = t
		}
	}
}

func (p *parser) unscopedName(st *nameState) *node {
	if p.consumeStr("StL") || p.consumeStr("St") {
		r := p.unqualifiedName(st)
		if r == nil {
			return nil
		}
		return p.node1(kStdQualified, r)
	}
	return p.unqualifiedName(st)
}

func (p *parser) unqualifiedName(st *nameState) *node {
	// A C++20 module the name is attached to ("W mod", "WP part"), which
	// LLVM 15 on read and print "f@mod"; each module name is a
	// substitution.
	mod := p.module
	p.module = nil
	if p.llvm19 {
		var ok bool
		if mod, ok = p.moduleName(mod); !ok {
			return nil
		}
	}
	var r *node
	c := p.look(0)
	switch {
	case c == 'U':
		r = p.unnamedTypeName(st)
	case c >= '1' && c <= '9':
		r = p.sourceName()
	case p.consumeStr("DC"):
		begin := len(p.names)
		for {
			b := p.sourceName()
			if b == nil {
				return nil
			}
			p.names = append(p.names, b)
			if p.consume('E') {
				break
			}
		}
		r = p.newNode(kStructuredBinding)
		r.list = p.popList(begin)
	default:
		r = p.operatorName(st)
	}
	if r != nil && mod != nil {
		r = p.node2(kModuleEntity, r, mod)
	}
	if r != nil {
		r = p.abiTags(r)
	}
	return r
}

// moduleName reads the module names ("W mod", "WP part") that extend mod,
// each a substitution; it reports false on a malformed one.
func (p *parser) moduleName(mod *node) (*node, bool) {
	for p.consume('W') {
		part := p.consume('P')
		sub := p.sourceName()
		if sub == nil {
			return nil, false
		}
		mod = p.node2(kModuleName, mod, sub)
		mod.flag = part
		p.subs = append(p.subs, mod)
	}
	return mod, true
}

func (p *parser) abiTags(n *node) *node {
	for p.consume('B') {
		tag := p.bareSourceName()
		if tag == "" {
			return nil
		}
		n = p.abiTag(n, tag)
	}
	return n
}

func (p *parser) sourceName() *node {
	s := p.bareSourceName()
	if s == "" {
		return nil
	}
	if strings.HasPrefix(s, "_GLOBAL__N") {
		return p.name("(anonymous namespace)")
	}
	return p.name(s)
}

func (p *parser) unnamedTypeName(st *nameState) *node {
	if st != nil {
		p.tparams = p.tparams[:0]
	}
	if p.consumeStr("Ut") {
		count := p.number(false)
		if !p.consume('_') {
			return nil
		}
		n := p.newNode(kUnnamedType)
		n.s = count
		return n
	}
	if p.consumeStr("Ul") {
		savedLevel := p.lambdaParamsLevel
		p.lambdaParamsLevel = len(p.tparams)
		old := len(p.tparams)
		p.tparams = append(p.tparams, new([]*node))
		savedSynth := p.syntheticTP
		p.syntheticTP = [3]int{}
		defer func() {
			p.lambdaParamsLevel = savedLevel
			p.syntheticTP = savedSynth
			if len(p.tparams) > old {
				p.tparams = p.tparams[:old]
			}
		}()
		begin := len(p.names)
		for p.look(0) == 'T' && (strings.IndexByte("yptn", p.look(1)) >= 0 || p.llvm19 && p.look(1) == 'k') {
			t := p.templateParamDecl()
			if t == nil {
				return nil
			}
			p.names = append(p.names, t)
		}
		tps := p.popList(begin)
		if len(tps) == 0 && len(p.tparams) > 0 {
			p.tparams = p.tparams[:len(p.tparams)-1]
		}
		// LLVM 15 on read requires-clauses (C++20) after the template
		// parameters and after the parameters.
		var req1, req2 *node
		if p.llvm19 && p.consume('Q') {
			if req1 = p.constraintExpr(); req1 == nil {
				return nil
			}
		}
		if !p.consumeStr("vE") {
			for {
				t := p.typ()
				if t == nil {
					return nil
				}
				p.names = append(p.names, t)
				if p.llvm19 && p.consume('Q') {
					if req2 = p.constraintExpr(); req2 == nil || !p.consume('E') {
						return nil
					}
					break
				}
				if p.consume('E') {
					break
				}
			}
		}
		params := p.popList(begin)
		count := p.number(false)
		if !p.consume('_') {
			return nil
		}
		n := p.newNode(kClosureType)
		n.list, n.list2, n.s = tps, params, count
		n.a, n.b = req1, req2
		return n
	}
	if p.consumeStr("Ub") {
		p.number(false)
		if !p.consume('_') {
			return nil
		}
		return p.name("'block-literal'")
	}
	return nil
}

func (p *parser) templateParamDecl() *node {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	invent := func(k int) *node {
		idx := p.syntheticTP[k]
		p.syntheticTP[k]++
		n := p.newNode(kSyntheticTP)
		n.n = k
		if idx > 0 {
			n.s = itoa(idx - 1)
		}
		if p.noPush {
			p.noPush = false
		} else if len(p.tparams) > 0 && p.tparams[len(p.tparams)-1] != nil {
			l := p.tparams[len(p.tparams)-1]
			*l = append(*l, n)
		}
		return n
	}
	switch {
	case p.consumeStr("Ty"):
		n := p.node1(kTypeTPDecl, invent(tpType))
		n.rhs = cYes
		return n
	case p.consumeStr("Tn"):
		name := invent(tpNonType)
		t := p.typ()
		if t == nil {
			return nil
		}
		n := p.node2(kNonTypeTPDecl, name, t)
		n.rhs = cYes
		return n
	case p.llvm19 && p.consumeStr("Tk"):
		// A type parameter constrained by a concept (C++20), which
		// LLVM 15 on read: "Tk <name>", printed "C $T".
		c := p.parseName(nil)
		if c == nil {
			return nil
		}
		n := p.node2(kConstrainedTPDecl, invent(tpType), c)
		n.rhs = cYes
		return n
	case p.consumeStr("Tt"):
		name := invent(tpTemplate)
		begin := len(p.names)
		old := len(p.tparams)
		p.tparams = append(p.tparams, new([]*node))
		for !p.consume('E') {
			d := p.templateParamDecl()
			if d == nil {
				p.tparams = p.tparams[:old]
				return nil
			}
			p.names = append(p.names, d)
		}
		p.tparams = p.tparams[:old]
		n := p.node1(kTemplateTPDecl, name)
		n.list = p.popList(begin)
		n.rhs = cYes
		return n
	case p.consumeStr("Tp"):
		d := p.templateParamDecl()
		if d == nil {
			return nil
		}
		n := p.node1(kTPPackDecl, d)
		n.rhs = cYes
		return n
	}
	return nil
}

func itoa(v int) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}

func (p *parser) nestedName(st *nameState) *node {
	if !p.consume('N') {
		return nil
	}
	q := p.cvQualifiers()
	if st != nil {
		st.quals = q
	}
	switch {
	case p.llvm19 && q == 0 && p.consume('H'):
		// An explicit object parameter (C++23), which LLVM 15 on
		// read; it takes the place of qualifiers.
		if st != nil {
			st.explicitObject = true
			st.ref = refNone
		}
	case p.consume('O'):
		if st != nil {
			st.ref = refRValue
		}
	case p.consume('R'):
		if st != nil {
			st.ref = refLValue
		}
	default:
		if st != nil {
			st.ref = refNone
		}
	}
	var soFar *node
	push := func(comp *node) bool {
		if comp == nil {
			return false
		}
		if soFar != nil {
			soFar = p.node2(kNested, soFar, comp)
		} else {
			soFar = comp
		}
		if st != nil {
			st.endsWithTemplArgs = false
		}
		return true
	}
	if p.consumeStr("St") {
		soFar = p.name("std")
	}
	for !p.consume('E') {
		if p.bad || p.left() == 0 {
			return nil
		}
		p.consume('L')
		if p.consume('M') {
			if soFar == nil {
				return nil
			}
			continue
		}
		if p.module != nil {
			// Only an unqualified name may follow a module.
			if !push(p.unqualifiedName(st)) {
				return nil
			}
			p.subs = append(p.subs, soFar)
			continue
		}
		c := p.look(0)
		switch {
		case c == 'T':
			if !push(p.templateParam()) {
				return nil
			}
			p.subs = append(p.subs, soFar)
		case c == 'I':
			ta := p.templateArgs(st != nil)
			if ta == nil || soFar == nil {
				return nil
			}
			soFar = p.nameWithArgs(soFar, ta)
			if st != nil {
				st.endsWithTemplArgs = true
			}
			p.subs = append(p.subs, soFar)
		case c == 'D' && (p.look(1) == 't' || p.look(1) == 'T'):
			if !push(p.decltype()) {
				return nil
			}
			p.subs = append(p.subs, soFar)
		case c == 'S' && p.look(1) != 't':
			s := p.substitution()
			if s != nil && s.kind == kModuleName {
				// The module of the next name (LLVM 15 on).
				if p.module != nil {
					return nil
				}
				p.module = s
				continue
			}
			if !push(s) {
				return nil
			}
			if soFar != s {
				p.subs = append(p.subs, s)
			}
		case c == 'C' || (c == 'D' && p.look(1) != 'C'):
			if soFar == nil {
				return nil
			}
			if !push(p.ctorDtorName(&soFar, st)) {
				return nil
			}
			soFar = p.abiTags(soFar)
			if soFar == nil {
				return nil
			}
			p.subs = append(p.subs, soFar)
		default:
			if !push(p.unqualifiedName(st)) {
				return nil
			}
			p.subs = append(p.subs, soFar)
		}
	}
	if soFar == nil || len(p.subs) == 0 || p.module != nil {
		return nil
	}
	p.subs = p.subs[:len(p.subs)-1]
	return soFar
}

func (p *parser) ctorDtorName(soFar **node, st *nameState) *node {
	if s := *soFar; s.kind == kSpecialSub {
		switch s.n {
		case ssString, ssIstream, ssOstream, ssIostream:
			e := p.newNode(kExpandedSpecialSub)
			e.n = s.n
			*soFar = e
		}
	}
	if p.consume('C') {
		inherited := p.consume('I')
		c := p.look(0)
		if c < '1' || c > '5' {
			return nil
		}
		p.pos++
		if st != nil {
			st.ctorDtorConversion = true
		}
		if inherited && p.parseName(st) == nil {
			return nil
		}
		return p.node1(kCtorDtorName, *soFar)
	}
	if p.look(0) == 'D' {
		switch p.look(1) {
		case '0', '1', '2', '4', '5':
			p.pos += 2
			if st != nil {
				st.ctorDtorConversion = true
			}
			n := p.node1(kCtorDtorName, *soFar)
			n.flag = true
			return n
		}
	}
	return nil
}

func (p *parser) cvQualifiers() qual {
	var q qual
	if p.consume('r') {
		q |= qRestrict
	}
	if p.consume('V') {
		q |= qVolatile
	}
	if p.consume('K') {
		q |= qConst
	}
	return q
}

func (p *parser) substitution() *node {
	if !p.consume('S') {
		return nil
	}
	if c := p.look(0); c >= 'a' && c <= 'z' {
		var k int
		switch c {
		case 'a':
			k = ssAllocator
		case 'b':
			k = ssBasicString
		case 's':
			k = ssString
		case 'i':
			k = ssIstream
		case 'o':
			k = ssOstream
		case 'd':
			k = ssIostream
		default:
			return nil
		}
		p.pos++
		sub := p.newNode(kSpecialSub)
		sub.n = k
		tagged := p.abiTags(sub)
		if tagged != sub && tagged != nil {
			p.subs = append(p.subs, tagged)
		}
		return tagged
	}
	if p.consume('_') {
		if len(p.subs) == 0 {
			return nil
		}
		return p.subs[0]
	}
	idx, ok := p.seqID()
	if !ok {
		return nil
	}
	idx++
	if !p.consume('_') || idx >= len(p.subs) {
		return nil
	}
	return p.subs[idx]
}

func (p *parser) templateParam() *node {
	start := p.pos
	if !p.consume('T') {
		return nil
	}
	level := 0
	if p.consume('L') {
		l, ok := p.positive()
		if !ok {
			return nil
		}
		level = l + 1
		if !p.consume('_') {
			return nil
		}
	}
	index := 0
	if !p.consume('_') {
		i, ok := p.positive()
		if !ok {
			return nil
		}
		index = i + 1
		if !p.consume('_') {
			return nil
		}
	}
	if p.inConstraint {
		return p.name(p.s[start : p.pos-1])
	}
	if p.permitFwdRefs && level == 0 {
		n := p.newNode(kForwardRef)
		n.n = index
		n.rhs, n.arr, n.fun = cUnknown, cUnknown, cUnknown
		p.fwdRefs = append(p.fwdRefs, n)
		return n
	}
	if level >= len(p.tparams) || p.tparams[level] == nil || index >= len(*p.tparams[level]) {
		if p.lambdaParamsLevel == level && level <= len(p.tparams) {
			if level == len(p.tparams) {
				p.tparams = append(p.tparams, nil)
			}
			return p.name("auto")
		}
		return nil
	}
	return (*p.tparams[level])[index]
}

func (p *parser) templateArgs(tag bool) *node {
	if !p.consume('I') {
		return nil
	}
	if tag {
		p.tparams = p.tparams[:0]
		p.tparams = append(p.tparams, &p.outer)
		p.outer = p.outer[:0]
	}
	begin := len(p.names)
	for !p.consume('E') {
		if tag {
			saved, savedArgs := p.tparams, p.argParams
			p.argParams = saved
			p.tparams = p.tparams[len(p.tparams):]
			arg := p.templateArg()
			p.tparams, p.argParams = saved, savedArgs
			if arg == nil {
				return nil
			}
			p.names = append(p.names, arg)
			entry := arg
			switch {
			case arg.kind == kTemplateArgPack:
				entry = p.parameterPack(arg.list)
			case p.llvm19 && arg.kind == kForwardRef && arg.n == declaredArg:
				// What LLVM 19 lists is the argument itself, and not as
				// a pack even when it is one (it checks the wrapper).
				entry = arg.a
			}
			l := p.tparams[len(p.tparams)-1]
			if l == nil {
				return nil
			}
			*l = append(*l, entry)
		} else {
			arg := p.templateArg()
			if arg == nil {
				return nil
			}
			p.names = append(p.names, arg)
		}
		if p.llvm19 && p.consume('Q') {
			// A requires-clause (C++20), which LLVM 15 on read and
			// do not print: "I <template-arg>* Q <expression> E".
			if p.constraintExpr() == nil || !p.consume('E') {
				return nil
			}
			break
		}
	}
	n := p.newNode(kTemplateArgs)
	n.list = p.popList(begin)
	return n
}

// constraintExpr reads the expression of a requires-clause. LLVM 15 on
// print a template parameter in it as mangled ("C<T>" for "1CIT_E"): they
// cannot tell which arguments it refers to.
func (p *parser) constraintExpr() *node {
	saved := p.inConstraint
	p.inConstraint = true
	e := p.expr()
	p.inConstraint = saved
	return e
}

func (p *parser) templateArg() *node {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	switch p.look(0) {
	case 'X':
		p.pos++
		a := p.expr()
		if a == nil || !p.consume('E') {
			return nil
		}
		return a
	case 'J':
		p.pos++
		begin := len(p.names)
		for !p.consume('E') {
			a := p.templateArg()
			if a == nil {
				return nil
			}
			p.names = append(p.names, a)
		}
		n := p.newNode(kTemplateArgPack)
		n.list = p.popList(begin)
		return n
	case 'L':
		if p.look(1) == 'Z' {
			p.pos += 2
			a := p.encoding()
			if a == nil || !p.consume('E') {
				return nil
			}
			return a
		}
		return p.exprPrimary()
	case 'T':
		if c := p.look(1); p.llvm19 && (c == 'y' || c == 'n' || c == 't' || c == 'p' || c == 'k') {
			return p.declaredTemplateArg()
		}
	}
	return p.typ()
}

// declaredTemplateArg reads LLVM 15's <template-param-decl> <template-arg>
// (clang 17 on mangles a template argument so where its parameter's kind
// is not implied). The declaration joins no parameter list and is not
// printed; the argument is wrapped, as LLVM wraps it
// (TemplateParamQualifiedArg), so that it prints as itself but is not
// taken for a pack when a template parameter refers to it. A constrained
// parameter (Tk, C++20 concepts) is not read.
func (p *parser) declaredTemplateArg() *node {
	saved := p.tparams
	if p.argParams != nil {
		p.tparams = p.argParams
	}
	p.noPush = true
	d := p.templateParamDecl()
	p.noPush = false
	p.tparams = saved
	if d == nil {
		return nil
	}
	a := p.templateArg()
	if a == nil {
		return nil
	}
	n := p.newNode(kForwardRef)
	n.a, n.n = a, declaredArg
	n.rhs, n.arr, n.fun = cUnknown, cUnknown, cUnknown
	return n
}

// declaredArg marks the forward reference that wraps a declared template
// argument (forward references proper hold a parameter index).
const declaredArg = -1

func (p *parser) operatorName(st *nameState) *node {
	c0, c1 := p.look(0), p.look(1)
	op := ""
	switch c0 {
	case 'a':
		switch c1 {
		case 'a':
			op = "operator&&"
		case 'd', 'n':
			op = "operator&"
		case 'N':
			op = "operator&="
		case 'S':
			op = "operator="
		case 'w':
			if p.llvm19 {
				op = "operator co_await"
			}
		}
	case 'c':
		switch c1 {
		case 'l':
			op = "operator()"
		case 'm':
			op = "operator,"
		case 'o':
			op = "operator~"
		case 'v':
			p.pos += 2
			savedTry, savedPermit := p.tryTemplateArgs, p.permitFwdRefs
			p.tryTemplateArgs = false
			p.permitFwdRefs = p.permitFwdRefs || st != nil
			t := p.typ()
			p.tryTemplateArgs, p.permitFwdRefs = savedTry, savedPermit
			if t == nil {
				return nil
			}
			if st != nil {
				st.ctorDtorConversion = true
			}
			return p.node1(kConvOp, t)
		}
	case 'd':
		switch c1 {
		case 'a':
			op = "operator delete[]"
		case 'e':
			op = "operator*"
		case 'l':
			op = "operator delete"
		case 'v':
			op = "operator/"
		case 'V':
			op = "operator/="
		}
	case 'e':
		switch c1 {
		case 'o':
			op = "operator^"
		case 'O':
			op = "operator^="
		case 'q':
			op = "operator=="
		}
	case 'g':
		switch c1 {
		case 'e':
			op = "operator>="
		case 't':
			op = "operator>"
		}
	case 'i':
		if c1 == 'x' {
			op = "operator[]"
		}
	case 'l':
		switch c1 {
		case 'e':
			op = "operator<="
		case 'i':
			p.pos += 2
			sn := p.sourceName()
			if sn == nil {
				return nil
			}
			return p.node1(kLiteralOperator, sn)
		case 's':
			op = "operator<<"
		case 'S':
			op = "operator<<="
		case 't':
			op = "operator<"
		}
	case 'm':
		switch c1 {
		case 'i':
			op = "operator-"
		case 'I':
			op = "operator-="
		case 'l':
			op = "operator*"
		case 'L':
			op = "operator*="
		case 'm':
			op = "operator--"
		}
	case 'n':
		switch c1 {
		case 'a':
			op = "operator new[]"
		case 'e':
			op = "operator!="
		case 'g':
			op = "operator-"
		case 't':
			op = "operator!"
		case 'w':
			op = "operator new"
		}
	case 'o':
		switch c1 {
		case 'o':
			op = "operator||"
		case 'r':
			op = "operator|"
		case 'R':
			op = "operator|="
		}
	case 'p':
		switch c1 {
		case 'm':
			if p.llvm19 {
				// LLVM 15 on take "pm" for a member access like "dt",
				// which names no operator function.
				return nil
			}
			op = "operator->*"
		case 'l', 's':
			op = "operator+"
		case 'L':
			op = "operator+="
		case 'p':
			op = "operator++"
		case 't':
			op = "operator->"
		}
	case 'q':
		if c1 == 'u' {
			op = "operator?"
		}
	case 'r':
		switch c1 {
		case 'm':
			op = "operator%"
		case 'M':
			op = "operator%="
		case 's':
			op = "operator>>"
		case 'S':
			op = "operator>>="
		}
	case 's':
		if c1 == 's' {
			op = "operator<=>"
		}
	case 'v':
		if isDigit(c1) {
			p.pos += 2
			sn := p.sourceName()
			if sn == nil {
				return nil
			}
			return p.node1(kConvOp, sn)
		}
	}
	if op == "" {
		return nil
	}
	p.pos += 2
	return p.name(op)
}

// Builtin type nodes are shared by every name: they are never modified.
// (Laid out by the compiler, not built when a program starts.)
var builtinNodes = [256]*node{
	'v': {kind: kName, s: "void"},
	'w': {kind: kName, s: "wchar_t"},
	'b': {kind: kName, s: "bool"},
	'c': {kind: kName, s: "char"},
	'a': {kind: kName, s: "signed char"},
	'h': {kind: kName, s: "unsigned char"},
	's': {kind: kName, s: "short"},
	't': {kind: kName, s: "unsigned short"},
	'i': {kind: kName, s: "int"},
	'j': {kind: kName, s: "unsigned int"},
	'l': {kind: kName, s: "long"},
	'm': {kind: kName, s: "unsigned long"},
	'x': {kind: kName, s: "long long"},
	'y': {kind: kName, s: "unsigned long long"},
	'n': {kind: kName, s: "__int128"},
	'o': {kind: kName, s: "unsigned __int128"},
	'f': {kind: kName, s: "float"},
	'd': {kind: kName, s: "double"},
	'e': {kind: kName, s: "long double"},
	'g': {kind: kName, s: "__float128"},
	'z': {kind: kName, s: "..."},
}

var builtinDNodes = [256]*node{
	'd': {kind: kName, s: "decimal64"},
	'e': {kind: kName, s: "decimal128"},
	'f': {kind: kName, s: "decimal32"},
	'h': {kind: kName, s: "half"},
	'i': {kind: kName, s: "char32_t"},
	's': {kind: kName, s: "char16_t"},
	'u': {kind: kName, s: "char8_t"},
	'a': {kind: kName, s: "auto"},
	'c': {kind: kName, s: "decltype(auto)"},
	'n': {kind: kName, s: "std::nullptr_t"},
}

func (p *parser) typ() *node {
	if !p.enter() {
		return nil
	}
	n := p.typBody() // not deferred: see encoding
	p.depth--
	return n
}

func (p *parser) typBody() *node {
	var r *node
	c := p.look(0)
	switch c {
	case 'r', 'V', 'K':
		after := 0
		if p.look(after) == 'r' {
			after++
		}
		if p.look(after) == 'V' {
			after++
		}
		if p.look(after) == 'K' {
			after++
		}
		if c2 := p.look(after + 1); p.look(after) == 'F' || (p.look(after) == 'D' && (c2 == 'o' || c2 == 'O' || c2 == 'w' || c2 == 'x')) {
			r = p.functionType()
			break
		}
		r = p.qualifiedType()
	case 'U':
		r = p.qualifiedType()
	case 'v', 'w', 'b', 'c', 'a', 'h', 's', 't', 'i', 'j', 'l', 'm', 'x', 'y', 'n', 'o', 'f', 'd', 'e', 'g', 'z':
		p.pos++
		return builtinNodes[c]
	case 'u':
		p.pos++
		s := p.bareSourceName()
		if s == "" {
			return nil
		}
		r = p.name(s)
	case 'D':
		c1 := p.look(1)
		switch c1 {
		case 'd', 'e', 'f', 'h', 'i', 's', 'u', 'a', 'c', 'n':
			p.pos += 2
			return builtinDNodes[c1]
		case 'F':
			p.pos += 2
			num := p.number(false)
			if !p.consume('_') {
				return nil
			}
			return p.node1(kBinaryFP, p.name(num))
		case 'B', 'U':
			// C23 _BitInt(N), which LLVM 15 on read: "DB 8 _" or with
			// an expression, "DB T_ _"; "DU" is unsigned.
			if !p.llvm19 {
				return nil
			}
			p.pos += 2
			var size *node
			if isDigit(p.look(0)) {
				size = p.name(p.number(false))
			} else {
				size = p.expr()
			}
			if size == nil || !p.consume('_') {
				return nil
			}
			n := p.node1(kBitInt, size)
			n.flag = c1 == 'U'
			return n
		case 't', 'T':
			r = p.decltype()
		case 'v':
			r = p.vectorType()
		case 'p':
			p.pos += 2
			child := p.typ()
			if child == nil {
				return nil
			}
			r = p.node1(kPackExpansion, child)
		case 'o', 'O', 'w', 'x':
			r = p.functionType()
		default:
			return nil
		}
	case 'F':
		r = p.functionType()
	case 'A':
		r = p.arrayType()
	case 'M':
		r = p.ptrToMemberType()
	case 'T':
		if c1 := p.look(1); c1 == 's' || c1 == 'u' || c1 == 'e' {
			r = p.classEnumType()
			break
		}
		r = p.templateParam()
		if r == nil {
			return nil
		}
		if p.tryTemplateArgs && p.look(0) == 'I' {
			ta := p.templateArgs(false)
			if ta == nil {
				return nil
			}
			r = p.nameWithArgs(r, ta)
		}
	case 'P':
		p.pos++
		t := p.typ()
		if t == nil {
			return nil
		}
		r = p.pointer(t)
	case 'R', 'O':
		p.pos++
		t := p.typ()
		if t == nil {
			return nil
		}
		k := uint8(refLValue)
		if c == 'O' {
			k = refRValue
		}
		r = p.reference(t, k)
	case 'C', 'G':
		p.pos++
		t := p.typ()
		if t == nil {
			return nil
		}
		r = p.node1(kPostfixQual, t)
		if c == 'C' {
			r.s = " complex"
		} else {
			r.s = " imaginary"
		}
	case 'S':
		if p.look(1) != 't' {
			r = p.substitution()
			if r == nil {
				return nil
			}
			if r.kind == kModuleName {
				// A class of that module: a new type (LLVM 15 on).
				p.module = r
				if r = p.unqualifiedName(nil); r == nil {
					return nil
				}
				if p.tryTemplateArgs && p.look(0) == 'I' {
					p.subs = append(p.subs, r)
					ta := p.templateArgs(false)
					if ta == nil {
						return nil
					}
					r = p.nameWithArgs(r, ta)
				}
				break
			}
			if p.tryTemplateArgs && p.look(0) == 'I' {
				ta := p.templateArgs(false)
				if ta == nil {
					return nil
				}
				r = p.nameWithArgs(r, ta)
				break
			}
			return r
		}
		r = p.classEnumType()
	default:
		r = p.classEnumType()
	}
	if r != nil {
		p.subs = append(p.subs, r)
	}
	return r
}

func (p *parser) qualifiedType() *node {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	if p.consume('U') {
		q := p.bareSourceName()
		if q == "" {
			return nil
		}
		if strings.HasPrefix(q, "objcproto") {
			rest := q[len("objcproto"):]
			sub := parser{s: rest}
			proto := sub.bareSourceName()
			if proto == "" {
				return nil
			}
			child := p.qualifiedType()
			if child == nil {
				return nil
			}
			n := p.node1(kObjCProto, child)
			n.s = proto
			return n
		}
		var ta *node
		if p.look(0) == 'I' {
			ta = p.templateArgs(false)
			if ta == nil {
				return nil
			}
		}
		child := p.qualifiedType()
		if child == nil {
			return nil
		}
		n := p.node2(kVendorExtQual, child, ta)
		n.s = q
		return n
	}
	q := p.cvQualifiers()
	t := p.typ()
	if t == nil {
		return nil
	}
	if q != 0 {
		t = p.qualType(t, q)
	}
	return t
}

func (p *parser) functionType() *node {
	q := p.cvQualifiers()
	var spec *node
	switch {
	case p.consumeStr("Do"):
		spec = p.name("noexcept")
	case p.consumeStr("DO"):
		e := p.expr()
		if e == nil || !p.consume('E') {
			return nil
		}
		spec = p.node1(kNoexceptSpec, e)
	case p.consumeStr("Dw"):
		begin := len(p.names)
		for !p.consume('E') {
			t := p.typ()
			if t == nil {
				return nil
			}
			p.names = append(p.names, t)
		}
		spec = p.newNode(kDynExceptSpec)
		spec.list = p.popList(begin)
	}
	p.consumeStr("Dx")
	if !p.consume('F') {
		return nil
	}
	p.consume('Y')
	ret := p.typ()
	if ret == nil {
		return nil
	}
	ref := uint8(refNone)
	begin := len(p.names)
	for {
		if p.consume('E') {
			break
		}
		if p.consume('v') {
			continue
		}
		if p.consumeStr("RE") {
			ref = refLValue
			break
		}
		if p.consumeStr("OE") {
			ref = refRValue
			break
		}
		t := p.typ()
		if t == nil {
			return nil
		}
		p.names = append(p.names, t)
	}
	n := p.node2(kFunctionType, ret, spec)
	n.list = p.popList(begin)
	n.quals, n.ref = q, ref
	n.rhs, n.fun = cYes, cYes
	return n
}

func (p *parser) arrayType() *node {
	if !p.consume('A') {
		return nil
	}
	var dim *node
	if isDigit(p.look(0)) {
		dim = p.name(p.number(false))
		if !p.consume('_') {
			return nil
		}
	} else if !p.consume('_') {
		dim = p.expr()
		if dim == nil || !p.consume('_') {
			return nil
		}
	}
	t := p.typ()
	if t == nil {
		return nil
	}
	n := p.node2(kArray, t, dim)
	n.rhs, n.arr = cYes, cYes
	return n
}

func (p *parser) ptrToMemberType() *node {
	if !p.consume('M') {
		return nil
	}
	class := p.typ()
	if class == nil {
		return nil
	}
	member := p.typ()
	if member == nil {
		return nil
	}
	n := p.node2(kPtrToMember, class, member)
	n.rhs = member.rhs
	return n
}

func (p *parser) vectorType() *node {
	if !p.consumeStr("Dv") {
		return nil
	}
	if c := p.look(0); c >= '1' && c <= '9' {
		dim := p.name(p.number(false))
		if !p.consume('_') {
			return nil
		}
		if p.consume('p') {
			return p.node2(kPixelVector, nil, dim)
		}
		elem := p.typ()
		if elem == nil {
			return nil
		}
		return p.node2(kVector, elem, dim)
	}
	if !p.consume('_') {
		dim := p.expr()
		if dim == nil || !p.consume('_') {
			return nil
		}
		elem := p.typ()
		if elem == nil {
			return nil
		}
		return p.node2(kVector, elem, dim)
	}
	elem := p.typ()
	if elem == nil {
		return nil
	}
	return p.node2(kVector, elem, nil)
}

func (p *parser) decltype() *node {
	if !p.consume('D') {
		return nil
	}
	if !p.consume('t') && !p.consume('T') {
		return nil
	}
	e := p.expr()
	if e == nil || !p.consume('E') {
		return nil
	}
	return p.enclosing("decltype(", e, ")")
}

func (p *parser) enclosing(pre string, e *node, post string) *node {
	n := p.node1(kEnclosing, e)
	n.s, n.s2 = pre, post
	return n
}

func (p *parser) classEnumType() *node {
	elab := ""
	switch {
	case p.consumeStr("Ts"):
		elab = "struct"
	case p.consumeStr("Tu"):
		elab = "union"
	case p.consumeStr("Te"):
		elab = "enum"
	}
	name := p.parseName(nil)
	if name == nil {
		return nil
	}
	if elab != "" {
		n := p.node1(kElaborated, name)
		n.s = elab
		return n
	}
	return name
}
