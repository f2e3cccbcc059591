package ptxexec

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nocgo/cuda/fake/internal/fpu"
	"github.com/nocgo/cuda/internal/ptx"
)

// decoder decodes one function.
type decoder struct {
	p              *Program
	mod            *moduleScope
	f              *function
	regs           map[string]int32      // register name → slot
	rkind          map[string]uint8      // register name → kind
	consts         map[uint64]int32      // constant value → slot
	vars           map[string]int        // frame variable name → offset in the frame
	vsize          map[string]int        // frame variable name → size
	labels         map[string]int        // label → instruction index
	fixups         []fixup               // branches to resolve
	calls          []callSite            // call sites, indexed by inst.imm
	params         map[string]int        // entry parameter name → offset in the buffer
	plain          map[string]regDecl    // registers declared by name
	ranges         map[string][]regRange // registers declared as prefix<N>
	seq            int                   // declarations so far
	declared, used int                   // registers declared, and given a slot
	writes         map[int32]int         // register slot → instructions that write it
	stmt           *ptx.Stmt
}

type fixup struct {
	at    int
	label string
	line  int
}

// callSite is one call: the callee and where its arguments and results
// are in the caller's frame.
type callSite struct {
	builtin int // builtinVprintf, builtinAssert, or none
	name    string
	callee  *function
	args    []frameVar
	rets    []frameVar
}

func (d *decoder) fail(format string, args ...any) error {
	e := &LoadError{Msg: fmt.Sprintf(format, args...)}
	if d.stmt != nil {
		e.Line, e.Instr = int(d.stmt.Line), d.stmt.String()
	}
	return e
}

func (p *Program) decodeFunc(f *function, mod *moduleScope) error {
	d := &decoder{
		p: p, mod: mod, f: f,
		regs: map[string]int32{}, rkind: map[string]uint8{}, consts: map[uint64]int32{},
		vars: map[string]int{}, vsize: map[string]int{}, labels: map[string]int{},
		params: map[string]int{}, writes: map[int32]int{},
		plain: map[string]regDecl{}, ranges: map[string][]regRange{},
	}
	f.nslots = nSpecial
	src := f.src
	if f.entry {
		for _, pa := range src.Params {
			d.params[pa.Name] = pa.Offset
			d.vsize[pa.Name] = pa.Size
		}
	} else {
		for _, pa := range src.Params {
			off := d.frameVar(pa.Name, pa.Size, pa.Align)
			f.params = append(f.params, frameVar{off, pa.Size})
		}
		for _, pa := range src.Rets {
			off := d.frameVar(pa.Name, pa.Size, pa.Align)
			f.rets = append(f.rets, frameVar{off, pa.Size})
		}
	}
	// The declarations and labels come between the instructions: each
	// takes effect before the instruction Body[At].
	li, ri, vi := 0, 0, 0
	for i := 0; i <= len(src.Body); i++ {
		for ; ri < len(src.Regs) && int(src.Regs[ri].At) <= i; ri++ {
			r := &src.Regs[ri]
			d.stmt = nil
			k := kindOf(r.Type)
			for j, n := range r.Names {
				var err error
				if c := r.Count[j]; c > 0 {
					err = d.newRegs(n, c, k, int(r.Line))
				} else {
					err = d.newReg(n, k, int(r.Line))
				}
				if err != nil {
					return err
				}
			}
		}
		for ; vi < len(src.Vars) && src.Vars[vi].At <= i; vi++ {
			v := src.Vars[vi]
			switch v.Space {
			case "local", "param":
				if v.Count == 0 {
					return &LoadError{Line: v.Line, Msg: fmt.Sprintf("unsized %s variable %s", v.Space, v.Name)}
				}
				d.frameVar(v.Name, v.Size(), v.Align)
			case "shared":
				f.shared[v.Name] = true
			default:
				return &LoadError{Line: v.Line, Msg: fmt.Sprintf("function-scope .%s variables are not supported", v.Space)}
			}
		}
		for ; li < len(src.Labels) && int(src.Labels[li].At) <= i; li++ {
			l := &src.Labels[li]
			if _, dup := d.labels[l.Name]; dup {
				return &LoadError{Line: int(l.Line), Msg: fmt.Sprintf("label %s defined twice", l.Name)}
			}
			d.labels[l.Name] = len(f.code)
		}
		if i == len(src.Body) {
			break
		}
		s := &src.Body[i]
		d.stmt = s
		in := inst{guard: -1, vec: 1}
		if s.Pred != "" {
			slot, k, ok := d.reg(s.Pred)
			if !ok || k != kPred {
				return d.fail("guard %s is not a predicate register", s.Pred)
			}
			in.guard = slot
			if s.PredNeg {
				in.flags |= fGuardNeg
			}
		}
		if err := d.instr(s, &in); err != nil {
			return err
		}
		f.code = append(f.code, in)
		f.stmts = append(f.stmts, s)
	}
	d.stmt = nil
	// A function that runs off its end returns.
	f.code = append(f.code, inst{op: opRet, guard: -1})
	f.stmts = append(f.stmts, &ptx.Stmt{Line: int32(src.Line), Op: "ret"})
	d.preloadParams()
	f.findBlockSlots()
	f.texts = make([]string, len(f.stmts))
	for i, s := range f.stmts {
		f.texts[i] = s.String()
	}
	for _, fx := range d.fixups {
		t, ok := d.labels[fx.label]
		if !ok {
			return &LoadError{Line: fx.line, Msg: "branch to unknown label " + fx.label}
		}
		f.code[fx.at].imm = int64(t)
	}
	f.unused = d.declared - d.used
	f.init = make([]uint64, f.nslots)
	for v, slot := range d.consts {
		f.init[slot] = v
	}
	if f.nslots > maxSlots {
		return &LoadError{Line: src.Line, Msg: "too many registers"}
	}
	if f.frame > maxLocal {
		return &LoadError{Line: src.Line, Msg: fmt.Sprintf("function %s needs %d bytes of local memory, more than %d", f.name, f.frame, maxLocal)}
	}
	f.frame = alignUp(f.frame, 16)
	base := len(p.callSites)
	for i := range f.code {
		if f.code[i].op == opCall {
			f.code[i].imm += int64(base)
		}
	}
	p.callSites = append(p.callSites, d.calls...)
	for _, c := range d.calls {
		f.calls = append(f.calls, c.name)
	}
	f.sites = siteFlags(f.stmts)
	f.siteBase = uint32(len(p.sites))
	p.sites = append(p.sites, f.stmts...)
	p.siteFlags = append(p.siteFlags, f.sites...)
	f.decoded = true
	return nil
}

func kindOf(t string) uint8 {
	switch {
	case t == "pred":
		return kPred
	case t[0] == 's':
		return kS
	case t[0] == 'f':
		return kF
	}
	return kU
}

// newReg declares one register. A register gets its slot when an
// instruction first names it (see reg), so that declaring many costs
// nothing: only those used take a slot in each thread's registers.
func (d *decoder) newReg(name string, k uint8, line int) error {
	if _, dup := d.plain[name]; dup {
		// Nested scopes may redeclare; the fake keeps one register.
		return nil
	}
	if err := d.declare(1, line); err != nil {
		return err
	}
	d.plain[name] = regDecl{kind: k, seq: d.seq}
	return nil
}

// newRegs declares the registers prefix0 .. prefix(n-1) ("%r<n>").
func (d *decoder) newRegs(prefix string, n int, k uint8, line int) error {
	known := 0 // registers of this prefix declared before: redeclared, not new
	for _, r := range d.ranges[prefix] {
		known = max(known, r.n)
	}
	if err := d.declare(max(n-known, 0), line); err != nil {
		return err
	}
	d.ranges[prefix] = append(d.ranges[prefix], regRange{n: n, regDecl: regDecl{kind: k, seq: d.seq}})
	return nil
}

// declare counts n more declared registers.
func (d *decoder) declare(n, line int) error {
	d.seq++
	d.declared += n
	if d.declared > maxSlots {
		return &LoadError{Line: line, Msg: "too many registers"}
	}
	return nil
}

// regDecl is how a register was declared: its kind, and the declaration's
// order (the first declaration of a name wins).
type regDecl struct {
	kind uint8
	seq  int
}

// regRange is a parameterised declaration: the registers 0 to n-1.
type regRange struct {
	n int
	regDecl
}

// declaredReg finds the first declaration of name, plain or in a range.
func (d *decoder) declaredReg(name string) (regDecl, bool) {
	best, ok := d.plain[name]
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	digits := name[i:]
	if digits == "" || len(digits) > 1 && digits[0] == '0' || len(digits) > 9 {
		return best, ok // "%r01" is not a register of %r<N>
	}
	idx, _ := strconv.Atoi(digits)
	for _, r := range d.ranges[name[:i]] {
		if idx < r.n && (!ok || r.seq < best.seq) {
			best, ok = r.regDecl, true
			break
		}
	}
	return best, ok
}

func (d *decoder) reg(name string) (int32, uint8, bool) {
	if s, ok := d.regs[name]; ok {
		return s, d.rkind[name], true
	}
	if s, ok := specialRegs[name]; ok {
		return s, kU, true
	}
	if v, ok := constRegs[name]; ok {
		if name == "%is_explicit_cluster" {
			return d.constSlot(v), kPred, true
		}
		return d.constSlot(v), kU, true
	}
	r, ok := d.declaredReg(name)
	if !ok {
		return 0, 0, false
	}
	s := int32(d.f.nslots)
	d.f.nslots++
	d.used++
	d.regs[name] = s
	d.rkind[name] = r.kind
	return s, r.kind, true
}

// frameVar places a variable in the function's local frame.
func (d *decoder) frameVar(name string, size, align int) int {
	off := alignUp(d.f.frame, max(align, 1))
	d.f.frame = min(off+size, maxLocal+1) // past maxLocal: refused after decoding
	d.vars[name] = off
	d.vsize[name] = size
	return off
}

func (d *decoder) constSlot(v uint64) int32 {
	if s, ok := d.consts[v]; ok {
		return s
	}
	s := int32(d.f.nslots)
	d.f.nslots++
	d.consts[v] = s
	return s
}

// relocSlot is a slot that Bind fills with a global's address plus off.
func (d *decoder) relocSlot(global int, off int64) int32 {
	s := int32(d.f.nslots)
	d.f.nslots++
	d.p.relocs = append(d.p.relocs, reloc{fn: d.f, slot: int(s), global: global, off: off})
	return s
}

// src returns the slot of a source operand of the given kind and width.
func (d *decoder) src(o ptx.Operand, k, bits uint8) (int32, error) {
	switch o.Kind {
	case ptx.OpReg:
		s, rk, ok := d.reg(o.Name)
		if !ok {
			return 0, d.fail("unknown register %s", o.Name)
		}
		if o.Neg {
			if rk != kPred {
				return 0, d.fail("negated operand %s is not a predicate", o.Name)
			}
			return 0, d.fail("negated predicate operands are not supported")
		}
		return s, nil
	case ptx.OpImm:
		v := uint64(o.Int)
		switch k {
		case kF:
			if bits == 32 {
				v = uint64(math.Float32bits(float32(o.Int)))
			} else {
				v = math.Float64bits(float64(o.Int))
			}
		case kPred:
			if v != 0 {
				v = 1
			}
		case kH, kBH:
			v &= widthMask(bits) // a bit pattern, as mov.b16 writes it
		default:
			v &= widthMask(bits)
		}
		return d.constSlot(v), nil
	case ptx.OpF32, ptx.OpF64:
		if (k == kH || k == kBH) && bits == 16 {
			return d.constSlot(uint64(toHalf(k, f64(o.Bits()), 0))), nil
		}
		if k != kF {
			return 0, d.fail("float constant for a .%s operand", typeName(k, bits))
		}
		v := o.Bits()
		switch {
		case o.Kind == ptx.OpF32 && bits == 64:
			v = math.Float64bits(float64(math.Float32frombits(uint32(o.Bits()))))
		case o.Kind == ptx.OpF64 && bits == 32:
			v = uint64(math.Float32bits(float32(math.Float64frombits(o.Bits()))))
		}
		return d.constSlot(v), nil
	case ptx.OpSym:
		if o.Name == "WARP_SZ" {
			return d.constSlot(warpSize), nil
		}
		if g, ok := d.mod.globals[o.Name]; ok {
			return d.relocSlot(g, 0), nil
		}
		if off, ok := d.mod.sharedOff[o.Name]; ok {
			d.f.shared[o.Name] = true
			return d.constSlot(uint64(off)), nil
		}
		return 0, d.fail("the address of %s cannot be taken here", o.Name)
	}
	return 0, d.fail("unsupported operand %s", o.String())
}

// dst returns the slot of a destination register.
func (d *decoder) dst(o ptx.Operand) (int32, error) {
	switch o.Kind {
	case ptx.OpSink:
		return sSink, nil
	case ptx.OpReg:
		_, constant := constRegs[o.Name]
		if _, special := specialRegs[o.Name]; special || constant {
			if _, own := d.regs[o.Name]; !own {
				return 0, d.fail("special register %s is read-only", o.Name)
			}
		}
		s, _, ok := d.reg(o.Name)
		if !ok {
			return 0, d.fail("unknown register %s", o.Name)
		}
		d.writes[s]++
		return s, nil
	}
	return 0, d.fail("destination %s is not a register", o.String())
}

func widthMask(bits uint8) uint64 {
	if bits >= 64 {
		return math.MaxUint64
	}
	return 1<<bits - 1
}

func typeName(k, bits uint8) string {
	switch k {
	case kS:
		return fmt.Sprintf("s%d", bits)
	case kF:
		return fmt.Sprintf("f%d", bits)
	case kPred:
		return "pred"
	}
	return fmt.Sprintf("u%d", bits)
}

// parseType reads a type modifier ("u32", "f64", "pred", "b16").
func parseType(m string) (k, bits uint8, ok bool) {
	switch m {
	case "pred":
		return kPred, 1, true
	case "f16":
		return kH, 16, true
	case "f16x2":
		return kH, 32, true
	case "bf16":
		return kBH, 16, true
	case "bf16x2":
		return kBH, 32, true
	}
	if len(m) < 2 {
		return 0, 0, false
	}
	switch m[1:] {
	case "8", "16", "32", "64":
	default:
		return 0, 0, false
	}
	var n uint8
	for _, c := range m[1:] {
		n = n*10 + uint8(c-'0')
	}
	switch m[0] {
	case 'u', 'b':
		return kU, n, true
	case 's':
		return kS, n, true
	case 'f':
		if n < 32 {
			return 0, 0, false // f16 is not supported
		}
		return kF, n, true
	}
	return 0, 0, false
}

// mods sorts an instruction's modifiers: types in order, the others as a set.
type mods struct {
	types []string
	set   map[string]bool
}

func splitMods(ms []string) mods {
	r := mods{set: map[string]bool{}}
	for _, m := range ms {
		if _, _, ok := parseType(m); ok {
			r.types = append(r.types, m)
			continue
		}
		r.set[m] = true
	}
	return r
}

// take reports and removes a modifier.
func (m mods) take(names ...string) string {
	for _, n := range names {
		if m.set[n] {
			delete(m.set, n)
			return n
		}
	}
	return ""
}

func (m mods) rest() []string {
	var r []string
	for k := range m.set {
		r = append(r, k)
	}
	return r
}

// roundMode reads .rn/.rz/.rm/.rp (and the integer forms .rni...).
func (m mods) roundMode() int {
	switch m.take("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi") {
	case "rz", "rzi":
		return rz
	case "rm", "rmi":
		return rm
	case "rp", "rpi":
		return rp
	}
	return rn
}

// ignored are modifiers that change nothing in a sequential interpreter:
// cache hints, memory-order scopes and the like.
var ignored = map[string]bool{
	"uni": true, "nc": true, "ca": true, "cg": true, "cs": true, "lu": true, "cv": true, "wb": true, "wt": true,
	"volatile": true, "relaxed": true, "acquire": true, "release": true, "acq_rel": true, "sc": true,
	"gpu": true, "cta": true, "sys": true, "weak": true, "aligned": true, "L1::no_allocate": true,
	"sync": true, "full": true, "L2::64B": true, "L2::128B": true, "L2::256B": true,
}

func (d *decoder) noMore(m mods) error {
	for _, r := range m.rest() {
		if !ignored[r] {
			return d.fail("unsupported modifier .%s", r)
		}
	}
	return nil
}

func (d *decoder) args(s *ptx.Stmt, n int) error {
	if len(s.Args) != n {
		return d.fail("%d operands, want %d", len(s.Args), n)
	}
	return nil
}

// oneType reads the single type of an instruction.
func (d *decoder) oneType(m mods, in *inst) error {
	if len(m.types) != 1 {
		return d.fail("want one type modifier")
	}
	in.kind, in.bits, _ = parseType(m.types[0])
	in.mask = widthMask(in.bits)
	if in.kind == kPred {
		in.mask = 1
	}
	return nil
}

// srcs decodes the source operands s.Args[from:] into a, b, c.
func (d *decoder) srcs(s *ptx.Stmt, in *inst, from int, k, bits uint8) error {
	slots := []*int32{&in.a, &in.b, &in.c}
	for i := from; i < len(s.Args); i++ {
		if i-from >= len(slots) {
			return d.fail("too many operands")
		}
		v, err := d.src(s.Args[i], k, bits)
		if err != nil {
			return err
		}
		*slots[i-from] = v
	}
	return nil
}

func (d *decoder) instr(s *ptx.Stmt, in *inst) error {
	m := splitMods(s.Mods)
	switch s.Op {
	case "mov":
		return d.mov(s, m, in)
	case "ld", "st", "ldu":
		return d.ldst(s, m, in)
	case "cvta":
		return d.cvta(s, m, in)
	case "cvt":
		return d.cvt(s, m, in)
	case "setp":
		return d.setp(s, m, in)
	case "selp":
		if err := d.oneType(m, in); err != nil {
			return err
		}
		if err := d.args(s, 4); err != nil {
			return err
		}
		in.op = opSelp
		var err error
		if in.d, err = d.dst(s.Args[0]); err != nil {
			return err
		}
		if err := d.srcs(s, in, 1, in.kind, in.bits); err != nil {
			return err
		}
		if in.c, err = d.src(s.Args[3], kPred, 1); err != nil {
			return err
		}
		return d.noMore(m)
	case "bra":
		m.take("uni")
		if err := d.args(s, 1); err != nil {
			return err
		}
		if s.Args[0].Kind != ptx.OpSym {
			return d.fail("indirect branches are not supported")
		}
		in.op = opBra
		d.fixups = append(d.fixups, fixup{len(d.f.code), s.Args[0].Name, int(s.Line)})
		return d.noMore(m)
	case "ret":
		m.take("uni")
		in.op = opRet
		return d.noMore(m)
	case "exit":
		in.op = opExit
		return d.noMore(m)
	case "trap":
		in.op = opTrap
		return d.noMore(m)
	case "cp":
		if m.set["mbarrier"] {
			m.take("async")
			m.take("mbarrier")
			m.take("arrive")
			return d.cpAsyncMbarrier(s, m, in)
		}
		return d.cpAsync(s, m, in)
	case "mbarrier":
		return d.mbarrier(s, m, in)
	case "membar", "fence":
		in.op = opFence
		return nil
	case "nanosleep":
		in.op = opNanosleep
		return nil
	case "pmevent", "prefetch", "prefetchu":
		in.op = opNop
		return nil
	case "call":
		return d.call(s, m, in)
	case "bar", "barrier":
		return d.bar(s, m, in)
	case "shfl":
		return d.shfl(s, m, in)
	case "vote":
		return d.vote(s, m, in)
	case "activemask":
		in.op = opActivemask
		if err := d.args(s, 1); err != nil {
			return err
		}
		var err error
		in.d, err = d.dst(s.Args[0])
		in.mask = math.MaxUint32
		return err
	case "atom", "red":
		return d.atom(s, m, in)
	case "redux":
		return d.redux(s, m, in)
	case "bfind", "fns", "lop3", "dp4a", "dp2a":
		return d.bitOp(s, m, in)
	case "match":
		return d.match(s, m, in)
	case "shf", "prmt":
		return d.bytesAndFunnel(s, m, in)
	}
	if isHalf(s.Mods) {
		return d.half(s, m, in)
	}
	if !arithOps[s.Op] {
		return d.fail("unsupported instruction %s", s.Op)
	}
	return d.arith(s, m, in)
}

var arithOps = map[string]bool{
	"add": true, "sub": true, "mul": true, "mad": true, "fma": true, "div": true, "rem": true,
	"min": true, "max": true, "abs": true, "neg": true, "and": true, "or": true, "xor": true,
	"not": true, "cnot": true, "shl": true, "shr": true, "popc": true, "clz": true, "brev": true,
	"bfe": true, "bfi": true, "sqrt": true, "rcp": true, "rsqrt": true, "ex2": true, "lg2": true,
	"sin": true, "cos": true, "tanh": true, "copysign": true,
}

// bytesAndFunnel decodes shf.{l,r}.{wrap,clamp}.b32 and prmt.b32 (the
// default mode).
func (d *decoder) bytesAndFunnel(s *ptx.Stmt, m mods, in *inst) error {
	if s.Op == "shf" {
		switch m.take("l", "r") {
		case "l":
			in.op = opShfL
		case "r":
			in.op = opShfR
		default:
			return d.fail("shf needs .l or .r")
		}
		switch m.take("wrap", "clamp") {
		case "wrap":
			in.mode = 1
		case "clamp":
		default:
			return d.fail("shf needs .wrap or .clamp")
		}
	} else {
		in.op = opPrmt
		modes := map[string]fpu.PrmtMode{"f4e": fpu.PrmtF4E, "b4e": fpu.PrmtB4E, "rc8": fpu.PrmtRC8, "ecl": fpu.PrmtECL, "ecr": fpu.PrmtECR, "rc16": fpu.PrmtRC16}
		for name, mode := range modes {
			if m.take(name) != "" {
				in.mode = uint8(mode)
			}
		}
	}
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	if in.bits != 32 || in.kind == kPred {
		return d.fail("%s of .%s", s.Op, typeName(in.kind, in.bits))
	}
	if err := d.args(s, 4); err != nil {
		return err
	}
	var err error
	if in.d, err = d.dst(s.Args[0]); err != nil {
		return err
	}
	return d.srcs(s, in, 1, kU, 32)
}

func (d *decoder) mov(s *ptx.Stmt, m mods, in *inst) error {
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if err := d.args(s, 2); err != nil {
		return err
	}
	dst, srcOp := s.Args[0], s.Args[1]
	switch {
	case dst.Kind == ptx.OpVec || srcOp.Kind == ptx.OpVec:
		vec := srcOp
		if dst.Kind == ptx.OpVec {
			vec = dst
		}
		n := len(vec.Elems())
		if n != 2 && n != 4 || int(in.bits)%n != 0 {
			return d.fail("unsupported vector move")
		}
		in.size = in.bits / uint8(n) // bits per element
		in.vec = uint8(n)
		for i, e := range vec.Elems() {
			var err error
			if dst.Kind == ptx.OpVec {
				in.v[i], err = d.dst(e)
			} else {
				in.v[i], err = d.src(e, kU, in.size)
			}
			if err != nil {
				return err
			}
		}
		var err error
		if dst.Kind == ptx.OpVec {
			in.op = opUnpack
			in.a, err = d.src(srcOp, kU, in.bits)
		} else {
			in.op = opPack
			in.d, err = d.dst(dst)
		}
		return err
	case srcOp.Kind == ptx.OpSym:
		if off, ok := d.vars[srcOp.Name]; ok { // a local variable: frame-relative
			in.op, in.a, in.imm = opAddImm, sFrame, int64(off)
			var err error
			in.d, err = d.dst(dst)
			return err
		}
		if _, ok := d.params[srcOp.Name]; ok {
			return d.fail("taking the address of a kernel parameter is not supported")
		}
	case srcOp.Kind == ptx.OpReg && (srcOp.Name == "%clock" || srcOp.Name == "%clock64" || srcOp.Name == "%globaltimer" ||
		srcOp.Name == "%globaltimer_lo" || srcOp.Name == "%globaltimer_hi"):
		in.op = opClock
		if strings.HasPrefix(srcOp.Name, "%globaltimer") {
			in.op = opGlobalTimer
		}
		var err error
		in.d, err = d.dst(dst)
		return err
	}
	in.op = opMov
	var err error
	if in.d, err = d.dst(dst); err != nil {
		return err
	}
	in.a, err = d.src(srcOp, in.kind, in.bits)
	return err
}

// addr decodes an address operand for space ("global", "shared", "local",
// "param", "const", "" for generic): the base slot, the offset, and the
// space the access really goes to.
func (d *decoder) addr(o ptx.Operand, space string) (base int32, off int64, sp string, err error) {
	if o.Kind != ptx.OpAddr {
		return 0, 0, "", d.fail("operand %s is not an address", o.String())
	}
	if o.Name == "" {
		return sZero, o.Int, space, nil
	}
	if s, _, ok := d.reg(o.Name); ok {
		return s, o.Int, space, nil
	}
	if poff, ok := d.params[o.Name]; ok {
		if space != "param" {
			return 0, 0, "", d.fail("kernel parameter %s in .%s space", o.Name, space)
		}
		if o.Int < 0 || o.Int >= int64(d.vsize[o.Name]) {
			return 0, 0, "", d.fail("offset %d outside parameter %s", o.Int, o.Name)
		}
		return sZero, int64(poff) + o.Int, "param", nil
	}
	if foff, ok := d.vars[o.Name]; ok {
		if space != "local" && space != "param" {
			return 0, 0, "", d.fail("local variable %s in .%s space", o.Name, space)
		}
		return sFrame, int64(foff) + o.Int, "local", nil
	}
	if g, ok := d.mod.globals[o.Name]; ok {
		if space != "global" && space != "const" && space != "" {
			return 0, 0, "", d.fail("global variable %s in .%s space", o.Name, space)
		}
		return d.relocSlot(g, o.Int), 0, "global", nil
	}
	if soff, ok := d.mod.sharedOff[o.Name]; ok {
		d.f.shared[o.Name] = true
		switch space {
		case "shared":
			return sZero, int64(soff) + o.Int, "shared", nil
		case "":
			return d.constSlot(uint64(sharedWindow + soff)), o.Int, "", nil
		}
		return 0, 0, "", d.fail("shared variable %s in .%s space", o.Name, space)
	}
	return 0, 0, "", d.fail("unknown variable %s", o.Name)
}

func (d *decoder) ldst(s *ptx.Stmt, m mods, in *inst) error {
	space := m.take("global", "shared", "local", "param", "const")
	switch m.take("v2", "v4") {
	case "v2":
		in.vec = 2
	case "v4":
		in.vec = 4
	}
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if in.kind == kPred {
		return d.fail("ld/st of predicates")
	}
	in.size = in.bits / 8
	if err := d.noMore(m); err != nil {
		return err
	}
	if err := d.args(s, 2); err != nil {
		return err
	}
	load := s.Op != "st"
	addrOp, val := s.Args[1], s.Args[0]
	if !load {
		addrOp, val = s.Args[0], s.Args[1]
	}
	base, off, sp, err := d.addr(addrOp, space)
	if err != nil {
		return err
	}
	in.a, in.imm = base, off
	switch {
	case load && sp == "global" || load && sp == "const":
		in.op = opLdGlobal
	case !load && sp == "global":
		in.op = opStGlobal
	case load && sp == "shared":
		in.op = opLdShared
	case !load && sp == "shared":
		in.op = opStShared
	case load && sp == "local":
		in.op = opLdLocal
	case !load && sp == "local":
		in.op = opStLocal
	case load && sp == "param":
		in.op = opLdParam
	case load && sp == "":
		in.op = opLdGeneric
	case !load && sp == "":
		in.op = opStGeneric
	default:
		return d.fail("unsupported state space for %s", s.Op)
	}
	if in.vec > 1 {
		if val.Kind != ptx.OpVec || len(val.Elems()) != int(in.vec) {
			return d.fail("vector access needs %d registers", in.vec)
		}
	} else if val.Kind == ptx.OpVec {
		return d.fail("vector operand for a scalar access")
	}
	elems := []ptx.Operand{val}
	if in.vec > 1 {
		elems = val.Elems()
	}
	for i, e := range elems {
		var err error
		if load {
			in.v[i], err = d.dst(e)
		} else {
			in.v[i], err = d.src(e, in.kind, in.bits)
		}
		if err != nil {
			return err
		}
	}
	if in.op == opLdParam && in.a == sZero && in.vec == 1 && d.f.entry {
		end := 0
		if n := len(d.f.src.Params); n > 0 {
			end = d.f.src.Params[n-1].Offset + d.f.src.Params[n-1].Size
		}
		if in.imm < 0 || in.imm+int64(in.size) > int64(end) {
			return d.fail("ld.param past the parameters")
		}
		// A launch constant: read once per launch into a slot.
		slot := int32(d.f.nslots)
		d.f.nslots++
		d.f.paramSlots = append(d.f.paramSlots, paramSlot{slot: slot, off: int(in.imm), in: *in})
		in.op, in.d, in.a, in.mask = opMov, in.v[0], slot, math.MaxUint64
	}
	return nil
}

func (d *decoder) cvta(s *ptx.Stmt, m mods, in *inst) error {
	to := m.take("to") != ""
	space := m.take("global", "shared", "local", "const", "param")
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	if err := d.args(s, 2); err != nil {
		return err
	}
	var err error
	if in.d, err = d.dst(s.Args[0]); err != nil {
		return err
	}
	if s.Args[1].Kind == ptx.OpSym {
		if off, ok := d.vars[s.Args[1].Name]; ok && space == "local" && !to {
			in.op, in.a, in.imm = opAddImm, sFrame, int64(off)+localWindow
			return nil
		}
	}
	if in.a, err = d.src(s.Args[1], kU, in.bits); err != nil {
		return err
	}
	in.op = opAddImm
	var w int64
	switch space {
	case "global", "const":
		w = 0
	case "shared":
		w = sharedWindow
	case "local":
		w = localWindow
	default:
		return d.fail("unsupported cvta space")
	}
	if in.bits != 64 {
		return d.fail("32-bit generic addresses are not supported")
	}
	if to {
		w = -w
	}
	in.imm = w
	return nil
}

func (d *decoder) cvt(s *ptx.Stmt, m mods, in *inst) error {
	for _, r := range []string{"rni", "rzi", "rmi", "rpi"} {
		if m.set[r] {
			in.flags |= fIntRound
		}
	}
	mode := m.roundMode()
	if m.take("ftz") != "" {
		in.flags |= fFTZ
	}
	if m.take("sat") != "" {
		in.flags |= fSat
	}
	if m.take("relu") != "" {
		in.flags |= fRelu
	}
	if m.take("satfinite") != "" {
		in.vec = 2
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	if len(m.types) != 2 {
		return d.fail("cvt needs two types")
	}
	in.kind, in.bits, _ = parseType(m.types[0])
	in.k2, in.b2, _ = parseType(m.types[1])
	if in.kind == kPred || in.k2 == kPred {
		return d.fail("cvt of predicates")
	}
	in.mask = widthMask(in.bits)
	in.mode = uint8(mode)
	in.op = opCvt
	if !isFloat(in.kind) && !isFloat(in.k2) && in.flags&fSat != 0 {
		return d.fail("saturating integer conversions are not supported")
	}
	half := in.kind == kH || in.kind == kBH
	if in.flags&fRelu != 0 && !half || in.vec == 2 && !half {
		return d.fail(".relu and .satfinite need an f16 or bf16 destination")
	}
	if half && in.bits == 32 { // cvt.rn.f16x2.f32 d, a, b: a to the high half
		if in.k2 != kF || in.b2 != 32 {
			return d.fail("cvt to .%s needs .f32 sources", m.types[0])
		}
		if err := d.args(s, 3); err != nil {
			return err
		}
		in.op = opCvtPack
		var err error
		if in.d, err = d.dst(s.Args[0]); err != nil {
			return err
		}
		return d.srcs(s, in, 1, kF, 32)
	}
	if in.k2 == kH && in.b2 == 32 || in.k2 == kBH && in.b2 == 32 {
		return d.fail("cvt from .%s", m.types[1])
	}
	if err := d.args(s, 2); err != nil {
		return err
	}
	var err error
	if in.d, err = d.dst(s.Args[0]); err != nil {
		return err
	}
	in.a, err = d.src(s.Args[1], in.k2, in.b2)
	return err
}

func (d *decoder) setp(s *ptx.Stmt, m mods, in *inst) error {
	cmp := -1
	for name, c := range cmpNames {
		if m.take(name) != "" {
			cmp = c
			break
		}
	}
	if cmp < 0 {
		return d.fail("setp without a comparison")
	}
	comb := m.take("and", "or", "xor")
	if m.take("ftz") != "" {
		in.flags |= fFTZ
	}
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	in.mode = uint8(cmp)
	if in.kind == kH || in.kind == kBH {
		in.op = opSetpH
	} else if in.kind == kF {
		in.op = opSetpF
	} else {
		in.op = opSetpI
		if cmp > cmpGE {
			return d.fail("unordered comparison of integers")
		}
	}
	in.k2 = map[string]uint8{"": 0, "and": 1, "or": 2, "xor": 3}[comb]
	want := 3
	if comb != "" {
		want = 4
	}
	if err := d.args(s, want); err != nil {
		return err
	}
	in.v[0] = -1
	dst := s.Args[0]
	var err error
	if dst.Kind == ptx.OpPair {
		if in.v[0], err = d.dst(dst.Elems()[1]); err != nil {
			return err
		}
		dst = dst.Elems()[0]
	}
	if in.d, err = d.dst(dst); err != nil {
		return err
	}
	if in.a, err = d.src(s.Args[1], in.kind, in.bits); err != nil {
		return err
	}
	if in.b, err = d.src(s.Args[2], in.kind, in.bits); err != nil {
		return err
	}
	if comb != "" {
		c := s.Args[3]
		if c.Kind == ptx.OpReg && c.Neg {
			in.flags |= fCombNeg
			c.Neg = false
		}
		if in.c, err = d.src(c, kPred, 1); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) call(s *ptx.Stmt, m mods, in *inst) error {
	m.take("uni")
	if err := d.noMore(m); err != nil {
		return err
	}
	args := s.Args
	var cs callSite
	var rets []ptx.Operand
	if len(args) > 0 && args[0].Kind == ptx.OpList {
		rets = args[0].Elems()
		args = args[1:]
	}
	if len(args) == 0 || args[0].Kind != ptx.OpSym {
		return d.fail("indirect calls are not supported")
	}
	cs.name = args[0].Name
	args = args[1:]
	var params []ptx.Operand
	if len(args) > 0 {
		if args[0].Kind != ptx.OpList || len(args) > 1 {
			return d.fail("unsupported call operands")
		}
		params = args[0].Elems()
	}
	for _, group := range []struct {
		ops []ptx.Operand
		to  *[]frameVar
	}{{rets, &cs.rets}, {params, &cs.args}} {
		for _, o := range group.ops {
			off, ok := d.vars[o.Name]
			if o.Kind != ptx.OpSym || !ok {
				return d.fail("call argument %s is not a .param variable", o.String())
			}
			*group.to = append(*group.to, frameVar{off, d.vsize[o.Name]})
		}
	}
	in.op = opCall
	in.imm = int64(len(d.calls))
	d.calls = append(d.calls, cs)
	return nil
}

func (d *decoder) shfl(s *ptx.Stmt, m mods, in *inst) error {
	if m.take("sync") == "" {
		return d.fail("shfl without .sync is not supported")
	}
	switch m.take("up", "down", "bfly", "idx") {
	case "up":
		in.mode = shflUp
	case "down":
		in.mode = shflDown
	case "bfly":
		in.mode = shflBfly
	case "idx":
		in.mode = shflIdx
	default:
		return d.fail("shfl without a mode")
	}
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if in.bits != 32 {
		return d.fail("shfl of .%s", typeName(in.kind, in.bits))
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	if err := d.args(s, 5); err != nil {
		return err
	}
	in.op = opShfl
	dst := s.Args[0]
	in.c = sSink
	if dst.Kind == ptx.OpPair {
		var err error
		if in.c, err = d.dst(dst.Elems()[1]); err != nil {
			return err
		}
		dst = dst.Elems()[0]
	}
	var err error
	if in.d, err = d.dst(dst); err != nil {
		return err
	}
	if in.a, err = d.src(s.Args[1], kU, 32); err != nil {
		return err
	}
	if in.b, err = d.src(s.Args[2], kU, 32); err != nil {
		return err
	}
	if in.v[0], err = d.src(s.Args[3], kU, 32); err != nil {
		return err
	}
	in.v[1], err = d.src(s.Args[4], kU, 32)
	return err
}

func (d *decoder) vote(s *ptx.Stmt, m mods, in *inst) error {
	if m.take("sync") == "" {
		return d.fail("vote without .sync is not supported")
	}
	switch m.take("all", "any", "uni", "ballot") {
	case "all":
		in.mode = voteAll
	case "any":
		in.mode = voteAny
	case "uni":
		in.mode = voteUni
	case "ballot":
		in.mode = voteBallot
	default:
		return d.fail("vote without a mode")
	}
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	if err := d.args(s, 3); err != nil {
		return err
	}
	in.op = opVote
	var err error
	if in.d, err = d.dst(s.Args[0]); err != nil {
		return err
	}
	if s.Args[1].Kind == ptx.OpReg && s.Args[1].Neg {
		return d.fail("negated vote predicates are not supported")
	}
	if in.a, err = d.src(s.Args[1], kPred, 1); err != nil {
		return err
	}
	in.b, err = d.src(s.Args[2], kU, 32)
	return err
}

var atomOps = map[string]uint8{
	"add": atomAdd, "min": atomMin, "max": atomMax, "inc": atomInc, "dec": atomDec,
	"and": atomAnd, "or": atomOr, "xor": atomXor, "exch": atomExch, "cas": atomCas,
}

func (d *decoder) atom(s *ptx.Stmt, m mods, in *inst) error {
	switch m.take("global", "shared") {
	case "global":
		in.k2 = spGlobal
	case "shared":
		in.k2 = spShared
	default:
		in.k2 = spGeneric
	}
	found := false
	for name, op := range atomOps {
		if m.take(name) != "" {
			in.mode, found = op, true
			break
		}
	}
	if !found {
		return d.fail("unsupported atomic operation")
	}
	m.take("noftz")
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	if in.bits < 32 || in.kind == kPred {
		return d.fail("atomics on .%s are not supported", typeName(in.kind, in.bits))
	}
	if in.kind == kF && in.mode != atomAdd && in.mode != atomExch {
		return d.fail("float atomics other than add and exch are not supported")
	}
	if (in.mode == atomInc || in.mode == atomDec) && in.bits != 32 {
		return d.fail("atom.inc/dec need .u32")
	}
	in.size = in.bits / 8
	in.op = opAtom
	args := s.Args
	in.d = sSink
	if s.Op == "atom" {
		if len(args) == 0 {
			return d.fail("no operands")
		}
		var err error
		if in.d, err = d.dst(args[0]); err != nil {
			return err
		}
		args = args[1:]
	}
	want := 2
	if in.mode == atomCas {
		want = 3
	}
	if len(args) != want {
		return d.fail("%d operands, want %d", len(s.Args), want)
	}
	sp := map[uint8]string{spGlobal: "global", spShared: "shared", spGeneric: ""}[in.k2]
	base, off, real, err := d.addr(args[0], sp)
	if err != nil {
		return err
	}
	if real == "shared" {
		in.k2 = spShared
	} else if real == "global" {
		in.k2 = spGlobal
	}
	in.a, in.imm = base, off
	if in.b, err = d.src(args[1], in.kind, in.bits); err != nil {
		return err
	}
	if want == 3 {
		in.c, err = d.src(args[2], in.kind, in.bits)
	}
	return err
}

// arith decodes the integer and float arithmetic instructions.
func (d *decoder) arith(s *ptx.Stmt, m mods, in *inst) error {
	mode := m.roundMode()
	in.mode = uint8(mode)
	if m.take("ftz") != "" {
		in.flags |= fFTZ
	}
	if m.take("sat") != "" {
		in.flags |= fSat
	}
	approx := m.take("approx") != ""
	hi, lo, wide := m.take("hi") != "", m.take("lo") != "", m.take("wide") != ""
	if m.take("full") != "" {
		in.flags |= fFull
	}
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	f := in.kind == kF
	f32 := f && in.bits == 32
	signed := in.kind == kS
	nsrc := 2
	var op int
	pick := func(i, s, f32op, f64op int) int {
		switch {
		case f32:
			return f32op
		case f:
			return f64op
		case signed:
			return s
		}
		return i
	}
	const bad = -1
	switch s.Op {
	case "add":
		op = pick(opAddI, opAddI, opAddF32, opAddF64)
	case "sub":
		op = pick(opSubI, opSubI, opSubF32, opSubF64)
	case "mul":
		switch {
		case f:
			op = pick(bad, bad, opMulF32, opMulF64)
		case hi:
			op = pick(opMulHiU, opMulHiS, bad, bad)
		case wide:
			op = pick(opMulWideU, opMulWideS, bad, bad)
		default:
			op = opMulLo
		}
	case "mad", "fma":
		nsrc = 3
		switch {
		case f:
			if s.Op == "mad" && mode == rn && !m.set["rn"] && f32 {
				// mad.f32 without rounding is mad.rn on sm_20 and later.
			}
			op = pick(bad, bad, opFmaF32, opFmaF64)
		case hi:
			op = pick(opMadHiU, opMadHiS, bad, bad)
		case wide:
			op = pick(opMadWideU, opMadWideS, bad, bad)
		case lo:
			op = opMadLo
		default:
			op = bad
		}
	case "div":
		op = pick(opDivU, opDivS, opDivF32, opDivF64)
	case "rem":
		op = pick(opRemU, opRemS, bad, bad)
	case "min":
		op = pick(opMinU, opMinS, opMinF32, opMinF64)
	case "max":
		op = pick(opMaxU, opMaxS, opMaxF32, opMaxF64)
	case "abs":
		nsrc = 1
		op = pick(bad, opAbsS, opAbsF32, opAbsF64)
	case "neg":
		nsrc = 1
		op = pick(opNegI, opNegI, opNegF32, opNegF64)
	case "copysign":
		// copysign d, a, b: b's magnitude with a's sign (what copysignf
		// and the fp16 headers' helpers compile to).
		op = pick(bad, bad, opCopysignF32, opCopysignF64)
	case "and", "or", "xor":
		op = map[string]int{"and": opAnd, "or": opOr, "xor": opXor}[s.Op]
		if f {
			op = bad
		}
	case "not", "cnot":
		nsrc = 1
		op = opNot
		if s.Op == "cnot" {
			op = opCnot
		}
		if f {
			op = bad
		}
	case "shl":
		op = opShl
	case "shr":
		op = pick(opShrU, opShrS, bad, bad)
	case "popc", "clz", "brev":
		nsrc = 1
		op = map[string]int{"popc": opPopc, "clz": opClz, "brev": opBrev}[s.Op]
		if f || in.bits < 32 {
			op = bad
		}
	case "bfe":
		nsrc = 3
		op = pick(opBfeU, opBfeS, bad, bad)
	case "bfi":
		nsrc = 4
		op = pick(opBfi, opBfi, bad, bad)
	case "sqrt":
		nsrc = 1
		op = pick(bad, bad, opSqrtF32, opSqrtF64)
	case "rcp":
		nsrc = 1
		op = pick(bad, bad, opRcpF32, opRcpF64)
	case "rsqrt":
		nsrc = 1
		op = pick(bad, bad, opRsqrtF32, opRsqrtF64)
		approx = approx || true
	case "ex2", "lg2", "sin", "cos", "tanh":
		nsrc = 1
		if !approx {
			return d.fail("%s needs .approx", s.Op)
		}
		op = map[string]int{"ex2": opEx2F32, "lg2": opLg2F32, "sin": opSinF32, "cos": opCosF32, "tanh": opTanhF32}[s.Op]
		if !f32 {
			op = bad
		}
	default:
		return d.fail("unsupported instruction %s", s.Op)
	}
	if op == bad {
		return d.fail("unsupported form of %s", s.Op)
	}
	if in.kind == kPred && op != opAnd && op != opOr && op != opXor && op != opNot {
		return d.fail("%s on predicates", s.Op)
	}
	if approx {
		in.flags |= fApprox
	}
	if in.flags&fSat != 0 && !f32 {
		return d.fail(".sat is supported on .f32 only")
	}
	in.op = uint8(op)
	if err := d.args(s, nsrc+1); err != nil {
		return err
	}
	var err error
	if in.d, err = d.dst(s.Args[0]); err != nil {
		return err
	}
	// Shift amounts and bfe/bfi positions are .u32 whatever the type.
	switch op {
	case opShl, opShrU, opShrS:
		if in.a, err = d.src(s.Args[1], in.kind, in.bits); err != nil {
			return err
		}
		in.b, err = d.src(s.Args[2], kU, 32)
		return err
	case opBfeU, opBfeS:
		if in.a, err = d.src(s.Args[1], in.kind, in.bits); err != nil {
			return err
		}
		if in.b, err = d.src(s.Args[2], kU, 32); err != nil {
			return err
		}
		in.c, err = d.src(s.Args[3], kU, 32)
		return err
	case opBfi:
		if in.a, err = d.src(s.Args[1], in.kind, in.bits); err != nil {
			return err
		}
		if in.b, err = d.src(s.Args[2], in.kind, in.bits); err != nil {
			return err
		}
		if in.c, err = d.src(s.Args[3], kU, 32); err != nil {
			return err
		}
		in.v[0], err = d.src(s.Args[4], kU, 32)
		return err
	case opMulWideU, opMulWideS, opMadWideU, opMadWideS:
		if in.bits == 64 {
			return d.fail("mul.wide of 64-bit operands")
		}
		if err := d.srcs(s, in, 1, in.kind, in.bits); err != nil {
			return err
		}
		if op == opMadWideU || op == opMadWideS { // the addend is twice as wide
			in.c, err = d.src(s.Args[3], in.kind, in.bits*2)
		}
		in.mask = widthMask(in.bits * 2)
		return err
	}
	return d.srcs(s, in, 1, in.kind, in.bits)
}

// preloadParams removes moves whose value is fixed for a launch into
// registers that nothing else writes, and preloads the registers instead:
// ld.param of a parameter (a preloaded slot), cvta.to.global of such a
// register (the identity), and reads of the special registers %tid,
// %ntid, %ctaid, %nctaid (aliases the frame's set up). Branch targets
// are renumbered.
func (d *decoder) preloadParams() {
	f := d.f
	if !f.entry {
		return
	}
	drop := map[int]bool{}
	once := func(in *inst) bool { return in.guard < 0 && d.writes[in.d] == 1 && in.d >= nSpecial }
	for i := range f.paramSlots {
		p := &f.paramSlots[i]
		for pc := range f.code {
			in := &f.code[pc]
			if in.op == opMov && in.a == p.slot && once(in) && !drop[pc] {
				drop[pc] = true
				p.slot = in.d
				break
			}
		}
	}
	for pc := range f.code {
		in := &f.code[pc]
		if drop[pc] || !once(in) {
			continue
		}
		switch {
		case in.op == opAddImm && in.imm == 0 && in.mask == math.MaxUint64:
			for _, p := range f.paramSlots {
				if p.slot == in.a && p.in.size == 8 {
					f.paramSlots = append(f.paramSlots, paramSlot{slot: in.d, off: p.off, in: p.in})
					drop[pc] = true
					break
				}
			}
		case in.op == opMov && in.a <= sNctaidZ && in.mask >= math.MaxUint32:
			f.aliases = append(f.aliases, alias{special: in.a, slot: in.d})
			drop[pc] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	newIdx := make([]int, len(f.code)+1)
	code, stmts := f.code[:0], f.stmts[:0]
	n := 0
	for i := range f.code {
		newIdx[i] = n
		if drop[i] {
			continue
		}
		code = append(code, f.code[i])
		stmts = append(stmts, f.stmts[i])
		n++
	}
	newIdx[len(f.code)] = n
	for name, at := range d.labels {
		d.labels[name] = newIdx[at]
	}
	for i := range d.fixups {
		d.fixups[i].at = newIdx[d.fixups[i].at]
	}
	f.code, f.stmts = code, stmts
}
