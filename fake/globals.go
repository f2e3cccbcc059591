package fake

import (
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake/internal/ptxexec"
	"github.com/nocgo/cuda/internal/abi"
)

// moduleMem is the allocation kind of a module's .global and .const
// variables: device memory that belongs to the module, freed when it is
// unloaded, never by cuMemFree.
const moduleMem = ipcMapping + 1

// global is one module-scope variable in device memory.
type global struct {
	ptr, size uintptr
}

// placeGlobalsLocked allocates the program's globals in c's device,
// initialised (zero where the PTX gives no initialiser), and binds the
// program to their addresses. On failure nothing stays allocated.
func (b *fakeBackend) placeGlobalsLocked(c *context, m *module, prog *ptxexec.Program) error {
	var placed []*alloc
	for _, g := range prog.Globals {
		size := uintptr(max(g.Size, 1))
		base, err := b.reserveLocked(c.dev, size)
		if err != nil {
			for _, a := range placed {
				b.removeGlobalLocked(a)
			}
			return err
		}
		a := &alloc{base: base, size: size, data: make([]byte, size), kind: moduleMem, dev: c.dev, ctx: c}
		copy(a.data, g.Init)
		b.insertLocked(a)
		placed = append(placed, a)
		g.Addr = uint64(base)
		m.globals[g.Name] = global{base, uintptr(g.Size)}
	}
	m.globalMem = placed
	prog.Bind()
	return nil
}

func (b *fakeBackend) removeGlobalLocked(a *alloc) {
	b.removeLocked(a)
	a.dev.used -= uint64(a.size)
}

// ModuleGetGlobal is cuModuleGetGlobal: the device address and size of
// the module-scope .global or .const variable name. An unknown name is
// CUDA_ERROR_NOT_FOUND, an unloaded module CUDA_ERROR_INVALID_HANDLE.
func (b *fakeBackend) ModuleGetGlobal(h uintptr, name string) (ptr, size uintptr, err error) {
	if strings.IndexByte(name, 0) >= 0 {
		return 0, 0, driver.ErrInvalidValue // no C string: the real backend never calls the driver
	}
	if err := b.enter(abi.CuModuleGetGlobal); err != nil {
		return 0, 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	m := b.modules[h]
	if m == nil {
		return 0, 0, b.goneLocked(h)
	}
	g, ok := m.globals[name]
	if !ok {
		return 0, 0, driver.ErrNotFound
	}
	return g.ptr, g.size, nil
}
