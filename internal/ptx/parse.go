package ptx

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// mode is what a parse reads and how strictly.
type mode uint8

const (
	// modeSignatures reads entry signatures only (Parse): no header
	// needed, bodies skipped, C++ names kept, unknown text skipped.
	modeSignatures mode = iota
	// modeModule reads a whole module (Read, ParseModule).
	modeModule
)

// parser reads PTX from a lexer, one token of lookahead (tok). The
// statements of the body being read go into arrays sized by a first pass
// over the body (count), so that no array grows by doubling.
type parser struct {
	lex  lexer
	tok  token
	mode mode
	m    *Module
	soft error // the first unsupported construct (Module.Unsupported)

	// The arrays of the body being read.
	stmts  []Stmt
	ops    []Operand
	mods   []string
	labels []Label
	regs   []RegDecl
	vars   []*Var
	// The names and counts of the body's register declarations.
	regNames  []string
	regCounts []int

	// Scratch space, reused: the operands being read at each nesting
	// level, a parameter list.
	scratch [4][]Operand
	params  []Param
	// loc is the last .loc of the body being read.
	loc Loc
	// inlined maps a position inside inlined code (file, line, column)
	// to the outermost caller's line it was inlined at.
	inlined map[[3]int32]Loc
}

// lineDirective reads a .file or .loc directive, the current token, to
// the end of its line: .file N "name" records a file, .loc N L (the
// column ignored) the position of the instructions after it. A .loc with
// inlined_at F L C (a line of a function inlined at F:L) is resolved
// through the chain of inlined_at positions to the outermost caller's
// line: the instructions get their own line when it is in that caller's
// file (a __device__ function of the user's .cu), else the caller's line
// (code inlined from a header: the user's call). Anything else on such a
// line is skipped.
func (p *parser) lineDirective() {
	l := p.tok.line
	dir := p.tok.s
	var words [12]string
	n := 0
	inlined := -1
	p.advance()
	for p.tok.s != "" && p.tok.line == l {
		if n < len(words) {
			if p.tok.s == "inlined_at" {
				inlined = n
			}
			words[n] = p.tok.s
			n++
		}
		p.advance()
	}
	if n < 2 {
		return
	}
	num, err := strconv.ParseInt(words[0], 10, 32)
	if err != nil || num < 0 {
		return
	}
	switch dir {
	case ".file":
		if name, err := strconv.Unquote(words[1]); err == nil {
			if p.m.Files == nil {
				p.m.Files = map[int32]string{}
			}
			p.m.Files[int32(num)] = name
		}
	case ".loc":
		line, err := strconv.ParseInt(words[1], 10, 32)
		if err != nil || line < 0 {
			return
		}
		own := Loc{File: int32(num), Line: int32(line)}
		if inlined < 0 {
			p.loc = own
			return
		}
		if inlined+3 > n {
			return
		}
		var at [3]int32
		for i := range at {
			v, err := strconv.ParseInt(words[inlined+1+i], 10, 32)
			if err != nil || v < 0 {
				return
			}
			at[i] = int32(v)
		}
		outer, ok := p.inlined[at]
		if !ok {
			outer = Loc{File: at[0], Line: at[1]}
		}
		if col, err := strconv.ParseInt(words[2], 10, 32); err == nil && n > 2 {
			if p.inlined == nil {
				p.inlined = map[[3]int32]Loc{}
			}
			p.inlined[[3]int32{own.File, own.Line, int32(col)}] = outer
		}
		if own.File == outer.File {
			p.loc = own
		} else {
			p.loc = outer
		}
	}
}

// parse reads src in mode md. A hard error (the text is not well formed)
// is returned; what is only unsupported is in the module's Unsupported.
func parse(src string, md mode) (*Module, error) {
	m, _, err := parseAll(src, md)
	return m, err
}

// parseAll is parse that also returns the first unsupported construct met
// before a hard error.
func parseAll(src string, md mode) (*Module, error, error) {
	p := newParser(src, md)
	m, err := p.module()
	if err != nil {
		return nil, p.soft, err
	}
	return m, p.soft, nil
}

func newParser(src string, md mode) *parser {
	if i := strings.IndexByte(src, 0); i >= 0 {
		src = src[:i] // a driver reads PTX up to its NUL
	}
	p := &parser{lex: newLexer(src, md == modeModule), mode: md}
	p.advance()
	return p
}

func (p *parser) advance() { p.tok = p.lex.next() }

// peek2 returns the token after the current one, without moving.
func (p *parser) peek2() token {
	l := p.lex
	return l.next()
}

// errf returns an *Error at the current token, or the lexical error that
// ended the text.
func (p *parser) errf(format string, args ...any) error {
	if p.lex.err != nil {
		return p.lex.err
	}
	return &Error{Line: p.tok.line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) limitf(format string, args ...any) error {
	if p.lex.err != nil {
		return p.lex.err
	}
	return limitf(p.tok.line, format, args...)
}

// unsupported records err as the module's first unsupported construct.
// A lexical error is never merely unsupported: it is returned.
func (p *parser) unsupported(err error) error {
	if p.lex.err != nil {
		return p.lex.err
	}
	if p.soft == nil {
		p.soft = err
	}
	return nil
}

func (p *parser) expect(s string) error {
	if p.tok.s != s {
		return p.errf("expected %q, found %q", s, p.tok.s)
	}
	p.advance()
	return nil
}

// skipLine skips the rest of the current token's line (directives such as
// .file and .loc, which end without a semicolon).
func (p *parser) skipLine() {
	l := p.tok.line
	for p.tok.s != "" && p.tok.line == l {
		p.advance()
	}
}

// skipStatement skips to the next ";" and past it.
func (p *parser) skipStatement() error {
	for p.tok.s != "" {
		if p.tok.s == ";" {
			p.advance()
			return nil
		}
		p.advance()
	}
	return p.errf("unterminated statement")
}

// skipBlock skips a braced block, the current token its "{". Lenient (for
// signatures), it ends quietly at the end of the text.
func (p *parser) skipBlock(lenient bool) error {
	d := p.lex.depth // after the "{"
	p.advance()
	for {
		switch p.tok.s {
		case "":
			if lenient && p.lex.err == nil {
				return nil
			}
			return p.errf("unterminated block")
		case "}":
			if p.lex.depth < d {
				p.advance()
				return nil
			}
		}
		p.advance()
	}
}

func (p *parser) module() (*Module, error) {
	m := &Module{AddressSize: 64}
	p.m = m
	if p.mode == modeModule {
		if err := p.header(); err != nil {
			return nil, err
		}
	}
	for p.tok.s != "" {
		if err := p.moduleStatement(); err != nil {
			return nil, err
		}
	}
	if p.lex.err != nil {
		return nil, p.lex.err
	}
	m.Unsupported = p.soft
	return m, nil
}

// header reads ".version M.N" and ".target sm_XY[, option...]", which must
// come first.
func (p *parser) header() error {
	if p.tok.s != ".version" {
		return &Error{Line: p.tok.line, Msg: "no .version directive: the text does not begin as PTX does", Err: ErrNotPTX}
	}
	p.advance()
	v := p.tok.s
	major, minor, ok := strings.Cut(v, ".")
	if !ok || !isDigits(major) || !isDigits(minor) {
		return p.errf("bad .version %q", v)
	}
	p.m.Version = v
	p.advance()
	if p.tok.s != ".target" {
		return p.errf("expected .target after .version, found %q", p.tok.s)
	}
	p.advance()
	arch, suffix, ok := ParseTarget(p.tok.s)
	if !ok {
		return p.errf("bad .target %q", p.tok.s)
	}
	p.m.Target, p.m.Arch, p.m.ArchSuffix = p.tok.s, arch, suffix
	p.advance()
	for p.tok.s == "," { // .target sm_90, debug
		p.advance()
		if !isIdent(p.tok.s) {
			return p.errf("bad .target option %q", p.tok.s)
		}
		p.advance()
	}
	return nil
}

// ParseTarget reads a .target architecture: "sm_90" is 90 with no suffix,
// "sm_90a" is 90 with suffix "a"; a virtual architecture ("compute_90",
// which the H200's driver JITs as sm_90) reads the same way.
func ParseTarget(t string) (arch int, suffix string, ok bool) {
	digits, found := strings.CutPrefix(t, "sm_")
	if !found {
		if digits, found = strings.CutPrefix(t, "compute_"); !found {
			return 0, "", false
		}
	}
	if n := len(digits); n > 0 && digits[n-1] >= 'a' && digits[n-1] <= 'z' {
		digits, suffix = digits[:n-1], digits[n-1:]
	}
	if !isDigits(digits) || len(digits) > 4 {
		return 0, "", false
	}
	arch, _ = strconv.Atoi(digits)
	return arch, suffix, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// moduleStatement reads one statement at module scope.
func (p *parser) moduleStatement() error {
	t := p.tok
	switch t.s {
	case ".version", ".target":
		if p.mode == modeModule {
			return p.errf("%s again: it comes once, first", t.s)
		}
		p.skipLine()
		return nil
	case ".address_size":
		p.advance()
		n, err := strconv.Atoi(p.tok.s)
		if err != nil || n != 32 && n != 64 {
			if p.mode == modeModule {
				if err := p.unsupported(p.errf("bad .address_size %q", p.tok.s)); err != nil {
					return err
				}
			}
			p.advance()
			return nil
		}
		p.m.AddressSize = n
		p.advance()
		return nil
	case ".file", ".loc":
		p.lineDirective()
		return nil
	case ".section": // debug sections: .section name { ... }
		p.skipLine()
		if p.tok.s == "{" {
			return p.skipBlock(p.mode == modeSignatures)
		}
		return nil
	case ".pragma":
		return p.skipStatement()
	case ";":
		p.advance()
		return nil
	}
	line := t.line
	linkage := ""
	for {
		switch s := p.tok.s; s {
		case ".visible", ".weak", ".extern", ".common":
			linkage = s[1:]
			p.advance()
			continue
		case ".entry", ".func":
			p.advance()
			return p.function(s == ".entry", linkage, line)
		case ".global", ".const", ".shared":
			if p.mode == modeSignatures {
				return p.skipModuleStatement()
			}
			v, err := p.variable()
			if err != nil {
				if err := p.unsupported(err); err != nil {
					return err
				}
				return p.skipModuleStatement()
			}
			v.Extern = linkage == "extern"
			p.m.Vars = append(p.m.Vars, v)
			return nil
		case "":
			if p.mode == modeSignatures {
				return nil
			}
			return p.errf("unexpected end of text after %q", t.s)
		}
		if p.mode == modeSignatures {
			if p.tok.s == "{" {
				return p.skipBlock(true)
			}
			p.advance()
			return nil
		}
		s := p.tok.s
		if isWord(s[0]) && s[0] != '.' || s == "}" {
			return p.errf("unexpected %q at module scope", s)
		}
		if err := p.unsupported(p.errf("unsupported %q at module scope", s)); err != nil {
			return err
		}
		return p.skipModuleStatement()
	}
}

// skipModuleStatement skips the rest of a module-scope statement: to its
// ";" or the end of its block. Every line it skips outside braces and
// parentheses must still begin with a directive.
func (p *parser) skipModuleStatement() error {
	parens, opened := 0, false
	for {
		t := p.tok
		d := p.lex.depth
		switch t.s {
		case "":
			if p.lex.err != nil || p.mode == modeSignatures {
				return p.lex.err
			}
			if d > 0 || parens > 0 {
				return p.errf("unterminated block at module scope")
			}
			return nil
		case ";":
			if d == 0 && parens == 0 {
				p.advance()
				return nil
			}
		case "{":
			opened = true
		case "}":
			if d == 0 && parens == 0 {
				if !opened && p.mode == modeModule {
					return p.errf("unbalanced }")
				}
				p.advance()
				return nil
			}
		case "(":
			parens++
		case ")":
			if parens--; parens < 0 && p.mode == modeModule {
				return p.errf("unbalanced )")
			}
		default:
			if p.mode == modeModule && t.bol && d == 0 && parens == 0 && t.s != "{" && isWord(t.s[0]) && t.s[0] != '.' {
				return p.errf("unexpected %q at module scope", t.s)
			}
		}
		p.advance()
	}
}

// function reads a .entry or .func after its directive.
func (p *parser) function(entry bool, linkage string, line int) error {
	f := &Func{Entry: entry, Linkage: linkage, Line: line}
	lenient := p.mode == modeSignatures
	if !entry && p.tok.s == "(" {
		rets, err := p.paramList("function", "")
		if err != nil {
			if err := p.funcSignature(err); err != nil {
				return err
			}
		}
		f.Rets = rets
	}
	name := p.tok.s
	what := "function"
	if entry {
		what = "entry"
	}
	if !isIdent(name) {
		if entry && lenient {
			return p.errf(".entry without a name")
		}
		return p.errf("bad %s name %q", what, name)
	}
	nameLine := p.tok.line
	p.advance()
	if lenient {
		name = p.cppName(name, nameLine, ",")
	}
	f.Name = name
	if p.tok.s == "(" {
		params, err := p.paramList(what, name)
		if err != nil {
			if entry {
				return err
			}
			if err := p.funcSignature(err); err != nil {
				return err
			}
		}
		f.Params = params
		if entry && p.mode == modeModule {
			for _, pa := range params {
				if pa.Opaque {
					_ = p.unsupported(&Error{Line: line, Msg: fmt.Sprintf("entry %s: opaque parameter type .%s is not supported", name, pa.Type)})
					break
				}
			}
		}
	}
	p.m.Funcs = append(p.m.Funcs, f)
	for {
		switch t := p.tok.s; t {
		case ";":
			p.advance()
			return nil
		case "{":
			f.Defined = true
			if lenient {
				return p.skipBlock(true)
			}
			return p.body(f)
		case ".maxntid", ".reqntid":
			p.advance()
			for d := 0; d < 3; d++ {
				n, err := strconv.Atoi(p.tok.s)
				if err != nil {
					break
				}
				p.advance()
				f.MaxNTID[d] = n
				if p.tok.s != "," {
					break
				}
				p.advance()
			}
		case ".pragma":
			if err := p.skipStatement(); err != nil {
				return err
			}
		default:
			if strings.HasPrefix(t, ".") {
				// Other performance directives: .minnctapersm 4,
				// .maxnreg 32, .noreturn, .reqnctapercluster 2, 1, 1, ...
				p.advance()
				for isNumberTok(p.tok.s) || p.tok.s == "," {
					p.advance()
				}
				continue
			}
			if lenient {
				return nil // a declaration without its ";"
			}
			if t == "" {
				return p.errf("%s %s: no body and no ;", what, name)
			}
			return p.errf("unexpected %q after %s %s", t, what, name)
		}
	}
}

// funcSignature handles an error in the parameters of a .func (register
// parameters, ...): unsupported, the list skipped. A lexical error, or a
// list that does not end, is returned.
func (p *parser) funcSignature(err error) error {
	if err := p.unsupported(err); err != nil {
		return err
	}
	for {
		switch p.tok.s {
		case ")":
			p.advance()
			return nil
		case "", "{", ";":
			return p.errf("unterminated parameter list")
		}
		p.advance()
	}
}

// cppName takes the name-like tokens after first on its line into the name
// (a tool keeping C++ names writes "fill<float>").
func (p *parser) cppName(first string, line int, extra string) string {
	if p.tok.line != line || !cppNameTok(p.tok.s, extra) {
		return first
	}
	var sb strings.Builder
	sb.WriteString(first)
	for p.tok.s != "" && p.tok.line == line && cppNameTok(p.tok.s, extra) {
		sb.WriteString(p.tok.s)
		p.advance()
	}
	return sb.String()
}

func cppNameTok(s, extra string) bool {
	if s == "" {
		return false
	}
	if len(s) == 1 && strings.Contains("<>:*&"+extra, s) {
		return true
	}
	return s[0] != '.' && isWord(s[0])
}

func isNumberTok(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// paramList reads "(param, ...)" laid out by C rules, the current token
// its "(".
func (p *parser) paramList(what, name string) ([]Param, error) {
	p.advance()
	if p.tok.s == ")" {
		p.advance()
		return nil, nil
	}
	ps := p.params[:0]
	offset := 0
	for {
		pa, err := p.param(what, name)
		if err != nil {
			return nil, err
		}
		// offset <= MaxParamSize, 1 <= pa.Align <= MaxAlign and
		// 1 <= pa.Size <= MaxParamSize (param): none of this overflows.
		pa.Offset = alignUp(offset, pa.Align)
		if pa.Offset > MaxParamSize-pa.Size {
			return nil, p.limitf("%s %s: parameter %s (%d bytes at offset %d) exceeds the %d-byte parameter space",
				what, name, pa.Name, pa.Size, pa.Offset, MaxParamSize)
		}
		offset = pa.Offset + pa.Size
		ps = append(ps, pa)
		switch p.tok.s {
		case ",":
			p.advance()
		case ")":
			p.advance()
			p.params = ps[:0]
			return slices.Clone(ps), nil
		default:
			p.params = ps[:0]
			return nil, p.errf("%s %s: expected , or ) after parameter %s, found %q", what, name, pa.Name, p.tok.s)
		}
	}
}

// param reads one ".param [.align N] .type [.ptr [.space] [.align N]] name[[N]]".
func (p *parser) param(what, fn string) (Param, error) {
	bad := func(format string, args ...any) (Param, error) {
		return Param{}, p.errf("%s %s: %s", what, fn, fmt.Sprintf(format, args...))
	}
	if p.tok.s != ".param" {
		return bad("expected .param, found %q", p.tok.s)
	}
	p.advance()
	var pa Param
	align := 0
	for {
		s := p.tok.s
		switch {
		case s == ".align":
			p.advance()
			if p.tok.s == "" {
				return bad(".align without a value")
			}
			n, err := strconv.Atoi(p.tok.s)
			if err != nil || n <= 0 || n&(n-1) != 0 {
				return bad("bad .align %q: not a positive power of two", p.tok.s)
			}
			// After .ptr, .align is the pointee's alignment, not the
			// parameter's: it does not bound the layout.
			if pa.Type == "" {
				if n > MaxAlign {
					return Param{}, p.limitf("%s %s: bad .align %d: more than %d", what, fn, n, MaxAlign)
				}
				align = n
			}
			p.advance()
		case s == ".ptr":
			pa.Pointer = true
			p.advance()
		case s == ".global" || s == ".shared" || s == ".const" || s == ".local":
			p.advance() // the state space of a .ptr parameter
		case strings.HasPrefix(s, ".") && pa.Type == "":
			t := s[1:]
			if opaqueTypes[t] {
				pa.Type, pa.Size, pa.Opaque = t, 8, true
			} else {
				size, ok := scalarSizes[t]
				if !ok {
					return bad("unknown parameter type %q", s)
				}
				pa.Type, pa.Size = t, size
			}
			p.advance()
		case isIdent(s):
			if pa.Type == "" {
				return bad("parameter %s has no type", s)
			}
			nameLine := p.tok.line
			p.advance()
			pa.Name = s
			if p.mode == modeSignatures {
				pa.Name = p.cppName(s, nameLine, "")
			}
			if p.tok.s == "[" {
				p.advance()
				n, err := strconv.Atoi(p.tok.s)
				if err != nil || n <= 0 {
					return bad("parameter %s: bad array size %q", s, p.tok.s)
				}
				p.advance()
				if p.tok.s != "]" {
					return bad("parameter %s: bad array size", s)
				}
				p.advance()
				pa.Array = n
			}
			// The default alignment is the element's size (PTX ISA,
			// "Alignment"), an explicit .align replaces it.
			pa.Align = pa.Size
			if align != 0 {
				pa.Align = align
			}
			if pa.Array > 0 {
				// pa.Size (the element's) is 1 to 16: compared before
				// multiplying, so that the product cannot overflow.
				if pa.Array > MaxParamSize/pa.Size {
					return Param{}, p.limitf("%s %s: parameter %s: %d elements of %d bytes exceed the %d-byte parameter space", what, fn, pa.Name, pa.Array, pa.Size, MaxParamSize)
				}
				pa.Size *= pa.Array
			}
			return pa, nil
		case s == "":
			return bad("unterminated parameter")
		default:
			return bad("unexpected %q in parameter list", s)
		}
	}
}

func isIdent(s string) bool {
	if s == "" || s[0] == '.' || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWord(s[i]) || s[i] == '.' {
			return false
		}
	}
	return true
}

// variable reads "<space> [.align N] [.vN] .type name[dims] [= init];",
// the current token its state space.
func (p *parser) variable() (*Var, error) {
	v := &Var{Space: p.tok.s[1:], Line: p.tok.line, Count: 1, At: len(p.stmts)}
	p.advance()
	for strings.HasPrefix(p.tok.s, ".") {
		t := p.tok.s
		p.advance()
		switch t {
		case ".align":
			n, err := strconv.Atoi(p.tok.s)
			if err != nil || n <= 0 || n&(n-1) != 0 || n > MaxAlign {
				return nil, p.errf("bad .align")
			}
			p.advance()
			v.Align = n
		case ".v2", ".v4":
			v.Vec = int(t[2] - '0')
		case ".ptr", ".global", ".shared", ".const", ".local":
		default:
			size, ok := scalarSizes[t[1:]]
			if !ok || v.Type != "" {
				return nil, p.errf("bad type %q in declaration", t)
			}
			v.Type, v.Elem = t[1:], size
		}
	}
	if v.Type == "" {
		return nil, p.errf("declaration without a type")
	}
	if v.Vec > 0 {
		v.Elem *= v.Vec
	}
	if v.Align == 0 {
		v.Align = v.Elem
	}
	name := p.tok.s
	if !isIdent(name) {
		return nil, p.errf("bad variable name %q", name)
	}
	p.advance()
	v.Name = name
	dims := 0
	for p.tok.s == "[" {
		p.advance()
		if p.tok.s == "]" {
			p.advance()
			if dims > 0 {
				return nil, p.errf("only the first dimension may be unsized")
			}
			v.Count = 0
			dims++
			continue
		}
		n, err := strconv.ParseUint(p.tok.s, 0, 31)
		if err != nil || n == 0 {
			return nil, p.errf("bad array size")
		}
		p.advance()
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		if v.Count != 0 && int(n) > MaxVarSize/v.Count {
			return nil, p.limitf("variable %s too large", name)
		}
		v.Count *= int(n)
		dims++
	}
	if v.Count > MaxVarSize/v.Elem {
		return nil, p.limitf("variable %s too large", name)
	}
	if p.tok.s == "=" {
		p.advance()
		init, err := p.initialiser(v)
		if err != nil {
			return nil, err
		}
		v.Init = init
	}
	return v, p.expect(";")
}

// initialiser reads "{a, b, ...}" (nested braces flattened) or a single
// value, and encodes it in v's element type: the bytes given, no padding.
func (p *parser) initialiser(v *Var) ([]byte, error) {
	var out []byte
	scalar := v.Elem
	if v.Vec > 0 {
		scalar /= v.Vec
	}
	if v.Count == 0 {
		return nil, p.errf("initialiser for the unsized array %s", v.Name)
	}
	depth := 0
	for {
		t := p.tok.s
		switch t {
		case "{":
			depth++
			p.advance()
			continue
		case "}":
			if depth == 0 {
				return nil, p.errf("unbalanced initialiser")
			}
			depth--
			p.advance()
		case ",":
			p.advance()
			continue
		case "":
			return nil, p.errf("unterminated initialiser")
		default:
			neg := false
			if t == "-" {
				neg = true
				p.advance()
				t = p.tok.s
			}
			o, ok := number(t, neg)
			if !ok {
				return nil, p.errf("unsupported initialiser %q", t)
			}
			p.advance()
			bits := uint64(o.Int)
			switch {
			case o.Kind == OpF32 && scalar == 8:
				bits = math.Float64bits(float64(math.Float32frombits(uint32(o.Int))))
			case o.Kind == OpF64 && scalar == 4:
				bits = uint64(math.Float32bits(float32(math.Float64frombits(uint64(o.Int)))))
			case o.Kind != OpImm:
			case strings.HasPrefix(v.Type, "f"):
				f := float64(o.Int)
				if scalar == 4 {
					bits = uint64(math.Float32bits(float32(f)))
				} else {
					bits = math.Float64bits(f)
				}
			}
			if len(out)+scalar > v.Size() {
				return nil, p.errf("too many initialisers for %s", v.Name)
			}
			for i := 0; i < scalar; i++ {
				out = append(out, byte(bits>>(8*i)))
			}
		}
		if depth == 0 {
			return out, nil
		}
	}
}

// number reads an integer or float literal token (the sign already taken).
// A float's bits are in Int.
func number(t string, neg bool) (Operand, bool) {
	if len(t) == 10 && (strings.HasPrefix(t, "0f") || strings.HasPrefix(t, "0F")) {
		b, err := strconv.ParseUint(t[2:], 16, 32)
		if err != nil {
			return Operand{}, false
		}
		if neg {
			b ^= 1 << 31
		}
		return Operand{Kind: OpF32, Int: int64(b)}, true
	}
	if len(t) == 18 && (strings.HasPrefix(t, "0d") || strings.HasPrefix(t, "0D")) {
		b, err := strconv.ParseUint(t[2:], 16, 64)
		if err != nil {
			return Operand{}, false
		}
		if neg {
			b ^= 1 << 63
		}
		return Operand{Kind: OpF64, Int: int64(b)}, true
	}
	if t == "" || t[0] < '0' || t[0] > '9' {
		return Operand{}, false
	}
	s := strings.TrimSuffix(strings.TrimSuffix(t, "U"), "u")
	if strings.ContainsAny(s, ".eE") && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return Operand{}, false
		}
		if neg {
			f = -f
		}
		return Operand{Kind: OpF64, Int: int64(math.Float64bits(f))}, true
	}
	base := 10
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base, s = 16, s[2:]
	case strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0B"):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	u, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return Operand{}, false
	}
	n := int64(u)
	if neg {
		n = -n
	}
	return Operand{Kind: OpImm, Int: n}, true
}
