package module

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"unsafe"

	"github.com/nocgo/cuda/driver"
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

// takeBlock returns a block for a launch of f.
func (f *Function) takeBlock() *block {
	if b := f.spare.Swap(nil); b != nil {
		return b
	}
	return getBlock(f.size, len(f.params))
}

// giveBlock returns a block taken by takeBlock.
func (f *Function) giveBlock(b *block) {
	if len(b.buf)*8 >= f.size && len(b.ptrs) >= len(f.params) && f.spare.CompareAndSwap(nil, b) {
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
	blk *block
	err error // why Function.Args could not prepare them
}

// Args checks args against the kernel's parameters (see Kernel arguments
// in the package documentation) and lays them out for LaunchArgs. A failed
// check is kept in the result: Err returns it, and so do LaunchArgs and Set,
// so nothing is launched with arguments that did not check.
func (f *Function) Args(args ...any) *Args {
	if err := f.check(); err != nil {
		return &Args{f: f, err: err}
	}
	if err := f.checkCount(len(args)); err != nil {
		return &Args{f: f, err: err}
	}
	blk := newBlock(f.size, len(f.params))
	base := blk.base()
	for i := range args {
		if err := f.put(i, &args[i], base); err != nil {
			return &Args{f: f, err: err}
		}
		blk.ptrs[i] = unsafe.Add(base, f.params[i].offset)
	}
	return &Args{f: f, blk: blk}
}

// Err returns why the arguments could not be prepared (a count, type or
// size that does not match the kernel, wrapping ErrArgs; a closed function),
// or nil.
func (a *Args) Err() error {
	if a == nil {
		return nil
	}
	return a.err
}

// Len returns the number of arguments (0 for a nil Args).
func (a *Args) Len() int {
	if a == nil || a.f == nil || a.blk == nil {
		return 0
	}
	return len(a.f.params)
}

// Function returns the kernel the arguments are for.
func (a *Args) Function() *Function {
	if a == nil {
		return nil
	}
	return a.f
}

// Set replaces argument i by v, with the checks of a launch. On error the
// argument keeps its value. For scalars and device pointers it does not
// allocate.
func (a *Args) Set(i int, v any) error {
	if a == nil || a.f == nil {
		return fmt.Errorf("module: Args.Set: nil Args: %w", driver.ErrInvalidValue)
	}
	if a.err != nil {
		return a.err
	}
	if i < 0 || i >= len(a.f.params) {
		return fmt.Errorf("module: %s: Args.Set(%d): the kernel has %d parameters: %w", a.f, i, len(a.f.params), ErrArgs)
	}
	return a.f.put(i, &v, a.blk.base())
}

// kernelParams returns the void** for cuLaunchKernel: nil for a kernel
// without parameters.
func (a *Args) kernelParams() unsafe.Pointer {
	if len(a.f.params) == 0 {
		return nil
	}
	return unsafe.Pointer(&a.blk.ptrs[0])
}

func (f *Function) checkCount(n int) error {
	if f.params == nil {
		return fmt.Errorf("module: launch %s: %w", f, f.layoutErr)
	}
	if n != len(f.params) {
		return fmt.Errorf("module: launch %s: %d arguments for %d parameters (%s): %w", f, n, len(f.params), f.describeParams(), ErrArgs)
	}
	return nil
}

func (f *Function) describeParams() string {
	s := ""
	for i, p := range f.params {
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

// devicePointer is a device memory handle such as *memory.Buffer[T].
type devicePointer interface{ Ptr() uintptr }

// contextual is a handle that knows its context.
type contextual interface{ Context() *driver.Context }

// fallible is a handle that may carry the error of its making, such as a
// *memory.Buffer view from an out-of-range Slice.
type fallible interface{ Err() error }

// put checks *v against parameter i and stores it in the block at base. It
// writes nothing when the check fails. It reads v through a pointer whose
// escape is hidden from the compiler (see hide), so that callers box scalars
// on their stack: a launch then allocates nothing.
func (f *Function) put(i int, arg *any, base unsafe.Pointer) error {
	v := hide(arg)
	p := f.params[i]
	dst := unsafe.Add(base, p.offset)
	ok := true
	switch x := (*v).(type) {
	case bool:
		var b uint8
		if x {
			b = 1
		}
		ok = store(dst, p.size, b)
	case int8:
		ok = store(dst, p.size, x)
	case uint8:
		ok = store(dst, p.size, x)
	case int16:
		ok = store(dst, p.size, x)
	case uint16:
		ok = store(dst, p.size, x)
	case int32:
		ok = store(dst, p.size, x)
	case uint32:
		ok = store(dst, p.size, x)
	case int64:
		ok = store(dst, p.size, x)
	case uint64:
		ok = store(dst, p.size, x)
	case int:
		ok = store(dst, p.size, x)
	case uint:
		ok = store(dst, p.size, x)
	case uintptr:
		ok = store(dst, p.size, x)
	case float32:
		ok = store(dst, p.size, x)
	case float64:
		ok = store(dst, p.size, x)
	case complex64:
		ok = store(dst, p.size, x)
	case complex128:
		ok = store(dst, p.size, x)
	case nil:
		return f.argErr(i, "is nil; pass uintptr(0) for a NULL pointer")
	case unsafe.Pointer:
		return f.argErr(i, "is an unsafe.Pointer, which is not a device address; convert a device address to uintptr")
	case devicePointer:
		if isNilPointer(v) {
			return f.argErr(i, fmt.Sprintf("is a nil %s", typeName(v)))
		}
		if e, ok := (*v).(fallible); ok {
			if err := e.Err(); err != nil {
				return fmt.Errorf("%w: %w", f.argErr(i, fmt.Sprintf("is a broken %s: %v", typeName(v), err)), err)
			}
		}
		ptr := x.Ptr()
		if ptr == 0 {
			return fmt.Errorf("%w: %w", f.argErr(i, fmt.Sprintf("is a %s with device address 0 (freed?); pass uintptr(0) for a NULL pointer", typeName(v))), ErrClosed)
		}
		if c, ok := (*v).(contextual); ok {
			if err := f.checkContext(i, v, c.Context()); err != nil {
				return err
			}
		}
		ok = store(dst, p.size, ptr)
	default:
		n, err := plainSize(v)
		if err != nil {
			return f.argErr(i, fmt.Sprintf("is a %s, which cannot be a kernel argument: %v", typeName(v), err))
		}
		if n != p.size {
			ok = false
			break
		}
		copy(unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(dataOf(v)), n))
	}
	if !ok {
		return f.argErr(i, fmt.Sprintf("is a %s of %d bytes, but the parameter takes %d bytes", typeName(v), sizeOf(v), p.size))
	}
	return nil
}

// store writes v at dst when its size is want.
func store[T any](dst unsafe.Pointer, want int, v T) bool {
	if int(unsafe.Sizeof(v)) != want {
		return false
	}
	*(*T)(dst) = v
	return true
}

func (f *Function) checkContext(i int, v *any, c *driver.Context) error {
	if c == nil {
		return nil
	}
	want := f.m.ctx
	if c.Handle() == want.Handle() || c.Device() == want.Device() {
		return nil
	}
	return fmt.Errorf("%w: %w", f.argErr(i, fmt.Sprintf("is a %s of %s, not of the kernel's %s", typeName(v), c, want)), ErrWrongContext)
}

func (f *Function) argErr(i int, what string) error {
	p := f.params[i]
	return fmt.Errorf("module: launch %s: argument %d %s (parameter %d: %d bytes at offset %d, from %s): %w",
		f, i, what, i, p.size, p.offset, f.layoutSrc, ErrArgs)
}

// eface is the layout of an empty interface.
type eface struct {
	typ, data unsafe.Pointer
}

// dataOf returns the interface's data word: the value itself for a
// pointer-shaped type, a pointer to the value for any other.
func dataOf(v *any) unsafe.Pointer { return (*eface)(unsafe.Pointer(v)).data }

// isNilPointer reports an interface holding a nil pointer (or another nil
// pointer-shaped value): its data word is nil. Values of other types never
// have a nil data word.
func isNilPointer(v *any) bool { return *v != nil && dataOf(v) == nil }

// hide returns p, hiding from escape analysis that the value it points to
// flows anywhere. The launch paths only read the interface: they copy its
// bytes and call Ptr, Err and Context on device pointers, whose
// implementations must not retain their receiver. Without it, calling those
// methods would make every argument escape, and callers would allocate each
// boxed scalar.
func hide(p *any) *any {
	x := uintptr(unsafe.Pointer(p))
	return *(**any)(unsafe.Pointer(&x))
}

func typeName(v *any) string { return reflect.TypeOf(*v).String() }

func sizeOf(v *any) int { return int(reflect.TypeOf(*v).Size()) }

// plainTypes caches, per struct or array type, nil or why it cannot be an
// argument.
var plainTypes sync.Map // reflect.Type -> error (nil: plain)

// plainSize returns the size of a struct or array value that can be passed
// by value: one whose fields are all numbers, bools, or structs and arrays
// of them.
func plainSize(v *any) (int, error) {
	t := reflect.TypeOf(*v)
	if r, ok := plainTypes.Load(t); ok {
		if r != nil {
			return 0, r.(error)
		}
		return int(t.Size()), nil
	}
	err := plain(t)
	if err != nil {
		plainTypes.Store(t, err)
		return 0, err
	}
	plainTypes.Store(t, nil)
	return int(t.Size()), nil
}

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
