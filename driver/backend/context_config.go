package backend

// ContextConfig is implemented by backends that read and set a context's
// resource limits and cache preferences. Every method works on the calling
// thread's current context, as the driver does:
//
//   - CtxSetLimit and CtxGetLimit are cuCtxSetLimit and cuCtxGetLimit: the
//     value is a size in bytes or a count, as the Limit says. The driver
//     may round or clamp what it is given (CtxGetLimit reads what it kept);
//     a limit the device does not have is ErrUnsupportedLimit, one the
//     driver does not know ErrInvalidValue.
//   - CtxSetCacheConfig and CtxGetCacheConfig are cuCtxSetCacheConfig and
//     cuCtxGetCacheConfig: a preference between L1 cache and shared memory,
//     which the driver may ignore.
//   - CtxSetSharedMemConfig and CtxGetSharedMemConfig are
//     cuCtxSetSharedMemConfig and cuCtxGetSharedMemConfig (deprecated since
//     CUDA 12.3, still in 13): the shared-memory bank size, which no device
//     since Kepler can change.
type ContextConfig interface {
	CtxSetLimit(limit Limit, value uintptr) error
	CtxGetLimit(limit Limit) (uintptr, error)
	CtxSetCacheConfig(config CacheConfig) error
	CtxGetCacheConfig() (CacheConfig, error)
	CtxSetSharedMemConfig(config SharedMemConfig) error
	CtxGetSharedMemConfig() (SharedMemConfig, error)
}

// Limit is a CUlimit.
type Limit uint32

// The CUlimit values of cuda.h 13.0.
const (
	LimitStackSize                    Limit = 0x0 // CU_LIMIT_STACK_SIZE: bytes of stack per GPU thread
	LimitPrintfFIFOSize               Limit = 0x1 // CU_LIMIT_PRINTF_FIFO_SIZE: bytes of the device printf FIFO
	LimitMallocHeapSize               Limit = 0x2 // CU_LIMIT_MALLOC_HEAP_SIZE: bytes of the device malloc heap
	LimitDevRuntimeSyncDepth          Limit = 0x3 // CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: grid depth of device-side cudaDeviceSynchronize (compute capability < 9.0 only)
	LimitDevRuntimePendingLaunchCount Limit = 0x4 // CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: outstanding device-side launches
	LimitMaxL2FetchGranularity        Limit = 0x5 // CU_LIMIT_MAX_L2_FETCH_GRANULARITY: bytes, 0 to 128, a hint
	LimitPersistingL2CacheSize        Limit = 0x6 // CU_LIMIT_PERSISTING_L2_CACHE_SIZE: bytes of L2 set aside for persisting accesses, a hint
	LimitSharedMemSize                Limit = 0x7 // CU_LIMIT_SHMEM_SIZE: bytes of shared memory for kernels of a CIG context; read only
	LimitCIGEnabled                   Limit = 0x8 // CU_LIMIT_CIG_ENABLED: whether the context is a CIG (CUDA in graphics) context; read only
	LimitCIGSharedMemFallbackEnabled  Limit = 0x9 // CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED: whether kernels of a CIG context may fall back to less shared memory
	LimitMax                          Limit = 0xa // CU_LIMIT_MAX: limits at or above it are ErrInvalidValue
)

// CacheConfig is a CUfunc_cache.
type CacheConfig uint32

// The CUfunc_cache values.
const (
	CachePreferNone   CacheConfig = 0x0 // CU_FUNC_CACHE_PREFER_NONE
	CachePreferShared CacheConfig = 0x1 // CU_FUNC_CACHE_PREFER_SHARED
	CachePreferL1     CacheConfig = 0x2 // CU_FUNC_CACHE_PREFER_L1
	CachePreferEqual  CacheConfig = 0x3 // CU_FUNC_CACHE_PREFER_EQUAL
)

// SharedMemConfig is a CUsharedconfig.
type SharedMemConfig uint32

// The CUsharedconfig values.
const (
	SharedMemBankSizeDefault   SharedMemConfig = 0x0 // CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE
	SharedMemBankSizeFourByte  SharedMemConfig = 0x1 // CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE
	SharedMemBankSizeEightByte SharedMemConfig = 0x2 // CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
)

// ErrUnsupportedLimit is CUDA_ERROR_UNSUPPORTED_LIMIT (215): a CUlimit the
// device does not have (CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH from compute
// capability 9.0 on, the CIG limits outside a CIG context).
const ErrUnsupportedLimit Result = 215
