package backend

// ModuleGlobals is implemented by backends that find a module's device
// variables (__device__ and __constant__ globals): ModuleGetGlobal is
// cuModuleGetGlobal_v2, the address and size in bytes of the global called
// name in module mod; ErrNotFound when the module has none by that name.
// The memory belongs to the module and is valid until it is unloaded.
type ModuleGlobals interface {
	ModuleGetGlobal(mod uintptr, name string) (ptr, size uintptr, err error)
}
