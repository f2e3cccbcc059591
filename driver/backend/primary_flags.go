package backend

// PrimaryContextFlags is implemented by backends that set the flags of a
// device's primary context: DevicePrimaryCtxSetFlags is
// cuDevicePrimaryCtxSetFlags_v2 (CUDA 11.0+), which overwrites the flags
// the primary context is (or will next be) made with, active or not
// (API.DevicePrimaryCtxGetState reads them back). Flags outside the
// documented CU_CTX_* bits, or two scheduling flags at once, are
// ErrInvalidValue. It reads no current context.
type PrimaryContextFlags interface {
	DevicePrimaryCtxSetFlags(dev int, flags uint32) error
}
