package demangle

// Expressions appear in template arguments, decltype, array bounds and
// noexcept specifications.

// Operator tables are switches, not maps: nothing is built when a
// program starts.

// binaryOp returns the binary operator a two-letter code names.
func binaryOp(code string) (string, bool) {
	switch code {
	case "aa":
		return "&&", true
	case "an":
		return "&", true
	case "aN":
		return "&=", true
	case "aS":
		return "=", true
	case "cm":
		return ",", true
	case "dv":
		return "/", true
	case "dV":
		return "/=", true
	case "eo":
		return "^", true
	case "eO":
		return "^=", true
	case "eq":
		return "==", true
	case "ge":
		return ">=", true
	case "gt":
		return ">", true
	case "le":
		return "<=", true
	case "ls":
		return "<<", true
	case "lS":
		return "<<=", true
	case "lt":
		return "<", true
	case "mi":
		return "-", true
	case "mI":
		return "-=", true
	case "ml":
		return "*", true
	case "mL":
		return "*=", true
	case "ne":
		return "!=", true
	case "oo":
		return "||", true
	case "or":
		return "|", true
	case "oR":
		return "|=", true
	case "pl":
		return "+", true
	case "pL":
		return "+=", true
	case "rm":
		return "%", true
	case "rM":
		return "%=", true
	case "rs":
		return ">>", true
	case "rS":
		return ">>=", true
	case "pm":
		return "->*", true
	}
	return "", false
}

// prefixOp returns the prefix operator a two-letter code names.
func prefixOp(code string) (string, bool) {
	switch code {
	case "ad":
		return "&", true
	case "co":
		return "~", true
	case "de":
		return "*", true
	case "ng":
		return "-", true
	case "nt":
		return "!", true
	case "ps":
		return "+", true
	}
	return "", false
}

// foldOp returns the operator of a fold expression: the binary
// operators but ->*, and .*.
func foldOp(code string) (string, bool) {
	switch code {
	case "ds":
		return ".*", true
	case "pm":
		return "", false
	}
	return binaryOp(code)
}

func (p *parser) expr() *node {
	if !p.enter() {
		return nil
	}
	n := p.exprBody() // not deferred: see encoding
	p.depth--
	return n
}

func (p *parser) exprBody() *node {
	global := p.consumeStr("gs")
	if p.left() < 2 {
		return nil
	}
	c0, c1 := p.look(0), p.look(1)
	two := p.s[p.pos : p.pos+2]
	if op, ok := binaryOp(two); ok {
		p.pos += 2
		l := p.expr()
		if l == nil {
			return nil
		}
		r := p.expr()
		if r == nil {
			return nil
		}
		n := p.node2(kBinaryExpr, l, r)
		n.s = op
		return n
	}
	if op, ok := prefixOp(two); ok {
		p.pos += 2
		return p.prefixExpr(op)
	}
	switch c0 {
	case 'L':
		return p.exprPrimary()
	case 'T':
		return p.templateParam()
	case 'f':
		if c1 == 'p' || (c1 == 'L' && isDigit(p.look(2))) {
			return p.functionParam()
		}
		return p.foldExpr()
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.unresolvedName(global)
	}
	switch two {
	case "at", "st", "ti":
		p.pos += 2
		t := p.typ()
		if t == nil {
			return nil
		}
		switch two {
		case "at":
			return p.enclosing("alignof (", t, ")")
		case "st":
			return p.enclosing("sizeof (", t, ")")
		}
		return p.enclosing("typeid (", t, ")")
	case "az", "sz", "te", "nx":
		p.pos += 2
		e := p.expr()
		if e == nil {
			return nil
		}
		switch two {
		case "az":
			return p.enclosing("alignof (", e, ")")
		case "sz":
			return p.enclosing("sizeof (", e, ")")
		case "te":
			return p.enclosing("typeid (", e, ")")
		}
		return p.enclosing("noexcept (", e, ")")
	case "cc", "dc", "rc", "sc":
		p.pos += 2
		t := p.typ()
		if t == nil {
			return nil
		}
		e := p.expr()
		if e == nil {
			return nil
		}
		n := p.node2(kCast, t, e)
		switch two {
		case "cc":
			n.s = "const_cast"
		case "dc":
			n.s = "dynamic_cast"
		case "rc":
			n.s = "reinterpret_cast"
		default:
			n.s = "static_cast"
		}
		return n
	case "cl":
		p.pos += 2
		callee := p.expr()
		if callee == nil {
			return nil
		}
		begin := len(p.names)
		for !p.consume('E') {
			e := p.expr()
			if e == nil {
				return nil
			}
			p.names = append(p.names, e)
		}
		n := p.node1(kCallExpr, callee)
		n.list = p.popList(begin)
		return n
	case "cv":
		return p.conversionExpr()
	case "da", "dl":
		p.pos += 2
		e := p.expr()
		if e == nil {
			return nil
		}
		n := p.node1(kDeleteExpr, e)
		n.flag, n.flag2 = global, two == "da"
		return n
	case "dn", "on", "sr":
		return p.unresolvedName(global)
	case "ds", "dt", "pt":
		p.pos += 2
		l := p.expr()
		if l == nil {
			return nil
		}
		r := p.expr()
		if r == nil {
			return nil
		}
		n := p.node2(kMemberExpr, l, r)
		switch two {
		case "ds":
			n.s = ".*"
		case "dt":
			n.s = "."
		default:
			n.s = "->"
		}
		return n
	case "ix":
		p.pos += 2
		b := p.expr()
		if b == nil {
			return nil
		}
		i := p.expr()
		if i == nil {
			return nil
		}
		return p.node2(kArraySubscript, b, i)
	case "il":
		p.pos += 2
		return p.initList(nil)
	case "tl":
		p.pos += 2
		t := p.typ()
		if t == nil {
			return nil
		}
		return p.initList(t)
	case "mc":
		p.pos += 2
		t := p.typ()
		if t == nil {
			return nil
		}
		e := p.expr()
		if e == nil {
			return nil
		}
		p.number(true)
		if !p.consume('E') {
			return nil
		}
		return p.node2(kPtrMemConversion, t, e)
	case "mm", "pp":
		p.pos += 2
		op := "--"
		if two == "pp" {
			op = "++"
		}
		if p.consume('_') {
			return p.prefixExpr(op)
		}
		e := p.expr()
		if e == nil {
			return nil
		}
		n := p.node1(kPostfixExpr, e)
		n.s = op
		return n
	case "na", "nw":
		return p.newExpr(global)
	case "qu":
		p.pos += 2
		c := p.expr()
		if c == nil {
			return nil
		}
		a := p.expr()
		if a == nil {
			return nil
		}
		b := p.expr()
		if b == nil {
			return nil
		}
		n := p.node2(kConditional, c, a)
		n.c = b
		return n
	case "sp":
		p.pos += 2
		e := p.expr()
		if e == nil {
			return nil
		}
		return p.node1(kPackExpansion, e)
	case "sZ":
		p.pos += 2
		if p.look(0) == 'T' {
			t := p.templateParam()
			if t == nil {
				return nil
			}
			return p.node1(kSizeofPack, t)
		}
		if p.look(0) == 'f' {
			f := p.functionParam()
			if f == nil {
				return nil
			}
			return p.enclosing("sizeof... (", f, ")")
		}
		return nil
	case "sP":
		p.pos += 2
		begin := len(p.names)
		for !p.consume('E') {
			a := p.templateArg()
			if a == nil {
				return nil
			}
			p.names = append(p.names, a)
		}
		pack := p.newNode(kNodeArray)
		pack.list = p.popList(begin)
		return p.enclosing("sizeof... (", pack, ")")
	case "tr":
		p.pos += 2
		return p.name("throw")
	case "tw":
		p.pos += 2
		e := p.expr()
		if e == nil {
			return nil
		}
		return p.node1(kThrow, e)
	}
	if c0 == 'u' {
		p.pos++
		name := p.sourceName()
		if name == nil {
			return nil
		}
		if name.s == "__uuidof" {
			if p.left() < 2 {
				return nil
			}
			if p.consume('t') {
				t := p.typ()
				if t == nil {
					return nil
				}
				n := p.node1(kCallExpr, name)
				n.list = []*node{t}
				return n
			}
			if p.consume('z') {
				e := p.expr()
				if e == nil {
					return nil
				}
				n := p.node1(kCallExpr, name)
				n.list = []*node{e}
				return n
			}
		}
		begin := len(p.names)
		for !p.consume('E') {
			a := p.templateArg()
			if a == nil {
				return nil
			}
			p.names = append(p.names, a)
		}
		n := p.node1(kCallExpr, name)
		n.list = p.popList(begin)
		return n
	}
	return nil
}

func (p *parser) prefixExpr(op string) *node {
	e := p.expr()
	if e == nil {
		return nil
	}
	n := p.node1(kPrefixExpr, e)
	n.s = op
	return n
}

func (p *parser) initList(t *node) *node {
	begin := len(p.names)
	for !p.consume('E') {
		e := p.bracedExpr()
		if e == nil {
			return nil
		}
		p.names = append(p.names, e)
	}
	n := p.node1(kInitList, t)
	n.list = p.popList(begin)
	return n
}

func (p *parser) bracedExpr() *node {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	if p.look(0) == 'd' {
		switch p.look(1) {
		case 'i', 'x':
			isArray := p.look(1) == 'x'
			p.pos += 2
			var field *node
			if isArray {
				field = p.expr()
			} else {
				field = p.sourceName()
			}
			if field == nil {
				return nil
			}
			init := p.bracedExpr()
			if init == nil {
				return nil
			}
			n := p.node2(kBracedExpr, field, init)
			n.flag = isArray
			return n
		case 'X':
			p.pos += 2
			a := p.expr()
			if a == nil {
				return nil
			}
			b := p.expr()
			if b == nil {
				return nil
			}
			init := p.bracedExpr()
			if init == nil {
				return nil
			}
			n := p.node2(kBracedRange, a, b)
			n.c = init
			return n
		}
	}
	return p.expr()
}

func (p *parser) functionParam() *node {
	if p.consumeStr("fpT") {
		return p.name("this")
	}
	if p.consumeStr("fp") {
		p.cvQualifiers()
		num := p.number(false)
		if !p.consume('_') {
			return nil
		}
		n := p.newNode(kFunctionParam)
		n.s = num
		return n
	}
	if p.consumeStr("fL") {
		if p.number(false) == "" || !p.consume('p') {
			return nil
		}
		p.cvQualifiers()
		num := p.number(false)
		if !p.consume('_') {
			return nil
		}
		n := p.newNode(kFunctionParam)
		n.s = num
		return n
	}
	return nil
}

func (p *parser) foldExpr() *node {
	if !p.consume('f') {
		return nil
	}
	k := p.look(0)
	var left bool
	hasInit := k == 'L' || k == 'R'
	switch k {
	case 'l', 'L':
		left = true
	case 'r', 'R':
	default:
		return nil
	}
	p.pos++
	if p.left() < 2 {
		return nil
	}
	op, ok := foldOp(p.s[p.pos : p.pos+2])
	if !ok {
		return nil
	}
	p.pos += 2
	pack := p.expr()
	if pack == nil {
		return nil
	}
	var init *node
	if hasInit {
		init = p.expr()
		if init == nil {
			return nil
		}
	}
	if left && init != nil {
		pack, init = init, pack
	}
	n := p.node2(kFold, pack, init)
	n.s = op
	n.flag = left
	return n
}

func (p *parser) conversionExpr() *node {
	if !p.consumeStr("cv") {
		return nil
	}
	saved := p.tryTemplateArgs
	p.tryTemplateArgs = false
	t := p.typ()
	p.tryTemplateArgs = saved
	if t == nil {
		return nil
	}
	n := p.node1(kConversionExpr, t)
	if p.consume('_') {
		begin := len(p.names)
		for !p.consume('E') {
			e := p.expr()
			if e == nil {
				return nil
			}
			p.names = append(p.names, e)
		}
		n.list = p.popList(begin)
		return n
	}
	e := p.expr()
	if e == nil {
		return nil
	}
	p.names = append(p.names, e)
	n.list = p.popList(len(p.names) - 1)
	return n
}

// newExpr reads a new-expression; outer says a "gs" came before it, which
// LLVM 15 on print ("::new") and LLVM 14 forgets.
func (p *parser) newExpr(outer bool) *node {
	global := p.consumeStr("gs")
	if p.llvm19 {
		global = outer
	}
	isArray := p.look(1) == 'a'
	if !p.consumeStr("nw") && !p.consumeStr("na") {
		return nil
	}
	begin := len(p.names)
	for !p.consume('_') {
		e := p.expr()
		if e == nil {
			return nil
		}
		p.names = append(p.names, e)
	}
	exprs := p.popList(begin)
	t := p.typ()
	if t == nil {
		return nil
	}
	n := p.node1(kNewExpr, t)
	n.list = exprs
	n.flag, n.flag2 = global, isArray
	if p.consumeStr("pi") {
		begin := len(p.names)
		for !p.consume('E') {
			e := p.expr()
			if e == nil {
				return nil
			}
			p.names = append(p.names, e)
		}
		n.list2 = p.popList(begin)
		return n
	}
	if !p.consume('E') {
		return nil
	}
	return n
}

func (p *parser) exprPrimary() *node {
	if !p.consume('L') {
		return nil
	}
	c := p.look(0)
	switch c {
	case 'w', 'c', 'a', 'h', 's', 't', 'i', 'j', 'l', 'm', 'x', 'y', 'n', 'o':
		p.pos++
		var lit string
		switch c {
		case 'w':
			lit = "wchar_t"
		case 'c':
			lit = "char"
		case 'a':
			lit = "signed char"
		case 'h':
			lit = "unsigned char"
		case 's':
			lit = "short"
		case 't':
			lit = "unsigned short"
		case 'i':
			lit = ""
		case 'j':
			lit = "u"
		case 'l':
			lit = "l"
		case 'm':
			lit = "ul"
		case 'x':
			lit = "ll"
		case 'y':
			lit = "ull"
		case 'n':
			lit = "__int128"
		case 'o':
			lit = "unsigned __int128"
		}
		v := p.number(true)
		if v == "" || !p.consume('E') {
			return nil
		}
		n := p.newNode(kIntegerLiteral)
		n.s, n.s2 = lit, v
		return n
	case 'b':
		if p.consumeStr("b0E") {
			return p.newNode(kBool)
		}
		if p.consumeStr("b1E") {
			n := p.newNode(kBool)
			n.flag = true
			return n
		}
		return nil
	case 'f', 'd', 'e':
		p.pos++
		k, size := flFloat, 8
		if c == 'd' {
			k, size = flDouble, 16
		} else if c == 'e' {
			k, size = flLongDouble, 20
		}
		if p.left() <= size {
			return nil
		}
		data := p.s[p.pos : p.pos+size]
		for i := 0; i < size; i++ {
			if !isXDigit(data[i]) {
				return nil
			}
		}
		p.pos += size
		if !p.consume('E') {
			return nil
		}
		n := p.newNode(kFloatLiteral)
		n.s, n.n = data, k
		return n
	case '_':
		if p.consumeStr("_Z") {
			r := p.encoding()
			if r != nil && p.consume('E') {
				return r
			}
		}
		return nil
	case 'A':
		t := p.typ()
		if t == nil || !p.consume('E') {
			return nil
		}
		return p.node1(kStringLiteral, t)
	case 'D':
		if p.consumeStr("DnE") {
			return p.name("nullptr")
		}
		return nil
	case 'T':
		return nil
	case 'U':
		if p.look(1) != 'l' {
			return nil
		}
		t := p.unnamedTypeName(nil)
		if t == nil || !p.consume('E') {
			return nil
		}
		return p.node1(kLambdaExpr, t)
	}
	t := p.typ()
	if t == nil {
		return nil
	}
	v := p.number(true)
	if v == "" || !p.consume('E') {
		return nil
	}
	n := p.node1(kEnumLiteral, t)
	n.s = v
	return n
}

func isXDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// unresolvedName reads an unresolved name; outer says a "gs" came before
// it: LLVM 15 on print it ("::x"), LLVM 14 reads only one after it.
func (p *parser) unresolvedName(outer bool) *node {
	var soFar *node
	if p.consumeStr("srN") {
		soFar = p.unresolvedType()
		if soFar == nil {
			return nil
		}
		if p.look(0) == 'I' {
			ta := p.templateArgs(false)
			if ta == nil {
				return nil
			}
			soFar = p.nameWithArgs(soFar, ta)
		}
		for !p.consume('E') {
			q := p.simpleID()
			if q == nil {
				return nil
			}
			soFar = p.node2(kQualifiedName, soFar, q)
		}
		base := p.baseUnresolvedName()
		if base == nil {
			return nil
		}
		return p.node2(kQualifiedName, soFar, base)
	}
	global := outer
	if !p.llvm19 {
		global = p.consumeStr("gs")
	}
	if !p.consumeStr("sr") {
		soFar = p.baseUnresolvedName()
		if soFar == nil {
			return nil
		}
		if global {
			soFar = p.node1(kGlobalQualified, soFar)
		}
		return soFar
	}
	if isDigit(p.look(0)) {
		for {
			q := p.simpleID()
			if q == nil {
				return nil
			}
			switch {
			case soFar != nil:
				soFar = p.node2(kQualifiedName, soFar, q)
			case global:
				soFar = p.node1(kGlobalQualified, q)
			default:
				soFar = q
			}
			if p.consume('E') {
				break
			}
		}
	} else {
		soFar = p.unresolvedType()
		if soFar == nil {
			return nil
		}
		if p.look(0) == 'I' {
			ta := p.templateArgs(false)
			if ta == nil {
				return nil
			}
			soFar = p.nameWithArgs(soFar, ta)
		}
	}
	base := p.baseUnresolvedName()
	if base == nil {
		return nil
	}
	return p.node2(kQualifiedName, soFar, base)
}

func (p *parser) simpleID() *node {
	sn := p.sourceName()
	if sn == nil {
		return nil
	}
	if p.look(0) == 'I' {
		ta := p.templateArgs(false)
		if ta == nil {
			return nil
		}
		return p.nameWithArgs(sn, ta)
	}
	return sn
}

func (p *parser) unresolvedType() *node {
	switch p.look(0) {
	case 'T':
		t := p.templateParam()
		if t == nil {
			return nil
		}
		p.subs = append(p.subs, t)
		return t
	case 'D':
		d := p.decltype()
		if d == nil {
			return nil
		}
		p.subs = append(p.subs, d)
		return d
	}
	s := p.substitution()
	if s != nil && s.kind == kModuleName {
		return nil
	}
	return s
}

func (p *parser) baseUnresolvedName() *node {
	if isDigit(p.look(0)) {
		return p.simpleID()
	}
	if p.consumeStr("dn") {
		var r *node
		if isDigit(p.look(0)) {
			r = p.simpleID()
		} else {
			r = p.unresolvedType()
		}
		if r == nil {
			return nil
		}
		return p.node1(kDtorName, r)
	}
	p.consumeStr("on")
	op := p.operatorName(nil)
	if op == nil {
		return nil
	}
	if p.look(0) == 'I' {
		ta := p.templateArgs(false)
		if ta == nil {
			return nil
		}
		return p.nameWithArgs(op, ta)
	}
	return op
}
