package module

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// Global returns the module's device variable called name (a __device__ or
// __constant__ global of the kernel source; cuModuleGetGlobal) as a buffer
// of T: a borrowed view of memory the module owns (see [memory.Borrow]).
// Copies to and from it read and set the variable that the module's
// kernels see. The buffer is valid until the module is closed. Close it
// when done: its Close frees nothing (the module's Close does) but lets go
// of the view's hold on the module's context, which a view never closed
// keeps; after the module's Close the view must not be used.
// The variable's size must be a multiple of T's size.
//
// Name is the variable's symbol: its C name for extern "C" or C-style
// globals, else its lowered name. A name the module lacks is an error
// wrapping driver.ErrNotFound. A backend without cuModuleGetGlobal gives
// an error wrapping errors.ErrUnsupported.
func Global[T any](m *Module, name string) (*memory.Buffer[T], error) {
	const op = "module.Global"
	if m == nil || m.hold == nil {
		return nil, fmt.Errorf("%s: nil or zero module: %w", op, driver.ErrInvalidInput)
	}
	if m.closed() {
		return nil, fmt.Errorf("%s: global %q: module %#x: %w", op, name, m.h, driver.ErrClosed)
	}
	if name == "" || strings.IndexByte(name, 0) >= 0 {
		return nil, fmt.Errorf("%s: global %q: bad name: %w", op, name, driver.ErrInvalidInput)
	}
	elem := unsafe.Sizeof(*new(T))
	if elem == 0 {
		return nil, fmt.Errorf("%s: global %q: element type %T has size 0: %w", op, name, *new(T), driver.ErrInvalidInput)
	}
	g, ok := m.api().(backend.ModuleGlobals)
	if !ok {
		return nil, fmt.Errorf("%s: global %q: the backend has no cuModuleGetGlobal: %w", op, name, errors.ErrUnsupported)
	}
	var ptr, size uintptr
	err := m.hold.Do(func(backend.API) error {
		var r error
		if ptr, size, r = g.ModuleGetGlobal(m.h, name); r != nil {
			return fmt.Errorf("global %q: cuModuleGetGlobal: %w", name, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, m, err)
	}
	if size%elem != 0 {
		return nil, fmt.Errorf("%s: global %q: %d bytes is not a whole number of %T (%d bytes): %w",
			op, name, size, *new(T), elem, driver.ErrInvalidInput)
	}
	b, err := memory.Borrow[T](m.ctx, ptr, int(size/elem), m)
	if err != nil {
		return nil, fmt.Errorf("%s: global %q: %w", op, name, err)
	}
	return b, nil
}
