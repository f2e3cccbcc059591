// Package ptx is the library's one PTX front-end: a lexer and a parser of
// PTX text, used by package module for kernels' parameter layouts, by the
// fake driver's module loader and by its interpreter.
//
// Three entry points read the same grammar with the same code:
//
//   - Parse reads the kernel signatures only: each .entry with its .param
//     list, every parameter's PTX type, size and alignment and its offset in
//     the parameter buffer (laid out by C rules, as cuFuncGetParamInfo
//     reports it). It is lenient: no header is needed, C++ names are kept,
//     bodies and directives it does not know are skipped.
//   - Read reads a module image as a driver's loader does: the .version
//     and .target header first, directives at module scope, balanced
//     braces, well-formed entry signatures; function bodies are parsed into
//     statements, and what the syntax tree cannot hold is recorded in
//     Module.Unsupported instead of refusing the image.
//   - ParseModule is Read that refuses anything unsupported: the whole
//     module as a syntax tree, for the interpreter.
//
// # Bounds
//
// The parser streams its tokens (it keeps no token list), sizes the
// statements of each body before it reads them, refers to the source for
// every name, and refuses nesting deeper than MaxDepth, so that what it
// allocates stays within a small multiple of its input: at most 20 times
// the input for PTX as compilers write it and for the hostile shapes its
// tests build (deep nesting, very many registers, parameters or labels,
// long lines), and never more than MaxAllocRatio times on any input (the
// fuzz targets check it). Errors are *Error values with the line; a limit
// exceeded also wraps ErrLimit.
package ptx

import "strings"

// Param is one kernel or function parameter.
type Param struct {
	Name   string // the PTX name, such as "f_param_0"
	Type   string // the PTX type without the dot: "u64", "f32", "b8", ...
	Size   int    // bytes
	Align  int    // bytes; a power of two
	Offset int    // bytes from the start of the parameter buffer
	// Array is the element count of an array parameter (".b8 p[16]", a
	// struct passed by value), 0 for a scalar.
	Array int
	// Pointer reports a scalar annotated with .ptr (a pointer to global,
	// shared, ... memory).
	Pointer bool
	// Opaque reports a .texref, .samplerref or .surfref parameter: a
	// handle whose size the driver decides (Size is 8 here).
	Opaque bool
}

// Kind says what a parameter's PTX type states about its value: "f"
// (floating point), "s" (signed integer), "u" (unsigned integer), "b"
// (untyped bits) or "" for an opaque handle.
func (p *Param) Kind() string {
	if p.Opaque || p.Type == "" {
		return ""
	}
	return p.Type[:1]
}

// Entry is one kernel (.entry) and its parameters.
type Entry struct {
	Name   string
	Params []Param
	// Linkage is "visible", "weak", "extern" or "" (no linkage directive).
	Linkage string
	// Defined reports an entry with a body (not a declaration).
	Defined bool
}

// Size returns the size of the entry's parameter buffer: the end of its
// last parameter (0 for none).
func (e *Entry) Size() int {
	if len(e.Params) == 0 {
		return 0
	}
	p := e.Params[len(e.Params)-1]
	return p.Offset + p.Size
}

// Limits of a kernel's parameter space. The PTX ISA (section "Kernel and
// Function Directives: .entry", PTX ISA Notes) says: "The maximum memory
// size supported by PTX for normal (non-opaque type) parameters is 32764
// bytes", for PTX ISA 8.1 and above (CUDA 12.1; the CUDA C++ Programming
// Guide allows it on Volta, sm_70, and later); earlier PTX ISA versions
// allow 4352 bytes (256 before PTX ISA 1.5). The parser takes the largest
// limit of any version, so that it refuses no valid PTX; what is too large
// for an older target is the JIT compiler's to refuse.
const (
	// MaxParamSize is the largest parameter buffer of an entry, in bytes:
	// every parameter must end at or before it.
	MaxParamSize = 32764
	// MaxAlign is the largest .align taken for a parameter. The PTX ISA
	// ("Alignment") only requires a power of two; any alignment above the
	// size of the parameter space could only place a parameter at offset 0,
	// so the first power of two above MaxParamSize bounds it.
	MaxAlign = 32768
)

// scalarSizes maps PTX fundamental types to their size in bytes.
var scalarSizes = map[string]int{
	"b8": 1, "s8": 1, "u8": 1,
	"b16": 2, "s16": 2, "u16": 2, "f16": 2, "bf16": 2,
	"b32": 4, "s32": 4, "u32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4,
	"b64": 8, "s64": 8, "u64": 8, "f64": 8,
	"b128": 16,
}

// opaqueTypes are the parameter types of texture, sampler and surface
// handles.
var opaqueTypes = map[string]bool{"texref": true, "samplerref": true, "surfref": true}

// Parse returns every .entry of the PTX text src, in order, declarations
// included. The text ends at its first NUL (as an image for
// cuModuleLoadData does). Text without entries gives none and no error; an
// entry whose parameter list cannot be read, or that takes an opaque
// parameter (whose layout only the driver knows), is an *Error.
func Parse(src string) ([]Entry, error) {
	m, err := parse(src, modeSignatures)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for _, f := range m.Funcs {
		if !f.Entry {
			continue
		}
		for _, p := range f.Params {
			if p.Opaque {
				return nil, &Error{Line: f.Line, Msg: "entry " + f.Name + ": parameter " + p.Name + " has the opaque type ." + p.Type + ", whose layout only the driver knows"}
			}
		}
		entries = append(entries, Entry{Name: f.Name, Params: f.Params, Linkage: f.Linkage, Defined: f.Defined})
	}
	return entries, nil
}

// Find returns the entry called name from entries.
func Find(entries []Entry, name string) (Entry, bool) {
	for _, e := range entries {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// TypeSize returns the size in bytes of the PTX fundamental type t, with or
// without its dot (".u64" or "u64"), and false for a name that is no such
// type.
func TypeSize(t string) (int, bool) {
	n, ok := scalarSizes[strings.TrimPrefix(t, ".")]
	return n, ok
}

func alignUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) &^ (a - 1)
}
