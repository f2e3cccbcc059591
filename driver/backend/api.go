// Package backend is the seam between nocgo/cuda's objects and a CUDA driver
// implementation, as database/sql/driver is for database/sql. Two backends
// implement it: the real driver (libcuda, opened by gpu.Load) and the
// in-process fake (package fake). Users of the library never need this
// package: they hold *driver.Driver, *driver.Context, streams, buffers and
// modules. Implementers, and the conformance suite (package
// conformance), do.
//
// The seam is raw and handle-level: one method per driver entry point,
// handles as uintptr (CUdevice as int), the CUresult as a Result error, out
// parameters as return values. Calls that work on "the current context" read
// the calling OS thread's current context, exactly as the driver does; the
// packages above bind before calling them.
//
// # Growth
//
// API is the core: the entry points every backend must have. It does not
// change once released. New capabilities (graphs, memory pools, collectives)
// arrive as optional interfaces beside it, as database/sql/driver grew
// Pinger, ConnBeginTx and SessionResetter: a backend implements them when it
// can, and the packages above check with a type assertion and report a clear
// error when it cannot. NVRTCProvider, LibraryPaths and LeakReporter were the
// first of them; ModuleGlobals, ModuleJIT, Linker, KernelLauncherEx and
// Occupancy followed.
package backend

import "unsafe"

// API is the seam between the typed wrappers and a backend: one method per
// CUDA driver entry point, raw handles (CUcontext, CUstream, CUevent,
// CUmodule, CUfunction as uintptr; CUdevice as int; CUdeviceptr as uintptr)
// and the CUresult as an error. Out parameters are returned as values.
//
// Two backends implement it: the real driver (libcuda through purego, built
// by Load) and the in-process fake (package fake). Everything above the seam
// is written against this interface only, and the conformance suite
// (package conformance) checks that both behave alike.
//
// Methods return nil on success, a Result for a CUresult the driver (or the
// fake) returned, and a *SymbolError (loader.SymbolError) when the entry
// point is missing from the driver (or from the fake's driver version).
// Backends return Result errors through Check, which does not allocate.
//
// Like the driver, calls that work on "the current context" (allocation,
// creation of streams, events and modules, synchronous copies) read the
// calling OS thread's current context; callers make their context current
// first. Methods must be safe for concurrent use.
type API interface {
	// Init is cuInit.
	Init(flags uint32) error
	// DriverGetVersion is cuDriverGetVersion: 1000*major + 10*minor.
	DriverGetVersion() (int, error)

	// Devices.
	DeviceGetCount() (int, error)
	DeviceGet(ordinal int) (int, error)
	DeviceGetName(dev int) (string, error)
	DeviceGetAttribute(attr DeviceAttribute, dev int) (int, error)
	DeviceTotalMem(dev int) (uint64, error)
	DeviceGetUUID(dev int) ([16]byte, error)
	DeviceGetPCIBusID(dev int) (string, error)
	DeviceCanAccessPeer(dev, peer int) (bool, error)

	// Contexts.
	DevicePrimaryCtxRetain(dev int) (uintptr, error)
	DevicePrimaryCtxRelease(dev int) error
	// DevicePrimaryCtxReset is cuDevicePrimaryCtxReset: destroys every
	// allocation and object of the primary context and resets it, so that
	// the next retain gets a fresh one (the way back from a sticky fault).
	DevicePrimaryCtxReset(dev int) error
	// DevicePrimaryCtxGetState is cuDevicePrimaryCtxGetState: flags and whether it is active.
	DevicePrimaryCtxGetState(dev int) (flags uint32, active bool, r error)
	CtxCreate(flags uint32, dev int) (uintptr, error)
	CtxDestroy(ctx uintptr) error
	CtxGetCurrent() (uintptr, error)
	CtxSetCurrent(ctx uintptr) error
	CtxPushCurrent(ctx uintptr) error
	CtxPopCurrent() (uintptr, error)
	// CtxGetDevice is cuCtxGetDevice: the device of the current context.
	CtxGetDevice() (int, error)
	CtxSynchronize() error
	// CtxGetAPIVersion is cuCtxGetApiVersion; it names its context, so it also
	// serves to check that a context handle is alive.
	CtxGetAPIVersion(ctx uintptr) (uint32, error)
	// CtxGetStreamPriorityRange is cuCtxGetStreamPriorityRange (current context).
	CtxGetStreamPriorityRange() (least, greatest int, r error)
	CtxEnablePeerAccess(peer uintptr, flags uint32) error

	// Streams. The special handles 0 (NULL), 1 (CU_STREAM_LEGACY) and
	// 2 (CU_STREAM_PER_THREAD) are accepted where the driver accepts them.
	StreamCreateWithPriority(flags uint32, priority int) (uintptr, error)
	StreamDestroy(s uintptr) error
	StreamQuery(s uintptr) error
	StreamSynchronize(s uintptr) error
	StreamWaitEvent(s, ev uintptr, flags uint32) error
	StreamGetCtx(s uintptr) (uintptr, error)
	StreamGetFlags(s uintptr) (uint32, error)
	StreamGetPriority(s uintptr) (int, error)
	// LaunchHostFunc is cuLaunchHostFunc: fn runs on a driver thread once all
	// earlier work on s is done, and must not call into CUDA.
	LaunchHostFunc(s uintptr, fn func()) error

	// Events.
	EventCreate(flags uint32) (uintptr, error)
	EventDestroy(ev uintptr) error
	EventRecord(ev, s uintptr) error
	EventSynchronize(ev uintptr) error
	EventQuery(ev uintptr) error
	// EventElapsedTime is cuEventElapsedTime, in milliseconds.
	EventElapsedTime(start, end uintptr) (float32, error)
	IPCGetEventHandle(ev uintptr) (IPCHandle, error)
	IPCOpenEventHandle(h IPCHandle) (uintptr, error)

	// Device memory.
	MemAlloc(size uintptr) (uintptr, error)
	MemFree(ptr uintptr) error
	MemAllocAsync(size uintptr, s uintptr) (uintptr, error)
	MemFreeAsync(ptr uintptr, s uintptr) error
	MemGetInfo() (free, total uint64, r error)
	MemGetAddressRange(ptr uintptr) (base, size uintptr, r error)
	// PointerGetAttribute is cuPointerGetAttribute with the value widened to
	// 64 bits (a CUcontext, a CUmemorytype, a device ordinal, ...).
	PointerGetAttribute(attr PointerAttribute, ptr uintptr) (uint64, error)
	MemcpyHtoD(dst uintptr, src unsafe.Pointer, n uintptr) error
	MemcpyDtoH(dst unsafe.Pointer, src uintptr, n uintptr) error
	MemcpyDtoD(dst, src uintptr, n uintptr) error
	MemcpyHtoDAsync(dst uintptr, src unsafe.Pointer, n uintptr, s uintptr) error
	MemcpyDtoHAsync(dst unsafe.Pointer, src uintptr, n uintptr, s uintptr) error
	MemcpyDtoDAsync(dst, src uintptr, n uintptr, s uintptr) error
	MemcpyPeer(dst, dstCtx, src, srcCtx uintptr, n uintptr) error
	MemcpyPeerAsync(dst, dstCtx, src, srcCtx uintptr, n uintptr, s uintptr) error
	// MemsetD8/D16/D32 (and Async) set n elements of 1, 2 or 4 bytes.
	MemsetD8(dst uintptr, v uint8, n uintptr) error
	MemsetD16(dst uintptr, v uint16, n uintptr) error
	MemsetD32(dst uintptr, v uint32, n uintptr) error
	MemsetD8Async(dst uintptr, v uint8, n uintptr, s uintptr) error
	MemsetD16Async(dst uintptr, v uint16, n uintptr, s uintptr) error
	MemsetD32Async(dst uintptr, v uint32, n uintptr, s uintptr) error
	// MemHostAlloc is cuMemHostAlloc: page-locked host memory of the current context.
	MemHostAlloc(size uintptr, flags uint32) (unsafe.Pointer, error)
	MemFreeHost(p unsafe.Pointer) error
	IPCGetMemHandle(ptr uintptr) (IPCHandle, error)
	IPCOpenMemHandle(h IPCHandle, flags uint32) (uintptr, error)
	IPCCloseMemHandle(ptr uintptr) error

	// Modules and launches.
	// ModuleLoadData is cuModuleLoadData: image is PTX (NUL-terminated text),
	// a CUBIN or a fatbin.
	ModuleLoadData(image []byte) (uintptr, error)
	ModuleUnload(m uintptr) error
	ModuleGetFunction(m uintptr, name string) (uintptr, error)
	// FuncGetParamInfo is cuFuncGetParamInfo (CUDA 12.4+): the offset and size
	// of parameter index; ErrInvalidValue past the last one.
	FuncGetParamInfo(f uintptr, index int) (offset, size uintptr, r error)
	FuncGetAttribute(attr FunctionAttribute, f uintptr) (int, error)
	FuncSetAttribute(f uintptr, attr FunctionAttribute, value int) error
	// LaunchKernel is cuLaunchKernel; params is the kernelParams array
	// (void**: one pointer to each argument's value), nil for none.
	LaunchKernel(f uintptr, grid, block [3]uint32, sharedMem uint32, s uintptr, params unsafe.Pointer) error
	OccupancyMaxPotentialBlockSize(f uintptr, dynamicSharedMem uintptr, blockSizeLimit int) (minGrid, block int, r error)
}

// NVRTC is the seam to the run-time compiler (libnvrtc), beside API. Program
// handles are raw nvrtcProgram values. Errors are *NVRTCError values.
type NVRTC interface {
	// Version is nvrtcVersion.
	Version() (major, minor int, err error)
	// Implementation names the compiler: "libnvrtc" for NVIDIA's, another
	// name for any other (the fake's). Compiled kernels are cached under it,
	// so two implementations never share cache entries.
	Implementation() string
	// CreateProgram is nvrtcCreateProgram; headers and includeNames pair up.
	CreateProgram(src, name string, headers, includeNames []string) (uintptr, error)
	AddNameExpression(prog uintptr, expr string) error
	// Compile is nvrtcCompileProgram. A failed compile returns an *NVRTCError
	// with Code NVRTCErrorCompilation; the log is read with ProgramLog.
	Compile(prog uintptr, options []string) error
	ProgramLog(prog uintptr) (string, error)
	PTX(prog uintptr) ([]byte, error)
	// CUBIN returns the CUBIN; an error when the program was compiled for a
	// virtual architecture (compute_XX).
	CUBIN(prog uintptr) ([]byte, error)
	LoweredName(prog uintptr, expr string) (string, error)
	DestroyProgram(prog uintptr) error
}

// NVRTCError is a failed nvrtcResult.
type NVRTCError struct {
	Code int    // the nvrtcResult
	Name string // "NVRTC_ERROR_COMPILATION"
	Op   string // the NVRTC entry point, such as "nvrtcCompileProgram"
}

// NVRTC result codes.
const (
	NVRTCErrorInvalidInput     = 3
	NVRTCErrorInvalidOption    = 5
	NVRTCErrorCompilation      = 6
	NVRTCErrorNameExprNotValid = 10
)

// Error returns "nvrtcCompileProgram: NVRTC_ERROR_COMPILATION" and the like.
func (e *NVRTCError) Error() string { return e.Op + ": " + e.Name }

// IPCHandle is an interprocess handle (CUipcMemHandle / CUipcEventHandle):
// 64 opaque bytes that another process opens.
type IPCHandle [64]byte

// DeviceAttribute is a CUdevice_attribute.
type DeviceAttribute int32

// Device attributes the library names; any other CUdevice_attribute value
// can be passed as DeviceAttribute(n).
const (
	AttrMaxThreadsPerBlock            DeviceAttribute = 1
	AttrMaxBlockDimX                  DeviceAttribute = 2
	AttrMaxBlockDimY                  DeviceAttribute = 3
	AttrMaxBlockDimZ                  DeviceAttribute = 4
	AttrMaxGridDimX                   DeviceAttribute = 5
	AttrMaxGridDimY                   DeviceAttribute = 6
	AttrMaxGridDimZ                   DeviceAttribute = 7
	AttrMaxSharedMemoryPerBlock       DeviceAttribute = 8
	AttrTotalConstantMemory           DeviceAttribute = 9
	AttrWarpSize                      DeviceAttribute = 10
	AttrMaxRegistersPerBlock          DeviceAttribute = 12
	AttrClockRate                     DeviceAttribute = 13
	AttrMultiprocessorCount           DeviceAttribute = 16
	AttrIntegrated                    DeviceAttribute = 18
	AttrCanMapHostMemory              DeviceAttribute = 19
	AttrComputeMode                   DeviceAttribute = 20
	AttrConcurrentKernels             DeviceAttribute = 31
	AttrECCEnabled                    DeviceAttribute = 32
	AttrPCIBusID                      DeviceAttribute = 33
	AttrPCIDeviceID                   DeviceAttribute = 34
	AttrMemoryClockRate               DeviceAttribute = 36
	AttrGlobalMemoryBusWidth          DeviceAttribute = 37
	AttrL2CacheSize                   DeviceAttribute = 38
	AttrMaxThreadsPerMultiprocessor   DeviceAttribute = 39
	AttrAsyncEngineCount              DeviceAttribute = 40
	AttrUnifiedAddressing             DeviceAttribute = 41
	AttrPCIDomainID                   DeviceAttribute = 50
	AttrComputeCapabilityMajor        DeviceAttribute = 75
	AttrComputeCapabilityMinor        DeviceAttribute = 76
	AttrManagedMemory                 DeviceAttribute = 83
	AttrMaxSharedMemoryPerMultiproc   DeviceAttribute = 81
	AttrMaxRegistersPerMultiprocessor DeviceAttribute = 82
	AttrMaxSharedMemoryPerBlockOptin  DeviceAttribute = 97
	AttrMemoryPoolsSupported          DeviceAttribute = 115
)

// PointerAttribute is a CUpointer_attribute.
type PointerAttribute int32

// Pointer attributes used to validate borrowed memory.
const (
	PointerAttrContext       PointerAttribute = 1 // CUcontext owning the allocation (0 for pool memory)
	PointerAttrMemoryType    PointerAttribute = 2 // a MemoryType
	PointerAttrDevicePointer PointerAttribute = 3
	PointerAttrHostPointer   PointerAttribute = 4
	PointerAttrBufferID      PointerAttribute = 7
	PointerAttrIsManaged     PointerAttribute = 8
	PointerAttrDeviceOrdinal PointerAttribute = 9
	PointerAttrRangeStart    PointerAttribute = 11
	PointerAttrRangeSize     PointerAttribute = 12
	PointerAttrMempool       PointerAttribute = 17
)

// MemoryType is a CUmemorytype.
type MemoryType uint32

// Memory types reported by PointerAttrMemoryType.
const (
	MemoryTypeHost    MemoryType = 1
	MemoryTypeDevice  MemoryType = 2
	MemoryTypeArray   MemoryType = 3
	MemoryTypeUnified MemoryType = 4
)

// FunctionAttribute is a CUfunction_attribute.
type FunctionAttribute int32

// Function attributes.
const (
	FuncMaxThreadsPerBlock      FunctionAttribute = 0
	FuncSharedSizeBytes         FunctionAttribute = 1
	FuncConstSizeBytes          FunctionAttribute = 2
	FuncLocalSizeBytes          FunctionAttribute = 3
	FuncNumRegs                 FunctionAttribute = 4
	FuncPTXVersion              FunctionAttribute = 5
	FuncBinaryVersion           FunctionAttribute = 6
	FuncMaxDynamicSharedSize    FunctionAttribute = 8
	FuncPreferredSharedCarveout FunctionAttribute = 9
)

// Flags of the driver API that the seam passes through unchanged.
const (
	StreamDefault     uint32 = 0x0 // CU_STREAM_DEFAULT
	StreamNonBlocking uint32 = 0x1 // CU_STREAM_NON_BLOCKING

	EventDefault       uint32 = 0x0 // CU_EVENT_DEFAULT
	EventBlockingSync  uint32 = 0x1 // CU_EVENT_BLOCKING_SYNC
	EventDisableTiming uint32 = 0x2 // CU_EVENT_DISABLE_TIMING
	EventInterprocess  uint32 = 0x4 // CU_EVENT_INTERPROCESS

	MemHostAllocPortable      uint32 = 0x1 // CU_MEMHOSTALLOC_PORTABLE
	MemHostAllocDeviceMap     uint32 = 0x2 // CU_MEMHOSTALLOC_DEVICEMAP
	MemHostAllocWriteCombined uint32 = 0x4 // CU_MEMHOSTALLOC_WRITECOMBINED

	IPCMemLazyEnablePeerAccess uint32 = 0x1 // CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS
)

// The special stream handles.
const (
	StreamNull      uintptr = 0x0 // the NULL stream: the context's default stream
	StreamLegacy    uintptr = 0x1 // CU_STREAM_LEGACY
	StreamPerThread uintptr = 0x2 // CU_STREAM_PER_THREAD
)

// NVRTCProvider is implemented by backends that come with a run-time
// compiler. The real backend opens libnvrtc on the first call; the fake
// answers with its own.
type NVRTCProvider interface {
	NVRTC() (NVRTC, error)
}

// LibraryPaths is implemented by backends loaded from shared libraries: the
// paths of the libraries opened so far (libcuda, and libnvrtc once opened).
type LibraryPaths interface {
	LibraryPaths() []string
}

// LeakReporter is implemented by backends that track the driver objects
// they hand out (the fake): Leaks describes each one still alive (a context
// reference, a stream, an event, an allocation, a module), in a stable
// order, and is empty when everything made has been destroyed. The
// conformance suite checks it after each case.
type LeakReporter interface {
	Leaks() []Leak
}
