//go:build !(linux && (amd64 || arm64))

package fake

import "errors"

// Without Linux's memfd and fixed mappings, the fake has no virtual memory
// management: its entry points return CUDA_ERROR_NOT_SUPPORTED, as a
// driver without it does.

const vmmSupported = false

var errNoVMM = errors.New("fake: virtual memory management needs linux/amd64 or linux/arm64")

func osPhysCreate(uintptr, int32, uint32) (int, error) { return -1, errNoVMM }
func osFileKey(int) (vmmFileKey, uintptr, error)       { return vmmFileKey{}, 0, errNoVMM }
func osDup(int) (int, error)                           { return -1, errNoVMM }
func osClose(int)                                      {}
func osReserve(uintptr) ([]byte, error)                { return nil, errNoVMM }
func osRelease([]byte) error                           { return errNoVMM }
func osMapFixed([]byte, int, uintptr) error            { return errNoVMM }
func osUnmapFixed([]byte) error                        { return errNoVMM }
func osForeignPhys(int) (int32, uint32, bool)          { return 0, 0, false }
