package demangle

// LLVM 15 on print an expression with only the parentheses C++ needs: each
// operand is put in parentheses when its operator binds more loosely than
// the one applied to it (LLVM 14 puts every operand in parentheses). A '>'
// or '>>' written directly inside template arguments, where it would end
// them, is still put in parentheses.

// prec ranks expressions as LLVM does for that: lower binds tighter.
type prec uint8

const (
	precPrimary prec = iota
	precPostfix
	precUnary
	precCast
	precPtrMem
	precMultiplicative
	precAdditive
	precShift
	precSpaceship
	precRelational
	precEquality
	precAnd
	precXor
	precIor
	precAndIf
	precOrIf
	precConditional
	precAssign
	precComma
	precDefault
)

// binaryPrec is the precedence of a binary operator.
func binaryPrec(op string) prec {
	switch op {
	case "*", "/", "%":
		return precMultiplicative
	case "+", "-":
		return precAdditive
	case "<<", ">>":
		return precShift
	case "<=>":
		return precSpaceship
	case "<", ">", "<=", ">=":
		return precRelational
	case "==", "!=":
		return precEquality
	case "&":
		return precAnd
	case "^":
		return precXor
	case "|":
		return precIor
	case "&&":
		return precAndIf
	case "||":
		return precOrIf
	case ",":
		return precComma
	case "->*":
		return precPtrMem
	}
	return precAssign // =, +=, <<= and the other assignments
}

// exprPrec is the precedence of expression n; anything that is not an
// operator expression is primary.
func exprPrec(n *node) prec {
	switch n.kind {
	case kBinaryExpr:
		return binaryPrec(n.s)
	case kArraySubscript, kPostfixExpr, kCast, kCallExpr:
		return precPostfix
	case kMemberExpr:
		if n.s == ".*" {
			return precPtrMem
		}
		return precPostfix
	case kConditional:
		return precConditional
	case kPrefixExpr, kNewExpr, kDeleteExpr:
		return precUnary
	case kConversionExpr, kPtrMemConversion:
		return precCast
	case kEnclosing:
		switch n.s {
		case "sizeof (", "alignof (", "noexcept (":
			return precUnary
		case "typeid (":
			return precPostfix
		}
	}
	return precPrimary
}

// open and close print parentheses (or brackets) inside which a '>' no
// longer ends template arguments.
func (p *printer) open(s string) {
	p.gtOK++
	p.str(s)
}

func (p *printer) close(s string) {
	p.gtOK--
	p.str(s)
}

// operand prints n as an operand of an operator of precedence outer, in
// parentheses if n binds more loosely (or, with strict, as loosely).
func (p *printer) operand(n *node, outer prec, strict bool) {
	limit := int(outer)
	if strict {
		limit++
	}
	if int(exprPrec(n)) >= limit {
		p.open("(")
		p.print(n)
		p.close(")")
		return
	}
	p.print(n)
}

// newExpr prints a new-expression: LLVM 14 spells a global one
// "::operator new" and puts placement arguments after the space, LLVM 15
// on "::new(args) type".
func (p *printer) newExpr(n *node) {
	if n.flag {
		if p.llvm19 {
			p.str("::")
		} else {
			p.str("::operator ")
		}
	}
	p.str("new")
	if n.flag2 {
		p.str("[]")
	}
	if !p.llvm19 {
		p.str(" ")
	}
	if len(n.list) > 0 {
		p.open("(")
		p.list(n.list)
		p.close(")")
	}
	if p.llvm19 {
		p.str(" ")
	}
	p.print(n.a)
	if len(n.list2) > 0 {
		p.open("(")
		p.list(n.list2)
		p.close(")")
	}
}

// expr19 prints the expressions LLVM 15 on print differently from LLVM
// 14; it reports false for the others.
func (p *printer) expr19(n *node) bool {
	switch n.kind {
	case kBinaryExpr:
		op := n.s
		all := p.gtOK == 0 && (op == ">" || op == ">>")
		if all {
			p.open("(")
		}
		pr := binaryPrec(op)
		switch {
		case op == "->*":
			p.operand(n.a, pr, true)
			p.str(op)
			p.operand(n.b, pr, false)
		case pr == precAssign:
			// Right associative; the left side may be no assignment
			// nor conditional.
			p.operand(n.a, precOrIf, false)
			p.str(" ")
			p.str(op)
			p.str(" ")
			p.operand(n.b, pr, true)
		default:
			p.operand(n.a, pr, true)
			if op != "," {
				p.str(" ")
			}
			p.str(op)
			p.str(" ")
			p.operand(n.b, pr, false)
		}
		if all {
			p.close(")")
		}
	case kArraySubscript:
		p.operand(n.a, precPostfix, false)
		p.open("[")
		p.operand(n.b, precDefault, false)
		p.close("]")
	case kPostfixExpr:
		p.operand(n.a, precPostfix, true)
		p.str(n.s)
	case kConditional:
		p.operand(n.a, precConditional, false)
		p.str(" ? ")
		p.operand(n.b, precDefault, false)
		p.str(" : ")
		p.operand(n.c, precAssign, true)
	case kMemberExpr:
		pr := exprPrec(n)
		p.operand(n.a, pr, true)
		p.str(n.s)
		p.operand(n.b, pr, false)
	case kEnclosing:
		pre := n.s
		if pre[len(pre)-1] == '(' {
			pre = pre[:len(pre)-1]
		}
		p.str(pre)
		p.open("(")
		p.print(n.a)
		p.close(n.s2)
	case kPrefixExpr:
		p.str(n.s)
		p.operand(n.a, precUnary, false)
	case kDeleteExpr:
		if n.flag {
			p.str("::")
		}
		p.str("delete")
		if n.flag2 {
			p.str("[]")
		}
		p.str(" ")
		p.print(n.a)
	default:
		return false
	}
	return true
}
