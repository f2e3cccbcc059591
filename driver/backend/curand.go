package backend

import "strconv"

// RANDProvider is implemented by backends that come with random number
// generation (cuRAND's host API). The real backend opens libcurand on the
// first call; the fake answers with its own generators, computed on the CPU
// in stream order.
type RANDProvider interface {
	CURAND() (CURAND, error)
}

// CURAND is the seam to cuRAND's host API (libcurand): one method per entry
// point, generators (curandGenerator_t) and streams (cudaStream_t, which is
// a CUstream) as uintptr, device pointers as uintptr, counts in elements.
//
// CreateGenerator works on the calling OS thread's current context (cuRAND
// uses the CUDA runtime, which takes the current context): callers bind the
// context first, and keep it bound for every other call on the generator,
// since cuRAND allocates and launches through the runtime as well.
// Generation queues work on the generator's stream (SetStream; the NULL
// stream until then) and returns.
//
// Failed calls return a *RANDError (errors.Is with a RANDStatus).
type CURAND interface {
	// Version is curandGetVersion: major*1000 + minor*100 + patch (10.4.0 is 10400).
	Version() (int, error)
	// CreateGenerator is curandCreateGenerator.
	CreateGenerator(kind RNGType) (uintptr, error)
	// DestroyGenerator is curandDestroyGenerator.
	DestroyGenerator(g uintptr) error
	// SetStream is curandSetStream.
	SetStream(g, s uintptr) error
	// SetSeed is curandSetPseudoRandomGeneratorSeed (pseudo-random generators only).
	SetSeed(g uintptr, seed uint64) error
	// SetOffset is curandSetGeneratorOffset.
	SetOffset(g uintptr, offset uint64) error
	// SetOrdering is curandSetGeneratorOrdering.
	SetOrdering(g uintptr, o RANDOrdering) error
	// SetDimensions is curandSetQuasiRandomGeneratorDimensions (quasi-random generators only).
	SetDimensions(g uintptr, n uint32) error

	// Generate is curandGenerate: n 32-bit words at out.
	Generate(g, out, n uintptr) error
	// GenerateLongLong is curandGenerateLongLong: n 64-bit words (64-bit Sobol only).
	GenerateLongLong(g, out, n uintptr) error
	// GenerateUniform is curandGenerateUniform: n float32 in (0, 1].
	GenerateUniform(g, out, n uintptr) error
	// GenerateUniformDouble is curandGenerateUniformDouble.
	GenerateUniformDouble(g, out, n uintptr) error
	// GenerateNormal is curandGenerateNormal (n even for pseudo-random generators).
	GenerateNormal(g, out, n uintptr, mean, stddev float32) error
	// GenerateNormalDouble is curandGenerateNormalDouble.
	GenerateNormalDouble(g, out, n uintptr, mean, stddev float64) error
	// GenerateLogNormal is curandGenerateLogNormal.
	GenerateLogNormal(g, out, n uintptr, mean, stddev float32) error
	// GenerateLogNormalDouble is curandGenerateLogNormalDouble.
	GenerateLogNormalDouble(g, out, n uintptr, mean, stddev float64) error
	// GeneratePoisson is curandGeneratePoisson: n uint32 of mean lambda.
	GeneratePoisson(g, out, n uintptr, lambda float64) error
}

// RNGType is a curandRngType_t.
type RNGType int32

// The curandRngType_t values (curand.h).
const (
	RNGPseudoDefault    RNGType = 100
	RNGXORWOW           RNGType = 101
	RNGMRG32k3a         RNGType = 121
	RNGMTGP32           RNGType = 141
	RNGMT19937          RNGType = 142
	RNGPhilox4x32x10    RNGType = 161
	RNGQuasiDefault     RNGType = 200
	RNGSobol32          RNGType = 201
	RNGScrambledSobol32 RNGType = 202
	RNGSobol64          RNGType = 203
	RNGScrambledSobol64 RNGType = 204
)

// Quasi reports whether t is a quasi-random (Sobol) generator.
func (t RNGType) Quasi() bool { return t >= RNGQuasiDefault && t <= RNGScrambledSobol64 }

// Bits64 reports whether t generates 64-bit words (GenerateLongLong).
func (t RNGType) Bits64() bool { return t == RNGSobol64 || t == RNGScrambledSobol64 }

// RANDOrdering is a curandOrdering_t.
type RANDOrdering int32

// The curandOrdering_t values (curand.h).
const (
	OrderingPseudoBest    RANDOrdering = 100
	OrderingPseudoDefault RANDOrdering = 101
	OrderingPseudoSeeded  RANDOrdering = 102
	OrderingPseudoLegacy  RANDOrdering = 103
	OrderingPseudoDynamic RANDOrdering = 104
	OrderingQuasiDefault  RANDOrdering = 201
)

// RANDStatus is a curandStatus_t other than CURAND_STATUS_SUCCESS. It is an
// error; cuRAND failures are *RANDError values that match their RANDStatus
// with errors.Is.
type RANDStatus int32

// The curandStatus_t codes (curand.h).
const (
	RANDVersionMismatch         RANDStatus = 100
	RANDNotInitialized          RANDStatus = 101
	RANDAllocationFailed        RANDStatus = 102
	RANDTypeError               RANDStatus = 103
	RANDOutOfRange              RANDStatus = 104
	RANDLengthNotMultiple       RANDStatus = 105
	RANDDoublePrecisionRequired RANDStatus = 106
	RANDLaunchFailure           RANDStatus = 201
	RANDPreexistingFailure      RANDStatus = 202
	RANDInitializationFailed    RANDStatus = 203
	RANDArchMismatch            RANDStatus = 204
	RANDInternalError           RANDStatus = 999
)

var randNames = map[RANDStatus]string{
	RANDVersionMismatch:         "CURAND_STATUS_VERSION_MISMATCH",
	RANDNotInitialized:          "CURAND_STATUS_NOT_INITIALIZED",
	RANDAllocationFailed:        "CURAND_STATUS_ALLOCATION_FAILED",
	RANDTypeError:               "CURAND_STATUS_TYPE_ERROR",
	RANDOutOfRange:              "CURAND_STATUS_OUT_OF_RANGE",
	RANDLengthNotMultiple:       "CURAND_STATUS_LENGTH_NOT_MULTIPLE",
	RANDDoublePrecisionRequired: "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED",
	RANDLaunchFailure:           "CURAND_STATUS_LAUNCH_FAILURE",
	RANDPreexistingFailure:      "CURAND_STATUS_PREEXISTING_FAILURE",
	RANDInitializationFailed:    "CURAND_STATUS_INITIALIZATION_FAILED",
	RANDArchMismatch:            "CURAND_STATUS_ARCH_MISMATCH",
	RANDInternalError:           "CURAND_STATUS_INTERNAL_ERROR",
}

// Name returns the enumerator's name, "CURAND_STATUS_OUT_OF_RANGE" and the like.
func (s RANDStatus) Name() string {
	if n, ok := randNames[s]; ok {
		return n
	}
	return "curandStatus(" + strconv.Itoa(int(s)) + ")"
}

// Error returns the name.
func (s RANDStatus) Error() string { return s.Name() }

// RANDError is a failed cuRAND call: the status and the entry point.
type RANDError struct {
	Status RANDStatus
	Op     string // "curandGenerateNormal"
	Detail string // what the caller or the fake adds, "" for none
}

// Error returns "curandGenerateNormal: CURAND_STATUS_LENGTH_NOT_MULTIPLE: detail".
func (e *RANDError) Error() string {
	s := e.Op + ": " + e.Status.Name()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the RANDStatus.
func (e *RANDError) Unwrap() error { return e.Status }
