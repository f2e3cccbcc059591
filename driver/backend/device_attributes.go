package backend

// More CUdevice_attribute values: those read into driver.Properties beyond
// the ones named in api.go (cuda.h 13.0 numbering).
const (
	AttrMaxPitch                        DeviceAttribute = 11
	AttrTextureAlignment                DeviceAttribute = 14
	AttrKernelExecTimeout               DeviceAttribute = 17
	AttrTCCDriver                       DeviceAttribute = 35
	AttrStreamPrioritiesSupported       DeviceAttribute = 78
	AttrGlobalL1CacheSupported          DeviceAttribute = 79
	AttrLocalL1CacheSupported           DeviceAttribute = 80
	AttrMultiGPUBoard                   DeviceAttribute = 84
	AttrMultiGPUBoardGroupID            DeviceAttribute = 85
	AttrHostNativeAtomicSupported       DeviceAttribute = 86
	AttrSingleToDoublePerfRatio         DeviceAttribute = 87
	AttrPageableMemoryAccess            DeviceAttribute = 88
	AttrConcurrentManagedAccess         DeviceAttribute = 89
	AttrComputePreemptionSupported      DeviceAttribute = 90
	AttrCanUseHostPointerForRegistered  DeviceAttribute = 91
	AttrCooperativeLaunch               DeviceAttribute = 95
	AttrHostRegisterSupported           DeviceAttribute = 99
	AttrPageableMemoryUsesHostPageTable DeviceAttribute = 100
	AttrDirectManagedMemAccessFromHost  DeviceAttribute = 101
	AttrVirtualMemoryManagementSupport  DeviceAttribute = 102
	AttrMaxBlocksPerMultiprocessor      DeviceAttribute = 106
	AttrMaxPersistingL2CacheSize        DeviceAttribute = 108
	AttrMaxAccessPolicyWindowSize       DeviceAttribute = 109
	AttrReservedSharedMemoryPerBlock    DeviceAttribute = 111
	AttrClusterLaunch                   DeviceAttribute = 120
	AttrMemSyncDomainCount              DeviceAttribute = 126
	AttrNUMAID                          DeviceAttribute = 131
)
