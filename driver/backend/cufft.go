package backend

import "strconv"

// FFTProvider is implemented by backends that come with fast Fourier
// transforms (cuFFT). The real backend opens libcufft on the first call; the
// fake answers with its own plans, computed on the CPU in stream order.
type FFTProvider interface {
	CUFFT() (CUFFT, error)
}

// CUFFT is the seam to cuFFT (libcufft): one method per entry point, plans
// (cufftHandle, an int in C) and streams (cudaStream_t) as uintptr, device
// pointers as uintptr.
//
// Create and MakePlanMany work on the calling OS thread's current context
// (cuFFT uses the CUDA runtime): callers bind the context first, and keep it
// bound for every call on the plan. Exec calls queue work on the plan's
// stream (SetStream; the NULL stream until then) and return.
//
// Failed calls return an *FFTError (errors.Is with an FFTResult).
type CUFFT interface {
	// Version is cufftGetVersion: 12000 and the like.
	Version() (int, error)
	// Create is cufftCreate: an empty plan handle.
	Create() (uintptr, error)
	// Destroy is cufftDestroy.
	Destroy(plan uintptr) error
	// SetAutoAllocation is cufftSetAutoAllocation (before MakePlanMany).
	SetAutoAllocation(plan uintptr, auto bool) error
	// MakePlanMany is cufftMakePlanMany64: it returns the work area's size in bytes.
	MakePlanMany(plan uintptr, p *FFTPlan) (workSize uintptr, err error)
	// GetSize is cufftGetSize: the work area's size in bytes.
	GetSize(plan uintptr) (uintptr, error)
	// SetWorkArea is cufftSetWorkArea.
	SetWorkArea(plan, area uintptr) error
	// SetStream is cufftSetStream.
	SetStream(plan, s uintptr) error
	// ExecC2C is cufftExecC2C (complex64), dir FFTForward or FFTInverse.
	ExecC2C(plan, in, out uintptr, dir FFTDirection) error
	// ExecZ2Z is cufftExecZ2Z (complex128).
	ExecZ2Z(plan, in, out uintptr, dir FFTDirection) error
	// ExecR2C is cufftExecR2C (float32 to complex64, forward).
	ExecR2C(plan, in, out uintptr) error
	// ExecD2Z is cufftExecD2Z (float64 to complex128, forward).
	ExecD2Z(plan, in, out uintptr) error
	// ExecC2R is cufftExecC2R (complex64 to float32, inverse).
	ExecC2R(plan, in, out uintptr) error
	// ExecZ2D is cufftExecZ2D (complex128 to float64, inverse).
	ExecZ2D(plan, in, out uintptr) error
}

// FFTPlan is what cufftMakePlanMany64 takes: the transform's sizes (rank
// 1 to 3, slowest-varying first), the advanced data layout (nil InEmbed and
// OutEmbed for the basic layout, where the strides and distances are
// ignored), the type and the batch count.
type FFTPlan struct {
	N              []int64
	InEmbed        []int64
	IStride, IDist int64
	OutEmbed       []int64
	OStride, ODist int64
	Type           FFTType
	Batch          int64
}

// FFTType is a cufftType.
type FFTType int32

// The cufftType values (cufft.h).
const (
	FFTR2C FFTType = 0x2a
	FFTC2R FFTType = 0x2c
	FFTC2C FFTType = 0x29
	FFTD2Z FFTType = 0x6a
	FFTZ2D FFTType = 0x6c
	FFTZ2Z FFTType = 0x69
)

// Double reports whether t is a double-precision transform.
func (t FFTType) Double() bool { return t == FFTD2Z || t == FFTZ2D || t == FFTZ2Z }

// Valid reports whether t is one of the six cufftType values.
func (t FFTType) Valid() bool {
	switch t {
	case FFTR2C, FFTC2R, FFTC2C, FFTD2Z, FFTZ2D, FFTZ2Z:
		return true
	}
	return false
}

// String returns "CUFFT_C2C" and the like.
func (t FFTType) String() string {
	switch t {
	case FFTR2C:
		return "CUFFT_R2C"
	case FFTC2R:
		return "CUFFT_C2R"
	case FFTC2C:
		return "CUFFT_C2C"
	case FFTD2Z:
		return "CUFFT_D2Z"
	case FFTZ2D:
		return "CUFFT_Z2D"
	case FFTZ2Z:
		return "CUFFT_Z2Z"
	}
	return "cufftType(" + strconv.Itoa(int(t)) + ")"
}

// FFTDirection is CUFFT_FORWARD (-1) or CUFFT_INVERSE (1).
type FFTDirection int32

// The transform directions (cufft.h).
const (
	FFTForward FFTDirection = -1
	FFTInverse FFTDirection = 1
)

// FFTResult is a cufftResult other than CUFFT_SUCCESS. It is an error;
// cuFFT failures are *FFTError values that match their FFTResult with
// errors.Is.
type FFTResult int32

// The cufftResult codes (cufft.h).
const (
	FFTInvalidPlan             FFTResult = 1
	FFTAllocFailed             FFTResult = 2
	FFTInvalidType             FFTResult = 3
	FFTInvalidValue            FFTResult = 4
	FFTInternalError           FFTResult = 5
	FFTExecFailed              FFTResult = 6
	FFTSetupFailed             FFTResult = 7
	FFTInvalidSize             FFTResult = 8
	FFTUnalignedData           FFTResult = 9
	FFTIncompleteParameterList FFTResult = 10
	FFTInvalidDevice           FFTResult = 11
	FFTParseError              FFTResult = 12
	FFTNoWorkspace             FFTResult = 13
	FFTNotImplemented          FFTResult = 14
	FFTLicenseError            FFTResult = 15
	FFTNotSupported            FFTResult = 16
)

var fftNames = map[FFTResult]string{
	FFTInvalidPlan:             "CUFFT_INVALID_PLAN",
	FFTAllocFailed:             "CUFFT_ALLOC_FAILED",
	FFTInvalidType:             "CUFFT_INVALID_TYPE",
	FFTInvalidValue:            "CUFFT_INVALID_VALUE",
	FFTInternalError:           "CUFFT_INTERNAL_ERROR",
	FFTExecFailed:              "CUFFT_EXEC_FAILED",
	FFTSetupFailed:             "CUFFT_SETUP_FAILED",
	FFTInvalidSize:             "CUFFT_INVALID_SIZE",
	FFTUnalignedData:           "CUFFT_UNALIGNED_DATA",
	FFTIncompleteParameterList: "CUFFT_INCOMPLETE_PARAMETER_LIST",
	FFTInvalidDevice:           "CUFFT_INVALID_DEVICE",
	FFTParseError:              "CUFFT_PARSE_ERROR",
	FFTNoWorkspace:             "CUFFT_NO_WORKSPACE",
	FFTNotImplemented:          "CUFFT_NOT_IMPLEMENTED",
	FFTLicenseError:            "CUFFT_LICENSE_ERROR",
	FFTNotSupported:            "CUFFT_NOT_SUPPORTED",
}

// Name returns the enumerator's name, "CUFFT_INVALID_SIZE" and the like.
func (r FFTResult) Name() string {
	if n, ok := fftNames[r]; ok {
		return n
	}
	return "cufftResult(" + strconv.Itoa(int(r)) + ")"
}

// Error returns the name.
func (r FFTResult) Error() string { return r.Name() }

// FFTError is a failed cuFFT call: the result and the entry point.
type FFTError struct {
	Result FFTResult
	Op     string // "cufftExecC2C"
	Detail string // what the caller or the fake adds, "" for none
}

// Error returns "cufftExecC2C: CUFFT_INVALID_PLAN: detail".
func (e *FFTError) Error() string {
	s := e.Op + ": " + e.Result.Name()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the FFTResult.
func (e *FFTError) Unwrap() error { return e.Result }
