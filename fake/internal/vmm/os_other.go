//go:build !(linux && (amd64 || arm64))

package vmm

import "errors"

// Without Linux's memfd and fixed mappings, the fake has no virtual memory
// management: its entry points return CUDA_ERROR_NOT_SUPPORTED, as a
// driver without it does.

// Supported reports whether this build of the fake has virtual memory
// management: not without Linux's memfd and fixed mappings.
const Supported = false

var errNoVMM = errors.New("fake: virtual memory management needs linux/amd64 or linux/arm64")

func osPhysCreate(uintptr, int32, uint32, byte) (int, error) { return -1, errNoVMM }
func osFileKey(int) (fileKey, uintptr, error)                { return fileKey{}, 0, errNoVMM }
func osDup(int) (int, error)                                 { return -1, errNoVMM }
func osClose(int)                                            {}
func osReserve(uintptr) ([]byte, error)                      { return nil, errNoVMM }
func osRelease([]byte) error                                 { return errNoVMM }
func osMapFixed([]byte, int, uintptr) error                  { return errNoVMM }
func osUnmapFixed([]byte) error                              { return errNoVMM }
func osForeignPhys(int) (int32, uint32, bool)                { return 0, 0, false }
