package fake

import "sort"

// CountCalls makes the backend count the calls of every entry point, for
// Calls. The count is the one FailNth counts by: a call is counted when it
// reaches the entry point (the driver version has the symbol), before a
// FailNth rule fires, before the cuInit check and before the poisoned
// process refuses it, so failed calls count too. So after a run of some
// code on a backend with CountCalls, Calls()[op] == k means that
// FailNth(op, n, code) for each n in 1..k makes that same run fail at a
// call it makes; a fault sweep needs nothing else:
//
//	clean := fake.newBackend(fake.CountCalls())
//	run(clean)
//	for op, k := range clean.Calls() {
//		for n := 1; n <= int(k); n++ {
//			run(fake.newBackend(fake.FailNth(op, n, driver.ErrOutOfMemory)))
//		}
//	}
//
// Counting costs one map lookup and one atomic add per call. Without
// CountCalls, only the entry points that a FailNth rule names are counted.
func CountCalls() Option {
	return func(c *config) {
		if c.faults == nil {
			c.faults = map[string][]faultRule{}
		}
		for _, op := range entryPoints {
			// A key, with no rules unless FailNth gave some: the backend
			// keeps a counter for each key (see NewBackend and
			// Backend.fault); one without rules never fires.
			if _, ok := c.faults[op]; !ok {
				c.faults[op] = nil
			}
		}
	}
}

// Calls returns a snapshot of the calls made so far to each entry point of
// the backend, by CUDA base name ("cuMemAlloc", "cuStreamCreateWithPriority",
// "nvrtcCompileProgram"; no "_v2" suffix), counting failed calls too (see
// CountCalls for exactly what counts). Entry points not called are left
// out. Only a backend built with CountCalls counts every entry point;
// otherwise the map holds the entry points that FailNth rules name.
//
// The snapshot is not atomic across entry points: calls made concurrently
// with Calls may be counted or not.
func (b *fakeBackend) calls() map[string]int64 {
	out := map[string]int64{}
	for op, fc := range b.faults { // read-only after NewBackend
		if n := fc.calls.Load(); n > 0 {
			out[op] = n
		}
	}
	return out
}

// EntryPoints returns the names of every entry point of the fake (the
// libcuda and NVRTC functions it implements, by CUDA base name), sorted:
// the names CountCalls counts and FailNth can name.
func EntryPoints() []string {
	out := append([]string(nil), entryPoints...)
	sort.Strings(out)
	return out
}

// entryPoints lists every name the fake passes to Backend.fault, directly
// or through enter, syncOp, asyncOp and the NVRTC enter (a test checks the
// list against the sources).
var entryPoints = []string{
	"cuInit",
	"cuDriverGetVersion",

	"cuDeviceGetCount",
	"cuDeviceGet",
	"cuDeviceGetName",
	"cuDeviceGetAttribute",
	"cuDeviceTotalMem",
	"cuDeviceGetUuid",
	"cuDeviceGetPCIBusId",
	"cuDeviceCanAccessPeer",
	"cuDevicePrimaryCtxRetain",
	"cuDevicePrimaryCtxRelease",
	"cuDevicePrimaryCtxReset",
	"cuDevicePrimaryCtxGetState",

	"cuCtxCreate",
	"cuCtxDestroy",
	"cuCtxGetCurrent",
	"cuCtxSetCurrent",
	"cuCtxPushCurrent",
	"cuCtxPopCurrent",
	"cuCtxGetDevice",
	"cuCtxSynchronize",
	"cuCtxGetApiVersion",
	"cuCtxGetStreamPriorityRange",
	"cuCtxEnablePeerAccess",

	"cuStreamCreateWithPriority",
	"cuStreamDestroy",
	"cuStreamQuery",
	"cuStreamSynchronize",
	"cuStreamWaitEvent",
	"cuStreamGetCtx",
	"cuStreamGetFlags",
	"cuStreamGetPriority",
	"cuLaunchHostFunc",

	"cuEventCreate",
	"cuEventDestroy",
	"cuEventRecord",
	"cuEventQuery",
	"cuEventSynchronize",
	"cuEventElapsedTime",
	"cuIpcGetEventHandle",
	"cuIpcOpenEventHandle",

	"cuMemAlloc",
	"cuMemAllocAsync",
	"cuMemFree",
	"cuMemFreeAsync",
	"cuMemGetInfo",
	"cuMemGetAddressRange",
	"cuPointerGetAttribute",
	"cuMemHostAlloc",
	"cuMemFreeHost",
	"cuMemcpyHtoD",
	"cuMemcpyDtoH",
	"cuMemcpyDtoD",
	"cuMemcpyHtoDAsync",
	"cuMemcpyDtoHAsync",
	"cuMemcpyDtoDAsync",
	"cuMemcpyPeer",
	"cuMemcpyPeerAsync",
	"cuMemsetD8",
	"cuMemsetD16",
	"cuMemsetD32",
	"cuMemsetD8Async",
	"cuMemsetD16Async",
	"cuMemsetD32Async",
	"cuIpcGetMemHandle",
	"cuIpcOpenMemHandle",
	"cuIpcCloseMemHandle",

	"cuDeviceGetDefaultMemPool",
	"cuDeviceGetMemPool",
	"cuDeviceSetMemPool",
	"cuMemPoolCreate",
	"cuMemPoolDestroy",
	"cuMemPoolTrimTo",
	"cuMemPoolSetAttribute",
	"cuMemPoolGetAttribute",
	"cuMemPoolSetAccess",
	"cuMemPoolGetAccess",
	"cuMemAllocFromPoolAsync",
	"cuCtxDisablePeerAccess",
	"cuMemAllocManaged",
	"cuMemPrefetchAsync",
	"cuMemAdvise",
	"cuMemHostRegister",
	"cuMemHostUnregister",
	"cuMemAllocPitch",
	"cuMemcpy2D",
	"cuMemcpy2DAsync",
	"cuMemcpy3D",
	"cuMemcpy3DAsync",

	"cuModuleLoadData",
	"cuModuleUnload",
	"cuModuleGetFunction",
	"cuModuleGetGlobal",
	"cuFuncGetParamInfo",
	"cuFuncGetAttribute",
	"cuFuncSetAttribute",
	"cuOccupancyMaxPotentialBlockSize",
	"cuLaunchKernel",
	// Loads with logs, links, launches with attributes and their occupancy
	// (module_jit.go, link.go, launch_ex.go).
	"cuModuleLoadDataEx",
	"cuLinkCreate",
	"cuLinkAddData",
	"cuLinkComplete",
	"cuLinkDestroy",
	"cuLaunchKernelEx",
	"cuOccupancyMaxActiveBlocksPerMultiprocessor",
	"cuOccupancyMaxActiveClusters",

	"nvrtcVersion",
	"nvrtcCreateProgram",
	"nvrtcAddNameExpression",
	"nvrtcCompileProgram",
	"nvrtcGetProgramLog",
	"nvrtcGetPTX",
	"nvrtcGetCUBIN",
	"nvrtcGetLoweredName",
	"nvrtcDestroyProgram",

	// CUDA graphs (graph*.go).
	"cuStreamBeginCapture",
	"cuStreamEndCapture",
	"cuStreamGetCaptureInfo",
	"cuGraphCreate",
	"cuGraphDestroy",
	"cuGraphClone",
	"cuGraphGetNodes",
	"cuGraphGetEdges",
	"cuGraphAddKernelNode",
	"cuGraphAddMemcpyNode",
	"cuGraphAddMemsetNode",
	"cuGraphAddEventRecordNode",
	"cuGraphAddEventWaitNode",
	"cuGraphAddChildGraphNode",
	"cuGraphAddEmptyNode",
	"cuGraphInstantiateWithFlags",
	"cuGraphExecDestroy",
	"cuGraphLaunch",
	"cuGraphUpload",
	"cuGraphExecUpdate",
}
