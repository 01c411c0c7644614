package demangle

// The parser builds a tree of nodes; the printer walks it. C++ declarator
// syntax puts parts of a type on both sides of what it declares (the "(*)"
// and "[3]" of "int (*)[3]"), so every node prints a left part and, when
// it has one, a right part, as LLVM's ItaniumDemangle does.

type kind uint8

const (
	kName kind = iota
	kDotSuffix
	kVendorExtQual
	kQual
	kConvOp
	kPostfixQual
	kElaborated
	kAbiTag
	kEnableIf
	kObjCProto
	kPointer
	kRef
	kPtrToMember
	kArray
	kFunctionType
	kNoexceptSpec
	kDynExceptSpec
	kFunctionEncoding
	kLiteralOperator
	kSpecialName
	kCtorVtable
	kNested
	kLocalName
	kQualifiedName
	kVector
	kPixelVector
	kBinaryFP
	kSyntheticTP
	kTypeTPDecl
	kNonTypeTPDecl
	kTemplateTPDecl
	kTPPackDecl
	kParameterPack
	kTemplateArgPack
	kPackExpansion
	kTemplateArgs
	kForwardRef
	kNameWithTemplateArgs
	kGlobalQualified
	kStdQualified
	kSpecialSub
	kExpandedSpecialSub
	kCtorDtorName
	kDtorName
	kUnnamedType
	kClosureType
	kStructuredBinding
	kBinaryExpr
	kArraySubscript
	kPostfixExpr
	kConditional
	kMemberExpr
	kEnclosing
	kCast
	kSizeofPack
	kCallExpr
	kNewExpr
	kDeleteExpr
	kPrefixExpr
	kFunctionParam
	kConversionExpr
	kPtrMemConversion
	kInitList
	kBracedExpr
	kBracedRange
	kFold
	kThrow
	kBool
	kStringLiteral
	kLambdaExpr
	kEnumLiteral
	kIntegerLiteral
	kFloatLiteral
	kNodeArray
	kBitInt
	kConstrainedTPDecl
	kExplicitObject
	kModuleName
	kModuleEntity
)

// cache is a three-way answer to "does this node have a right part /
// an array / a function type": packs and forward references only know
// while printing.
type cache uint8

const (
	cNo cache = iota
	cYes
	cUnknown
)

type qual uint8

const (
	qConst qual = 1 << iota
	qVolatile
	qRestrict
)

// Reference kinds, for function ref-qualifiers and reference types. The
// lvalue kind is the smaller so collapsing takes the minimum.
const (
	refNone   = 0
	refLValue = 1
	refRValue = 2
)

// Special substitutions Sa, Sb, Ss, Si, So, Sd.
const (
	ssAllocator = iota
	ssBasicString
	ssString
	ssIstream
	ssOstream
	ssIostream
)

// Floating literal kinds.
const (
	flFloat = iota
	flDouble
	flLongDouble
)

// Synthetic template parameter kinds (lambda template parameters).
const (
	tpType = iota
	tpNonType
	tpTemplate
)

// node is one of many kinds; the fields' meaning depends on the kind (see
// the constructors in the parser).
type node struct {
	kind          kind
	rhs, arr, fun cache
	quals         qual
	ref           uint8
	flag, flag2   bool
	printing      bool // guards cycles through forward references
	n             int
	s, s2         string
	a, b, c       *node
	list, list2   []*node
}

const noPack = int(^uint(0) >> 1)

// printer holds the output and the state of pack expansion.
type printer struct {
	buf     []byte
	max     int // output longer than this is an error
	steps   int // work left; hostile names may do much work for little output
	depth   int
	failed  bool
	packIdx int
	packMax int
	tight   bool // ">>", as LLVM 15 on prints closing template brackets
	llvm19  bool // LLVM 15 on's other printing rules
	gtOK    int  // with llvm19, 0 where a '>' would end template arguments
}

const maxPrintDepth = 600

func (p *printer) str(s string) {
	if len(p.buf)+len(s) > p.max {
		p.failed = true
		return
	}
	p.buf = append(p.buf, s...)
}

func (p *printer) back() byte {
	if len(p.buf) == 0 {
		return 0
	}
	return p.buf[len(p.buf)-1]
}

// enter counts work and depth; it reports false once printing must stop.
func (p *printer) enter() bool {
	p.steps--
	p.depth++
	if p.steps < 0 || p.depth > maxPrintDepth {
		p.failed = true
	}
	return !p.failed
}

func (p *printer) print(n *node) {
	p.printLeft(n)
	if n.rhs != cNo {
		p.printRight(n)
	}
}

func (p *printer) hasRHS(n *node) bool {
	if n.rhs != cUnknown {
		return n.rhs == cYes
	}
	if !p.enter() {
		p.depth--
		return false
	}
	defer func() { p.depth-- }()
	switch n.kind {
	case kQual, kPointer, kRef:
		return p.hasRHS(n.a)
	case kPtrToMember:
		return p.hasRHS(n.b)
	case kParameterPack:
		p.initPack(n)
		if p.packIdx < len(n.list) {
			return p.hasRHS(n.list[p.packIdx])
		}
	case kForwardRef:
		if n.printing || n.a == nil {
			return false
		}
		n.printing = true
		r := p.hasRHS(n.a)
		n.printing = false
		return r
	}
	return false
}

func (p *printer) hasArray(n *node) bool {
	if n.arr != cUnknown {
		return n.arr == cYes
	}
	if !p.enter() {
		p.depth--
		return false
	}
	defer func() { p.depth-- }()
	switch n.kind {
	case kQual:
		return p.hasArray(n.a)
	case kParameterPack:
		p.initPack(n)
		if p.packIdx < len(n.list) {
			return p.hasArray(n.list[p.packIdx])
		}
	case kForwardRef:
		if n.printing || n.a == nil {
			return false
		}
		n.printing = true
		r := p.hasArray(n.a)
		n.printing = false
		return r
	}
	return false
}

func (p *printer) hasFunction(n *node) bool {
	if n.fun != cUnknown {
		return n.fun == cYes
	}
	if !p.enter() {
		p.depth--
		return false
	}
	defer func() { p.depth-- }()
	switch n.kind {
	case kQual:
		return p.hasFunction(n.a)
	case kParameterPack:
		p.initPack(n)
		if p.packIdx < len(n.list) {
			return p.hasFunction(n.list[p.packIdx])
		}
	case kForwardRef:
		if n.printing || n.a == nil {
			return false
		}
		n.printing = true
		r := p.hasFunction(n.a)
		n.printing = false
		return r
	}
	return false
}

// syntaxNode digs through packs and forward references to the node that
// stands for concrete syntax.
func (p *printer) syntaxNode(n *node) *node {
	var seen [8]*node
	refs := seen[:0]
	for i := 0; i < maxPrintDepth; i++ {
		if p.steps--; p.steps < 0 {
			p.failed = true
			return n
		}
		switch n.kind {
		case kParameterPack:
			p.initPack(n)
			if p.packIdx >= len(n.list) {
				return n
			}
			n = n.list[p.packIdx]
		case kForwardRef:
			if n.printing || n.a == nil {
				return n
			}
			// A reference being looked through stands for itself when
			// a cycle leads back to it.
			for _, r := range refs {
				if r == n {
					return n
				}
			}
			refs = append(refs, n)
			n = n.a
		default:
			return n
		}
	}
	p.failed = true
	return n
}

func (p *printer) initPack(n *node) {
	if p.packMax == noPack {
		p.packMax = len(n.list)
		p.packIdx = 0
	}
}

func (p *printer) list(l []*node) {
	first := true
	for _, e := range l {
		before := len(p.buf)
		if !first {
			p.str(", ")
		}
		after := len(p.buf)
		if p.llvm19 {
			p.operand(e, precComma, false)
		} else {
			p.print(e)
		}
		if p.failed {
			return
		}
		if after == len(p.buf) {
			// An empty pack expansion: take the comma back.
			p.buf = p.buf[:before]
			continue
		}
		first = false
	}
}

var specialSubNames = [...]string{
	ssAllocator:   "std::allocator",
	ssBasicString: "std::basic_string",
	ssString:      "std::string",
	ssIstream:     "std::istream",
	ssOstream:     "std::ostream",
	ssIostream:    "std::iostream",
}

var expandedSubNames = [...]string{
	ssAllocator:   "std::allocator",
	ssBasicString: "std::basic_string",
	ssString:      "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
	ssIstream:     "std::basic_istream<char, std::char_traits<char> >",
	ssOstream:     "std::basic_ostream<char, std::char_traits<char> >",
	ssIostream:    "std::basic_iostream<char, std::char_traits<char> >",
}

// expandedSubNamesTight are expandedSubNames as LLVM 15 on prints them.
var expandedSubNamesTight = [...]string{
	ssAllocator:   "std::allocator",
	ssBasicString: "std::basic_string",
	ssString:      "std::basic_string<char, std::char_traits<char>, std::allocator<char>>",
	ssIstream:     "std::basic_istream<char, std::char_traits<char>>",
	ssOstream:     "std::basic_ostream<char, std::char_traits<char>>",
	ssIostream:    "std::basic_iostream<char, std::char_traits<char>>",
}

var specialSubBaseNames = [...]string{
	ssAllocator:   "allocator",
	ssBasicString: "basic_string",
	ssString:      "string",
	ssIstream:     "istream",
	ssOstream:     "ostream",
	ssIostream:    "iostream",
}

var expandedSubBaseNames = [...]string{
	ssAllocator:   "allocator",
	ssBasicString: "basic_string",
	ssString:      "basic_string",
	ssIstream:     "basic_istream",
	ssOstream:     "basic_ostream",
	ssIostream:    "basic_iostream",
}

// baseName is the unqualified name a constructor or destructor repeats.
// LLVM 14 finds none through an ABI tag and prints "X[abi:v2]::(int)";
// LLVM 15 on looks through it: "X[abi:v2]::X(int)".
func (p *printer) baseName(n *node) string {
	for i := 0; i < maxPrintDepth && n != nil; i++ {
		switch n.kind {
		case kName:
			return n.s
		case kNameWithTemplateArgs:
			n = n.a
		case kNested, kQualifiedName:
			n = n.b
		case kStdQualified:
			n = n.a
		case kAbiTag:
			if !p.llvm19 {
				return ""
			}
			n = n.a
		case kModuleEntity:
			n = n.a
		case kSpecialSub:
			return specialSubBaseNames[n.n]
		case kExpandedSpecialSub:
			return expandedSubBaseNames[n.n]
		default:
			return ""
		}
	}
	return ""
}

func (p *printer) quals(q qual) {
	if q&qConst != 0 {
		p.str(" const")
	}
	if q&qVolatile != 0 {
		p.str(" volatile")
	}
	if q&qRestrict != 0 {
		p.str(" restrict")
	}
}

func (p *printer) printLeft(n *node) {
	if !p.enter() {
		p.depth--
		return
	}
	p.left(n)
	p.depth--
}

func (p *printer) printRight(n *node) {
	if !p.enter() {
		p.depth--
		return
	}
	p.right(n)
	p.depth--
}

func (p *printer) left(n *node) {
	if p.llvm19 && p.expr19(n) {
		return
	}
	switch n.kind {
	case kName:
		p.str(n.s)
	case kDotSuffix:
		p.print(n.a)
		p.str(" (")
		p.str(n.s)
		p.str(")")
	case kVendorExtQual:
		p.print(n.a)
		p.str(" ")
		p.str(n.s)
		if n.b != nil {
			p.print(n.b)
		}
	case kQual:
		p.printLeft(n.a)
		p.quals(n.quals)
	case kConvOp:
		p.str("operator ")
		p.print(n.a)
	case kPostfixQual:
		p.printLeft(n.a)
		p.str(n.s)
	case kElaborated:
		p.str(n.s)
		p.str(" ")
		p.print(n.a)
	case kAbiTag:
		p.printLeft(n.a)
		p.str("[abi:")
		p.str(n.s)
		p.str("]")
	case kEnableIf:
		p.str(" [enable_if:")
		p.list(n.list)
		p.str("]")
	case kObjCProto:
		p.print(n.a)
		p.str("<")
		p.str(n.s)
		p.str(">")
	case kPointer:
		if isObjCObject(n.a) {
			p.str("id<")
			p.str(n.a.s)
			p.str(">")
			return
		}
		p.printLeft(n.a)
		arr := p.hasArray(n.a)
		if arr {
			p.str(" ")
		}
		if arr || p.hasFunction(n.a) {
			p.str("(")
		}
		p.str("*")
	case kRef:
		if n.printing {
			return
		}
		n.printing = true
		kind, pointee := p.collapse(n)
		if pointee != nil {
			p.printLeft(pointee)
			arr := p.hasArray(pointee)
			if arr {
				p.str(" ")
			}
			if arr || p.hasFunction(pointee) {
				p.str("(")
			}
			if kind == refLValue {
				p.str("&")
			} else {
				p.str("&&")
			}
		}
		n.printing = false
	case kPtrToMember:
		p.printLeft(n.b)
		if p.hasArray(n.b) || p.hasFunction(n.b) {
			p.str("(")
		} else {
			p.str(" ")
		}
		p.print(n.a)
		p.str("::*")
	case kArray:
		p.printLeft(n.a)
	case kFunctionType:
		p.printLeft(n.a)
		p.str(" ")
	case kNoexceptSpec:
		p.str("noexcept(")
		p.print(n.a)
		p.str(")")
	case kDynExceptSpec:
		p.str("throw(")
		p.list(n.list)
		p.str(")")
	case kFunctionEncoding:
		if n.a != nil {
			p.printLeft(n.a)
			if !p.hasRHS(n.a) {
				p.str(" ")
			}
		}
		p.print(n.b)
	case kLiteralOperator:
		p.str("operator\"\" ")
		p.print(n.a)
	case kSpecialName:
		p.str(n.s)
		p.print(n.a)
	case kCtorVtable:
		p.str("construction vtable for ")
		p.print(n.a)
		p.str("-in-")
		p.print(n.b)
	case kNested, kQualifiedName, kLocalName:
		p.print(n.a)
		p.str("::")
		p.print(n.b)
	case kVector:
		p.print(n.a)
		p.str(" vector[")
		if n.b != nil {
			p.print(n.b)
		}
		p.str("]")
	case kPixelVector:
		p.str("pixel vector[")
		p.print(n.b)
		p.str("]")
	case kBinaryFP:
		p.str("_Float")
		p.print(n.a)
	case kBitInt:
		if n.flag {
			p.str("unsigned ")
		}
		p.str("_BitInt")
		p.open("(")
		p.operand(n.a, precDefault, false)
		p.close(")")
	case kSyntheticTP:
		switch n.n {
		case tpType:
			p.str("$T")
		case tpNonType:
			p.str("$N")
		case tpTemplate:
			p.str("$TT")
		}
		if n.s != "" {
			p.str(n.s)
		}
	case kTypeTPDecl:
		p.str("typename ")
	case kNonTypeTPDecl:
		p.printLeft(n.b)
		if !p.hasRHS(n.b) {
			p.str(" ")
		}
	case kConstrainedTPDecl:
		p.print(n.b)
		p.str(" ")
	case kExplicitObject:
		p.str("this ")
		p.print(n.a)
	case kModuleName:
		if n.a != nil {
			p.print(n.a)
		}
		switch {
		case n.flag:
			p.str(":")
		case n.a != nil:
			p.str(".")
		}
		p.print(n.b)
	case kModuleEntity:
		p.print(n.a)
		p.str("@")
		p.print(n.b)
	case kTemplateTPDecl:
		p.str("template<")
		p.list(n.list)
		p.str("> typename ")
	case kTPPackDecl:
		p.printLeft(n.a)
		p.str("...")
	case kParameterPack:
		p.initPack(n)
		if p.packIdx < len(n.list) {
			p.printLeft(n.list[p.packIdx])
		}
	case kTemplateArgPack, kNodeArray:
		p.list(n.list)
	case kPackExpansion:
		p.packExpansion(n.a)
	case kTemplateArgs:
		saved := p.gtOK
		p.gtOK = 0
		p.str("<")
		p.list(n.list)
		p.gtOK = saved
		if p.back() == '>' && !p.tight {
			p.str(" ")
		}
		p.str(">")
	case kForwardRef:
		if n.printing || n.a == nil {
			return
		}
		n.printing = true
		p.printLeft(n.a)
		n.printing = false
	case kNameWithTemplateArgs:
		p.print(n.a)
		p.print(n.b)
	case kGlobalQualified:
		p.str("::")
		p.print(n.a)
	case kStdQualified:
		p.str("std::")
		p.print(n.a)
	case kSpecialSub:
		p.str(specialSubNames[n.n])
	case kExpandedSpecialSub:
		if p.tight {
			p.str(expandedSubNamesTight[n.n])
		} else {
			p.str(expandedSubNames[n.n])
		}
	case kCtorDtorName:
		if n.flag {
			p.str("~")
		}
		p.str(p.baseName(n.a))
	case kDtorName:
		p.str("~")
		p.printLeft(n.a)
	case kUnnamedType:
		p.str("'unnamed")
		p.str(n.s)
		p.str("'")
	case kClosureType:
		p.str("'lambda")
		p.str(n.s)
		p.str("'")
		p.closureDeclarator(n)
	case kStructuredBinding:
		p.str("[")
		p.list(n.list)
		p.str("]")
	case kBinaryExpr:
		gt := n.s == ">"
		if gt {
			p.str("(")
		}
		p.str("(")
		p.print(n.a)
		p.str(") ")
		p.str(n.s)
		p.str(" (")
		p.print(n.b)
		p.str(")")
		if gt {
			p.str(")")
		}
	case kArraySubscript:
		p.str("(")
		p.print(n.a)
		p.str(")[")
		p.print(n.b)
		p.str("]")
	case kPostfixExpr:
		p.str("(")
		p.print(n.a)
		p.str(")")
		p.str(n.s)
	case kConditional:
		p.str("(")
		p.print(n.a)
		p.str(") ? (")
		p.print(n.b)
		p.str(") : (")
		p.print(n.c)
		p.str(")")
	case kMemberExpr:
		p.print(n.a)
		p.str(n.s)
		p.print(n.b)
	case kEnclosing:
		p.str(n.s)
		p.print(n.a)
		p.str(n.s2)
	case kCast:
		p.str(n.s)
		saved := p.gtOK
		p.gtOK = 0
		p.str("<")
		p.print(n.a)
		p.str(">")
		p.gtOK = saved
		p.open("(")
		p.print(n.b)
		p.close(")")
	case kSizeofPack:
		p.str("sizeof...(")
		p.packExpansion(n.a)
		p.str(")")
	case kCallExpr:
		p.print(n.a)
		p.open("(")
		p.list(n.list)
		p.close(")")
	case kNewExpr:
		p.newExpr(n)
	case kDeleteExpr:
		if n.flag {
			p.str("::")
		}
		p.str("delete")
		if n.flag2 {
			p.str("[] ")
		}
		p.print(n.a)
	case kPrefixExpr:
		p.str(n.s)
		p.str("(")
		p.print(n.a)
		p.str(")")
	case kFunctionParam:
		p.str("fp")
		p.str(n.s)
	case kConversionExpr:
		p.open("(")
		p.print(n.a)
		p.close(")")
		p.open("(")
		p.list(n.list)
		p.close(")")
	case kPtrMemConversion:
		p.open("(")
		p.print(n.a)
		p.close(")")
		p.open("(")
		p.print(n.b)
		p.close(")")
	case kInitList:
		if n.a != nil {
			p.print(n.a)
		}
		p.str("{")
		p.list(n.list)
		p.str("}")
	case kBracedExpr:
		if n.flag {
			p.str("[")
			p.print(n.a)
			p.str("]")
		} else {
			p.str(".")
			p.print(n.a)
		}
		if n.b.kind != kBracedExpr && n.b.kind != kBracedRange {
			p.str(" = ")
		}
		p.print(n.b)
	case kBracedRange:
		p.str("[")
		p.print(n.a)
		p.str(" ... ")
		p.print(n.b)
		p.str("]")
		if n.c.kind != kBracedExpr && n.c.kind != kBracedRange {
			p.str(" = ")
		}
		p.print(n.c)
	case kFold:
		p.fold(n)
	case kThrow:
		p.str("throw ")
		p.print(n.a)
	case kBool:
		if n.flag {
			p.str("true")
		} else {
			p.str("false")
		}
	case kStringLiteral:
		p.str("\"<")
		p.print(n.a)
		p.str(">\"")
	case kLambdaExpr:
		p.str("[]")
		if n.a.kind == kClosureType {
			p.closureDeclarator(n.a)
		}
		p.str("{...}")
	case kEnumLiteral:
		p.str("(")
		p.print(n.a)
		p.str(")")
		if n.s[0] == 'n' {
			p.str("-")
			p.str(n.s[1:])
		} else {
			p.str(n.s)
		}
	case kIntegerLiteral:
		if len(n.s) > 3 {
			p.str("(")
			p.str(n.s)
			p.str(")")
		}
		if n.s2[0] == 'n' {
			p.str("-")
			p.str(n.s2[1:])
		} else {
			p.str(n.s2)
		}
		if len(n.s) <= 3 {
			p.str(n.s)
		}
	case kFloatLiteral:
		p.str(formatFloatLiteral(n.s, n.n))
	}
}

func (p *printer) right(n *node) {
	switch n.kind {
	case kQual:
		p.printRight(n.a)
	case kPointer:
		if isObjCObject(n.a) {
			return
		}
		if p.hasArray(n.a) || p.hasFunction(n.a) {
			p.str(")")
		}
		p.printRight(n.a)
	case kRef:
		if n.printing {
			return
		}
		n.printing = true
		_, pointee := p.collapse(n)
		if pointee != nil {
			if p.hasArray(pointee) || p.hasFunction(pointee) {
				p.str(")")
			}
			p.printRight(pointee)
		}
		n.printing = false
	case kPtrToMember:
		if p.hasArray(n.b) || p.hasFunction(n.b) {
			p.str(")")
		}
		p.printRight(n.b)
	case kArray:
		if p.back() != ']' {
			p.str(" ")
		}
		p.str("[")
		if n.b != nil {
			p.print(n.b)
		}
		p.str("]")
		p.printRight(n.a)
	case kFunctionType:
		p.open("(")
		p.list(n.list)
		p.close(")")
		p.printRight(n.a)
		p.quals(n.quals)
		p.refQual(n.ref)
		if n.b != nil {
			p.str(" ")
			p.print(n.b)
		}
	case kFunctionEncoding:
		p.open("(")
		p.list(n.list)
		p.close(")")
		if n.a != nil {
			p.printRight(n.a)
		}
		p.quals(n.quals)
		p.refQual(n.ref)
		if n.c != nil {
			p.print(n.c)
		}
		for _, req := range n.list2 { // a requires-clause
			p.str(" requires ")
			p.print(req)
		}
	case kTypeTPDecl, kTemplateTPDecl:
		p.print(n.a)
	case kNonTypeTPDecl:
		p.print(n.a)
		p.printRight(n.b)
	case kConstrainedTPDecl:
		p.print(n.a)
	case kTPPackDecl:
		p.printRight(n.a)
	case kParameterPack:
		p.initPack(n)
		if p.packIdx < len(n.list) {
			p.printRight(n.list[p.packIdx])
		}
	case kForwardRef:
		if n.printing || n.a == nil {
			return
		}
		n.printing = true
		p.printRight(n.a)
		n.printing = false
	}
}

func (p *printer) refQual(r uint8) {
	switch r {
	case refLValue:
		p.str(" &")
	case refRValue:
		p.str(" &&")
	}
}

func isObjCObject(n *node) bool {
	return n.kind == kObjCProto && n.a.kind == kName && n.a.s == "objc_object"
}

// collapse applies reference collapsing (an rvalue reference to an
// rvalue reference stays one; any other pair is an lvalue reference),
// giving up on a cycle a hostile name can build.
func (p *printer) collapse(n *node) (uint8, *node) {
	kind, pointee := n.ref, n.a
	var prev []*node
	for {
		sn := p.syntaxNode(pointee)
		if sn.kind != kRef || p.failed || p.steps < 0 {
			break
		}
		pointee = sn.a
		if sn.ref < kind {
			kind = sn.ref
		}
		prev = append(prev, pointee)
		if len(prev) > 1 && pointee == prev[(len(prev)-1)/2] {
			return kind, nil
		}
		if len(prev) > maxPrintDepth {
			p.failed = true
			return kind, nil
		}
	}
	return kind, pointee
}

// packExpansion prints child once per element of the pack it refers to,
// comma separated.
func (p *printer) packExpansion(child *node) {
	savedIdx, savedMax := p.packIdx, p.packMax
	p.packIdx, p.packMax = noPack, noPack
	start := len(p.buf)
	p.print(child)
	switch {
	case p.packMax == noPack:
		p.str("...")
	case p.packMax == 0:
		p.buf = p.buf[:start]
	default:
		for i, e := 1, p.packMax; i < e && !p.failed; i++ {
			p.str(", ")
			p.packIdx = i
			p.print(child)
		}
	}
	p.packIdx, p.packMax = savedIdx, savedMax
}

func (p *printer) closureDeclarator(n *node) {
	if len(n.list) > 0 {
		saved := p.gtOK
		p.gtOK = 0
		p.str("<")
		p.list(n.list)
		p.str(">")
		p.gtOK = saved
	}
	if n.a != nil {
		p.str(" requires ")
		p.print(n.a)
		p.str(" ")
	}
	p.open("(")
	p.list(n.list2)
	p.close(")")
	if n.b != nil {
		p.str(" requires ")
		p.print(n.b)
	}
}

func (p *printer) fold(n *node) {
	printPack := func() {
		p.open("(")
		p.packExpansion(n.a)
		p.close(")")
	}
	// LLVM 15 on print the initial value as a cast-expression operand.
	printInit := func() {
		if p.llvm19 {
			p.operand(n.b, precCast, true)
		} else {
			p.print(n.b)
		}
	}
	p.open("(")
	if n.flag { // left fold
		if n.b != nil {
			printInit()
			p.str(" ")
			p.str(n.s)
			p.str(" ")
		}
		p.str("... ")
		p.str(n.s)
		p.str(" ")
		printPack()
	} else {
		printPack()
		p.str(" ")
		p.str(n.s)
		p.str(" ...")
		if n.b != nil {
			p.str(" ")
			p.str(n.s)
			p.str(" ")
			printInit()
		}
	}
	p.close(")")
}
