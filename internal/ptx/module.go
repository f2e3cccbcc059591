package ptx

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Module is a whole PTX module as ParseModule reads it: the header
// directives, the module-scope variables and every function, with the
// statements of their bodies. It is a syntax tree: names are not resolved
// and instructions are not checked against the ISA (package ptxexec does
// that when it decodes a module).
type Module struct {
	Version     string  // "7.8"
	Target      string  // "sm_90", the first .target operand
	AddressSize int     // 64 unless .address_size says otherwise
	Vars        []*Var  // module-scope .global, .const and .shared variables
	Funcs       []*Func // .entry and .func, in order of appearance
}

// Var is a variable declaration: module-scope .global/.const/.shared, or
// function-scope .local/.shared/.param (call-site parameters).
type Var struct {
	Space  string // "global", "const", "shared", "local" or "param"
	Name   string
	Type   string // fundamental type without the dot: "b8", "f32", ...
	Vec    int    // 2 or 4 for a .v2/.v4 element, else 0
	Align  int    // bytes; the element size when not given
	Elem   int    // bytes of one element (vector included)
	Count  int    // elements; 1 for a scalar, 0 for an unsized extern array
	Extern bool
	Init   []byte // the initialiser, little-endian; nil if none
	Line   int
}

// Size returns the variable's size in bytes.
func (v *Var) Size() int { return v.Elem * v.Count }

// Func is a .entry (Entry true) or .func.
type Func struct {
	Name    string
	Entry   bool
	Linkage string  // "visible", "weak", "extern" or ""
	Params  []Param // laid out as Entry's (offsets by C rules)
	Rets    []Param // .func return values
	MaxNTID [3]int  // .maxntid, zeros if absent
	Body    []Stmt  // nil for a declaration without a body
	Defined bool    // has a body
	Line    int
}

// StmtKind says what a Stmt is.
type StmtKind uint8

// The kinds of statement in a function body.
const (
	StmtInstr StmtKind = iota // an instruction
	StmtLabel                 // a label: Label
	StmtReg                   // a register declaration: Reg
	StmtVar                   // a variable declaration: Var
	StmtOpen                  // "{": a nested scope opens
	StmtClose                 // "}": the nested scope closes
)

// Stmt is one statement of a function body.
type Stmt struct {
	Kind    StmtKind
	Line    int
	Label   string
	Reg     RegDecl
	Var     *Var
	Pred    string // guard predicate register, "" if none
	PredNeg bool   // @!%p
	Op      string // the base opcode: "ld", "add", ...
	Mods    []string
	Args    []Operand
}

// String returns the instruction as PTX-like text, for error messages.
func (s *Stmt) String() string {
	var sb strings.Builder
	if s.Pred != "" {
		sb.WriteByte('@')
		if s.PredNeg {
			sb.WriteByte('!')
		}
		sb.WriteString(s.Pred)
		sb.WriteByte(' ')
	}
	sb.WriteString(s.Op)
	for _, m := range s.Mods {
		sb.WriteByte('.')
		sb.WriteString(m)
	}
	for i, a := range s.Args {
		if i == 0 {
			sb.WriteByte(' ')
		} else {
			sb.WriteString(", ")
		}
		sb.WriteString(a.String())
	}
	return sb.String()
}

// RegDecl declares registers: Name itself (Count 0) or Name0..Name(Count-1)
// for the parameterised form "%r<Count>".
type RegDecl struct {
	Type  string // "pred", "b32", "f32", ...
	Names []string
	Count []int // per name: 0 for a plain name, N for name<N>
}

// OperandKind says what an Operand is.
type OperandKind uint8

// The kinds of operand.
const (
	OpReg  OperandKind = iota // a register (Name), maybe negated (Neg)
	OpImm                     // an integer constant (Int)
	OpF32                     // a float constant in single precision (Bits)
	OpF64                     // a float constant in double precision (Bits)
	OpSym                     // a name: variable, label or function (Name)
	OpAddr                    // [Name+Int] ([Int] when Name is "")
	OpVec                     // {a, b, ...}: Elems
	OpList                    // (a, b, ...) in a call: Elems
	OpPair                    // d|p: Elems (the second may be "_")
	OpSink                    // "_"
)

// Operand is one instruction operand.
type Operand struct {
	Kind  OperandKind
	Name  string
	Neg   bool
	Int   int64
	Bits  uint64
	Elems []Operand
}

// String returns the operand as PTX-like text.
func (o Operand) String() string {
	switch o.Kind {
	case OpReg, OpSym:
		if o.Neg {
			return "!" + o.Name
		}
		return o.Name
	case OpImm:
		return strconv.FormatInt(o.Int, 10)
	case OpF32:
		return fmt.Sprintf("0f%08X", o.Bits)
	case OpF64:
		return fmt.Sprintf("0d%016X", o.Bits)
	case OpAddr:
		switch {
		case o.Name == "":
			return fmt.Sprintf("[%d]", o.Int)
		case o.Int == 0:
			return "[" + o.Name + "]"
		}
		return fmt.Sprintf("[%s%+d]", o.Name, o.Int)
	case OpVec, OpList, OpPair:
		parts := make([]string, len(o.Elems))
		for i, e := range o.Elems {
			parts[i] = e.String()
		}
		switch o.Kind {
		case OpVec:
			return "{" + strings.Join(parts, ", ") + "}"
		case OpList:
			return "(" + strings.Join(parts, ", ") + ")"
		}
		return strings.Join(parts, "|")
	case OpSink:
		return "_"
	}
	return "?"
}

// Limits that keep hostile text from making the parser (or a decoder)
// allocate without bound.
const (
	// MaxRegs is the most registers one declaration may declare.
	MaxRegs = 1 << 16
	// MaxVarSize is the largest variable, in bytes.
	MaxVarSize = 1 << 30
	// MaxOperands is the most operands of one instruction (a call's
	// argument list counts one operand per argument).
	MaxOperands = 1024
)

// ParseModule parses the PTX text src (a trailing NUL allowed). It returns
// an *Error naming the line of the first statement it cannot read.
func ParseModule(src string) (*Module, error) {
	if i := strings.IndexByte(src, 0); i >= 0 {
		src = src[:i]
	}
	p := &parser{toks: tokenize(src)}
	m, err := p.module()
	if err != nil {
		return nil, err
	}
	return m, nil
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i].s
	}
	return ""
}

func (p *parser) line() int {
	if p.i < len(p.toks) {
		return p.toks[p.i].line
	}
	if len(p.toks) > 0 {
		return p.toks[len(p.toks)-1].line
	}
	return 1
}

func (p *parser) next() string {
	s := p.peek()
	p.i++
	return s
}

func (p *parser) errf(format string, args ...any) error {
	return &Error{p.line(), fmt.Sprintf(format, args...)}
}

func (p *parser) expect(s string) error {
	if t := p.peek(); t != s {
		return p.errf("expected %q, found %q", s, t)
	}
	p.i++
	return nil
}

// skipLine skips the rest of the current token's line (directives such as
// .file and .loc, which end without a semicolon).
func (p *parser) skipLine() {
	l := p.line()
	for p.i < len(p.toks) && p.toks[p.i].line == l {
		p.i++
	}
}

func (p *parser) module() (*Module, error) {
	m := &Module{AddressSize: 64}
	for p.i < len(p.toks) {
		switch t := p.peek(); t {
		case ".version":
			p.next()
			m.Version = p.next()
		case ".target":
			p.next()
			m.Target = p.next()
			for p.peek() == "," {
				p.next()
				p.next()
			}
		case ".address_size":
			p.next()
			n, err := strconv.Atoi(p.next())
			if err != nil || n != 32 && n != 64 {
				return nil, p.errf("bad .address_size")
			}
			m.AddressSize = n
		case ".section": // DWARF (-G, -lineinfo): .section name { ... }
			p.next()
			p.next()
			if err := p.skipBlock(); err != nil {
				return nil, err
			}
		case ".file", ".loc":
			p.skipLine()
		case ".pragma":
			if err := p.skipStatement(); err != nil {
				return nil, err
			}
		default:
			if err := p.topLevel(m); err != nil {
				return nil, err
			}
		}
	}
	if m.Version == "" {
		return nil, &Error{1, "no .version directive"}
	}
	return m, nil
}

// skipBlock skips a braced block, nested braces included.
func (p *parser) skipBlock() error {
	if err := p.expect("{"); err != nil {
		return err
	}
	for depth := 1; depth > 0; {
		if p.i >= len(p.toks) {
			return p.errf("unterminated .section")
		}
		switch p.next() {
		case "{":
			depth++
		case "}":
			depth--
		}
	}
	return nil
}

func (p *parser) skipStatement() error {
	for p.i < len(p.toks) {
		if p.next() == ";" {
			return nil
		}
	}
	return p.errf("unterminated statement")
}

// topLevel reads a variable or function at module scope.
func (p *parser) topLevel(m *Module) error {
	line := p.line()
	linkage := ""
	for {
		switch t := p.peek(); t {
		case ".visible", ".weak", ".extern", ".common":
			linkage = t[1:]
			p.next()
			continue
		case ".entry", ".func":
			p.next()
			f, err := p.function(t == ".entry", linkage, line)
			if err != nil {
				return err
			}
			m.Funcs = append(m.Funcs, f)
			return nil
		case ".global", ".const", ".shared":
			v, err := p.variable()
			if err != nil {
				return err
			}
			v.Extern = linkage == "extern"
			m.Vars = append(m.Vars, v)
			return nil
		}
		return p.errf("unexpected %q at module scope", p.peek())
	}
}

// variable reads "<space> [.align N] [.vN] .type name[dims] [= init];",
// the current token its state space.
func (p *parser) variable() (*Var, error) {
	v := &Var{Space: p.next()[1:], Line: p.line(), Count: 1}
	for strings.HasPrefix(p.peek(), ".") {
		switch t := p.next(); t {
		case ".align":
			n, err := strconv.Atoi(p.next())
			if err != nil || n <= 0 || n&(n-1) != 0 || n > MaxAlign {
				return nil, p.errf("bad .align")
			}
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
	name := p.next()
	if !isIdent(name) {
		return nil, p.errf("bad variable name %q", name)
	}
	v.Name = name
	dims := 0
	for p.peek() == "[" {
		p.next()
		if p.peek() == "]" {
			p.next()
			if dims > 0 {
				return nil, p.errf("only the first dimension may be unsized")
			}
			v.Count = 0
			dims++
			continue
		}
		n, err := strconv.ParseUint(p.next(), 0, 31)
		if err != nil || n == 0 {
			return nil, p.errf("bad array size")
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		if v.Count != 0 && int(n) > MaxVarSize/v.Count {
			return nil, p.errf("variable %s too large", name)
		}
		v.Count *= int(n)
		dims++
	}
	if v.Count > MaxVarSize/v.Elem {
		return nil, p.errf("variable %s too large", name)
	}
	if p.peek() == "=" {
		p.next()
		init, err := p.initialiser(v)
		if err != nil {
			return nil, err
		}
		v.Init = init
	}
	return v, p.expect(";")
}

// initialiser reads "{a, b, ...}" (nested braces flattened) or a single
// value, and encodes it in v's element type.
func (p *parser) initialiser(v *Var) ([]byte, error) {
	var out []byte
	scalar := v.Elem
	if v.Vec > 0 {
		scalar /= v.Vec
	}
	depth := 0
	for {
		t := p.peek()
		switch t {
		case "{":
			depth++
			p.next()
			continue
		case "}":
			if depth == 0 {
				return nil, p.errf("unbalanced initialiser")
			}
			depth--
			p.next()
		case ",":
			p.next()
			continue
		default:
			neg := false
			if t == "-" {
				neg = true
				p.next()
				t = p.peek()
			}
			o, ok := number(t, neg)
			if !ok {
				return nil, p.errf("unsupported initialiser %q", t)
			}
			p.next()
			bits := uint64(o.Int)
			switch {
			case o.Kind == OpF32 && scalar == 8:
				bits = math.Float64bits(float64(math.Float32frombits(uint32(o.Bits))))
			case o.Kind == OpF64 && scalar == 4:
				bits = uint64(math.Float32bits(float32(math.Float64frombits(o.Bits))))
			case o.Kind != OpImm:
				bits = o.Bits
			case strings.HasPrefix(v.Type, "f"):
				f := float64(o.Int)
				if scalar == 4 {
					bits = uint64(math.Float32bits(float32(f)))
				} else {
					bits = math.Float64bits(f)
				}
			}
			if len(out)+scalar > v.Size() && v.Count != 0 {
				return nil, p.errf("too many initialisers for %s", v.Name)
			}
			for i := 0; i < scalar; i++ {
				out = append(out, byte(bits>>(8*i)))
			}
		}
		if depth == 0 {
			break
		}
		if p.i >= len(p.toks) {
			return nil, p.errf("unterminated initialiser")
		}
	}
	if v.Count == 0 {
		return nil, p.errf("initialiser for the unsized array %s", v.Name)
	}
	if len(out) < v.Size() {
		out = append(out, make([]byte, v.Size()-len(out))...)
	}
	return out, nil
}

// number reads an integer or float literal token (the sign already taken).
func number(t string, neg bool) (Operand, bool) {
	if len(t) == 10 && (strings.HasPrefix(t, "0f") || strings.HasPrefix(t, "0F")) {
		b, err := strconv.ParseUint(t[2:], 16, 32)
		if err != nil {
			return Operand{}, false
		}
		if neg {
			b ^= 1 << 31
		}
		return Operand{Kind: OpF32, Bits: b}, true
	}
	if len(t) == 18 && (strings.HasPrefix(t, "0d") || strings.HasPrefix(t, "0D")) {
		b, err := strconv.ParseUint(t[2:], 16, 64)
		if err != nil {
			return Operand{}, false
		}
		if neg {
			b ^= 1 << 63
		}
		return Operand{Kind: OpF64, Bits: b}, true
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
		return Operand{Kind: OpF64, Bits: math.Float64bits(f)}, true
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

// function reads a .entry or .func after its directive.
func (p *parser) function(entry bool, linkage string, line int) (*Func, error) {
	f := &Func{Entry: entry, Linkage: linkage, Line: line}
	if !entry && p.peek() == "(" {
		p.next()
		rets, err := p.params(f, ")")
		if err != nil {
			return nil, err
		}
		f.Rets = rets
	}
	name := p.next()
	if !isIdent(name) {
		return nil, p.errf("bad function name %q", name)
	}
	f.Name = name
	if p.peek() == "(" {
		p.next()
		params, err := p.params(f, ")")
		if err != nil {
			return nil, err
		}
		f.Params = params
	}
	for {
		switch t := p.peek(); t {
		case ";":
			p.next()
			return f, nil
		case "{":
			p.next()
			f.Defined = true
			return f, p.body(f)
		case ".maxntid", ".reqntid":
			p.next()
			for d := 0; d < 3; d++ {
				n, err := strconv.Atoi(p.peek())
				if err != nil {
					break
				}
				p.next()
				f.MaxNTID[d] = n
				if p.peek() != "," {
					break
				}
				p.next()
			}
		case ".minnctapersm", ".maxnreg", ".maxnctapersm", ".noreturn", ".pragma":
			p.next()
			for isNumberTok(p.peek()) || p.peek() == "," {
				p.next()
			}
			if t == ".pragma" {
				if err := p.skipStatement(); err != nil {
					return nil, err
				}
			}
		default:
			return nil, p.errf("unexpected %q after function %s", t, name)
		}
	}
}

func isNumberTok(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// params reads a parameter list up to end, laying it out like Parse does.
func (p *parser) params(f *Func, end string) ([]Param, error) {
	var ps []Param
	offset := 0
	for p.peek() != end {
		if p.i >= len(p.toks) {
			return nil, p.errf("unterminated parameter list")
		}
		if p.peek() == ".reg" { // .func (.reg .b32 x): a register parameter
			return nil, p.errf("register parameters are not supported")
		}
		pa, next, err := parseParam(p.toks, p.i, f.Name)
		if err != nil {
			return nil, err
		}
		pa.Offset = alignUp(offset, pa.Align)
		if pa.Offset > MaxParamSize-pa.Size {
			return nil, p.errf("parameter %s exceeds the parameter space", pa.Name)
		}
		offset = pa.Offset + pa.Size
		ps = append(ps, pa)
		p.i = next
		if p.peek() == "," {
			p.next()
		}
	}
	p.next()
	return ps, nil
}

// body reads statements up to the "}" that closes the function.
func (p *parser) body(f *Func) error {
	depth := 0
	f.Body = []Stmt{}
	for {
		if p.i >= len(p.toks) {
			return p.errf("function %s: unterminated body", f.Name)
		}
		line := p.line()
		switch t := p.peek(); {
		case t == "{":
			p.next()
			depth++
			f.Body = append(f.Body, Stmt{Kind: StmtOpen, Line: line})
		case t == "}":
			p.next()
			if depth == 0 {
				return nil
			}
			depth--
			f.Body = append(f.Body, Stmt{Kind: StmtClose, Line: line})
		case t == ".reg":
			p.next()
			d, err := p.regDecl()
			if err != nil {
				return err
			}
			f.Body = append(f.Body, Stmt{Kind: StmtReg, Line: line, Reg: d})
		case t == ".local" || t == ".shared" || t == ".param" || t == ".global" || t == ".const":
			v, err := p.variable()
			if err != nil {
				return err
			}
			f.Body = append(f.Body, Stmt{Kind: StmtVar, Line: line, Var: v})
		case t == ".pragma":
			if err := p.skipStatement(); err != nil {
				return err
			}
		case t == ".loc" || t == ".file":
			p.skipLine()
		case t == ";":
			p.next()
		case isIdent(t) && p.i+1 < len(p.toks) && p.toks[p.i+1].s == ":":
			p.i += 2
			f.Body = append(f.Body, Stmt{Kind: StmtLabel, Line: line, Label: t})
		default:
			s, err := p.instruction()
			if err != nil {
				return err
			}
			f.Body = append(f.Body, s)
		}
	}
}

// regDecl reads ".type name[<N>], ...;" after ".reg".
func (p *parser) regDecl() (RegDecl, error) {
	var d RegDecl
	for strings.HasPrefix(p.peek(), ".") {
		t := p.next()[1:]
		if t == "v2" || t == "v4" {
			return d, p.errf("vector registers are not supported")
		}
		if t != "pred" {
			if _, ok := scalarSizes[t]; !ok {
				return d, p.errf("bad register type .%s", t)
			}
		}
		d.Type = t
	}
	if d.Type == "" {
		return d, p.errf(".reg without a type")
	}
	for {
		name := p.next()
		if !isIdent(name) {
			return d, p.errf("bad register name %q", name)
		}
		n := 0
		if p.peek() == "<" {
			p.next()
			v, err := strconv.Atoi(p.next())
			if err != nil || v < 0 || v > MaxRegs {
				return d, p.errf("bad register count")
			}
			if err := p.expect(">"); err != nil {
				return d, err
			}
			n = v
		}
		d.Names = append(d.Names, name)
		d.Count = append(d.Count, n)
		if p.peek() != "," {
			break
		}
		p.next()
	}
	return d, p.expect(";")
}

// instruction reads "[@[!]%p] op.mods operands;".
func (p *parser) instruction() (Stmt, error) {
	s := Stmt{Kind: StmtInstr, Line: p.line()}
	if p.peek() == "@" {
		p.next()
		if p.peek() == "!" {
			p.next()
			s.PredNeg = true
		}
		s.Pred = p.next()
		if !isIdent(s.Pred) {
			return s, p.errf("bad guard predicate %q", s.Pred)
		}
	}
	op := p.next()
	if op == "" || !isWord(op[0]) || op[0] == '.' || op[0] == '%' {
		return s, p.errf("expected an instruction, found %q", op)
	}
	parts := strings.Split(op, ".")
	s.Op, s.Mods = parts[0], parts[1:]
	for _, m := range s.Mods {
		if m == "" {
			return s, p.errf("bad instruction %q", op)
		}
	}
	for p.peek() != ";" {
		if p.i >= len(p.toks) {
			return s, p.errf("unterminated instruction %s", op)
		}
		if len(s.Args) >= MaxOperands {
			return s, p.errf("too many operands")
		}
		a, err := p.operand(0)
		if err != nil {
			return s, err
		}
		if p.peek() == "|" {
			p.next()
			b, err := p.operand(0)
			if err != nil {
				return s, err
			}
			a = Operand{Kind: OpPair, Elems: []Operand{a, b}}
		}
		s.Args = append(s.Args, a)
		if p.peek() == "," {
			p.next()
		} else if p.peek() != ";" {
			return s, p.errf("expected , or ; after operand, found %q", p.peek())
		}
	}
	p.next()
	return s, nil
}

func (p *parser) operand(depth int) (Operand, error) {
	if depth > 2 {
		return Operand{}, p.errf("operands nested too deep")
	}
	switch t := p.peek(); {
	case t == "{" || t == "(":
		p.next()
		end := "}"
		o := Operand{Kind: OpVec}
		if t == "(" {
			end, o.Kind = ")", OpList
		}
		for p.peek() != end {
			if p.i >= len(p.toks) || len(o.Elems) >= MaxOperands {
				return o, p.errf("unterminated operand list")
			}
			e, err := p.operand(depth + 1)
			if err != nil {
				return o, err
			}
			o.Elems = append(o.Elems, e)
			if p.peek() == "," {
				p.next()
			} else if p.peek() != end {
				return o, p.errf("expected , or %s, found %q", end, p.peek())
			}
		}
		p.next()
		return o, nil
	case t == "[":
		p.next()
		o := Operand{Kind: OpAddr}
		if isIdent(p.peek()) {
			o.Name = p.next()
		}
		for p.peek() == "+" || p.peek() == "-" || o.Name == "" && isNumberTok(p.peek()) {
			neg := false
			for p.peek() == "+" || p.peek() == "-" {
				if p.next() == "-" {
					neg = !neg
				}
			}
			n, ok := number(p.peek(), neg)
			if !ok || n.Kind != OpImm {
				return o, p.errf("bad address offset %q", p.peek())
			}
			p.next()
			o.Int += n.Int
		}
		return o, p.expect("]")
	case t == "!":
		p.next()
		o, err := p.operand(depth + 1)
		if err != nil || o.Kind != OpReg {
			return o, p.errf("bad negated operand")
		}
		o.Neg = true
		return o, nil
	case t == "-" || isNumberTok(t):
		neg := false
		if t == "-" {
			neg = true
			p.next()
		}
		o, ok := number(p.peek(), neg)
		if !ok {
			return o, p.errf("bad number %q", p.peek())
		}
		p.next()
		return o, nil
	case t == "_":
		p.next()
		return Operand{Kind: OpSink}, nil
	case isIdent(t):
		p.next()
		if t[0] == '%' {
			return Operand{Kind: OpReg, Name: t}, nil
		}
		return Operand{Kind: OpSym, Name: t}, nil
	case strings.HasPrefix(t, "%") && strings.Contains(t, "."):
		p.next() // a special register with a component: %tid.x
		return Operand{Kind: OpReg, Name: t}, nil
	}
	return Operand{}, p.errf("unexpected %q in operands", p.peek())
}
