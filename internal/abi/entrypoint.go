package abi

// Library is the NVIDIA library an entry point belongs to.
type Library uint8

// The libraries of the declaration table.
const (
	CUDA  Library = iota + 1 // libcuda, the driver API: names "cu..."
	NVRTC                    // libnvrtc, the run-time compiler: names "nvrtc..."
	NCCL                     // libnccl, collective communication: names "nccl..." (nccl.go)
)

// String returns the library's file stem: "libcuda", "libnvrtc" or "libnccl".
func (l Library) String() string {
	switch l {
	case CUDA:
		return "libcuda"
	case NVRTC:
		return "libnvrtc"
	case NCCL:
		return "libnccl"
	}
	return "Library(?)"
}

// EntryPoint describes one entry point of the declaration table.
type EntryPoint struct {
	// Name is the base name: the name passed to cuGetProcAddress, without
	// a "_v2" suffix ("cuMemAlloc", "nvrtcCompileProgram").
	Name string
	// Library is the library that exports it.
	Library Library
	// Since is the CUDA version (1000*major + 10*minor) that introduced
	// the entry point with the ABI the real backend calls; for libnccl's,
	// the NCCL version (10000*major + 100*minor + patch).
	Since int
	// Inner entry points are called only inside the backend method of
	// another entry point (error descriptions, the size query before a
	// copy-out): the fake has no entry point of that name, and neither
	// counts nor fails its calls.
	Inner bool
}

// EntryPoints returns every entry point of the declaration table, in the
// table's order, and then libnccl's (nccl.go). The slice is the caller's.
func EntryPoints() []EntryPoint {
	return append(append([]EntryPoint(nil), table[:]...), ncclTable[:]...)
}

// Lookup returns the entry point of base name name, and whether the table
// declares it.
func Lookup(name string) (EntryPoint, bool) {
	if i := index(name); i >= 0 {
		return table[i], true
	}
	if i := ncclIndex(name); i >= 0 {
		return ncclTable[i], true
	}
	return EntryPoint{}, false
}

// Since returns the CUDA version that introduced the entry point name (a
// base name, such as "cuMemAllocAsync") with the ABI the real backend
// calls, and whether the table declares it.
func Since(name string) (version int, ok bool) {
	if ep, ok := Lookup(name); ok {
		return ep.Since, true
	}
	return 0, false
}
