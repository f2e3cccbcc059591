package backend

// Libraries is implemented by backends with context-independent loading
// (cuLibrary, CUDA 12.0): one library, loaded once, serves every context of
// every device, each context getting its own instance on first use (the
// driver loads it lazily).
//
// Handles: a CUlibrary (lib) and a CUkernel (kernel) belong to no context;
// the CUmodule and CUfunction they give are valid in the context current
// when asked for, until LibraryUnload, which unloads the library from every
// context. The image is copied by LibraryLoadData: the caller may reuse it.
type Libraries interface {
	// LibraryLoadData is cuLibraryLoadData with no JIT or library options:
	// a PTX (NUL-terminated or not), CUBIN or fatbin image.
	LibraryLoadData(image []byte) (lib uintptr, err error)
	// LibraryUnload is cuLibraryUnload.
	LibraryUnload(lib uintptr) error
	// LibraryGetKernel is cuLibraryGetKernel: the kernel called name (a
	// lowered name); ErrNotFound when the library has none by that name.
	LibraryGetKernel(lib uintptr, name string) (kernel uintptr, err error)
	// LibraryGetModule is cuLibraryGetModule: the library's module in the
	// current context, loading it there if it is not yet.
	LibraryGetModule(lib uintptr) (mod uintptr, err error)
	// LibraryGetGlobal is cuLibraryGetGlobal: the address and size of the
	// device variable called name, in the current context.
	LibraryGetGlobal(lib uintptr, name string) (ptr, size uintptr, err error)
	// KernelGetFunction is cuKernelGetFunction: the kernel's function in
	// the current context.
	KernelGetFunction(kernel uintptr) (f uintptr, err error)
	// KernelGetAttribute is cuKernelGetAttribute: an attribute of the
	// kernel on device dev.
	KernelGetAttribute(attr FunctionAttribute, kernel uintptr, dev int) (int, error)
}
