package fake

import (
	"bytes"
	"strings"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ptxexec"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/internal/ptx"
)

// Context-independent loading (cuLibrary), as the driver does it with lazy
// loading: cuLibraryLoadData reads the image once and belongs to no
// context; each context gets its own module of it (its own functions, its
// own copy of the globals) the first time something asks for it there
// (cuLibraryGetModule, cuKernelGetFunction, cuLibraryGetGlobal); and
// cuLibraryUnload unloads every context's module at once. A CUkernel
// belongs to no context either: cuKernelGetFunction turns it into the
// CUfunction of the current context's module.

// libraryState is the backend's libraries and their kernels, by handle.
type libraryState struct {
	mu      sync.Mutex // orders instantiations; taken before b.mu
	libs    map[uintptr]*library
	kernels map[uintptr]*libKernel
}

// library is one loaded cuLibrary: its image read once, and its module in
// each context that has used it.
type library struct {
	h       uintptr
	arch    int
	cubin   bool
	mod     *ptx.Module // the image's syntax tree, shared by its modules
	entries []ptxEntry
	byName  map[string]*libKernel
	inst    map[*context]uintptr // the library's module in each context
}

// libKernel is one CUkernel of a library.
type libKernel struct {
	h    uintptr
	lib  *library
	name string
	k    *kernel // what the kernel runs: its attributes before any context
}

// LibraryLoadData is cuLibraryLoadData: the image (PTX, the fake's CUBIN,
// or a fatbin's PTX, as ModuleLoadData takes them) is read now, and refused
// now when it is no image (ErrInvalidImage), PTX that is not well formed
// (ErrInvalidPTX), or a kernel neither a Go body nor the interpreter can
// run; the checks that depend on the device (its architecture) wait for a
// context to load it into. The image is copied.
func (b *fakeBackend) LibraryLoadData(image []byte) (uintptr, error) {
	if err := b.enter(abi.CuLibraryLoadData); err != nil {
		return 0, err
	}
	if len(image) == 0 {
		return 0, driver.ErrInvalidValue
	}
	if bytes.HasPrefix(image, fatbinMagic) {
		if err := checkFatbin(image); err != nil {
			return 0, err
		}
		if image = fatbinPTX(image); image == nil {
			return 0, driver.ErrNoBinaryForGPU
		}
	}
	arch, _, cubin, mod, entries, err := parseImage(bytes.Clone(image))
	if err != nil {
		return 0, err
	}
	prog, progErr := ptxexec.Decode(mod)
	lib := &library{h: newHandle(), arch: arch, cubin: cubin, mod: mod, entries: entries,
		byName: map[string]*libKernel{}, inst: map[*context]uintptr{}}
	b.mu.RLock()
	kernels := make([]*kernel, len(entries))
	for i, e := range entries {
		k := b.kernelForEntryLocked(e.name)
		if k == nil && progErr == nil {
			if x := prog.Kernels[e.name]; x != nil {
				k = ptxKernel(x)
			}
		}
		kernels[i] = k
	}
	b.mu.RUnlock()
	for i, e := range entries {
		if kernels[i] == nil && progErr != nil {
			return 0, b.noteLoadError(progErr)
		}
		if kernels[i] == nil || kernels[i].err != nil || len(kernels[i].params) != len(e.sizes) {
			return 0, driver.ErrInvalidImage
		}
	}
	st := &b.libraries
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.libs == nil {
		st.libs, st.kernels = map[uintptr]*library{}, map[uintptr]*libKernel{}
	}
	for i, e := range entries {
		lk := &libKernel{h: newHandle(), lib: lib, name: e.name, k: kernels[i]}
		lib.byName[e.name] = lk
		st.kernels[lk.h] = lk
	}
	st.libs[lib.h] = lib
	return lib.h, nil
}

// LibraryUnload is cuLibraryUnload: the library's module in every context
// is unloaded, and its kernels' handles become invalid.
func (b *fakeBackend) LibraryUnload(h uintptr) error {
	if err := b.enter(abi.CuLibraryUnload); err != nil {
		return err
	}
	st := &b.libraries
	st.mu.Lock()
	defer st.mu.Unlock()
	lib := st.libs[h]
	if lib == nil {
		return driver.ErrInvalidHandle
	}
	b.mu.Lock()
	for c, mh := range lib.inst {
		if m := b.modules[mh]; m != nil && m.ctx == c {
			b.unloadLocked(m)
			delete(b.modules, mh)
		}
	}
	b.mu.Unlock()
	for _, lk := range lib.byName {
		delete(st.kernels, lk.h)
	}
	delete(st.libs, h)
	return nil
}

// LibraryGetKernel is cuLibraryGetKernel: ErrNotFound for a name the
// library lacks; the same name gives the same handle.
func (b *fakeBackend) LibraryGetKernel(h uintptr, name string) (uintptr, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return 0, driver.ErrInvalidValue // no C string: the real backend never calls the driver
	}
	if err := b.enter(abi.CuLibraryGetKernel); err != nil {
		return 0, err
	}
	st := &b.libraries
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

// instanceLocked returns the library's module in the calling thread's
// current context, loading it there first if it is not (yet, or any more:
// a primary context reset unloads its modules). st.mu is held.
func (b *fakeBackend) instanceLocked(lib *library) (*module, error) {
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return nil, err
	}
	if mh, ok := lib.inst[c]; ok {
		if m := b.modules[mh]; m != nil && m.ctx == c {
			return m, nil
		}
		delete(lib.inst, c)
	}
	m, err := b.loadParsedLocked(c, lib.arch, lib.cubin, lib.mod, lib.entries)
	if err != nil {
		return nil, err
	}
	lib.inst[c] = m.h
	return m, nil
}

// LibraryGetModule is cuLibraryGetModule: the library's module in the
// current context.
func (b *fakeBackend) LibraryGetModule(h uintptr) (uintptr, error) {
	if err := b.enter(abi.CuLibraryGetModule); err != nil {
		return 0, err
	}
	st := &b.libraries
	st.mu.Lock()
	defer st.mu.Unlock()
	lib := st.libs[h]
	if lib == nil {
		return 0, driver.ErrInvalidHandle
	}
	m, err := b.instanceLocked(lib)
	if err != nil {
		return 0, err
	}
	return m.h, nil
}

// LibraryGetGlobal is cuLibraryGetGlobal: a device variable of the
// library's module in the current context (each context has its own).
func (b *fakeBackend) LibraryGetGlobal(h uintptr, name string) (ptr, size uintptr, err error) {
	if strings.IndexByte(name, 0) >= 0 {
		return 0, 0, driver.ErrInvalidValue
	}
	if err := b.enter(abi.CuLibraryGetGlobal); err != nil {
		return 0, 0, err
	}
	st := &b.libraries
	st.mu.Lock()
	defer st.mu.Unlock()
	lib := st.libs[h]
	if lib == nil {
		return 0, 0, driver.ErrInvalidHandle
	}
	m, err := b.instanceLocked(lib)
	if err != nil {
		return 0, 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	g, ok := m.globals[name]
	if !ok {
		return 0, 0, driver.ErrNotFound
	}
	return g.ptr, g.size, nil
}

// KernelGetFunction is cuKernelGetFunction: the kernel's function in the
// current context, whose module is loaded there first if need be.
func (b *fakeBackend) KernelGetFunction(h uintptr) (uintptr, error) {
	if err := b.enter(abi.CuKernelGetFunction); err != nil {
		return 0, err
	}
	st := &b.libraries
	st.mu.Lock()
	defer st.mu.Unlock()
	lk := st.kernels[h]
	if lk == nil {
		return 0, driver.ErrInvalidHandle
	}
	m, err := b.instanceLocked(lk.lib)
	if err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	f := m.funcs[lk.name]
	if f == nil {
		return 0, driver.ErrNotFound
	}
	return f.h, nil
}

// KernelGetAttribute is cuKernelGetAttribute: the attributes
// FuncGetAttribute reports for a function of the kernel that nobody has
// changed (see there), on device dev, which must exist.
func (b *fakeBackend) KernelGetAttribute(attr backend.FunctionAttribute, h uintptr, dev int) (int, error) {
	if err := b.enter(abi.CuKernelGetAttribute); err != nil {
		return 0, err
	}
	if dev < 0 || dev >= len(b.devs) {
		return 0, driver.ErrInvalidDevice
	}
	st := &b.libraries
	st.mu.Lock()
	lk := st.kernels[h]
	st.mu.Unlock()
	if lk == nil {
		return 0, driver.ErrInvalidHandle
	}
	return funcAttribute(&function{name: lk.name, k: lk.k, maxDyn: defaultMaxDynamicShared, carveout: -1}, attr)
}

var _ backend.Libraries = (*fakeBackend)(nil)
