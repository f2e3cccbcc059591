package ptx

import (
	"strconv"
	"strings"
)

// bodyCounts bounds what a body holds, from a first pass over its tokens:
// the arrays of the second pass are made this size, so that none grows.
type bodyCounts struct{ stmts, ops, mods, labels, regs, regNames, vars int }

// count scans the body whose "{" is the current token, on a copy of the
// lexer, and bounds its instructions, operands, modifiers and labels.
func (p *parser) count() bodyCounts {
	const (
		start   = iota // a statement begins
		guard          // after "@": "!" or the predicate
		opcode         // after the predicate: the opcode
		instr          // in an instruction's operands
		other          // in a directive, to its ";"
		reg            // in a .reg declaration, to its ";"
		lineDir        // in .loc or .file, to the end of its line
	)
	l := p.lex // after the "{"
	d := l.depth
	var c bodyCounts
	state, hasOps, line := start, false, 0
	for {
		t := l.next()
		if t.s == "" || t.s == "}" && l.depth < d {
			return c
		}
		if state == lineDir {
			if t.line == line {
				continue
			}
			state = start
		}
		switch state {
		case start:
			switch {
			case t.s == "{" || t.s == "}" || t.s == ";":
			case t.s == "@":
				state = guard
			case t.s == ".loc" || t.s == ".file":
				state, line = lineDir, t.line
			case t.s == ".reg":
				c.regs++
				c.regNames++
				state = reg
			case t.s == ".local" || t.s == ".shared" || t.s == ".param" || t.s == ".global" || t.s == ".const":
				c.vars++
				state = other
			case t.s[0] == '.':
				state = other
			case isWord(t.s[0]):
				if l2 := l; l2.next().s == ":" {
					c.labels++
					l = l2
					continue
				}
				c.mods += strings.Count(t.s, ".")
				state, hasOps = instr, false
			default:
				state = other
			}
		case guard:
			if t.s != "!" {
				state = opcode
			}
		case opcode:
			c.mods += strings.Count(t.s, ".")
			state, hasOps = instr, false
		case instr:
			switch t.s {
			case ";":
				c.stmts++
				if hasOps {
					c.ops++
				}
				state = start
			case ",":
				c.ops++
				hasOps = true
			case "{", "(":
				c.ops++
				hasOps = true
			case "|":
				c.ops += 2
				hasOps = true
			default:
				hasOps = true
			}
		case reg:
			switch t.s {
			case ",":
				c.regNames++
			case ";":
				state = start
			}
		case other:
			if t.s == ";" {
				state = start
			}
		}
	}
}

// body reads the statements of f's body up to the "}" that closes it, the
// current token its "{". A statement that cannot be read is unsupported:
// the rest of the body is skipped.
func (p *parser) body(f *Func) error {
	d := p.lex.depth // after the "{"
	c := p.count()
	p.stmts = make([]Stmt, 0, c.stmts)
	p.ops = make([]Operand, 0, c.ops)
	p.mods = make([]string, 0, c.mods)
	p.labels = make([]Label, 0, c.labels)
	p.regs = make([]RegDecl, 0, c.regs)
	p.regNames = make([]string, 0, c.regNames)
	p.regCounts = make([]int, 0, c.regNames)
	p.vars = make([]*Var, 0, c.vars)
	p.loc = Loc{}
	p.advance()
	err := p.statements(f, d)
	f.Body, f.Labels, f.Regs, f.Vars = p.stmts, p.labels, p.regs, p.vars
	if f.Body == nil {
		f.Body = []Stmt{}
	}
	p.stmts, p.ops, p.mods, p.labels, p.regs, p.vars = nil, nil, nil, nil, nil, nil
	p.regNames, p.regCounts = nil, nil
	if err == nil {
		return nil
	}
	if err := p.unsupported(err); err != nil {
		return err
	}
	// Skip to the end of the body.
	for {
		switch p.tok.s {
		case "":
			return p.errf("function %s: unterminated body", f.Name)
		case "}":
			if p.lex.depth < d {
				p.advance()
				return nil
			}
		}
		p.advance()
	}
}

// statements reads the body's statements; d is the lexer's depth inside it.
func (p *parser) statements(f *Func, d int) error {
	for {
		t := p.tok
		switch {
		case t.s == "":
			return p.errf("function %s: unterminated body", f.Name)
		case t.s == "}":
			closes := p.lex.depth < d // the depth after this "}"
			p.advance()
			if closes {
				return nil
			}
		case t.s == "{" || t.s == ";":
			p.advance()
		case t.s == ".reg":
			p.advance()
			r, err := p.regDecl(t.line)
			if err != nil {
				return err
			}
			p.regs = append(p.regs, r)
		case t.s == ".local" || t.s == ".shared" || t.s == ".param" || t.s == ".global" || t.s == ".const":
			v, err := p.variable()
			if err != nil {
				return err
			}
			p.vars = append(p.vars, v)
		case t.s == ".pragma":
			if err := p.skipStatement(); err != nil {
				return err
			}
		case t.s == ".loc" || t.s == ".file":
			p.lineDirective()
		case isIdent(t.s) && p.peek2().s == ":":
			p.advance()
			p.advance()
			p.labels = append(p.labels, Label{Name: t.s, Line: int32(t.line), At: int32(len(p.stmts))})
		default:
			if err := p.instruction(); err != nil {
				return err
			}
		}
	}
}

// regDecl reads ".type name[<N>], ...;" after ".reg".
func (p *parser) regDecl(line int) (RegDecl, error) {
	r := RegDecl{Line: int32(line), At: int32(len(p.stmts))}
	for strings.HasPrefix(p.tok.s, ".") {
		t := p.tok.s[1:]
		if t == "v2" || t == "v4" {
			return r, p.errf("vector registers are not supported")
		}
		if t != "pred" {
			if _, ok := scalarSizes[t]; !ok {
				return r, p.errf("bad register type .%s", t)
			}
		}
		r.Type = t
		p.advance()
	}
	if r.Type == "" {
		return r, p.errf(".reg without a type")
	}
	n0 := len(p.regNames)
	for {
		name := p.tok.s
		if !isIdent(name) {
			return r, p.errf("bad register name %q", name)
		}
		p.advance()
		n := 0
		if p.tok.s == "<" {
			p.advance()
			v, err := strconv.Atoi(p.tok.s)
			if err != nil || v < 0 {
				return r, p.errf("bad register count %q", p.tok.s)
			}
			if v > MaxRegs {
				return r, p.limitf("bad register count %d: more than %d in one declaration", v, MaxRegs)
			}
			p.advance()
			if err := p.expect(">"); err != nil {
				return r, err
			}
			n = v
		}
		p.regNames = append(p.regNames, name)
		p.regCounts = append(p.regCounts, n)
		if p.tok.s != "," {
			break
		}
		p.advance()
	}
	n1 := len(p.regNames)
	r.Names, r.Count = p.regNames[n0:n1:n1], p.regCounts[n0:n1:n1]
	return r, p.expect(";")
}

// place copies operands into the body's operand array and returns them
// there.
func (p *parser) place(es []Operand) []Operand {
	start := len(p.ops)
	p.ops = append(p.ops, es...)
	return p.ops[start:len(p.ops):len(p.ops)]
}

// aggregate returns an operand of kind k with elements es (copied).
func (p *parser) aggregate(k OperandKind, es []Operand) Operand {
	o := Operand{Kind: k}
	if len(es) > 0 {
		placed := p.place(es)
		o.elems, o.n = &placed[0], uint32(len(placed))
	}
	return o
}

// instruction reads "[@[!]%p] op.mods operands;".
func (p *parser) instruction() error {
	s := Stmt{Line: int32(p.tok.line), Loc: p.loc}
	if p.tok.s == "@" {
		p.advance()
		if p.tok.s == "!" {
			p.advance()
			s.PredNeg = true
		}
		s.Pred = p.tok.s
		if !isIdent(s.Pred) {
			return p.errf("bad guard predicate %q", s.Pred)
		}
		p.advance()
	}
	op := p.tok.s
	if op == "" || !isWord(op[0]) || op[0] == '.' || op[0] == '%' {
		return p.errf("expected an instruction, found %q", op)
	}
	base, rest, dotted := strings.Cut(op, ".")
	s.Op = base
	if dotted {
		start := len(p.mods)
		for {
			m, more, found := strings.Cut(rest, ".")
			if m == "" {
				return p.errf("bad instruction %q", op)
			}
			p.mods = append(p.mods, m)
			if !found {
				break
			}
			rest = more
		}
		s.Mods = p.mods[start:len(p.mods):len(p.mods)]
	}
	p.advance()
	args := p.scratch[0][:0]
	defer func() { p.scratch[0] = args[:0] }()
	for p.tok.s != ";" {
		if p.tok.s == "" {
			return p.errf("unterminated instruction %s", op)
		}
		if len(args) >= MaxOperands {
			return p.limitf("too many operands: more than %d", MaxOperands)
		}
		a, err := p.operand(0)
		if err != nil {
			return err
		}
		if p.tok.s == "|" {
			p.advance()
			b, err := p.operand(0)
			if err != nil {
				return err
			}
			pair := [2]Operand{a, b}
			a = p.aggregate(OpPair, pair[:])
		}
		args = append(args, a)
		if p.tok.s == "," {
			p.advance()
		} else if p.tok.s != ";" {
			return p.errf("expected , or ; after operand, found %q", p.tok.s)
		}
	}
	p.advance()
	if len(args) > 0 {
		s.Args = p.place(args)
	}
	p.stmts = append(p.stmts, s)
	return nil
}

func (p *parser) operand(depth int) (Operand, error) {
	if depth > 2 {
		return Operand{}, p.errf("operands nested too deep")
	}
	switch t := p.tok.s; {
	case t == "{" || t == "(":
		p.advance()
		end, k := "}", OpVec
		if t == "(" {
			end, k = ")", OpList
		}
		es := p.scratch[depth+1][:0]
		defer func() { p.scratch[depth+1] = es[:0] }()
		for p.tok.s != end {
			if p.tok.s == "" || len(es) >= MaxOperands {
				return Operand{}, p.errf("unterminated operand list")
			}
			e, err := p.operand(depth + 1)
			if err != nil {
				return Operand{}, err
			}
			es = append(es, e)
			if p.tok.s == "," {
				p.advance()
			} else if p.tok.s != end {
				return Operand{}, p.errf("expected , or %s, found %q", end, p.tok.s)
			}
		}
		p.advance()
		return p.aggregate(k, es), nil
	case t == "[":
		p.advance()
		o := Operand{Kind: OpAddr}
		if isIdent(p.tok.s) {
			o.Name = p.tok.s
			p.advance()
		}
		for p.tok.s == "+" || p.tok.s == "-" || o.Name == "" && isNumberTok(p.tok.s) {
			neg := false
			for p.tok.s == "+" || p.tok.s == "-" {
				if p.tok.s == "-" {
					neg = !neg
				}
				p.advance()
			}
			n, ok := number(p.tok.s, neg)
			if !ok || n.Kind != OpImm {
				return o, p.errf("bad address offset %q", p.tok.s)
			}
			p.advance()
			o.Int += n.Int
		}
		return o, p.expect("]")
	case t == "!":
		p.advance()
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
			p.advance()
		}
		o, ok := number(p.tok.s, neg)
		if !ok {
			return o, p.errf("bad number %q", p.tok.s)
		}
		p.advance()
		return o, nil
	case t == "_":
		p.advance()
		return Operand{Kind: OpSink}, nil
	case isIdent(t):
		p.advance()
		if t[0] == '%' || p.declaredPlain(t) {
			return Operand{Kind: OpReg, Name: t}, nil
		}
		return Operand{Kind: OpSym, Name: t}, nil
	case strings.HasPrefix(t, "%") && strings.Contains(t, "."):
		p.advance() // a special register with a component: %tid.x
		return Operand{Kind: OpReg, Name: t}, nil
	}
	return Operand{}, p.errf("unexpected %q in operands", p.tok.s)
}

// declaredPlain reports whether name is a register the function declared
// so far by itself (no %<n> range): PTX's register names need no "%", and
// the inline assembly of CUDA's headers declares its scratch registers so
// ("{.reg .f16 low; cvt.rn.f16.f32 low, %1; ...}").
func (p *parser) declaredPlain(name string) bool {
	for i := range p.regs {
		r := &p.regs[i]
		for j, n := range r.Names {
			if n == name && r.Count[j] == 0 {
				return true
			}
		}
	}
	return false
}
