package module

import "github.com/nocgo/cuda/driver/backend"

// FunctionAttribute is a CUfunction_attribute, read with
// Function.Attribute. Any CUfunction_attribute value can be passed as
// FunctionAttribute(n); Function.Attributes reads the common ones at once.
//
// It is backend.FunctionAttribute under the user's name (an alias, so that
// values pass between a backend and users unconverted): users never need to
// import driver/backend.
type FunctionAttribute = backend.FunctionAttribute

// Function attributes.
const (
	FuncMaxThreadsPerBlock      = backend.FuncMaxThreadsPerBlock
	FuncSharedSizeBytes         = backend.FuncSharedSizeBytes
	FuncConstSizeBytes          = backend.FuncConstSizeBytes
	FuncLocalSizeBytes          = backend.FuncLocalSizeBytes
	FuncNumRegs                 = backend.FuncNumRegs
	FuncPTXVersion              = backend.FuncPTXVersion
	FuncBinaryVersion           = backend.FuncBinaryVersion
	FuncMaxDynamicSharedSize    = backend.FuncMaxDynamicSharedSize
	FuncPreferredSharedCarveout = backend.FuncPreferredSharedCarveout
)
