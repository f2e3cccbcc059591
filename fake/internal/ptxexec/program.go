package ptxexec

import (
	"fmt"
	"sort"

	"github.com/nocgo/cuda/internal/ptx"
)

// Program is a PTX module decoded for execution. Its module-scope .global
// and .const variables must be placed in device memory (Globals, then
// Bind) before a kernel runs.
type Program struct {
	// Kernels are the defined .entry functions by name.
	Kernels map[string]*Kernel
	// Globals are the module-scope .global and .const variables the
	// program's code may address, with their initialisers.
	Globals []*Global

	funcs     map[string]*function
	relocs    []reloc
	callSites []callSite
	bound     bool
	files     map[int32]string // the module's .file directives
	// sites are the statements of every function, one after another
	// (function.siteBase), and siteFlags their race-check properties.
	sites     []*ptx.Stmt
	siteFlags []uint8
}

// source names the CUDA C line of statement s ("k.cu", 12), from the .loc
// before it; "" and 0 without one.
func (p *Program) source(s *ptx.Stmt) (string, int) {
	if s.Loc.Line <= 0 {
		return "", 0
	}
	name, ok := p.files[s.Loc.File]
	if !ok {
		name = fmt.Sprintf("file %d", s.Loc.File)
	}
	return name, int(s.Loc.Line)
}

// Global is a module-scope .global or .const variable.
type Global struct {
	Name  string
	Space string // "global" or "const"
	Size  int
	Align int
	Init  []byte // nil: uninitialised (zero)
	Addr  uint64 // set by Bind
}

// Kernel is one .entry: its parameter layout and resource use as
// cuFuncGetAttribute reports them.
type Kernel struct {
	Name   string
	Params []ptx.Param
	// ParamSize is the size of the parameter buffer in bytes.
	ParamSize int
	// StaticShared is the bytes of .shared variables the kernel and the
	// functions it calls use (extern arrays excluded).
	StaticShared int
	// LocalSize is the bytes of local memory of the entry's own frame.
	LocalSize int
	// Regs is the number of registers the kernel declares (capped at 255).
	Regs int
	// MaxThreads is the .maxntid product, or 1024.
	MaxThreads int
	// ConstSize is the bytes of the module's .const variables.
	ConstSize int

	prog       *Program
	fn         *function
	sharedBase int      // where the dynamic shared memory starts
	compiled   compiled // its block program (compile.go)
}

// function is a decoded .entry or .func.
type function struct {
	name  string
	entry bool
	code  []inst
	stmts []*ptx.Stmt // per instruction, for error messages
	texts []string    // per instruction, its statement as text (for Access.Instr)
	sites []uint8     // per instruction, its race-check properties (siteFlags)
	// siteBase is the index of its first statement in Program.sites.
	siteBase uint32
	init     []uint64 // initial slot values: constants; registers zero
	nslots   int
	unused   int // registers declared but never named: counted in Kernel.Regs, given no slot
	frame    int // bytes of the local frame: depot, params, returns, call-site params
	params   []frameVar
	rets     []frameVar
	shared   map[string]bool // names of the .shared variables it uses
	calls    []string        // functions it calls
	decoded  bool
	src      *ptx.Func
	// paramSlots are slots loaded once per launch from the parameter
	// buffer: an entry's ld.param of a fixed offset reads one of them.
	paramSlots []paramSlot
	// aliases are registers that hold a special register (%tid.x, ...)
	// for the whole launch: set up with the frame, not by a mov.
	aliases []alias
	// blockSlots are the slots that change from block to block (%ctaid,
	// %smid and their aliases) that the code reads: what a warp in
	// lockstep sets at each block (slot, and the special it holds).
	blockSlots []alias
}

// findBlockSlots sets f.blockSlots from its code.
func (f *function) findBlockSlots() {
	read := map[int32]bool{}
	calls := false
	for i := range f.code {
		in := &f.code[i]
		calls = calls || in.op == opCall
		for _, s := range [...]int32{in.a, in.b, in.c, in.guard, in.v[0], in.v[1], in.v[2], in.v[3]} {
			read[s] = true
		}
	}
	if calls {
		// A callee's frame starts with a copy of the caller's specials.
		for _, s := range [...]int32{sCtaidX, sCtaidY, sCtaidZ, sSmid} {
			read[s] = true
		}
	}
	f.blockSlots = nil
	for _, s := range [...]int32{sCtaidX, sCtaidY, sCtaidZ, sSmid} {
		if read[s] {
			f.blockSlots = append(f.blockSlots, alias{special: s, slot: s})
		}
	}
	for _, a := range f.aliases {
		if a.special >= sCtaidX && a.special <= sCtaidZ && read[a.slot] {
			f.blockSlots = append(f.blockSlots, a)
		}
	}
}

// alias is a register preloaded with a special register's value.
type alias struct{ special, slot int32 }

// paramSlot is a kernel parameter value preloaded into a slot.
type paramSlot struct {
	slot int32
	off  int
	in   inst // the ld.param it replaces: size and sign extension
}

// frameVar is a .func parameter or return value in its frame.
type frameVar struct{ off, size int }

// reloc patches a constant slot with a global's address when bound.
type reloc struct {
	fn     *function
	slot   int
	global int
	off    int64
}

// LoadError is a module the interpreter refuses: the line and
// instruction it cannot run, and why.
type LoadError struct {
	Line  int
	Instr string
	Msg   string
}

// Error returns "ptx line N: instr: message".
func (e *LoadError) Error() string {
	if e.Instr == "" {
		return fmt.Sprintf("ptx line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("ptx line %d: %s: %s", e.Line, e.Instr, e.Msg)
}

// Compile parses PTX text and decodes every defined function. Anything
// the interpreter does not implement is a *LoadError naming its line and
// instruction; text that is not PTX is a *ptx.Error.
func Compile(src string) (*Program, error) {
	m, err := ptx.ParseModule(src)
	if err != nil {
		return nil, err
	}
	return Decode(m)
}

// Decode decodes a parsed module.
func Decode(m *ptx.Module) (*Program, error) {
	if m.Unsupported != nil {
		return nil, m.Unsupported
	}
	if m.AddressSize != 64 {
		return nil, &LoadError{Line: 1, Msg: "only .address_size 64 is supported"}
	}
	p := &Program{Kernels: map[string]*Kernel{}, funcs: map[string]*function{}, files: m.Files}
	mod := &moduleScope{vars: map[string]*ptx.Var{}, globals: map[string]int{}, sharedOff: map[string]int{}}
	for _, v := range m.Vars {
		if _, dup := mod.vars[v.Name]; dup {
			return nil, &LoadError{Line: v.Line, Msg: "variable " + v.Name + " declared twice"}
		}
		mod.vars[v.Name] = v
		switch v.Space {
		case "global", "const":
			if v.Extern {
				return nil, &LoadError{Line: v.Line, Msg: "extern " + v.Space + " variable " + v.Name + " is not supported"}
			}
			mod.globals[v.Name] = len(p.Globals)
			p.Globals = append(p.Globals, &Global{Name: v.Name, Space: v.Space, Size: v.Size(), Align: v.Align, Init: v.Init})
		}
	}
	for _, f := range m.Funcs {
		if !f.Defined {
			continue
		}
		if _, dup := p.funcs[f.Name]; dup {
			return nil, &LoadError{Line: f.Line, Msg: "function " + f.Name + " defined twice"}
		}
		p.funcs[f.Name] = &function{name: f.Name, entry: f.Entry, src: f, shared: map[string]bool{}}
	}
	// Function-scope .shared variables are laid out with the module's: a
	// kernel's static shared memory is every .shared variable it or its
	// callees use, in declaration order.
	for _, f := range m.Funcs {
		for _, v := range f.Vars {
			if v.Space == "shared" {
				if _, dup := mod.vars[v.Name]; dup {
					return nil, &LoadError{Line: v.Line, Msg: "variable " + v.Name + " declared twice"}
				}
				mod.vars[v.Name] = v
			}
		}
	}
	mod.order = make([]*ptx.Var, 0, len(mod.vars))
	for _, v := range mod.vars {
		if v.Space == "shared" {
			mod.order = append(mod.order, v)
		}
	}
	sort.Slice(mod.order, func(i, j int) bool { return mod.order[i].Line < mod.order[j].Line })
	off, dynAlign := 0, 16
	for _, v := range mod.order {
		if v.Count == 0 { // extern: the dynamic shared memory
			dynAlign = max(dynAlign, v.Align)
			continue
		}
		off = alignUp(off, v.Align)
		mod.sharedOff[v.Name] = off
		off += v.Size()
	}
	mod.dynBase = alignUp(off, dynAlign)
	for _, v := range mod.order {
		if v.Count == 0 {
			mod.sharedOff[v.Name] = mod.dynBase
		}
	}
	if mod.dynBase > maxShared {
		return nil, &LoadError{Line: 1, Msg: fmt.Sprintf("%d bytes of static shared memory, more than %d", mod.dynBase, maxShared)}
	}
	names := make([]string, 0, len(p.funcs))
	for n := range p.funcs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f := p.funcs[n]
		if err := p.decodeFunc(f, mod); err != nil {
			return nil, err
		}
	}
	for i := range p.callSites {
		cs := &p.callSites[i]
		g := p.funcs[cs.name]
		if b, ok := builtins[cs.name]; ok && g == nil {
			if len(cs.args) != len(b.params) || len(cs.rets) != len(b.rets) {
				return nil, &LoadError{Line: 1, Msg: "call of " + cs.name + " with the wrong number of arguments or results"}
			}
			for j, size := range b.params {
				if cs.args[j].size != size {
					return nil, &LoadError{Line: 1, Msg: "call of " + cs.name + ": argument size mismatch"}
				}
			}
			for j, size := range b.rets {
				if cs.rets[j].size != size {
					return nil, &LoadError{Line: 1, Msg: "call of " + cs.name + ": result size mismatch"}
				}
			}
			cs.builtin = b.kind
			continue
		}
		if g == nil || g.entry {
			return nil, &LoadError{Line: 1, Msg: "call of " + cs.name + ", which is no .func with a body"}
		}
		if len(g.params) != len(cs.args) || len(g.rets) != len(cs.rets) {
			return nil, &LoadError{Line: g.src.Line, Msg: "call of " + cs.name + " with the wrong number of arguments or results"}
		}
		for j := range g.params {
			if g.params[j].size != cs.args[j].size {
				return nil, &LoadError{Line: g.src.Line, Msg: "call of " + cs.name + ": argument size mismatch"}
			}
		}
		for j := range g.rets {
			if g.rets[j].size != cs.rets[j].size {
				return nil, &LoadError{Line: g.src.Line, Msg: "call of " + cs.name + ": result size mismatch"}
			}
		}
		cs.callee = g
	}
	for _, n := range names {
		f := p.funcs[n]
		if !f.entry {
			continue
		}
		k := &Kernel{Name: f.name, Params: f.src.Params, prog: p, fn: f, LocalSize: f.frame, MaxThreads: 1024}
		if n := len(f.src.Params); n > 0 {
			last := f.src.Params[n-1]
			k.ParamSize = last.Offset + last.Size
		}
		if t := f.src.MaxNTID; t[0] > 0 {
			k.MaxThreads = t[0] * max(t[1], 1) * max(t[2], 1)
		}
		k.Regs = min(f.nslots-nSpecial+f.unused, 255)
		used := map[string]bool{}
		p.reach(f, used, map[string]bool{})
		for _, v := range mod.order {
			if used[v.Name] && v.Count > 0 {
				k.StaticShared += v.Size()
			}
		}
		k.sharedBase = mod.dynBase
		for _, g := range p.Globals {
			if g.Space == "const" {
				k.ConstSize += g.Size
			}
		}
		p.Kernels[f.name] = k
	}
	return p, nil
}

// reach collects the shared variables f and its callees use.
func (p *Program) reach(f *function, used, seen map[string]bool) {
	if seen[f.name] {
		return
	}
	seen[f.name] = true
	for n := range f.shared {
		used[n] = true
	}
	for _, c := range f.calls {
		if g := p.funcs[c]; g != nil {
			p.reach(g, used, seen)
		}
	}
}

// Bind records where the globals were placed (Global.Addr set by the
// caller) and patches the code with their addresses.
func (p *Program) Bind() {
	for _, r := range p.relocs {
		r.fn.init[r.slot] = p.Globals[r.global].Addr + uint64(r.off)
	}
	p.bound = true
}

const maxShared = 227 * 1024 // the H200's opt-in limit per block

func alignUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) &^ (a - 1)
}

// moduleScope is what the decoder knows of the module's variables.
type moduleScope struct {
	vars      map[string]*ptx.Var // module-scope and every function's .shared
	globals   map[string]int      // index in Program.Globals
	sharedOff map[string]int      // offset of each .shared variable
	order     []*ptx.Var          // the .shared variables in declaration order
	dynBase   int                 // offset of the dynamic shared memory
}
