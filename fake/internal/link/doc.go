// Package link is the fake driver's room for the ways to load code beyond
// cuModuleLoadData: the linker, cuLinkCreate/AddData/Complete/Destroy
// (backend.Linker: Room.Link); cuModuleLoadDataEx's JIT logs
// (backend.ModuleJIT); and context-independent libraries, cuLibrary and
// cuKernel (backend.Libraries). The fake runs no machine code, so its
// linker combines PTX inputs that each stand alone, and its JIT's logs say
// what the fake's PTX checks found.
//
// The room owns the libraries, their kernels and each library's module in
// every context that used it, under its own lock. It reaches the fake's
// core only through [Core]: the entry-point prologue, the current context,
// reading an image and loading it as a module of the current context (the
// core's module table), a module's kernels, functions and globals, the PTX
// interpreter's last load error, device checks and new handles.
package link
