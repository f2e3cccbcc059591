package worker

import (
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"runtime/debug"
	"sync"
	"unsafe"
)

// MaxValueSize is the largest argument or result type a function may have,
// in bytes: calls travel in fixed frames sized for the largest registered.
const MaxValueSize = 64 << 10

// Func is a function registered with Register: call it with Call. Its
// arguments and result are copied to and from the worker byte for byte
// (their strings and []byte after them), so they are plain data; device memory travels as Buffer fields of the
// argument. A Func is safe for concurrent use.
type Func[A, R any] struct {
	name                 string
	id                   int
	fn                   func(*Env, A) (R, error)
	refs                 []uintptr   // offsets of the Buffer fields of A
	argFields, resFields []byteField // the strings and []byte of A and R
	err                  error       // why the registration is refused
}

// entry is what the worker runs for one registered function.
type entry interface {
	funcName() string
	sizes() (arg, res, refs int)
	frameSizes() (arg, res int)
	run(env *Env, args, res []byte) (n int, panicText string, err error)
}

// registry lists the registered functions in the order of registration;
// the worker, the same binary, registers the same ones in the same order
// (package-level variables are initialised before main), and the hello
// frame compares the two lists by hash.
var registry struct {
	sync.Mutex
	funcs  []entry
	byName map[string]bool
}

// Register registers fn under name, for calls in workers, and returns the
// handle to call it with. Call it at package level (var f =
// worker.Register(...)), so that the worker, which is this binary started
// again, registers the same functions before Main serves them.
//
// A is the argument and R the result: plain data (numbers, booleans,
// strings, []byte, arrays and structs of them, Buffer fields in A; no
// pointers, other slices, maps, interfaces, channels or functions), at most
// MaxValueSize bytes each, the bytes of their strings and []byte included
// (a call with more fails with driver.ErrInvalidInput, and is not sent);
// they are copied byte for byte, the strings and []byte (copies of them:
// the worker's function owns its argument, the caller its result; an
// empty []byte arrives as nil) after the fixed part, with no allocation
// but that of the strings and []byte received. fn runs
// in the worker with the worker's Env; the error it returns reaches the
// caller as a *CallError carrying its text and the driver.Result it wraps.
//
// Register never panics: a refused registration (an empty or taken name,
// a nil fn, a type that is not plain data) makes every Call of the
// returned Func fail with the reason.
func Register[A, R any](name string, fn func(*Env, A) (R, error)) *Func[A, R] {
	f := &Func[A, R]{name: name, fn: fn, id: -1}
	f.err = f.check()
	if f.err != nil {
		f.err = fmt.Errorf("worker.Register(%q): %w", name, f.err)
		return f
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.byName[name] {
		f.err = fmt.Errorf("worker.Register(%q): the name is taken by another function", name)
		return f
	}
	if registry.byName == nil {
		registry.byName = map[string]bool{}
	}
	registry.byName[name] = true
	f.id = len(registry.funcs)
	registry.funcs = append(registry.funcs, f)
	return f
}

// Name returns the name fn was registered under.
func (f *Func[A, R]) Name() string {
	if f == nil {
		return ""
	}
	return f.name
}

func (f *Func[A, R]) check() error {
	if f.name == "" {
		return errors.New("empty name")
	}
	if f.fn == nil {
		return errors.New("nil function")
	}
	at, rt := reflect.TypeFor[A](), reflect.TypeFor[R]()
	if err := plain(at, 0, &f.refs, &f.argFields); err != nil {
		return fmt.Errorf("argument type %v: %w", at, err)
	}
	var resRefs []uintptr
	if err := plain(rt, 0, &resRefs, &f.resFields); err != nil {
		return fmt.Errorf("result type %v: %w", rt, err)
	}
	if len(resRefs) > 0 {
		return fmt.Errorf("result type %v: holds a worker.Buffer; buffers are passed in the argument, and the parent owns them", rt)
	}
	if at.Size() > MaxValueSize || rt.Size() > MaxValueSize {
		return fmt.Errorf("argument (%d bytes) or result (%d bytes) larger than worker.MaxValueSize (%d)", at.Size(), rt.Size(), MaxValueSize)
	}
	return nil
}

var refType = reflect.TypeFor[bufferRef]()

// plain checks that t is plain data and appends the offsets of its Buffer
// fields (at base) to refs.
func plain(t reflect.Type, base uintptr, refs *[]uintptr, fields *[]byteField) error {
	if t == refType {
		*refs = append(*refs, base)
		return nil
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return nil
	case reflect.String:
		*fields = append(*fields, byteField{off: base})
		return nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			*fields = append(*fields, byteField{off: base, slice: true})
			return nil
		}
	case reflect.Array:
		if t.Len() == 0 {
			return nil
		}
		before, fbefore := len(*refs), len(*fields)
		for i := 0; i < t.Len(); i++ {
			if err := plain(t.Elem(), base+uintptr(i)*t.Elem().Size(), refs, fields); err != nil {
				return err
			}
			if i == 0 && len(*refs) == before && len(*fields) == fbefore {
				return nil // no Buffer, string or []byte in the element: no need to walk the others
			}
		}
		return nil
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if err := plain(sf.Type, base+sf.Offset, refs, fields); err != nil {
				return fmt.Errorf("field %s: %w", sf.Name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("%v is not plain data (a %v cannot be copied to another process)", t, t.Kind())
}

func (f *Func[A, R]) funcName() string { return f.name }

func (f *Func[A, R]) sizes() (arg, res, refs int) {
	var a A
	var r R
	return int(unsafe.Sizeof(a)), int(unsafe.Sizeof(r)), len(f.refs)
}

// frameSizes returns the room a call's argument and result take in a
// frame: their sizes, or MaxValueSize for one with strings or []byte.
func (f *Func[A, R]) frameSizes() (arg, res int) {
	arg, res, _ = f.sizes()
	if len(f.argFields) > 0 {
		arg = MaxValueSize
	}
	if len(f.resFields) > 0 {
		res = MaxValueSize
	}
	return arg, res
}

// run is the worker's side of a call: args holds A's encoding; the
// result's goes to res. A panic in fn is recovered and reported.
func (f *Func[A, R]) run(env *Env, args, res []byte) (n int, panicText string, err error) {
	var a A
	if err := decode(unsafe.Pointer(&a), bytesOf(&a), args, f.argFields); err != nil {
		return 0, "", fmt.Errorf("worker: %s: the argument: %w (the binaries differ?)", f.name, err)
	}
	defer func() {
		if p := recover(); p != nil {
			panicText = fmt.Sprintf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	r, err := f.fn(env, a)
	if err != nil {
		return 0, "", err
	}
	rb := bytesOf(&r)
	if vars := varSize(unsafe.Pointer(&r), f.resFields); len(rb)+vars > len(res) {
		return 0, "", fmt.Errorf("worker: %s: %w", f.name, tooLarge("result", len(rb), vars))
	}
	return encode(res, unsafe.Pointer(&r), rb, f.resFields), "", nil
}

// bytesOf returns the memory of *v as bytes.
func bytesOf[T any](v *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))
}

// registryHash identifies the registered functions, in order, with their
// argument and result sizes; parent and worker compare it.
func registryHash() (n int, h uint64) {
	registry.Lock()
	defer registry.Unlock()
	w := fnv.New64a()
	for _, e := range registry.funcs {
		a, r, k := e.sizes()
		fa, fr := e.frameSizes() // tells a string from a [16]byte
		fmt.Fprintf(w, "%s/%d/%d/%d/%d/%d;", e.funcName(), a, r, k, fa, fr)
	}
	return len(registry.funcs), w.Sum64()
}

// lookup returns the registered function id.
func lookup(id uint32) entry {
	registry.Lock()
	defer registry.Unlock()
	if int(id) >= len(registry.funcs) {
		return nil
	}
	return registry.funcs[id]
}

// maxSizes returns the largest argument and result of the registered functions.
func maxSizes() (arg, res int) {
	registry.Lock()
	defer registry.Unlock()
	for _, e := range registry.funcs {
		a, r := e.frameSizes()
		arg, res = max(arg, a), max(res, r)
	}
	return arg, res
}
