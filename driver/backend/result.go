package backend

import "fmt"

// Result is a CUresult, the status code every driver API call returns. The
// zero value is success; every other value is an error whose text is the CUDA
// name and description ("CUDA_ERROR_INVALID_VALUE: invalid argument"), and
// which matches the exported constants with errors.Is:
//
//	if errors.Is(err, driver.ErrNotReady) { ... }
type Result uint32

// Success is CUDA_SUCCESS. It is not an error: API calls that succeed return it,
// and the typed wrappers turn it into a nil error.
const Success Result = 0

// The CUresult codes the library names. Any other code is still a Result and
// still prints its number.
const (
	ErrInvalidValue            Result = 1
	ErrOutOfMemory             Result = 2
	ErrNotInitialized          Result = 3
	ErrDeinitialized           Result = 4
	ErrStubLibrary             Result = 34
	ErrDeviceUnavailable       Result = 46
	ErrNoDevice                Result = 100
	ErrInvalidDevice           Result = 101
	ErrInvalidImage            Result = 200
	ErrInvalidContext          Result = 201
	ErrContextAlreadyCurrent   Result = 202
	ErrNoBinaryForGPU          Result = 209
	ErrPeerAccessUnsupported   Result = 217
	ErrInvalidPTX              Result = 218
	ErrUnsupportedPTXVersion   Result = 222
	ErrInvalidSource           Result = 300
	ErrFileNotFound            Result = 301
	ErrInvalidHandle           Result = 400
	ErrIllegalState            Result = 401
	ErrNotFound                Result = 500
	ErrNotReady                Result = 600
	ErrIllegalAddress          Result = 700
	ErrLaunchOutOfResources    Result = 701
	ErrPeerAccessAlreadyEnabled Result = 704
	ErrPeerAccessNotEnabled    Result = 705
	ErrPrimaryContextActive    Result = 708
	ErrContextIsDestroyed      Result = 709
	ErrLaunchFailed            Result = 719
	ErrNotPermitted            Result = 800
	ErrNotSupported            Result = 801
	ErrUnknown                 Result = 999
)

type resultText struct{ name, text string }

// results names every CUresult of cuda.h 13.0, with the text cuGetErrorString
// gives for it, so that errors read the same on every backend and before any
// driver is loaded.
var results = map[Result]resultText{
	0:   {"CUDA_SUCCESS", "no error"},
	1:   {"CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	2:   {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	3:   {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	4:   {"CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
	5:   {"CUDA_ERROR_PROFILER_DISABLED", "profiler disabled while using external profiling tool"},
	34:  {"CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
	46:  {"CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
	100: {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	101: {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	102: {"CUDA_ERROR_DEVICE_NOT_LICENSED", "device doesn't have valid Grid license"},
	200: {"CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
	201: {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	202: {"CUDA_ERROR_CONTEXT_ALREADY_CURRENT", "context already current"},
	205: {"CUDA_ERROR_MAP_FAILED", "mapping of buffer object failed"},
	206: {"CUDA_ERROR_UNMAP_FAILED", "unmapping of buffer object failed"},
	209: {"CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
	215: {"CUDA_ERROR_UNSUPPORTED_LIMIT", "limit is not supported on this architecture"},
	216: {"CUDA_ERROR_CONTEXT_ALREADY_IN_USE", "exclusive-thread device already in use by a different thread"},
	217: {"CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these two devices"},
	218: {"CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
	221: {"CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "PTX JIT compiler library not found"},
	222: {"CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain."},
	300: {"CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
	301: {"CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
	302: {"CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", "link to a shared object failed to resolve"},
	303: {"CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "shared object initialization failed"},
	304: {"CUDA_ERROR_OPERATING_SYSTEM", "OS call failed or operation not supported on this OS"},
	400: {"CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	401: {"CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state"},
	500: {"CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	600: {"CUDA_ERROR_NOT_READY", "device not ready"},
	700: {"CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
	701: {"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
	702: {"CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
	704: {"CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"},
	705: {"CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled"},
	708: {"CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", "cannot set while device is active in this process"},
	709: {"CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
	710: {"CUDA_ERROR_ASSERT", "device-side assert triggered"},
	712: {"CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "part or all of the requested memory range is already mapped"},
	713: {"CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "pointer does not correspond to a registered memory region"},
	715: {"CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"},
	716: {"CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
	719: {"CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
	720: {"CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "too many blocks in cooperative launch"},
	800: {"CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
	801: {"CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
	802: {"CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized"},
	803: {"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination"},
	900: {"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing"},
	999: {"CUDA_ERROR_UNKNOWN", "unknown error"},
}

// Name returns the CUDA name of r, such as "CUDA_ERROR_INVALID_VALUE".
func (r Result) Name() string {
	n, _ := r.describe()
	return n
}

// Error returns "NAME: description".
func (r Result) Error() string {
	n, t := r.describe()
	return n + ": " + t
}

func (r Result) describe() (string, string) {
	if e, ok := results[r]; ok {
		return e.name, e.text
	}
	return fmt.Sprintf("CUDA_ERROR_%d", uint32(r)), "unrecognized error code"
}

// Err returns nil for Success and r otherwise, for code that holds a Result
// and must return an error.
func (r Result) Err() error {
	if r == Success {
		return nil
	}
	return r
}

// boxed holds every CUresult below 1000 already converted to error, so that
// Check never allocates, even on the hot path's NOT_READY.
var boxed = func() (b [1000]error) {
	for i := range b {
		b[i] = Result(i)
	}
	return b
}()

// Check turns a raw CUresult into an error: nil for CUDA_SUCCESS, a Result
// otherwise. It does not allocate. Backends use it to return results.
func Check(code uintptr) error {
	if code == 0 {
		return nil
	}
	if code < uintptr(len(boxed)) {
		return boxed[code]
	}
	return Result(uint32(code))
}
