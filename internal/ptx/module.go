package ptx

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// Module is a whole PTX module as Read and ParseModule read it: the header
// directives, the module-scope variables and every function, with the
// statements of their bodies. It is a syntax tree: names are not resolved
// and instructions are not checked against the ISA (package ptxexec does
// that when it decodes a module). Its strings are substrings of the text
// it was read from.
type Module struct {
	Version     string  // "7.8"
	Target      string  // "sm_90", the first .target operand
	Arch        int     // 90 for sm_90 (and sm_90a)
	ArchSuffix  string  // "a" for sm_90a, "" for none
	AddressSize int     // 64 unless .address_size says otherwise
	Vars        []*Var  // module-scope .global, .const and .shared variables
	Funcs       []*Func // .entry and .func, in order of appearance
	// Files are the source files of the .file directives (-lineinfo, -G),
	// by number: what a Stmt's Loc.File names.
	Files map[int32]string
	// Unsupported is the first construct Read could not turn into a syntax
	// tree (an *Error with its line): a statement the parser does not know
	// in a body (whose statements are then missing), a module-scope
	// directive it skipped, an opaque parameter. Nil when the syntax tree
	// holds the whole module; ParseModule returns it as its error.
	Unsupported error
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
	// Init is the initialiser, little-endian: the bytes it gives, which
	// may be fewer than Size (the rest is zero); nil if none.
	Init []byte
	Line int
	// At is, for a function-scope variable, the index in Func.Body of the
	// first instruction after its declaration.
	At int
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
	MaxNTID [3]int  // .maxntid (or .reqntid), zeros if absent
	Defined bool    // has a body
	Line    int
	// The body, for a defined function: the instructions in order, and
	// what is declared between them, each with the index in Body of the
	// instruction that follows it (At). Scopes ({ }) are not kept: the
	// declarations of a function share one name space here.
	Body   []Stmt
	Labels []Label
	Regs   []RegDecl
	Vars   []*Var
}

// Stmt is one instruction of a function body.
type Stmt struct {
	Op      string    // the base opcode: "ld", "add", ...
	Mods    []string  // the modifiers after it: "global", "u32"
	Args    []Operand // the operands
	Pred    string    // guard predicate register, "" if none
	Line    int32
	PredNeg bool // @!%p
	// Loc is the source line of the last .loc directive before the
	// instruction in its body (-lineinfo, -G); zero without one.
	Loc Loc
}

// Loc is a .loc directive's source position: the number of a .file
// (Module.Files) and a line in it.
type Loc struct{ File, Line int32 }

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
	for i := range s.Args {
		if i == 0 {
			sb.WriteByte(' ')
		} else {
			sb.WriteString(", ")
		}
		sb.WriteString(s.Args[i].String())
	}
	return sb.String()
}

// Label is a label in a body: it names the instruction Body[At] (len(Body)
// for a label at the end).
type Label struct {
	Name string
	Line int32
	At   int32
}

// RegDecl declares registers: Names[i] itself (Count[i] 0) or
// Names[i]0..Names[i](Count[i]-1) for the parameterised form "%r<Count>".
type RegDecl struct {
	Type  string // "pred", "b32", "f32", ...
	Names []string
	Count []int
	Line  int32
	At    int32 // the index in Func.Body of the next instruction
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

// Operand is one instruction operand. It is 40 bytes: the elements of a
// vector, list or pair lie in an array the parser shares between the
// operands of a function, and Elems returns them.
type Operand struct {
	Name  string
	Int   int64 // OpImm: the value; OpAddr: the offset; OpF32, OpF64: the bits
	elems *Operand
	n     uint32
	Kind  OperandKind
	Neg   bool
}

// Bits returns the IEEE bits of a float constant (OpF32: the low 32).
func (o *Operand) Bits() uint64 { return uint64(o.Int) }

// Elems returns the elements of a vector, list or pair (nil for others).
// The slice is shared: it must not be changed.
func (o *Operand) Elems() []Operand {
	if o.n == 0 {
		return nil
	}
	return unsafe.Slice(o.elems, o.n)
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
		return fmt.Sprintf("0f%08X", uint32(o.Int))
	case OpF64:
		return fmt.Sprintf("0d%016X", uint64(o.Int))
	case OpAddr:
		switch {
		case o.Name == "":
			return fmt.Sprintf("[%d]", o.Int)
		case o.Int == 0:
			return "[" + o.Name + "]"
		}
		return fmt.Sprintf("[%s%+d]", o.Name, o.Int)
	case OpVec, OpList, OpPair:
		es := o.Elems()
		parts := make([]string, len(es))
		for i, e := range es {
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

// ParseModule parses the PTX text src (up to its first NUL) as Read does,
// and refuses what Read records as unsupported: the module is then a
// complete syntax tree. Errors are *Error values naming the line of the
// first statement that cannot be read.
func ParseModule(src string) (*Module, error) {
	m, soft, err := parseAll(src, modeModule)
	if soft != nil {
		return nil, soft // the first error in the text
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Read parses a module image's PTX text (up to its first NUL) as a driver's
// loader reads it. The text must begin with a .version directive (else an
// *Error wrapping ErrNotPTX) followed by .target; every statement at module
// scope must be a directive, braces and parentheses must balance, and
// each .entry's signature must be well formed: any of these is an *Error.
// What is well formed but cannot be held in the syntax tree is recorded in
// Module.Unsupported, and the rest is read.
func Read(src string) (*Module, error) {
	return parse(src, modeModule)
}
