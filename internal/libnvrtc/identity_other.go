//go:build !(linux && (amd64 || arm64))

package libnvrtc

import "github.com/nocgo/cuda/driver/backend"

// Identity is always unknown here: run-time loading is built for
// linux/amd64 and linux/arm64 only.
func Identity() (string, bool) { return "", false }

// Absent is never sure here (see Identity).
func Absent() bool { return false }

// IdentityOf is always unknown here (see Identity).
func IdentityOf(backend.NVRTC) (string, bool) { return "", false }
