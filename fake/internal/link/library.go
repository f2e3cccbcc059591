package link

import (
	"strings"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// Context-independent loading (cuLibrary), as the driver does it with lazy
// loading: cuLibraryLoadData reads the image once and belongs to no
// context; each context gets its own module of it (its own functions, its
// own copy of the globals) the first time something asks for it there
// (cuLibraryGetModule, cuKernelGetFunction, cuLibraryGetGlobal); and
// cuLibraryUnload unloads every context's module at once. A CUkernel
// belongs to no context either: cuKernelGetFunction turns it into the
// CUfunction of the current context's module.

// libraries is the room's libraries and their kernels, by handle.
type libraries struct {
	mu      sync.Mutex // orders instantiations; taken before the core's lock
	libs    map[uintptr]*library
	kernels map[uintptr]*libKernel
}

// library is one loaded cuLibrary: its image as the core read it, and its
// module in each context that has used it.
type library struct {
	h      uintptr
	img    Image
	byName map[string]*libKernel
	inst   map[uintptr]uintptr // context -> the library's module there
}

// libKernel is one CUkernel of a library.
type libKernel struct {
	h    uintptr
	lib  *library
	name string
}

// LibraryLoadData is cuLibraryLoadData: the image (PTX, the fake's CUBIN,
// or a fatbin's PTX, as ModuleLoadData takes them) is read now, and refused
// now when it is no image (ErrInvalidImage), PTX that is not well formed
// (ErrInvalidPTX), or a kernel neither a Go body nor the interpreter can
// run; the checks that depend on the device (its architecture) wait for a
// context to load it into. The image is copied.
func (r *Room) LibraryLoadData(image []byte) (uintptr, error) {
	if err := r.enter(abi.CuLibraryLoadData); err != nil {
		return 0, err
	}
	if len(image) == 0 {
		return 0, driver.ErrInvalidValue
	}
	img, kernels, err := r.core.ReadLibrary(image)
	if err != nil {
		return 0, err
	}
	lib := &library{h: r.core.NewHandle(), img: img, byName: map[string]*libKernel{}, inst: map[uintptr]uintptr{}}
	st := &r.libs
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.libs == nil {
		st.libs, st.kernels = map[uintptr]*library{}, map[uintptr]*libKernel{}
	}
	for _, name := range kernels {
		lk := &libKernel{h: r.core.NewHandle(), lib: lib, name: name}
		lib.byName[name] = lk
		st.kernels[lk.h] = lk
	}
	st.libs[lib.h] = lib
	return lib.h, nil
}

// LibraryUnload is cuLibraryUnload: the library's module in every context
// is unloaded, and its kernels' handles become invalid.
func (r *Room) LibraryUnload(h uintptr) error {
	if err := r.enter(abi.CuLibraryUnload); err != nil {
		return err
	}
	st := &r.libs
	st.mu.Lock()
	defer st.mu.Unlock()
	lib := st.libs[h]
	if lib == nil {
		return driver.ErrInvalidHandle
	}
	r.core.Unload(lib.inst)
	for _, lk := range lib.byName {
		delete(st.kernels, lk.h)
	}
	delete(st.libs, h)
	return nil
}

// LibraryGetKernel is cuLibraryGetKernel: ErrNotFound for a name the
// library lacks; the same name gives the same handle.
func (r *Room) LibraryGetKernel(h uintptr, name string) (uintptr, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return 0, driver.ErrInvalidValue // no C string: the real backend never calls the driver
	}
	if err := r.enter(abi.CuLibraryGetKernel); err != nil {
		return 0, err
	}
	st := &r.libs
	st.mu.Lock()
	defer st.mu.Unlock()
	lib := st.libs[h]
	if lib == nil {
		return 0, driver.ErrInvalidHandle
	}
	lk := lib.byName[name]
	if lk == nil {
		return 0, driver.ErrNotFound
	}
	return lk.h, nil
}

// instanceLocked returns the library's module in context at (0: the
// calling thread's current context), loading it there first if it is not
// (yet, or any more: a primary context reset unloads its modules). The
// room's lock is held.
func (r *Room) instanceLocked(lib *library, at uintptr) (uintptr, error) {
	ctx, mod, err := r.core.Instance(lib.img, at, func(ctx uintptr) uintptr { return lib.inst[ctx] })
	if err != nil {
		return 0, err
	}
	lib.inst[ctx] = mod
	return mod, nil
}

// LibraryGetModule is cuLibraryGetModule: the library's module in the
// current context.
func (r *Room) LibraryGetModule(h uintptr) (uintptr, error) {
	if err := r.enter(abi.CuLibraryGetModule); err != nil {
		return 0, err
	}
	st := &r.libs
	st.mu.Lock()
	defer st.mu.Unlock()
	lib := st.libs[h]
	if lib == nil {
		return 0, driver.ErrInvalidHandle
	}
	return r.instanceLocked(lib, 0)
}

// LibraryGetGlobal is cuLibraryGetGlobal: a device variable of the
// library's module in the current context (each context has its own).
func (r *Room) LibraryGetGlobal(h uintptr, name string) (ptr, size uintptr, err error) {
	if strings.IndexByte(name, 0) >= 0 {
		return 0, 0, driver.ErrInvalidValue
	}
	if err := r.enter(abi.CuLibraryGetGlobal); err != nil {
		return 0, 0, err
	}
	st := &r.libs
	st.mu.Lock()
	defer st.mu.Unlock()
	lib := st.libs[h]
	if lib == nil {
		return 0, 0, driver.ErrInvalidHandle
	}
	mod, err := r.instanceLocked(lib, 0)
	if err != nil {
		return 0, 0, err
	}
	return r.core.Global(mod, name)
}

// KernelGetFunction is cuKernelGetFunction: the kernel's function in the
// current context, whose module is loaded there first if need be.
func (r *Room) KernelGetFunction(h uintptr) (uintptr, error) {
	if err := r.enter(abi.CuKernelGetFunction); err != nil {
		return 0, err
	}
	st := &r.libs
	st.mu.Lock()
	defer st.mu.Unlock()
	lk := st.kernels[h]
	if lk == nil {
		return 0, driver.ErrInvalidHandle
	}
	mod, err := r.instanceLocked(lk.lib, 0)
	if err != nil {
		return 0, err
	}
	return r.core.Function(mod, lk.name)
}

// KernelFunctionIn is the function of CUkernel h in context ctx (0: the
// current context), whose module is loaded there first if need be, as a
// graph's kernel node given by its CUkernel (CUDA_KERNEL_NODE_PARAMS_v2's
// kern) resolves it: ErrInvalidValue for a handle that is no live kernel
// (unknown, or of an unloaded library). It is no API call of its own:
// the caller has entered its own.
func (r *Room) KernelFunctionIn(h, ctx uintptr) (uintptr, error) {
	st := &r.libs
	st.mu.Lock()
	defer st.mu.Unlock()
	lk := st.kernels[h]
	if lk == nil {
		return 0, driver.ErrInvalidValue
	}
	mod, err := r.instanceLocked(lk.lib, ctx)
	if err != nil {
		return 0, err
	}
	return r.core.Function(mod, lk.name)
}

// KernelGetAttribute is cuKernelGetAttribute: the attributes
// FuncGetAttribute reports for a function of the kernel that nobody has
// changed (see there), on device dev, which must exist.
func (r *Room) KernelGetAttribute(attr backend.FunctionAttribute, h uintptr, dev int) (int, error) {
	if err := r.enter(abi.CuKernelGetAttribute); err != nil {
		return 0, err
	}
	if err := r.core.CheckDevice(dev); err != nil {
		return 0, err
	}
	st := &r.libs
	st.mu.Lock()
	lk := st.kernels[h]
	st.mu.Unlock()
	if lk == nil {
		return 0, driver.ErrInvalidHandle
	}
	return r.core.KernelAttribute(lk.lib.img, lk.name, attr)
}

var _ backend.Libraries = (*Room)(nil)
