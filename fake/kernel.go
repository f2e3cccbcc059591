package fake

import (
	"fmt"
	"github.com/nocgo/cuda/fake/internal/race"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake/internal/cpp"
	"github.com/nocgo/cuda/fake/internal/ptxexec"
)

// Ptr is a device pointer as a kernel body receives it (a CUdeviceptr, 8
// bytes). Read and write through it with Load and Store.
type Ptr uintptr

// Dim3 is a CUDA dim3: block and grid coordinates and sizes.
type Dim3 struct{ X, Y, Z int }

// String returns "(x, y, z)".
func (d Dim3) String() string { return fmt.Sprintf("(%d, %d, %d)", d.X, d.Y, d.Z) }

// Thread is what a kernel body knows about the thread running it: the
// built-in variables blockIdx, blockDim, threadIdx and gridDim. The fake
// calls a body once per thread of the launch grid, one thread at a time
// (blocks in z, y, x order, then the block's threads in z, y, x order), so
// bodies need no synchronisation among themselves.
type Thread struct {
	BlockIdx, BlockDim, ThreadIdx, GridDim Dim3

	l *launchState
}

// X returns the thread's global x index, blockIdx.x*blockDim.x+threadIdx.x.
func (t Thread) X() int { return t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X }

// Y returns the thread's global y index.
func (t Thread) Y() int { return t.BlockIdx.Y*t.BlockDim.Y + t.ThreadIdx.Y }

// Z returns the thread's global z index.
func (t Thread) Z() int { return t.BlockIdx.Z*t.BlockDim.Z + t.ThreadIdx.Z }

// Scalar is the element types Load and Store move.
type Scalar interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~uintptr
}

// launchState is shared by the threads of one running launch.
type launchState struct {
	b      *fakeBackend
	fault  error          // first memory fault; the launch fails with it
	detail error          // what the fault was, where (body_fault.go)
	race   *race.Recorder // the race detector's record of its accesses (race.go)
}

// memFault aborts a thread; the launch runner recovers it.
type memFault struct{ err error }

// access returns the bytes of element i of size bytes at p, or aborts the
// launch with CUDA_ERROR_ILLEGAL_ADDRESS (out of bounds) or
// CUDA_ERROR_MISALIGNED_ADDRESS.
func (t Thread) access(p Ptr, i int, size uintptr, kind race.AccessKind) []byte {
	if t.l == nil {
		return nil // not in a launch: Load returns zero, Store does nothing
	}
	addr := uintptr(p) + uintptr(i)*size
	var err error
	switch {
	case i < 0 || uintptr(i) > (^uintptr(0)-uintptr(p))/size:
		err = driver.ErrIllegalAddress
	case addr%size != 0:
		err = driver.Result(716) // CUDA_ERROR_MISALIGNED_ADDRESS
	}
	var buf []byte
	if err == nil {
		buf, err = t.l.b.span(addr, size)
		if err != nil {
			err = driver.ErrIllegalAddress
		}
	}
	if err != nil {
		if t.l.fault == nil {
			t.l.fault = err
			t.l.detail = t.accessFault(p, i, size, kind, err)
		}
		panic(memFault{err})
	}
	t.l.race.Add(addr, size, kind, 0, "", [3]uint32{uint32(t.BlockIdx.X), uint32(t.BlockIdx.Y), uint32(t.BlockIdx.Z)}, [3]uint32{uint32(t.ThreadIdx.X), uint32(t.ThreadIdx.Y), uint32(t.ThreadIdx.Z)})
	return buf
}

// Load returns element i of type T at device pointer p (p[i] in CUDA C).
// An access outside every allocation fails the launch with
// CUDA_ERROR_ILLEGAL_ADDRESS and skips the rest of its threads.
func Load[T Scalar](t Thread, p Ptr, i int) T {
	var v T
	if buf := t.access(p, i, unsafe.Sizeof(v), race.Read); buf != nil {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), len(buf)), buf)
	}
	return v
}

// Store sets element i of type T at device pointer p (p[i] = v in CUDA C),
// with the bounds checks of Load.
func Store[T Scalar](t Thread, p Ptr, i int, v T) {
	if buf := t.access(p, i, unsafe.Sizeof(v), race.Write); buf != nil {
		copy(buf, unsafe.Slice((*byte)(unsafe.Pointer(&v)), len(buf)))
	}
}

// kernel is a registered Go body and its parameter layout.
type kernel struct {
	name    string
	lowered string // the PTX entry name: name, mangled if it is an expression
	fn      reflect.Value
	params  []param
	size    uintptr // bytes of the packed parameters
	err     error   // the body has the wrong shape
	// interp runs an entry of PTX that has no Go body (fn is invalid).
	interp *ptxexec.Kernel
}

// param is one kernel parameter, laid out with C alignment.
type param struct {
	typ       reflect.Type
	off, size uintptr
	align     uintptr
	ptx       string // PTX type (".u64") for scalars, "" for aggregates
}

var threadType = reflect.TypeOf(Thread{})

func newKernel(name string, body any) *kernel {
	k := &kernel{name: name, lowered: lowerName(name)}
	fn := reflect.ValueOf(body)
	if body == nil || fn.Kind() != reflect.Func {
		k.err = fmt.Errorf("fake: kernel %q: body is %T, not a func", name, body)
		return k
	}
	ft := fn.Type()
	if ft.NumIn() < 1 || ft.In(0) != threadType || ft.IsVariadic() || ft.NumOut() != 0 {
		k.err = fmt.Errorf("fake: kernel %q: body %s must be func(fake.Thread, params...) with no results", name, ft)
		return k
	}
	var off uintptr
	for i := 1; i < ft.NumIn(); i++ {
		t := ft.In(i)
		if err := checkParamType(t); err != nil {
			k.err = fmt.Errorf("fake: kernel %q: parameter %d (%s): %v", name, i-1, t, err)
			return k
		}
		a := uintptr(t.Align())
		off = (off + a - 1) &^ (a - 1)
		k.params = append(k.params, param{typ: t, off: off, size: t.Size(), align: a, ptx: ptxType(t)})
		off += t.Size()
	}
	k.size = off
	k.fn = fn
	return k
}

func checkParamType(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Uintptr, reflect.Float32, reflect.Float64:
		return nil
	case reflect.Int, reflect.Uint:
		return fmt.Errorf("int and uint have no fixed C size: use int32/int64 or uint32/uint64")
	case reflect.Array:
		return checkParamType(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if err := checkParamType(t.Field(i).Type); err != nil {
				return fmt.Errorf("field %s: %v", t.Field(i).Name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("unsupported kind %s: use fake.Ptr, fixed-size numbers, or structs of them", t.Kind())
}

// ptxType is the PTX type of a Go body's parameter as NVRTC declares the C
// type: it writes signed integers as .u too (a C int is .u32, a char .u8,
// a long long .u64), so launches accept the same Go integers as on a GPU.
func ptxType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int8, reflect.Uint8:
		return ".u8"
	case reflect.Int16, reflect.Uint16:
		return ".u16"
	case reflect.Int32, reflect.Uint32:
		return ".u32"
	case reflect.Int64, reflect.Uint64, reflect.Uintptr:
		return ".u64"
	case reflect.Float32:
		return ".f32"
	case reflect.Float64:
		return ".f64"
	}
	return ""
}

// ptxParams writes the .param list of an entry.
func (k *kernel) ptxParams(name string) string {
	s := ""
	for i, p := range k.params {
		if i > 0 {
			s += ",\n"
		}
		if p.ptx != "" {
			s += fmt.Sprintf("\t.param %s %s_param_%d", p.ptx, name, i)
		} else {
			s += fmt.Sprintf("\t.param .align %d .b8 %s_param_%d[%d]", p.align, name, i, p.size)
		}
	}
	return s
}

// run calls the body once per thread of the grid with the packed
// arguments. It returns the launch's error: CUDA_ERROR_ILLEGAL_ADDRESS (or
// MISALIGNED_ADDRESS) for a bad access, CUDA_ERROR_LAUNCH_FAILED for a
// panic in the body.
func (k *kernel) run(b *fakeBackend, grid, block [3]uint32, sharedMem uint32, sms, resident int, args []byte) error {
	return k.runLaunch(b, grid, block, sharedMem, sms, resident, args, false)
}

// runLaunch is run; cooperative (a cooperative launch) makes the blocks of
// an interpreted kernel co-resident, so that grid.sync works (see
// ptxexec.Launch.Cooperative). Go bodies run as in any launch. resident
// is how many blocks the device holds at once (residentBlocks).
func (k *kernel) runLaunch(b *fakeBackend, grid, block [3]uint32, sharedMem uint32, sms, resident int, args []byte, cooperative bool) error {
	if k.interp != nil {
		return b.runPTX(k.interp, grid, block, sharedMem, sms, resident, args, cooperative)
	}
	vals := make([]reflect.Value, 1+len(k.params))
	for i, p := range k.params {
		v := reflect.New(p.typ)
		copy(unsafe.Slice((*byte)(v.UnsafePointer()), p.size), args[p.off:p.off+p.size])
		vals[i+1] = v.Elem()
	}
	l := &launchState{b: b, race: b.race.Recorder(k.name)}
	defer l.race.Flush()
	t := Thread{
		BlockDim: Dim3{int(block[0]), int(block[1]), int(block[2])},
		GridDim:  Dim3{int(grid[0]), int(grid[1]), int(grid[2])},
		l:        l,
	}
	for bz := 0; bz < t.GridDim.Z; bz++ {
		for by := 0; by < t.GridDim.Y; by++ {
			for bx := 0; bx < t.GridDim.X; bx++ {
				t.BlockIdx = Dim3{bx, by, bz}
				for tz := 0; tz < t.BlockDim.Z; tz++ {
					for ty := 0; ty < t.BlockDim.Y; ty++ {
						for tx := 0; tx < t.BlockDim.X; tx++ {
							t.ThreadIdx = Dim3{tx, ty, tz}
							vals[0] = reflect.ValueOf(t)
							if err := callThread(k.fn, vals, l); err != nil {
								return b.bodyFault(k, err, l.detail)
							}
						}
					}
				}
			}
		}
	}
	return nil
}

func callThread(fn reflect.Value, vals []reflect.Value, l *launchState) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(memFault); ok {
				err = f.err
			} else {
				err = driver.ErrLaunchFailed
				l.detail = bodyPanic(vals[0].Interface().(Thread), r)
			}
		}
		if err == nil && l.fault != nil { // the body swallowed the fault
			err = l.fault
		}
	}()
	fn.Call(vals)
	return nil
}

// lowerName turns a name expression into the PTX entry name the fake uses:
// plain identifiers stay; "scale<float>" becomes "_Z5scaleI5floatE" (an
// identifier in the style of C++ mangling, not the real mangling).
func lowerName(expr string) string {
	name := strings.TrimPrefix(strings.TrimSpace(expr), "&")
	if cpp.IsIdent(name) {
		return name
	}
	var sb strings.Builder
	sb.WriteString("_Z")
	base, rest, tmpl := strings.Cut(name, "<")
	writeID(&sb, base)
	if tmpl {
		rest = strings.TrimSuffix(strings.TrimSpace(rest), ">")
		sb.WriteByte('I')
		depth, start := 0, 0
		for i := 0; i <= len(rest); i++ {
			if i == len(rest) || rest[i] == ',' && depth == 0 {
				writeID(&sb, rest[start:i])
				start = i + 1
				continue
			}
			switch rest[i] {
			case '<', '(':
				depth++
			case '>', ')':
				depth--
			}
		}
		sb.WriteByte('E')
	}
	return sb.String()
}

// writeID writes s as a length-prefixed identifier.
func writeID(sb *strings.Builder, s string) {
	id := []byte(strings.TrimSpace(s))
	for i, c := range id {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			id[i] = '_'
		}
	}
	sb.WriteString(strconv.Itoa(len(id)))
	sb.Write(id)
}

// kernelForEntryLocked finds the body of a PTX entry: by name, or by the
// lowered name of a registered name expression.
func (b *fakeBackend) kernelForEntryLocked(entry string) *kernel {
	if k := b.kernels[entry]; k != nil {
		return k
	}
	for _, k := range b.kernels {
		if k.lowered == entry {
			return k
		}
	}
	return nil
}
