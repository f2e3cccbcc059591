//go:build linux && (amd64 || arm64)

package libcuda

// sym indexes the libcuda entry points the real backend calls; each is
// resolved on first use (see libcuda.resolve).
type sym int

const (
	symInit sym = iota
	symDriverGetVersion
	symDeviceGetCount
	symDeviceGet
	symDeviceGetName
	symDeviceGetAttribute
	symDeviceTotalMem
	symDeviceGetUuid
	symDeviceGetPCIBusId
	symDeviceCanAccessPeer
	symDevicePrimaryCtxRetain
	symDevicePrimaryCtxRelease
	symDevicePrimaryCtxGetState
	symCtxCreate
	symCtxDestroy
	symCtxGetCurrent
	symCtxSetCurrent
	symCtxPushCurrent
	symCtxPopCurrent
	symCtxGetDevice
	symCtxSynchronize
	symCtxGetApiVersion
	symCtxGetStreamPriorityRange
	symCtxEnablePeerAccess
	symStreamCreateWithPriority
	symStreamDestroy
	symStreamQuery
	symStreamSynchronize
	symStreamWaitEvent
	symStreamGetCtx
	symStreamGetFlags
	symStreamGetPriority
	symLaunchHostFunc
	symEventCreate
	symEventDestroy
	symEventRecord
	symEventSynchronize
	symEventQuery
	symEventElapsedTime
	symIpcGetEventHandle
	symIpcOpenEventHandle
	symMemAlloc
	symMemFree
	symMemAllocAsync
	symMemFreeAsync
	symMemGetInfo
	symMemGetAddressRange
	symPointerGetAttribute
	symMemcpyHtoD
	symMemcpyDtoH
	symMemcpyDtoD
	symMemcpyHtoDAsync
	symMemcpyDtoHAsync
	symMemcpyDtoDAsync
	symMemcpyPeer
	symMemcpyPeerAsync
	symMemsetD8
	symMemsetD16
	symMemsetD32
	symMemsetD8Async
	symMemsetD16Async
	symMemsetD32Async
	symMemHostAlloc
	symMemFreeHost
	symIpcGetMemHandle
	symIpcOpenMemHandle
	symIpcCloseMemHandle
	symModuleLoadData
	symModuleUnload
	symModuleGetFunction
	symFuncGetParamInfo
	symFuncGetAttribute
	symFuncSetAttribute
	symLaunchKernel
	symOccupancyMaxPotentialBlockSize
	symGetErrorName
	symGetErrorString
	numSyms
)

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
}

// syms is indexed by sym. The signatures called are those of cuda.h 13.0;
// the caps pin entry points whose base name was given a new ABI:
//
//   - cuCtxCreate: _v3 (11.4) takes CUexecAffinityParam*, _v4 (12.5)
//     CUctxCreateParams*; this backend calls _v2 (flags, dev): cap 11000.
//   - cuStreamGetCtx: _v2 (12.5) adds a CUgreenCtx* out parameter: cap 12000.
//   - cuCtxGetDevice, cuCtxSynchronize: _v2 (13.0) take an explicit
//     CUcontext; this backend calls the current-context forms: cap 12000.
var syms = [numSyms]symInfo{
	symInit:                           {name: "cuInit", since: 2000, direct: true},
	symDriverGetVersion:               {name: "cuDriverGetVersion", since: 2020, direct: true},
	symDeviceGetCount:                 {name: "cuDeviceGetCount", since: 2000},
	symDeviceGet:                      {name: "cuDeviceGet", since: 2000},
	symDeviceGetName:                  {name: "cuDeviceGetName", since: 2000},
	symDeviceGetAttribute:             {name: "cuDeviceGetAttribute", since: 2000},
	symDeviceTotalMem:                 {name: "cuDeviceTotalMem", since: 3020, dlsym: []string{"cuDeviceTotalMem_v2"}},
	symDeviceGetUuid:                  {name: "cuDeviceGetUuid", since: 9020, dlsym: []string{"cuDeviceGetUuid_v2", "cuDeviceGetUuid"}},
	symDeviceGetPCIBusId:              {name: "cuDeviceGetPCIBusId", since: 4010},
	symDeviceCanAccessPeer:            {name: "cuDeviceCanAccessPeer", since: 4000},
	symDevicePrimaryCtxRetain:         {name: "cuDevicePrimaryCtxRetain", since: 7000},
	symDevicePrimaryCtxRelease:        {name: "cuDevicePrimaryCtxRelease", since: 7000, dlsym: []string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}},
	symDevicePrimaryCtxGetState:       {name: "cuDevicePrimaryCtxGetState", since: 7000},
	symCtxCreate:                      {name: "cuCtxCreate", since: 3020, cap: 11000, dlsym: []string{"cuCtxCreate_v2"}},
	symCtxDestroy:                     {name: "cuCtxDestroy", since: 4000, dlsym: []string{"cuCtxDestroy_v2"}},
	symCtxGetCurrent:                  {name: "cuCtxGetCurrent", since: 4000},
	symCtxSetCurrent:                  {name: "cuCtxSetCurrent", since: 4000},
	symCtxPushCurrent:                 {name: "cuCtxPushCurrent", since: 4000, dlsym: []string{"cuCtxPushCurrent_v2"}},
	symCtxPopCurrent:                  {name: "cuCtxPopCurrent", since: 4000, dlsym: []string{"cuCtxPopCurrent_v2"}},
	symCtxGetDevice:                   {name: "cuCtxGetDevice", since: 2000, cap: 12000},
	symCtxSynchronize:                 {name: "cuCtxSynchronize", since: 2000, cap: 12000},
	symCtxGetApiVersion:               {name: "cuCtxGetApiVersion", since: 3020},
	symCtxGetStreamPriorityRange:      {name: "cuCtxGetStreamPriorityRange", since: 5050},
	symCtxEnablePeerAccess:            {name: "cuCtxEnablePeerAccess", since: 4000},
	symStreamCreateWithPriority:       {name: "cuStreamCreateWithPriority", since: 5050},
	symStreamDestroy:                  {name: "cuStreamDestroy", since: 4000, dlsym: []string{"cuStreamDestroy_v2"}},
	symStreamQuery:                    {name: "cuStreamQuery", since: 2000},
	symStreamSynchronize:              {name: "cuStreamSynchronize", since: 2000},
	symStreamWaitEvent:                {name: "cuStreamWaitEvent", since: 3020},
	symStreamGetCtx:                   {name: "cuStreamGetCtx", since: 9020, cap: 12000},
	symStreamGetFlags:                 {name: "cuStreamGetFlags", since: 5050},
	symStreamGetPriority:              {name: "cuStreamGetPriority", since: 5050},
	symLaunchHostFunc:                 {name: "cuLaunchHostFunc", since: 10000},
	symEventCreate:                    {name: "cuEventCreate", since: 2000},
	symEventDestroy:                   {name: "cuEventDestroy", since: 4000, dlsym: []string{"cuEventDestroy_v2"}},
	symEventRecord:                    {name: "cuEventRecord", since: 2000},
	symEventSynchronize:               {name: "cuEventSynchronize", since: 2000},
	symEventQuery:                     {name: "cuEventQuery", since: 2000},
	symEventElapsedTime:               {name: "cuEventElapsedTime", since: 2000, dlsym: []string{"cuEventElapsedTime_v2", "cuEventElapsedTime"}},
	symIpcGetEventHandle:              {name: "cuIpcGetEventHandle", since: 4010},
	symIpcOpenEventHandle:             {name: "cuIpcOpenEventHandle", since: 4010},
	symMemAlloc:                       {name: "cuMemAlloc", since: 3020, dlsym: []string{"cuMemAlloc_v2"}},
	symMemFree:                        {name: "cuMemFree", since: 3020, dlsym: []string{"cuMemFree_v2"}},
	symMemAllocAsync:                  {name: "cuMemAllocAsync", since: 11020},
	symMemFreeAsync:                   {name: "cuMemFreeAsync", since: 11020},
	symMemGetInfo:                     {name: "cuMemGetInfo", since: 3020, dlsym: []string{"cuMemGetInfo_v2"}},
	symMemGetAddressRange:             {name: "cuMemGetAddressRange", since: 3020, dlsym: []string{"cuMemGetAddressRange_v2"}},
	symPointerGetAttribute:            {name: "cuPointerGetAttribute", since: 4000},
	symMemcpyHtoD:                     {name: "cuMemcpyHtoD", since: 3020, dlsym: []string{"cuMemcpyHtoD_v2"}},
	symMemcpyDtoH:                     {name: "cuMemcpyDtoH", since: 3020, dlsym: []string{"cuMemcpyDtoH_v2"}},
	symMemcpyDtoD:                     {name: "cuMemcpyDtoD", since: 3020, dlsym: []string{"cuMemcpyDtoD_v2"}},
	symMemcpyHtoDAsync:                {name: "cuMemcpyHtoDAsync", since: 3020, dlsym: []string{"cuMemcpyHtoDAsync_v2"}},
	symMemcpyDtoHAsync:                {name: "cuMemcpyDtoHAsync", since: 3020, dlsym: []string{"cuMemcpyDtoHAsync_v2"}},
	symMemcpyDtoDAsync:                {name: "cuMemcpyDtoDAsync", since: 3020, dlsym: []string{"cuMemcpyDtoDAsync_v2"}},
	symMemcpyPeer:                     {name: "cuMemcpyPeer", since: 4000},
	symMemcpyPeerAsync:                {name: "cuMemcpyPeerAsync", since: 4000},
	symMemsetD8:                       {name: "cuMemsetD8", since: 3020, dlsym: []string{"cuMemsetD8_v2"}},
	symMemsetD16:                      {name: "cuMemsetD16", since: 3020, dlsym: []string{"cuMemsetD16_v2"}},
	symMemsetD32:                      {name: "cuMemsetD32", since: 3020, dlsym: []string{"cuMemsetD32_v2"}},
	symMemsetD8Async:                  {name: "cuMemsetD8Async", since: 3020},
	symMemsetD16Async:                 {name: "cuMemsetD16Async", since: 3020},
	symMemsetD32Async:                 {name: "cuMemsetD32Async", since: 3020},
	symMemHostAlloc:                   {name: "cuMemHostAlloc", since: 2020},
	symMemFreeHost:                    {name: "cuMemFreeHost", since: 2000},
	symIpcGetMemHandle:                {name: "cuIpcGetMemHandle", since: 4010},
	symIpcOpenMemHandle:               {name: "cuIpcOpenMemHandle", since: 4010, dlsym: []string{"cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle"}},
	symIpcCloseMemHandle:              {name: "cuIpcCloseMemHandle", since: 4010},
	symModuleLoadData:                 {name: "cuModuleLoadData", since: 2000},
	symModuleUnload:                   {name: "cuModuleUnload", since: 2000},
	symModuleGetFunction:              {name: "cuModuleGetFunction", since: 2000},
	symFuncGetParamInfo:               {name: "cuFuncGetParamInfo", since: 12040},
	symFuncGetAttribute:               {name: "cuFuncGetAttribute", since: 2020},
	symFuncSetAttribute:               {name: "cuFuncSetAttribute", since: 9000},
	symLaunchKernel:                   {name: "cuLaunchKernel", since: 4000},
	symOccupancyMaxPotentialBlockSize: {name: "cuOccupancyMaxPotentialBlockSize", since: 6050},
	symGetErrorName:                   {name: "cuGetErrorName", since: 6000, direct: true},
	symGetErrorString:                 {name: "cuGetErrorString", since: 6000, direct: true},
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
