package libcuda

// abiVersion is the CUDA version of the headers (cuda.h, cudaTypedefs.h)
// the calls in this backend were written against. Entry points are
// requested at min(driver version, abiVersion) unless their symInfo caps
// them lower, so a newer driver that versions a symbol again (a new ABI
// under the same base name) keeps serving the ABI this code calls.
const abiVersion = 13000

// symInfo describes one entry point.
type symInfo struct {
	// name is the base name passed to cuGetProcAddress ("cuMemAlloc").
	name string
	// since is the CUDA version that introduced the entry point with the
	// ABI this backend calls (for SymbolError messages).
	since int
	// cap, when not 0, is the highest CUDA version to request: the ABI this
	// backend calls was replaced after it under the same base name.
	cap int
	// dlsym lists the exported names to try, in order, when the driver has
	// no cuGetProcAddress (before CUDA 11.3): the versioned name first; the
	// legacy unversioned one only where no versioned one exists. nil means
	// just name.
	dlsym []string
	// direct entry points are always found with dlsym: those that must
	// work before cuInit has succeeded (cuInit itself, and the error
	// descriptions used to report its failure). None of them was ever
	// versioned.
	direct bool
	// lean entry points never block and only touch the calling thread's
	// driver state (the current context, error strings): they may be
	// called without entersyscall. The generated methods call them through
	// the generator's leanCallFunc (internal/gen).
	lean bool
}

// requestVersion returns the CUDA version to pass to cuGetProcAddress for s
// on a driver of version drv.
func (s sym) requestVersion(drv int) int {
	v := abiVersion
	if c := syms[s].cap; c != 0 {
		v = c
	}
	if drv > 0 && drv < v {
		v = drv
	}
	return v
}
