package link

import "github.com/nocgo/cuda/driver/backend"

// Core is what the room needs of the fake's core. Its methods take the
// core's locks themselves; the room may call them holding its own lock.
type Core interface {
	// Enter is the prologue of an entry point: the symbol exists in the
	// configured driver version, FailNth, cuInit called, no sticky fault.
	Enter(op string) error
	// Current is nil when the calling thread has a current context, else
	// the driver's error for its absence.
	Current() error
	// ModuleLoadData is cuModuleLoadData in the current context.
	ModuleLoadData(image []byte) (uintptr, error)
	// LoadError is what the PTX interpreter last refused to load, with its
	// line (nil for nothing); a load that it refused changes it.
	LoadError() error
	// Kernels names the kernels of module h, sorted (none for an unknown h).
	Kernels(h uintptr) []string

	// ReadLibrary reads a library's image once, with the checks that need
	// no device (cuLibraryLoadData's), and names its kernels. The image is
	// copied.
	ReadLibrary(image []byte) (img Image, kernels []string, err error)
	// Instance returns the module of img in context at (0: the calling
	// thread's current context), ctx: loaded(ctx), the module that the
	// room recorded there before, while it is still loaded in ctx, else a
	// new load of img.
	Instance(img Image, at uintptr, loaded func(ctx uintptr) uintptr) (ctx, mod uintptr, err error)
	// Unload unloads each module of mods (by context) that is still
	// loaded in its context.
	Unload(mods map[uintptr]uintptr)
	// Function is cuModuleGetFunction's answer for module mod, and Global
	// cuModuleGetGlobal's (CUDA_ERROR_NOT_FOUND for a name it lacks).
	Function(mod uintptr, name string) (uintptr, error)
	Global(mod uintptr, name string) (ptr, size uintptr, err error)
	// KernelAttribute is the attribute of kernel name of img as
	// cuFuncGetAttribute answers it for a function nobody has changed.
	KernelAttribute(img Image, name string, attr backend.FunctionAttribute) (int, error)
	// CheckDevice is nil for a device ordinal of the backend, else
	// CUDA_ERROR_INVALID_DEVICE.
	CheckDevice(ordinal int) error
	// NewHandle returns a handle no object of any backend has had.
	NewHandle() uintptr
}

// Image is a library's image as the core read it (ReadLibrary), which the
// room keeps and gives back to the core; only the core looks inside.
type Image any

// Room is one fake backend's linker, JIT logs and libraries. It is safe
// for concurrent use.
type Room struct {
	core Core
	libs libraries
}

// New returns the room of a backend whose core is core.
func New(core Core) *Room { return &Room{core: core} }

// enter is Core.Enter, named so that the fake's entry-point check
// (TestEntryPointsMatchSources) finds each entry point this room counts.
func (r *Room) enter(op string) error { return r.core.Enter(op) }
