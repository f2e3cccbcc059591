package cpp

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// The fake NVRTC's #if evaluator: C preprocessor expressions on intmax_t
// and uintmax_t (64 bits here), after the expansion of object-like macros.
// What it cannot evaluate (a function-like macro, __has_include, a
// floating constant) is an error in the log, never a guess.

const (
	// maxIfWork bounds the tokens one #if may expand to (macros can double
	// at each level of definition).
	maxIfWork = 1 << 16
	// maxIfNesting bounds the nesting of parentheses and unary operators
	// in one #if, and so the depth of the parser's recursion.
	maxIfNesting = 256
)

// ppValue is the value of a preprocessor expression: an intmax_t, or the
// bits of a uintmax_t when unsigned.
type ppValue struct {
	n        int64
	unsigned bool
}

func ppBool(b bool) ppValue {
	if b {
		return ppValue{n: 1}
	}
	return ppValue{}
}

// ppToken kinds.
const (
	ppNumber = iota // a pp-number: 12, 0x1fUL, 1.5e3, 1'000
	ppIdent
	ppChar   // a character constant, quotes included
	ppString // a string literal
	ppPunct  // an operator or punctuator, or any other character
	ppBad    // an unterminated character constant or string literal
)

// ppToken is one preprocessing token: 16 bytes, so that the tokens of an
// expression (up to one per byte of it) stay within the preprocessor's
// memory bound.
type ppToken struct {
	p    *byte // the token's text (see str), in the expression or macro body
	n    uint32
	kind uint32
}

// tok returns the token of kind with text s.
func tok(kind int, s string) ppToken {
	return ppToken{p: unsafe.StringData(s), n: uint32(len(s)), kind: uint32(kind)}
}

// str returns the token's text.
func (t ppToken) str() string { return unsafe.String(t.p, t.n) }

// ppPuncts are the operators of #if expressions, longest first.
var ppPuncts = []string{"<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+", "-", "*", "/", "%", "<", ">", "!", "~", "&", "|", "^", "?", ":", "(", ")", ","}

// otherPuncts are C++ punctuators that are no operators of #if but must
// be read whole: "--1" is an error, not -(-1).
var otherPuncts = []string{"%:%:", "<<=", ">>=", "<=>", "->*", "...",
	"++", "--", "->", "::", ".*", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", "<:", ":>", "<%", "%>", "%:"}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentByte(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }

// ppTokenize splits directive text into preprocessing tokens. It never
// fails: what is not valid in an expression becomes a token that the
// parser refuses, if it is ever reached.
//
// The tokens are appended to toks; it stops once it has appended more
// than limit of them.
func ppTokenize(toks []ppToken, s string, limit int) []ppToken {
	for i, start := 0, len(toks); i < len(s) && len(toks)-start <= limit; {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			i++
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			// pp-number: digits, letters, _, ., e+ e- p+ p- and ' between
			// digits (C++14 separators).
			j := i + 1
			for j < len(s) {
				d := s[j]
				switch {
				case isIdentByte(d) || d == '.':
					j++
				case (d == '+' || d == '-') && strings.ContainsRune("eEpP", rune(s[j-1])):
					j++
				case d == '\'' && j+1 < len(s) && isIdentByte(s[j+1]):
					j += 2
				default:
					goto number
				}
			}
		number:
			toks = append(toks, tok(ppNumber, s[i:j]))
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			if j < len(s) && (s[j] == '\'' || s[j] == '"') {
				switch s[i:j] {
				case "L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R":
					// A prefixed literal: keep the prefix with it.
					var t ppToken
					t, i = literal(s, i, j)
					toks = append(toks, t)
					continue
				}
			}
			toks = append(toks, tok(ppIdent, s[i:j]))
			i = j
		case c == '\'' || c == '"':
			var t ppToken
			t, i = literal(s, i, i)
			toks = append(toks, t)
		default:
			n := 1
			for _, p := range otherPuncts {
				if strings.HasPrefix(s[i:], p) {
					n = len(p)
					break
				}
			}
			for _, p := range ppPuncts {
				if n == 1 && strings.HasPrefix(s[i:], p) {
					n = len(p)
					break
				}
			}
			toks = append(toks, tok(ppPunct, s[i:i+n]))
			i += n
		}
	}
	return toks
}

// quoted returns the end of the character constant or string literal that
// opens at s[i] (past its closing quote, or len(s)) and whether it is
// closed.
func quoted(s string, i int) (int, bool) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1, true
		}
	}
	return len(s), false
}

// literal is the token of the literal that opens with the quote q at s[j],
// after a prefix from s[i]; it returns the index past it.
func literal(s string, i, j int) (ppToken, int) {
	k, closed := quoted(s, j)
	switch {
	case !closed:
		return tok(ppBad, s[i:k]), k
	case s[j] == '"':
		return tok(ppString, s[i:k]), k
	}
	return tok(ppChar, s[i:k]), k
}

// ifWorkError is the error for an expression whose expansion (or its own
// tokens) would pass limit tokens.
func ifWorkError(limit int) error {
	return fmt.Errorf("#if expression exceeds the fake NVRTC's limit of %d tokens after macro expansion", limit)
}

// The bounds of one compile's #if expressions, for an input of size bytes
// (the source, the headers and the -D macros), so that their memory stays
// within a small multiple of the input and their time bounded, however
// the macros double:
//
//   - ifLimit: the tokens one expression may have, after expansion;
//   - ifCache: the tokens of the macro bodies kept tokenized, in all;
//   - ifWork: the tokens all of them may read and expand to, in all.
//
// The expression's tokens and its expansion are made in slices reused
// from one expression to the next, so that the memory is that of the
// largest of them.
func ifLimit(size int) int { return min(maxIfWork, max(minIfTokens, size/4)) }
func ifCache(size int) int { return max(minIfTokens, size/4) }
func ifWork(size int) int  { return maxIfWork + 16*size }

// minIfTokens is the least ifLimit and ifCache.
const minIfTokens = 1024

// errBudget is what the errors wrap that end a compile whose #if
// expressions used one of its budgets (ifCache, ifWork).
var errBudget = errors.New("the #if expressions of this compile exceed the fake NVRTC's limit")

// macros are the macros of one compile, and what its #if expressions
// share: their bounds and the slices they reuse.
type macros struct {
	defs map[string]string    // name -> replacement text
	fn   map[string]bool      // the function-like ones
	toks map[string][]ppToken // tokenized replacements, made when first expanded

	limit, cache, work int             // the bounds left: see ifLimit, ifCache, ifWork
	expr, out          []ppToken       // an expression's tokens and their expansion, reused
	bodyBuf            []ppToken       // a body being tokenized, reused
	hide               map[string]bool // the macros being expanded (empty between expressions)
}

// bound sets the bounds of a compile of size bytes of input.
func (m *macros) bound(size int) {
	m.limit, m.cache, m.work = ifLimit(size), ifCache(size), ifWork(size)
}

func newMacros() *macros {
	m := &macros{defs: map[string]string{}, fn: map[string]bool{}, toks: map[string][]ppToken{}, hide: map[string]bool{}}
	m.bound(0)
	return m
}

func (m *macros) define(name, body string, funcLike bool) {
	m.defs[name] = body
	delete(m.toks, name)
	delete(m.fn, name)
	if funcLike {
		m.fn[name] = true
	}
}

func (m *macros) undef(name string) {
	delete(m.defs, name)
	delete(m.toks, name)
	delete(m.fn, name)
}

// body returns the tokens of name's replacement, tokenized when first
// needed, within the bounds of the compile (see ifLimit and ifCache).
func (m *macros) body(name string) ([]ppToken, error) {
	b, ok := m.toks[name]
	if !ok {
		m.bodyBuf = ppTokenize(m.bodyBuf[:0], m.defs[name], m.limit)
		if len(m.bodyBuf) > m.limit {
			return nil, ifWorkError(m.limit)
		}
		if m.cache -= len(m.bodyBuf); m.cache < 0 {
			return nil, fmt.Errorf("%w on the tokens of the macro bodies it expands (a quarter of the input's bytes, at least %d)", errBudget, minIfTokens)
		}
		b = slices.Clone(m.bodyBuf)
		m.toks[name] = b
	}
	return b, nil
}

// ifExpander expands the object-like macros of one #if expression.
type ifExpander struct {
	m    *macros
	work int
	hide map[string]bool // the macros being expanded: not again
}

// expand appends the expansion of toks to out. The operand of defined is
// not expanded; a macro is not expanded inside its own expansion (it
// stays an identifier, which is 0); a function-like macro is left as it
// is, for the parser to refuse when it is called.
func (x *ifExpander) expand(out, toks []ppToken) ([]ppToken, error) {
	for i := 0; i < len(toks); i++ {
		x.work++
		if x.work > x.m.limit {
			return out, ifWorkError(x.m.limit)
		}
		if x.m.work--; x.m.work < 0 {
			return out, fmt.Errorf("%w on the tokens they read and expand to in all (16 per byte of the input, and %d)", errBudget, maxIfWork)
		}
		t := toks[i]
		if t.kind != ppIdent {
			out = append(out, t)
			continue
		}
		if t.str() == "defined" {
			// Copy "defined X" or "defined ( X" unexpanded.
			n := 1
			if i+1 < len(toks) && toks[i+1].kind == ppIdent {
				n = 2
			} else if i+2 < len(toks) && toks[i+1].str() == "(" && toks[i+2].kind == ppIdent {
				n = 3
			}
			out = append(out, toks[i:i+n]...)
			i += n - 1
			continue
		}
		if _, ok := x.m.defs[t.str()]; !ok || x.hide[t.str()] || x.m.fn[t.str()] {
			out = append(out, t)
			continue
		}
		body, err := x.m.body(t.str())
		if err != nil {
			return out, err
		}
		x.hide[t.str()] = true
		out, err = x.expand(out, body)
		delete(x.hide, t.str())
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// evalIf evaluates the expression of an #if or #elif with the macros m.
// It keeps within the bounds of the compile (see ifLimit).
func evalIf(expr string, m *macros) (bool, error) {
	m.expr = ppTokenize(m.expr[:0], expr, m.limit)
	if len(m.expr) > m.limit {
		return false, ifWorkError(m.limit)
	}
	x := ifExpander{m: m, hide: m.hide}
	toks, err := x.expand(m.out[:0], m.expr)
	m.out = toks
	clear(m.hide)
	if err != nil {
		return false, err
	}
	// Refuse what cannot be evaluated, left to right: the calls the fake
	// cannot make and the tokens that are not valid in #if.
	for i, t := range toks {
		if t.kind == ppIdent && i+1 < len(toks) && toks[i+1].str() == "(" && (m.fn[t.str()] || unsupportedCalls[t.str()]) &&
			(i == 0 || toks[i-1].str() != "defined" && (i < 2 || toks[i-2].str() != "defined")) {
			return false, notSupported(t.str(), m)
		}
		switch t.kind {
		case ppString:
			return false, errors.New("string literal in #if")
		case ppBad:
			if t.str()[strings.IndexAny(t.str(), `'"`)] == '"' {
				return false, errors.New("unterminated string literal in #if")
			}
			return false, errors.New("unterminated character constant in #if")
		case ppPunct:
			if !slices.Contains(ppPuncts, t.str()) {
				return false, fmt.Errorf("token %q is not valid in #if", t.str())
			}
		}
	}
	p := &ppParser{toks: toks, m: m}
	v := p.comma(true)
	if p.err == nil && p.pos < len(p.toks) {
		p.fail("extra text after expression: %q", p.toks[p.pos].str())
	}
	if p.err != nil {
		return false, p.err
	}
	return v.n != 0, nil
}

// ppParser is a precedence-climbing parser and evaluator of a macro-
// expanded #if expression. eval false parses without evaluating (the
// unevaluated operand of &&, || and ?:, where dividing by zero is no
// error). The first error stops it.
type ppParser struct {
	toks  []ppToken
	pos   int
	m     *macros
	err   error
	depth int // of nested parentheses and unary operators
}

// nest enters one more level of nesting; it reports false (and fails)
// past maxIfNesting. Each call is paired with p.depth--.
func (p *ppParser) nest() bool {
	p.depth++
	if p.depth > maxIfNesting {
		p.fail("#if expression nested too deeply (more than %d levels) for the fake NVRTC", maxIfNesting)
		return false
	}
	return true
}

func (p *ppParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(format, args...)
	}
}

func (p *ppParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos].str()
	}
	return ""
}

// comma: cond {, cond}.
func (p *ppParser) comma(eval bool) ppValue {
	v := p.cond(eval)
	for p.err == nil && p.peek() == "," {
		p.pos++
		v = p.cond(eval)
	}
	return v
}

// cond: binary [? comma : cond].
func (p *ppParser) cond(eval bool) ppValue {
	c := p.binary(1, eval)
	if p.err != nil || p.peek() != "?" {
		return c
	}
	p.pos++
	a := p.comma(eval && c.n != 0)
	if p.err != nil {
		return ppValue{}
	}
	if p.peek() != ":" {
		p.fail(`expected a ":"`)
		return ppValue{}
	}
	p.pos++
	b := p.cond(eval && c.n == 0)
	u := a.unsigned || b.unsigned
	if c.n != 0 {
		return ppValue{a.n, u}
	}
	return ppValue{b.n, u}
}

// binaryPrec is the precedence of the binary operators, loosest first.
var binaryPrec = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
	"<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}

// binary parses operators of precedence min and tighter, left to right.
func (p *ppParser) binary(min int, eval bool) ppValue {
	l := p.unary(eval)
	for p.err == nil && p.pos < len(p.toks) && p.toks[p.pos].kind == ppPunct {
		op := p.toks[p.pos].str()
		prec, ok := binaryPrec[op]
		if !ok || prec < min {
			break
		}
		p.pos++
		switch op {
		case "&&":
			r := p.binary(prec+1, eval && l.n != 0)
			l = ppBool(l.n != 0 && r.n != 0)
		case "||":
			r := p.binary(prec+1, eval && l.n == 0)
			l = ppBool(l.n != 0 || r.n != 0)
		default:
			r := p.binary(prec+1, eval)
			if p.err != nil {
				return ppValue{}
			}
			l = p.apply(op, l, r, eval)
		}
	}
	return l
}

// apply computes l op r with C's conversions: unsigned if either operand
// is (but a shift has its left operand's type; a comparison is a signed
// 0 or 1).
func (p *ppParser) apply(op string, l, r ppValue, eval bool) ppValue {
	u := l.unsigned || r.unsigned
	a, b := l.n, r.n
	switch op {
	case "*":
		return ppValue{a * b, u}
	case "/", "%":
		if b == 0 {
			if eval {
				p.fail("division by zero in #if")
			}
			return ppValue{0, u}
		}
		// Go defines MinInt64 / -1 (MinInt64) and MinInt64 % -1 (0): no
		// panic, the wrapped value C would most likely give.
		switch {
		case u && op == "/":
			return ppValue{int64(uint64(a) / uint64(b)), true}
		case u:
			return ppValue{int64(uint64(a) % uint64(b)), true}
		case op == "/":
			return ppValue{a / b, false}
		default:
			return ppValue{a % b, false}
		}
	case "+":
		return ppValue{a + b, u}
	case "-":
		return ppValue{a - b, u}
	case "<<", ">>":
		// A negative count shifts the other way (as GCC does); a count of
		// 64 or more shifts every bit out.
		left := op == "<<"
		var n uint64
		if !r.unsigned && b < 0 {
			left = !left
			n = uint64(-b) // MinInt64 stays 1<<63: every bit out
		} else {
			n = uint64(b)
		}
		switch {
		case left:
			return ppValue{a << n, l.unsigned}
		case l.unsigned:
			return ppValue{int64(uint64(a) >> n), true}
		default:
			return ppValue{a >> n, false}
		}
	case "<", ">", "<=", ">=":
		var lt, gt bool
		if u {
			lt, gt = uint64(a) < uint64(b), uint64(a) > uint64(b)
		} else {
			lt, gt = a < b, a > b
		}
		switch op {
		case "<":
			return ppBool(lt)
		case ">":
			return ppBool(gt)
		case "<=":
			return ppBool(!gt)
		default:
			return ppBool(!lt)
		}
	case "==":
		return ppBool(a == b)
	case "!=":
		return ppBool(a != b)
	case "&":
		return ppValue{a & b, u}
	case "^":
		return ppValue{a ^ b, u}
	case "|":
		return ppValue{a | b, u}
	}
	p.fail("operator %q in #if is not supported", op)
	return ppValue{}
}

// unary: (+ | - | ~ | !) unary | primary.
func (p *ppParser) unary(eval bool) ppValue {
	if p.pos < len(p.toks) && p.toks[p.pos].kind == ppPunct {
		switch op := p.toks[p.pos].str(); op {
		case "+", "-", "~", "!":
			p.pos++
			defer func() { p.depth-- }()
			if !p.nest() {
				return ppValue{}
			}
			v := p.unary(eval)
			switch op {
			case "-":
				v.n = -v.n
			case "~":
				v.n = ^v.n
			case "!":
				v = ppBool(v.n == 0)
			}
			return v
		}
	}
	return p.primary(eval)
}

// unsupportedCalls are the function-like built-ins the fake does not know.
var unsupportedCalls = map[string]bool{
	"__has_include": true, "__has_include_next": true, "__has_builtin": true, "__has_attribute": true,
	"__has_cpp_attribute": true, "__has_feature": true, "__has_extension": true, "__is_identifier": true,
	"__has_declspec_attribute": true, "__has_embed": true,
}

// primary: number | character | identifier | defined X | defined ( X ) | ( comma ).
func (p *ppParser) primary(eval bool) ppValue {
	if p.pos >= len(p.toks) {
		p.fail("expected an expression")
		return ppValue{}
	}
	t := p.toks[p.pos]
	p.pos++
	switch t.kind {
	case ppNumber:
		v, err := parsePPNumber(t.str())
		if err != nil {
			p.fail("%v", err)
		}
		return v
	case ppChar:
		v, err := parsePPChar(t.str())
		if err != nil {
			p.fail("%v", err)
		}
		return v
	case ppIdent:
		switch {
		case t.str() == "defined":
			return p.defined()
		case p.peek() == "(":
			if p.m.fn[t.str()] || unsupportedCalls[t.str()] {
				p.err = notSupported(t.str(), p.m)
			}
			p.fail(`%s is not a function-like macro: missing an operator before "("`, t.str())
			return ppValue{}
		case t.str() == "true":
			// C++: true and false are not identifiers.
			return ppValue{n: 1}
		}
		// An identifier that is not a macro (or a macro inside its own
		// expansion, or a function-like macro not called) is 0.
		return ppValue{}
	}
	if t.str() == "(" {
		defer func() { p.depth-- }()
		if !p.nest() {
			return ppValue{}
		}
		v := p.comma(eval)
		if p.err == nil {
			if p.peek() != ")" {
				p.fail(`expected a ")"`)
			} else {
				p.pos++
			}
		}
		return v
	}
	p.pos--
	p.fail("expected an expression before %q", t.str())
	return ppValue{}
}

// notSupported is the error for a call of name in #if.
func notSupported(name string, m *macros) error {
	if m.fn[name] {
		return fmt.Errorf("function-like macro %s in #if is not supported by the fake NVRTC", name)
	}
	return fmt.Errorf("%s in #if is not supported by the fake NVRTC", name)
}

// defined reads the operand of defined: X or ( X ).
func (p *ppParser) defined() ppValue {
	paren := p.peek() == "("
	if paren {
		p.pos++
	}
	if p.pos >= len(p.toks) || p.toks[p.pos].kind != ppIdent {
		p.fail("defined without a macro name")
		return ppValue{}
	}
	name := p.toks[p.pos].str()
	p.pos++
	if paren {
		if p.peek() != ")" {
			p.fail(`expected a ")" after defined(%s`, name)
			return ppValue{}
		}
		p.pos++
	}
	_, ok := p.m.defs[name]
	return ppBool(ok)
}

// parsePPNumber reads an integer constant: decimal, octal (0...), hex
// (0x...), binary (0b...), with C++14 digit separators and the suffixes u,
// l, ll in any case and order. A value beyond intmax_t is unsigned.
func parsePPNumber(s string) (ppValue, error) {
	raw := s
	if strings.Contains(s, "'") {
		for i := 0; i < len(s); i++ {
			if s[i] == '\'' && (i == 0 || i+1 == len(s) || !isHexDigit(s[i-1]) || !isHexDigit(s[i+1])) {
				return ppValue{}, fmt.Errorf("invalid digit separator in %q", raw)
			}
		}
		s = strings.ReplaceAll(s, "'", "")
	}
	base, digits := 10, s
	switch {
	case len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		base, digits = 16, s[2:]
	case len(s) > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'):
		base, digits = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	if strings.ContainsAny(s, ".") || base == 16 && strings.ContainsAny(digits, "pP") ||
		base != 16 && strings.ContainsAny(s, "eE") {
		return ppValue{}, errors.New("floating constant in #if")
	}
	n := 0
	for n < len(digits) && (isDigit(digits[n]) || base == 16 && isHexDigit(digits[n])) {
		n++
	}
	digits, suffix := digits[:n], digits[n:]
	if digits == "" && base != 8 {
		return ppValue{}, fmt.Errorf("invalid integer constant %q", raw)
	}
	for i := 0; i < len(digits); i++ {
		if d := digits[i]; isDigit(d) && int(d-'0') >= base {
			name := map[int]string{8: "octal", 2: "binary"}[base]
			return ppValue{}, fmt.Errorf("invalid digit %q in %s constant", string(d), name)
		}
	}
	unsigned := false
	switch suffix {
	case "", "l", "L", "ll", "LL":
	case "u", "U", "ul", "uL", "Ul", "UL", "lu", "lU", "Lu", "LU",
		"ull", "uLL", "Ull", "ULL", "llu", "llU", "LLu", "LLU":
		unsigned = true
	default:
		return ppValue{}, fmt.Errorf("invalid suffix %q on integer constant %q", suffix, raw)
	}
	v := uint64(0)
	if digits != "" {
		var err error
		v, err = strconv.ParseUint(digits, base, 64)
		if err != nil {
			return ppValue{}, fmt.Errorf("integer constant is too large: %q", raw)
		}
	}
	return ppValue{int64(v), unsigned || v > 1<<63-1}, nil
}

func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// parsePPChar reads a plain character constant of one character or
// escape, as an int (a char is signed, as NVRTC's on x86-64 and Arm).
func parsePPChar(s string) (ppValue, error) {
	if s[0] != '\'' {
		return ppValue{}, fmt.Errorf("prefixed character constant %s in #if is not supported by the fake NVRTC", s)
	}
	body := s[1 : len(s)-1]
	if body == "" {
		return ppValue{}, errors.New("empty character constant in #if")
	}
	var c int64
	n := 1
	if body[0] == '\\' {
		if len(body) < 2 {
			return ppValue{}, errors.New("unterminated character constant in #if")
		}
		n = 2
		switch e := body[1]; e {
		case 'n':
			c = '\n'
		case 't':
			c = '\t'
		case 'r':
			c = '\r'
		case 'a':
			c = '\a'
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'v':
			c = '\v'
		case '\\', '\'', '"', '?':
			c = int64(e)
		case 'x':
			for n < len(body) && isHexDigit(body[n]) && n < 4 {
				n++
			}
			if n == 2 {
				return ppValue{}, errors.New(`\x without hex digits in #if`)
			}
			u, _ := strconv.ParseUint(body[2:n], 16, 8)
			c = int64(int8(u))
		default:
			if e < '0' || e > '7' {
				return ppValue{}, fmt.Errorf("unknown escape sequence \\%c in #if", e)
			}
			for n < len(body) && n < 4 && body[n] >= '0' && body[n] <= '7' {
				n++
			}
			u, _ := strconv.ParseUint(body[1:n], 8, 16)
			if u > 0xff {
				return ppValue{}, errors.New("octal escape sequence out of range in #if")
			}
			c = int64(int8(u))
		}
	} else {
		if body[0] >= 0x80 {
			return ppValue{}, errors.New("non-ASCII character constant in #if is not supported by the fake NVRTC")
		}
		c = int64(body[0])
	}
	if n != len(body) {
		return ppValue{}, errors.New("multi-character constant in #if is not supported by the fake NVRTC")
	}
	return ppValue{n: c}, nil
}
