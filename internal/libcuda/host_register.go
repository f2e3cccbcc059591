//go:build linux && (amd64 || arm64)

package libcuda

import "github.com/nocgo/cuda/driver/backend"

// The methods of backend.HostRegistration (cuMemHostRegister, the _v2 ABI
// of 6.5, and cuMemHostUnregister) are generated from entrypoints.txt
// (zz_generated.go). The caller keeps registered memory in place until it
// is unregistered.
var _ backend.HostRegistration = (*libcuda)(nil)
