package module

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// LibraryGlobal returns the library's device variable called name in ctx
// (cuLibraryGetGlobal, which loads the library there first if need be) as
// a buffer of T: a borrowed view of memory the library owns, as Global
// gives for a Module. Each context has its own copy of the variable: what
// is copied into it is what the library's kernels see in that context. The
// view is valid until the library is closed; Close it when done (it frees
// nothing). The variable's size must be a multiple of T's size; a name the
// library lacks is an error wrapping driver.ErrNotFound.
func LibraryGlobal[T any](l *Library, ctx *driver.Context, name string) (*memory.Buffer[T], error) {
	const op = "module.LibraryGlobal"
	if l == nil || l.libs == nil {
		return nil, fmt.Errorf("%s: nil or zero library: %w", op, driver.ErrInvalidValue)
	}
	if name == "" || strings.IndexByte(name, 0) >= 0 {
		return nil, fmt.Errorf("%s: global %q: bad name: %w", op, name, driver.ErrInvalidValue)
	}
	elem := unsafe.Sizeof(*new(T))
	if elem == 0 {
		return nil, fmt.Errorf("%s: global %q: element type %T has size 0: %w", op, name, *new(T), driver.ErrInvalidValue)
	}
	m, err := l.moduleIn(op, ctx)
	if err != nil {
		return nil, err
	}
	var ptr, size uintptr
	err = m.hold.Do(func(backend.API) error {
		var r error
		if ptr, size, r = l.libs.LibraryGetGlobal(l.h, name); r != nil {
			return fmt.Errorf("global %q: cuLibraryGetGlobal: %w", name, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %s in %s: %w", op, l, ctx, err)
	}
	if size%elem != 0 {
		return nil, fmt.Errorf("%s: global %q: %d bytes is not a whole number of %T (%d bytes): %w",
			op, name, size, *new(T), elem, driver.ErrInvalidValue)
	}
	b, err := memory.Borrow[T](ctx, ptr, int(size/elem), l)
	if err != nil {
		return nil, fmt.Errorf("%s: global %q: %w", op, name, err)
	}
	return b, nil
}
