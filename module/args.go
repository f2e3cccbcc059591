package module

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/memory"
)

// A launch copies each argument into an argument block, at the offset of
// the kernel parameter it fills, and passes the driver an array of pointers
// to them (cuLaunchKernel's kernelParams, a void**). The Go types accepted
// are in the package documentation.

// block is an argument block: the values laid out as the kernel's
// parameters, and the kernelParams array pointing at each. Both are pinned
// for the block's life (the pointer array holds Go pointers into the values
// and is handed to C), and unpinned by a cleanup once the block is
// unreachable.
type block struct {
	buf  []uint64 // the values; uint64 for 8-byte alignment
	ptrs []unsafe.Pointer
	pin  *runtime.Pinner
}

func newBlock(size, n int) *block {
	b := &block{
		buf:  make([]uint64, max((size+7)/8, 1)),
		ptrs: make([]unsafe.Pointer, max(n, 1)),
		pin:  new(runtime.Pinner),
	}
	b.pin.Pin(&b.buf[0])
	b.pin.Pin(&b.ptrs[0])
	runtime.AddCleanup(b, func(p *runtime.Pinner) { p.Unpin() }, b.pin)
	return b
}

func (b *block) base() unsafe.Pointer { return unsafe.Pointer(&b.buf[0]) }

// Launch blocks: each Function keeps one spare block for its next Launch;
// concurrent launches of one function take more from a pool. Kernels whose
// parameters do not fit a pooled block (over 4 KiB, the classic parameter
// limit, or 512 parameters) get a block of their own when the spare is taken.
const (
	poolBytes  = 4096
	poolParams = 512
)

var blocks = sync.Pool{New: func() any { return newBlock(poolBytes, poolParams) }}

func getBlock(size, n int) *block {
	if size > poolBytes || n > poolParams {
		return newBlock(size, n)
	}
	return blocks.Get().(*block)
}

// takeBlock returns a block for a launch of f with layout lay (the spare
// fits: giveBlock keeps only blocks that fit f's layout, which never
// changes once read).
func (f *Function) takeBlock(lay *layout) *block {
	if b := f.spare.Swap(nil); b != nil {
		return b
	}
	return getBlock(lay.size, len(lay.params))
}

// giveBlock returns a block taken by takeBlock.
func (f *Function) giveBlock(b *block, lay *layout) {
	if len(b.buf)*8 >= lay.size && len(b.ptrs) >= len(lay.params) && f.spare.CompareAndSwap(nil, b) {
		return
	}
	putBlock(b)
}

func putBlock(b *block) {
	if len(b.buf)*8 == poolBytes && len(b.ptrs) == poolParams {
		blocks.Put(b)
	}
}

// Args is a prepared argument list for one kernel: the values already laid
// out and pinned, so that LaunchArgs launches with no allocation and no
// checks of the values beyond those Set makes. Set changes one argument in
// place. An Args is not safe for concurrent use, and must not be changed
// while a LaunchArgs with it runs in another goroutine; a launch copies the
// values, so an Args may be changed as soon as LaunchArgs returns.
//
// A device pointer is captured as its address when given to Args or Set:
// freeing the buffer afterwards leaves the Args pointing at freed memory.
type Args struct {
	f   *Function
	lay *layout // the layout the values were laid out for
	blk *block
}

// Args checks args against the kernel's parameters (see Kernel arguments
// in the package documentation) and lays them out for LaunchArgs. A count,
// type or size that does not match the kernel is an error wrapping ErrArgs,
// and no Args is returned.
func (f *Function) Args(args ...any) (*Args, error) {
	const op = "module.Function.Args"
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	lay, err := f.layout()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := f.checkCount(lay, len(args)); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	blk := newBlock(lay.size, len(lay.params))
	base := blk.base()
	for i := range args {
		if err := f.put(lay, i, args[i], base); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		blk.ptrs[i] = unsafe.Add(base, lay.params[i].offset)
	}
	return &Args{f: f, lay: lay, blk: blk}, nil
}

// Len returns the number of arguments (0 for a nil Args).
func (a *Args) Len() int {
	if a == nil || a.f == nil || a.blk == nil {
		return 0
	}
	return len(a.lay.params)
}

// Function returns the kernel the arguments are for.
func (a *Args) Function() *Function {
	if a == nil {
		return nil
	}
	return a.f
}

// Set replaces argument i by v, with the checks of a launch. On error the
// argument keeps its value. It does not allocate, and keeps no reference to
// v.
func (a *Args) Set(i int, v any) error {
	const op = "module.Args.Set"
	if a == nil || a.f == nil || a.lay == nil {
		return fmt.Errorf("%s: nil Args: %w", op, driver.ErrInvalidInput)
	}
	if i < 0 || i >= len(a.lay.params) {
		return fmt.Errorf("%s: %s: argument %d: the kernel has %d parameters: %w", op, a.f, i, len(a.lay.params), ErrArgs)
	}
	if err := a.f.put(a.lay, i, v, a.blk.base()); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// kernelParams returns the void** for cuLaunchKernel: nil for a kernel
// without parameters.
func (a *Args) kernelParams() unsafe.Pointer {
	if len(a.lay.params) == 0 {
		return nil
	}
	return unsafe.Pointer(&a.blk.ptrs[0])
}

func (f *Function) checkCount(lay *layout, n int) error {
	if n != len(lay.params) {
		return fmt.Errorf("%s: %d arguments for %d parameters (%s): %w", f, n, len(lay.params), lay.describe(), ErrArgs)
	}
	return nil
}

func (lay *layout) describe() string {
	s := ""
	for i, p := range lay.params {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%d bytes", p.size)
	}
	if s == "" {
		return "none"
	}
	return s
}

// put checks v against parameter i and stores it in the block at base. It
// writes nothing when the check fails.
//
// put calls no method through an interface: types are recognised by a type
// switch, or else by their reflect.Type (see kindOf), and the only methods
// it calls are those of *memory.Buffer, statically, so that the compiler
// sees everything done with v. Only the contents of what v holds (a
// buffer's error and context, for the error messages) flow out of put, never
// v's data word itself: a scalar boxed by the caller stays on the caller's
// stack, and a launch allocates nothing. TestArgsDoNotEscape checks this.
func (f *Function) put(lay *layout, i int, v any, base unsafe.Pointer) error {
	p := lay.params[i]
	dst := unsafe.Add(base, p.offset)
	switch x := v.(type) {
	case bool:
		var b uint8
		if x {
			b = 1
		}
		return putScalar(f, lay, i, dst, v, clsBool, b)
	case int8:
		return putScalar(f, lay, i, dst, v, clsSigned, x)
	case uint8:
		return putScalar(f, lay, i, dst, v, clsUnsigned, x)
	case int16:
		return putScalar(f, lay, i, dst, v, clsSigned, x)
	case uint16:
		return putScalar(f, lay, i, dst, v, clsUnsigned, x)
	case int32:
		return putScalar(f, lay, i, dst, v, clsSigned, x)
	case uint32:
		return putScalar(f, lay, i, dst, v, clsUnsigned, x)
	case int64:
		return putScalar(f, lay, i, dst, v, clsSigned, x)
	case uint64:
		return putScalar(f, lay, i, dst, v, clsUnsigned, x)
	case int:
		return putScalar(f, lay, i, dst, v, clsSigned, x)
	case uint:
		return putScalar(f, lay, i, dst, v, clsUnsigned, x)
	case uintptr:
		return putScalar(f, lay, i, dst, v, clsUintptr, x)
	case float32:
		return putScalar(f, lay, i, dst, v, clsFloat, x)
	case float64:
		return putScalar(f, lay, i, dst, v, clsFloat, x)
	case complex64:
		return putScalar(f, lay, i, dst, v, clsComplex, x)
	case complex128:
		return putScalar(f, lay, i, dst, v, clsComplex, x)
	case nil:
		return f.argErr(lay, i, "is nil; pass uintptr(0) for a NULL pointer")
	case unsafe.Pointer:
		return f.argErr(lay, i, "is an unsafe.Pointer, which is not a device address; convert a device address to uintptr")
	// Buffers of the common element types, without reflection; buffers of
	// other types are found by kindOf.
	case *memory.Buffer[float32]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[float64]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[int32]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[uint32]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[int64]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[uint64]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[int8]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[uint8]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[int16]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[uint16]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[int]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[uint]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[complex64]:
		return putBuffer(f, lay, i, dst, v, x)
	case *memory.Buffer[complex128]:
		return putBuffer(f, lay, i, dst, v, x)
	}
	t := reflect.TypeOf(v)
	k := kindOf(t)
	switch k.kind {
	case argBuffer:
		return putBuffer(f, lay, i, dst, v, bufferOf(v))
	case argPlain:
		if p.typ != "" && (k.size != p.size || !p.accepts(k.class, k.align)) {
			return f.typeErr(lay, i, t)
		}
		if k.size != p.size {
			return f.sizeErr(lay, i, t)
		}
		copy(unsafe.Slice((*byte)(dst), k.size), valueBytes(&v, k.size))
		return nil
	}
	return f.argErr(lay, i, fmt.Sprintf("is %s, %s", withArticle(t.String()), k.why))
}

// putScalar checks the scalar argument i, x of class c (which v holds),
// against its parameter, and stores it at dst.
func putScalar[T any](f *Function, lay *layout, i int, dst unsafe.Pointer, v any, c argClass, x T) error {
	p := &lay.params[i]
	size := int(unsafe.Sizeof(x))
	if p.typ != "" && (size != p.size || !p.accepts(c, int(unsafe.Alignof(x)))) {
		return f.typeErr(lay, i, reflect.TypeOf(v))
	}
	if !store(dst, p.size, x) {
		return f.sizeErr(lay, i, reflect.TypeOf(v))
	}
	return nil
}

// sizeErr is the error of argument i, of Go type t, whose size is not its
// parameter's, where only the sizes are known.
func (f *Function) sizeErr(lay *layout, i int, t reflect.Type) error {
	return f.argErr(lay, i, fmt.Sprintf("is %s of %d bytes, but the parameter takes %d bytes", withArticle(t.String()), t.Size(), lay.params[i].size))
}

// store writes v at dst when its size is want.
func store[T any](dst unsafe.Pointer, want int, v T) bool {
	if int(unsafe.Sizeof(v)) != want {
		return false
	}
	*(*T)(dst) = v
	return true
}

// putBuffer checks the *memory.Buffer argument i, b (which v holds, as a
// Buffer of another element type for a bufferOf), and stores its device
// address at dst. The checks are the Buffer's own methods, called
// statically.
func putBuffer[T any](f *Function, lay *layout, i int, dst unsafe.Pointer, v any, b *memory.Buffer[T]) error {
	if p := &lay.params[i]; p.typ != "" && (p.size != 8 || !p.accepts(clsBuffer, 8)) {
		return f.typeErr(lay, i, reflect.TypeOf(v))
	}
	if b == nil {
		return f.argErr(lay, i, fmt.Sprintf("is a nil %s", reflect.TypeOf(v)))
	}
	if c := lay.params[i].c; c != nil && c.refuses(reflect.TypeOf(v)) {
		return f.argErr(lay, i, fmt.Sprintf("is %s, but the C parameter is %s: pass %s (or a uintptr, unchecked)", withArticle(reflect.TypeOf(v).String()), c.decl, withArticle(c.bufs[0].String())))
	}
	if b.Closed() {
		return fmt.Errorf("%w: %w", f.argErr(lay, i, fmt.Sprintf("is a closed %s", reflect.TypeOf(v))), driver.ErrClosed)
	}
	ptr := b.Ptr() // 0 for an empty buffer, which holds no memory
	if err := f.checkContext(lay, i, reflect.TypeOf(v), b.Context()); err != nil {
		return err
	}
	if !store(dst, lay.params[i].size, ptr) {
		return f.argErr(lay, i, fmt.Sprintf("is a %s, a device pointer of 8 bytes, but the parameter takes %d bytes", reflect.TypeOf(v), lay.params[i].size))
	}
	return nil
}

func (f *Function) checkContext(lay *layout, i int, t reflect.Type, c *driver.Context) error {
	if c == nil {
		return nil
	}
	want := f.m.ctx
	if c.Handle() == want.Handle() || c.Device() == want.Device() {
		return nil
	}
	return fmt.Errorf("%w: %w", f.argErr(lay, i, fmt.Sprintf("is a %s of %s, not of the kernel's %s", t, c, want)), driver.ErrWrongContext)
}

func (f *Function) argErr(lay *layout, i int, what string) error {
	p := lay.params[i]
	if p.c != nil {
		return fmt.Errorf("%s: argument %d (%s) %s (parameter %d: %d bytes at offset %d, from %s): %w",
			f, i, p.label(), what, i, p.size, p.offset, lay.src, ErrArgs)
	}
	return fmt.Errorf("%s: argument %d %s (parameter %d: %d bytes at offset %d, from %s): %w",
		f, i, what, i, p.size, p.offset, lay.src, ErrArgs)
}

// bufferOf returns the *memory.Buffer[T] that v holds (kindOf(v's type) is
// argBuffer) as a *memory.Buffer[byte]. The fields of a Buffer do not depend
// on its element type, which kindOf checks for each type, so every
// Buffer[T] has the layout of Buffer[byte] (the conversion is valid by rule
// 1 of unsafe.Pointer), and the Buffer[byte] methods that read no T (Ptr,
// Err, Context) compute for it what its own would. They are called
// statically: the compiler sees what they do with the buffer.
func bufferOf(v any) *memory.Buffer[byte] {
	return (*memory.Buffer[byte])(reflect.ValueOf(v).UnsafePointer())
}

// holdOf returns the hold of the memory of the buffer v holds (kindOf(v's
// type) is argBuffer), read through bufferOf's pointer: a memory.Buffer
// starts with its core.HoldLink, which classify checks with the fields
// bufferOf relies on (holdFirst), so the conversion is valid by rule 1 of
// unsafe.Pointer. It is a non-generic read, which lets no argument escape
// (core.HoldOf's generic call would: TestArgsDoNotEscape).
func holdOf(v any) *core.Hold {
	return core.LinkedHold((*core.HoldLink)(unsafe.Pointer(bufferOf(v))))
}

// valueBytes returns the n bytes of the value v holds, of a plain type (see
// plain). A plain type holds no pointer, so an interface holds it
// indirectly: its data word points to the value (as reflect's unpackEface
// reads it).
func valueBytes(v *any, n int) []byte {
	data := (*[2]unsafe.Pointer)(unsafe.Pointer(v))[1]
	return unsafe.Slice((*byte)(data), n)
}

// argKind is what a type not handled by put's type switch is as an argument.
type argKind uint8

const (
	argRefused argKind = iota // cannot be an argument: why says why
	argBuffer                 // a *memory.Buffer[T]: a device pointer
	argPlain                  // a struct or array of numbers, by value
)

// argType is what kindOf knows of a type.
type argType struct {
	kind  argKind
	size  int      // argPlain: the value's size
	align int      // argPlain: the value's alignment
	class argClass // argPlain, argBuffer: what it is, for the type checks
	why   string   // argRefused: "which ..." (follows "is a T, ")
}

// argTypes caches kindOf's answers.
var argTypes sync.Map // reflect.Type -> *argType

var (
	bufferType = reflect.TypeFor[memory.Buffer[byte]]()
	// holdFirst says that a memory.Buffer starts with its core.HoldLink,
	// as holdOf reads it.
	holdFirst = func() bool {
		f := bufferType.Field(0)
		return f.Anonymous && f.Offset == 0 && f.Type == reflect.TypeFor[core.HoldLink]()
	}()
	ptrMethod = reflect.TypeFor[interface{ Ptr() uintptr }]()
)

// kindOf says how a value of type t is passed: reflection once per type,
// then a cache.
func kindOf(t reflect.Type) *argType {
	if k, ok := argTypes.Load(t); ok {
		return k.(*argType)
	}
	k := classify(t)
	argTypes.Store(t, k)
	return k
}

func classify(t reflect.Type) *argType {
	if isBuffer(t) {
		if !sameFields(t.Elem(), bufferType) || !holdFirst {
			// A change to memory.Buffer broke what bufferOf and holdOf rely on.
			return &argType{why: fmt.Sprintf("which this package cannot read: the fields of %s differ from those of %s (a bug)", t.Elem(), bufferType)}
		}
		return &argType{kind: argBuffer, size: 8, align: 8, class: clsBuffer}
	}
	if t.Implements(ptrMethod) {
		return &argType{why: "which is not a *memory.Buffer: only *memory.Buffer values pass as device pointers, and a launch calls no other type's Ptr method; pass uintptr(x.Ptr()) for another device address"}
	}
	if err := plain(t); err != nil {
		return &argType{why: fmt.Sprintf("which cannot be a kernel argument: %v", err)}
	}
	return &argType{kind: argPlain, size: int(t.Size()), align: t.Align(), class: classOf(t)}
}

// isBuffer reports whether t is a *memory.Buffer[T], for any T.
func isBuffer(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer {
		return false
	}
	e := t.Elem()
	return e.Kind() == reflect.Struct && e.PkgPath() == bufferType.PkgPath() && strings.HasPrefix(e.Name(), "Buffer[")
}

// sameFields reports whether structs a and b have the same fields (names,
// types, offsets) and size: the same layout.
func sameFields(a, b reflect.Type) bool {
	if a.Size() != b.Size() || a.Align() != b.Align() || a.NumField() != b.NumField() {
		return false
	}
	for i := range a.NumField() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || fa.Type != fb.Type || fa.Offset != fb.Offset {
			return false
		}
	}
	return true
}

// plain returns nil for a type that can be passed by value: a number, a
// bool, or a struct or array of them.
func plain(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return nil
	case reflect.Array:
		if err := plain(t.Elem()); err != nil {
			return fmt.Errorf("element: %w", err)
		}
		return nil
	case reflect.Struct:
		if t.Size() == 0 {
			return fmt.Errorf("%s is empty", t)
		}
		for i := 0; i < t.NumField(); i++ {
			if err := plain(t.Field(i).Type); err != nil {
				return fmt.Errorf("field %s: %w", t.Field(i).Name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("%s holds a %s; only numbers, bools, and structs and arrays of them can be passed by value", t, t.Kind())
}
