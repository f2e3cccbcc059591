package driver

import (
	"fmt"
	"sync"
)

// Properties are a device's fixed properties, what cudaDeviceProp,
// cuda.core's DeviceProperties and torch.cuda.get_device_properties give:
// read from the driver (cuDeviceGetName, cuDeviceGetUuid, cuDeviceTotalMem,
// cuDeviceGetPCIBusId and one cuDeviceGetAttribute per field) by
// Device.Properties. Sizes are in bytes, clock rates in kHz; booleans are
// the driver's 0 or 1. The value belongs to the caller.
type Properties struct {
	Name        string // marketing name, such as "NVIDIA H200"
	UUID        string // as nvidia-smi prints it: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
	PCIBusIDStr string // "0000:19:00.0", as cuDeviceGetPCIBusId gives it
	TotalMemory uint64 // global memory

	Major, Minor int // compute capability (9, 0 on an H200)

	MultiprocessorCount int
	ClockRateKHz        int // peak SM clock
	MemoryClockRateKHz  int // peak memory clock
	MemoryBusWidth      int // bits
	L2CacheSize         int
	// PersistingL2CacheMaxSize is the most L2 that
	// Context.SetLimit(LimitPersistingL2CacheSize, ...) can set aside.
	PersistingL2CacheMaxSize  int
	AccessPolicyMaxWindowSize int

	MaxThreadsPerBlock          int
	MaxThreadsPerMultiprocessor int
	MaxBlocksPerMultiprocessor  int
	MaxBlockDim                 [3]int
	MaxGridDim                  [3]int
	WarpSize                    int
	RegistersPerBlock           int // 32-bit registers
	RegistersPerMultiprocessor  int
	SharedMemPerBlock           int // without opting in
	// SharedMemPerBlockOptin is the most a kernel can have after opting in
	// (module.Function's max dynamic shared memory attribute).
	SharedMemPerBlockOptin     int
	SharedMemPerMultiprocessor int
	ReservedSharedMemPerBlock  int // taken by the system from each block
	TotalConstantMemory        int
	MaxPitch                   int // of memory.Pitched allocations
	TextureAlignment           int

	ConcurrentKernels          bool
	AsyncEngineCount           int // copy engines that overlap with kernels
	ECCEnabled                 bool
	PCIDomainID                int
	PCIBusID                   int
	PCIDeviceID                int
	Integrated                 bool // shares memory with the host
	CanMapHostMemory           bool
	UnifiedAddressing          bool
	ManagedMemory              bool
	ConcurrentManagedAccess    bool
	PageableMemoryAccess       bool
	CooperativeLaunch          bool
	ClusterLaunch              bool
	ComputeMode                ComputeMode
	MemoryPoolsSupported       bool
	StreamPrioritiesSupported  bool
	GlobalL1CacheSupported     bool
	LocalL1CacheSupported      bool
	KernelExecTimeout          bool // a watchdog limits kernel run time
	TCCDriver                  bool
	MultiGPUBoard              bool
	MultiGPUBoardGroupID       int
	HostNativeAtomicSupported  bool
	SingleToDoublePerfRatio    int
	ComputePreemptionSupported bool
	HostRegisterSupported      bool
	VirtualMemoryManagement    bool
	MemSyncDomainCount         int
	NUMAID                     int // -1 where the device is no NUMA node
}

// propsCache is a Device's Properties, read once.
type propsCache struct {
	mu sync.Mutex
	p  *Properties
}

// Properties returns the device's properties. The first call reads them
// from the driver (some sixty calls); later calls return the same values
// without a driver call, since none of them changes while the process
// runs. A failed read is not kept: the next call tries again. Safe for
// concurrent use.
func (d *Device) Properties() (Properties, error) {
	const op = "driver.Device.Properties"
	if d == nil || d.drv == nil {
		return Properties{}, nilDevice(op)
	}
	d.props.mu.Lock()
	defer d.props.mu.Unlock()
	if d.props.p == nil {
		p, err := d.readProperties(op)
		if err != nil {
			return Properties{}, err
		}
		d.props.p = p
	}
	return *d.props.p, nil
}

// readProperties asks the driver for every field of Properties.
func (d *Device) readProperties(op string) (*Properties, error) {
	p := new(Properties)
	var err error
	if p.Name, err = d.Name(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if p.UUID, err = d.UUID(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if p.PCIBusIDStr, err = d.PCIBusID(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if p.TotalMemory, err = d.TotalMemory(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var mode int
	ints := []struct {
		a   DeviceAttribute
		dst *int
	}{
		{AttrComputeCapabilityMajor, &p.Major},
		{AttrComputeCapabilityMinor, &p.Minor},
		{AttrMultiprocessorCount, &p.MultiprocessorCount},
		{AttrClockRate, &p.ClockRateKHz},
		{AttrMemoryClockRate, &p.MemoryClockRateKHz},
		{AttrGlobalMemoryBusWidth, &p.MemoryBusWidth},
		{AttrL2CacheSize, &p.L2CacheSize},
		{AttrMaxPersistingL2CacheSize, &p.PersistingL2CacheMaxSize},
		{AttrMaxAccessPolicyWindowSize, &p.AccessPolicyMaxWindowSize},
		{AttrMaxThreadsPerBlock, &p.MaxThreadsPerBlock},
		{AttrMaxThreadsPerMultiprocessor, &p.MaxThreadsPerMultiprocessor},
		{AttrMaxBlocksPerMultiprocessor, &p.MaxBlocksPerMultiprocessor},
		{AttrMaxBlockDimX, &p.MaxBlockDim[0]},
		{AttrMaxBlockDimY, &p.MaxBlockDim[1]},
		{AttrMaxBlockDimZ, &p.MaxBlockDim[2]},
		{AttrMaxGridDimX, &p.MaxGridDim[0]},
		{AttrMaxGridDimY, &p.MaxGridDim[1]},
		{AttrMaxGridDimZ, &p.MaxGridDim[2]},
		{AttrWarpSize, &p.WarpSize},
		{AttrMaxRegistersPerBlock, &p.RegistersPerBlock},
		{AttrMaxRegistersPerMultiprocessor, &p.RegistersPerMultiprocessor},
		{AttrMaxSharedMemoryPerBlock, &p.SharedMemPerBlock},
		{AttrMaxSharedMemoryPerBlockOptin, &p.SharedMemPerBlockOptin},
		{AttrMaxSharedMemoryPerMultiproc, &p.SharedMemPerMultiprocessor},
		{AttrReservedSharedMemoryPerBlock, &p.ReservedSharedMemPerBlock},
		{AttrTotalConstantMemory, &p.TotalConstantMemory},
		{AttrMaxPitch, &p.MaxPitch},
		{AttrTextureAlignment, &p.TextureAlignment},
		{AttrAsyncEngineCount, &p.AsyncEngineCount},
		{AttrPCIDomainID, &p.PCIDomainID},
		{AttrPCIBusID, &p.PCIBusID},
		{AttrPCIDeviceID, &p.PCIDeviceID},
		{AttrComputeMode, &mode},
		{AttrMultiGPUBoardGroupID, &p.MultiGPUBoardGroupID},
		{AttrSingleToDoublePerfRatio, &p.SingleToDoublePerfRatio},
		{AttrMemSyncDomainCount, &p.MemSyncDomainCount},
		{AttrNUMAID, &p.NUMAID},
	}
	for _, f := range ints {
		if *f.dst, err = d.attribute(op, f.a); err != nil {
			return nil, err
		}
	}
	p.ComputeMode = ComputeMode(mode)
	bools := []struct {
		a   DeviceAttribute
		dst *bool
	}{
		{AttrConcurrentKernels, &p.ConcurrentKernels},
		{AttrECCEnabled, &p.ECCEnabled},
		{AttrIntegrated, &p.Integrated},
		{AttrCanMapHostMemory, &p.CanMapHostMemory},
		{AttrUnifiedAddressing, &p.UnifiedAddressing},
		{AttrManagedMemory, &p.ManagedMemory},
		{AttrConcurrentManagedAccess, &p.ConcurrentManagedAccess},
		{AttrPageableMemoryAccess, &p.PageableMemoryAccess},
		{AttrCooperativeLaunch, &p.CooperativeLaunch},
		{AttrClusterLaunch, &p.ClusterLaunch},
		{AttrMemoryPoolsSupported, &p.MemoryPoolsSupported},
		{AttrStreamPrioritiesSupported, &p.StreamPrioritiesSupported},
		{AttrGlobalL1CacheSupported, &p.GlobalL1CacheSupported},
		{AttrLocalL1CacheSupported, &p.LocalL1CacheSupported},
		{AttrKernelExecTimeout, &p.KernelExecTimeout},
		{AttrTCCDriver, &p.TCCDriver},
		{AttrMultiGPUBoard, &p.MultiGPUBoard},
		{AttrHostNativeAtomicSupported, &p.HostNativeAtomicSupported},
		{AttrComputePreemptionSupported, &p.ComputePreemptionSupported},
		{AttrHostRegisterSupported, &p.HostRegisterSupported},
		{AttrVirtualMemoryManagementSupport, &p.VirtualMemoryManagement},
	}
	for _, f := range bools {
		v, err := d.attribute(op, f.a)
		if err != nil {
			return nil, err
		}
		*f.dst = v != 0
	}
	return p, nil
}
