package nccl

import (
	"strconv"

	"github.com/nocgo/cuda/driver/backend"
)

// Float16 is an IEEE 754 half-precision number as its raw 16 bits (NCCL's
// ncclFloat16). Go has no such type: convert with a library of your choice
// (or math.Float32bits and rounding); NCCL reduces in the type itself.
type Float16 uint16

// BFloat16 is a bfloat16 number as its raw 16 bits (NCCL's ncclBfloat16):
// the high half of a float32, so BFloat16(math.Float32bits(f) >> 16)
// truncates a float32 to it.
type BFloat16 uint16

// Elem is the element types NCCL reduces and moves: each maps to one
// ncclDataType_t. Go's int and uint are not among them (their size depends
// on the platform); use int64 or int32.
type Elem interface {
	int8 | uint8 | int32 | uint32 | int64 | uint64 | float32 | float64 | Float16 | BFloat16
}

// dataType maps T to its ncclDataType_t. It converts a nil *T, never a T, to
// an interface: that never allocates.
func dataType[T Elem]() backend.NCCLDataType {
	switch any((*T)(nil)).(type) {
	case *int8:
		return backend.NCCLInt8
	case *uint8:
		return backend.NCCLUint8
	case *int32:
		return backend.NCCLInt32
	case *uint32:
		return backend.NCCLUint32
	case *int64:
		return backend.NCCLInt64
	case *uint64:
		return backend.NCCLUint64
	case *float32:
		return backend.NCCLFloat32
	case *float64:
		return backend.NCCLFloat64
	case *Float16:
		return backend.NCCLFloat16
	default: // *BFloat16, the only type left in Elem
		return backend.NCCLBfloat16
	}
}

// Op is a reduction operation (ncclRedOp_t).
type Op int32

// The reductions. Avg is Sum divided by the number of ranks, in the
// element type (integer division for integers).
const (
	Sum  Op = Op(backend.NCCLSum)
	Prod Op = Op(backend.NCCLProd)
	Max  Op = Op(backend.NCCLMax)
	Min  Op = Op(backend.NCCLMin)
	Avg  Op = Op(backend.NCCLAvg)
)

// String returns "sum", "prod", "max", "min" or "avg".
func (o Op) String() string {
	switch o {
	case Sum:
		return "sum"
	case Prod:
		return "prod"
	case Max:
		return "max"
	case Min:
		return "min"
	case Avg:
		return "avg"
	}
	return "nccl.Op(" + itoa(int(o)) + ")"
}

func (o Op) valid() bool { return o >= Sum && o <= Avg }

// Result is an ncclResult_t other than ncclSuccess; match errors with it:
// errors.Is(err, nccl.InvalidArgument). Failures of NCCL are *Error values.
//
// It is backend.NCCLResult under the user's name (an alias, so that a
// backend's errors reach users unconverted): users never need to import
// driver/backend.
type Result = backend.NCCLResult

// Error is a failed NCCL call: its Result, the entry point, NCCL's own text
// for the result and the detail of ncclGetLastError.
//
// It is backend.NCCLError under the user's name (an alias): users never need
// to import driver/backend.
type Error = backend.NCCLError

// The ncclResult_t codes.
const (
	UnhandledCudaError = backend.NCCLUnhandledCudaError
	SystemError        = backend.NCCLSystemError
	InternalError      = backend.NCCLInternalError
	InvalidArgument    = backend.NCCLInvalidArgument
	InvalidUsage       = backend.NCCLInvalidUsage
	RemoteError        = backend.NCCLRemoteError
	InProgress         = backend.NCCLInProgress
	Timeout            = backend.NCCLTimeout
)

func itoa(v int) string { return strconv.Itoa(v) }
