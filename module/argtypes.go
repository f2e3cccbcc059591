package module

import (
	"fmt"
	"reflect"

	"github.com/nocgo/cuda/internal/ptx"
)

// ptxType is what a kernel's PTX signature says of one parameter, beyond
// its size: its PTX type ("" where unknown: a foreign CUBIN, an opaque
// handle), whether it is annotated as a pointer, and, for a struct passed
// by value (".align A .b8 name[N]"), its alignment and byte count.
type ptxType struct {
	name  string // the PTX name, such as "saxpy_param_0"
	typ   string // "f32", "u64", "b8", ...; "" unknown
	align int
	array int
	ptr   bool
}

func typeOf(p ptx.Param) ptxType {
	if p.Opaque {
		return ptxType{name: p.Name}
	}
	return ptxType{name: p.Name, typ: p.Type, align: p.Align, array: p.Array, ptr: p.Pointer}
}

// argClass is what a Go argument is, for the type checks.
type argClass uint8

const (
	clsBool argClass = iota
	clsSigned
	clsUnsigned
	clsUintptr
	clsFloat
	clsComplex
	clsBuffer    // a *memory.Buffer[T]: a device pointer
	clsAggregate // a struct or array, by value
	clsBytes     // a [N]byte: raw bytes, for any parameter of N bytes
)

// classOf returns the class of a plain or buffer type.
func classOf(t reflect.Type) argClass {
	if isBuffer(t) {
		return clsBuffer
	}
	switch t.Kind() {
	case reflect.Bool:
		return clsBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return clsSigned
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return clsUnsigned
	case reflect.Uintptr:
		return clsUintptr
	case reflect.Float32, reflect.Float64:
		return clsFloat
	case reflect.Complex64, reflect.Complex128:
		return clsComplex
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return clsBytes
		}
	}
	return clsAggregate
}

// accepts reports whether an argument of class c, whose Go alignment is
// align, fits a parameter of this PTX type (the sizes are checked apart).
// The rules, from what compilers write:
//
//   - .f types take floats;
//   - .s types take signed integers;
//   - .u types take any integer (and bool), since NVRTC writes .u32 for a C
//     int and .u8 for a char, and .u64 for a pointer: a device pointer too;
//   - .b types are untyped bits: any scalar, any device pointer;
//   - a .ptr parameter takes a device pointer (a *memory.Buffer or a
//     uintptr) only;
//   - a struct by value (.b8 name[N]) takes a struct or array (or a
//     complex number, as float2 or double2) no more aligned than the
//     parameter;
//   - a [N]byte is raw bytes, the way to pass anything unchecked: it fits
//     every parameter of N bytes.
func (p *ptxType) accepts(c argClass, align int) bool {
	switch {
	case p.typ == "" || c == clsBytes:
		return true
	case p.array > 0:
		return (c == clsAggregate || c == clsComplex) && align <= p.align
	case p.ptr:
		return c == clsBuffer || c == clsUintptr
	}
	switch p.typ[0] {
	case 'f':
		return c == clsFloat
	case 's':
		return c == clsSigned
	case 'u':
		return c == clsBool || c == clsSigned || c == clsUnsigned || c == clsUintptr || c == clsBuffer
	}
	return c != clsAggregate // .b: bits
}

// describe names the parameter's type as an error says it: "a .f32
// parameter", "a 16-byte struct parameter (.align 8 .b8[16])".
func (p *ptxType) describe(size int) string {
	switch {
	case p.array > 0:
		return fmt.Sprintf("a %d-byte struct parameter (.align %d .%s[%d]): pass a struct or array of its layout", size, p.align, p.typ, p.array)
	case p.ptr:
		return fmt.Sprintf("a .%s .ptr parameter (a device pointer): pass a *memory.Buffer or a uintptr", p.typ)
	}
	switch p.typ[0] {
	case 'f':
		return fmt.Sprintf("a .%s parameter: pass a float%d", p.typ, size*8)
	case 's':
		return fmt.Sprintf("a .%s parameter: pass an int%d", p.typ, size*8)
	case 'u':
		if size == 8 { // NVRTC gives pointers as .u64 without .ptr
			return fmt.Sprintf("a .%s parameter: pass a *memory.Buffer or a uintptr for a pointer, an int64 or a uint64 for an integer", p.typ)
		}
		return fmt.Sprintf("a .%s parameter: pass an int%d or a uint%d", p.typ, size*8, size*8)
	}
	return fmt.Sprintf("a .%s parameter", p.typ)
}

// describeC is describe where the C signature names the Go type to pass.
func (p *param) describeC() string {
	switch {
	case p.c == nil || p.typ == "" || p.array > 0:
		return p.describe(p.size)
	case p.c.ptr:
		return fmt.Sprintf("a .%s parameter (a device pointer): pass a *memory.Buffer or a uintptr", p.typ)
	case p.c.goTy != "":
		return fmt.Sprintf("a .%s parameter: pass %s", p.typ, withArticle(p.c.goTy))
	}
	return p.describe(p.size)
}

// typeErr is the error of argument i, of Go type t, for a parameter whose
// PTX type is known.
func (f *Function) typeErr(lay *layout, i int, t reflect.Type) error {
	p := &lay.params[i]
	what := fmt.Sprintf("%s of %d bytes for %s", withArticle(t.String()), t.Size(), p.describeC())
	if isBuffer(t) {
		what = fmt.Sprintf("%s (a device pointer of 8 bytes) for %s", withArticle(t.String()), p.describe(p.size))
	}
	return fmt.Errorf("%s: argument %d (%s): %s (parameter %d: %d bytes at offset %d, from %s): %w",
		f, i, p.label(), what, i, p.size, p.offset, lay.src, ErrArgs)
}

// withArticle returns "a T" or "an T", as T is said: "an int32", "a
// uint32", "an unsafe.Pointer", "a *memory.Buffer[float32]".
func withArticle(t string) string {
	if t == "" {
		return "a value"
	}
	switch t[0] {
	case 'a', 'e', 'i', 'o':
		return "an " + t
	case 'u':
		if len(t) >= 2 && t[1] == 'n' { // unsafe.Pointer; uint is "you-int"
			return "an " + t
		}
	}
	return "a " + t
}
