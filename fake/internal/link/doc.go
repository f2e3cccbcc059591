// Package link is the fake driver's room for what the driver's JIT says
// and links: cuLinkCreate/AddData/Complete/Destroy (backend.Linker: Room.Link)
// and cuModuleLoadDataEx's logs (backend.ModuleJIT: Room.ModuleLoadDataEx).
// The fake runs no machine code, so its linker combines PTX inputs that
// each stand alone, and its JIT's logs say what the fake's PTX checks found.
//
// The room owns no state and no lock: each call is a function of its
// inputs and of what it asks the fake's core through [Core] (the
// entry-point prologue, the current context, a module load, the PTX
// interpreter's last load error and a module's kernels).
package link
