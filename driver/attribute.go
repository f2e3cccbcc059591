package driver

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// DeviceAttribute is a CUdevice_attribute, read with Device.Attribute. Any
// CUdevice_attribute value can be passed as DeviceAttribute(n).
//
// It is backend.DeviceAttribute under the user's name (an alias, so that
// values pass between a backend and users unconverted): users never need
// to import driver/backend.
type DeviceAttribute = backend.DeviceAttribute

// Device attributes the library names.
const (
	AttrMaxThreadsPerBlock            = backend.AttrMaxThreadsPerBlock
	AttrMaxBlockDimX                  = backend.AttrMaxBlockDimX
	AttrMaxBlockDimY                  = backend.AttrMaxBlockDimY
	AttrMaxBlockDimZ                  = backend.AttrMaxBlockDimZ
	AttrMaxGridDimX                   = backend.AttrMaxGridDimX
	AttrMaxGridDimY                   = backend.AttrMaxGridDimY
	AttrMaxGridDimZ                   = backend.AttrMaxGridDimZ
	AttrMaxSharedMemoryPerBlock       = backend.AttrMaxSharedMemoryPerBlock
	AttrTotalConstantMemory           = backend.AttrTotalConstantMemory
	AttrWarpSize                      = backend.AttrWarpSize
	AttrMaxRegistersPerBlock          = backend.AttrMaxRegistersPerBlock
	AttrClockRate                     = backend.AttrClockRate
	AttrMultiprocessorCount           = backend.AttrMultiprocessorCount
	AttrIntegrated                    = backend.AttrIntegrated
	AttrCanMapHostMemory              = backend.AttrCanMapHostMemory
	AttrComputeMode                   = backend.AttrComputeMode
	AttrConcurrentKernels             = backend.AttrConcurrentKernels
	AttrECCEnabled                    = backend.AttrECCEnabled
	AttrPCIBusID                      = backend.AttrPCIBusID
	AttrPCIDeviceID                   = backend.AttrPCIDeviceID
	AttrMemoryClockRate               = backend.AttrMemoryClockRate
	AttrGlobalMemoryBusWidth          = backend.AttrGlobalMemoryBusWidth
	AttrL2CacheSize                   = backend.AttrL2CacheSize
	AttrMaxThreadsPerMultiprocessor   = backend.AttrMaxThreadsPerMultiprocessor
	AttrAsyncEngineCount              = backend.AttrAsyncEngineCount
	AttrUnifiedAddressing             = backend.AttrUnifiedAddressing
	AttrPCIDomainID                   = backend.AttrPCIDomainID
	AttrComputeCapabilityMajor        = backend.AttrComputeCapabilityMajor
	AttrComputeCapabilityMinor        = backend.AttrComputeCapabilityMinor
	AttrManagedMemory                 = backend.AttrManagedMemory
	AttrMaxSharedMemoryPerMultiproc   = backend.AttrMaxSharedMemoryPerMultiproc
	AttrMaxRegistersPerMultiprocessor = backend.AttrMaxRegistersPerMultiprocessor
	AttrMaxSharedMemoryPerBlockOptin  = backend.AttrMaxSharedMemoryPerBlockOptin
	AttrMemoryPoolsSupported          = backend.AttrMemoryPoolsSupported

	// Read into Properties as well.
	AttrMaxPitch                        = backend.AttrMaxPitch
	AttrTextureAlignment                = backend.AttrTextureAlignment
	AttrKernelExecTimeout               = backend.AttrKernelExecTimeout
	AttrTCCDriver                       = backend.AttrTCCDriver
	AttrStreamPrioritiesSupported       = backend.AttrStreamPrioritiesSupported
	AttrGlobalL1CacheSupported          = backend.AttrGlobalL1CacheSupported
	AttrLocalL1CacheSupported           = backend.AttrLocalL1CacheSupported
	AttrMultiGPUBoard                   = backend.AttrMultiGPUBoard
	AttrMultiGPUBoardGroupID            = backend.AttrMultiGPUBoardGroupID
	AttrHostNativeAtomicSupported       = backend.AttrHostNativeAtomicSupported
	AttrSingleToDoublePerfRatio         = backend.AttrSingleToDoublePerfRatio
	AttrPageableMemoryAccess            = backend.AttrPageableMemoryAccess
	AttrConcurrentManagedAccess         = backend.AttrConcurrentManagedAccess
	AttrComputePreemptionSupported      = backend.AttrComputePreemptionSupported
	AttrCanUseHostPointerForRegistered  = backend.AttrCanUseHostPointerForRegistered
	AttrCooperativeLaunch               = backend.AttrCooperativeLaunch
	AttrHostRegisterSupported           = backend.AttrHostRegisterSupported
	AttrPageableMemoryUsesHostPageTable = backend.AttrPageableMemoryUsesHostPageTable
	AttrDirectManagedMemAccessFromHost  = backend.AttrDirectManagedMemAccessFromHost
	AttrVirtualMemoryManagementSupport  = backend.AttrVirtualMemoryManagementSupport
	AttrMaxBlocksPerMultiprocessor      = backend.AttrMaxBlocksPerMultiprocessor
	AttrMaxPersistingL2CacheSize        = backend.AttrMaxPersistingL2CacheSize
	AttrMaxAccessPolicyWindowSize       = backend.AttrMaxAccessPolicyWindowSize
	AttrReservedSharedMemoryPerBlock    = backend.AttrReservedSharedMemoryPerBlock
	AttrClusterLaunch                   = backend.AttrClusterLaunch
	AttrMemSyncDomainCount              = backend.AttrMemSyncDomainCount
	AttrNUMAID                          = backend.AttrNUMAID
)

// ComputeMode is a CUcomputemode (with the same values), the value of
// AttrComputeMode and Properties.ComputeMode.
type ComputeMode int

// Compute modes.
const (
	ComputeModeDefault          ComputeMode = 0 // many contexts, from many processes
	ComputeModeProhibited       ComputeMode = 2 // no context can be made
	ComputeModeExclusiveProcess ComputeMode = 3 // one process at a time
)

// String returns the CUcomputemode's name ("CU_COMPUTEMODE_DEFAULT").
func (m ComputeMode) String() string {
	switch m {
	case ComputeModeDefault:
		return "CU_COMPUTEMODE_DEFAULT"
	case ComputeModeProhibited:
		return "CU_COMPUTEMODE_PROHIBITED"
	case ComputeModeExclusiveProcess:
		return "CU_COMPUTEMODE_EXCLUSIVE_PROCESS"
	}
	return fmt.Sprintf("CUcomputemode(%d)", int(m))
}
