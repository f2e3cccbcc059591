package backend

import "strconv"

// NVMLProvider is implemented by backends that come with the NVIDIA
// Management Library (NVML). The real backend opens libnvidia-ml.so.1 on the
// first call; the fake answers for its own devices (fake/internal/nvml).
type NVMLProvider interface {
	NVML() (NVML, error)
}

// NVML is the seam to NVML (libnvidia-ml): one method per entry point,
// devices (nvmlDevice_t) and event sets (nvmlEventSet_t) as uintptr,
// unsigned ints and enums passed as uint32, values in NVML's units (bytes,
// milliwatts, millijoules, °C, MHz, percent).
//
// Every method but Init needs NVML initialised: Init and Shutdown count
// references as nvmlInit_v2 and nvmlShutdown do. Every method is safe for
// concurrent use. Failed calls return an *NVMLError (errors.Is with an
// NVMLReturn); an entry point the library lacks returns a
// *loader.SymbolError from the real backend.
type NVML interface {
	// Init is nvmlInit_v2 (NVML 4.304+ as nvmlInit, _v2 since 5.319).
	Init() error
	// Shutdown is nvmlShutdown.
	Shutdown() error
	// DriverVersion is nvmlSystemGetDriverVersion ("580.95.05").
	DriverVersion() (string, error)
	// Version is nvmlSystemGetNVMLVersion ("13.580.95.05").
	Version() (string, error)
	// CUDADriverVersion is nvmlSystemGetCudaDriverVersion_v2 (13000 for 13.0).
	CUDADriverVersion() (int, error)

	// DeviceCount is nvmlDeviceGetCount_v2.
	DeviceCount() (int, error)
	// DeviceByIndex is nvmlDeviceGetHandleByIndex_v2.
	DeviceByIndex(i uint32) (uintptr, error)
	// DeviceByUUID is nvmlDeviceGetHandleByUUID ("GPU-..." or "MIG-...").
	DeviceByUUID(uuid string) (uintptr, error)
	// DeviceByPCIBusID is nvmlDeviceGetHandleByPciBusId_v2 ("00000000:19:00.0"
	// or "0000:19:00.0").
	DeviceByPCIBusID(id string) (uintptr, error)
	// DeviceIndex is nvmlDeviceGetIndex.
	DeviceIndex(d uintptr) (int, error)
	// DeviceName is nvmlDeviceGetName.
	DeviceName(d uintptr) (string, error)
	// DeviceUUID is nvmlDeviceGetUUID.
	DeviceUUID(d uintptr) (string, error)
	// DeviceSerial is nvmlDeviceGetSerial.
	DeviceSerial(d uintptr) (string, error)
	// DeviceBoardPartNumber is nvmlDeviceGetBoardPartNumber.
	DeviceBoardPartNumber(d uintptr) (string, error)
	// DeviceBrand is nvmlDeviceGetBrand.
	DeviceBrand(d uintptr) (int, error)
	// DeviceArchitecture is nvmlDeviceGetArchitecture.
	DeviceArchitecture(d uintptr) (int, error)
	// DevicePCIInfo is nvmlDeviceGetPciInfo_v3.
	DevicePCIInfo(d uintptr) (NVMLPCIInfo, error)

	// DeviceMemoryInfo is nvmlDeviceGetMemoryInfo (total, free, used).
	DeviceMemoryInfo(d uintptr) (NVMLMemory, error)
	// DeviceBAR1MemoryInfo is nvmlDeviceGetBAR1MemoryInfo.
	DeviceBAR1MemoryInfo(d uintptr) (NVMLMemory, error)
	// DeviceUtilization is nvmlDeviceGetUtilizationRates (percent).
	DeviceUtilization(d uintptr) (NVMLUtilization, error)
	// DeviceEncoderUtilization is nvmlDeviceGetEncoderUtilization.
	DeviceEncoderUtilization(d uintptr) (percent, periodUs uint32, err error)
	// DeviceDecoderUtilization is nvmlDeviceGetDecoderUtilization.
	DeviceDecoderUtilization(d uintptr) (percent, periodUs uint32, err error)
	// DeviceTemperature is nvmlDeviceGetTemperature (sensor 0, the GPU), °C.
	DeviceTemperature(d uintptr, sensor uint32) (uint32, error)
	// DeviceTemperatureThreshold is nvmlDeviceGetTemperatureThreshold, °C.
	DeviceTemperatureThreshold(d uintptr, kind uint32) (uint32, error)
	// DevicePowerUsage is nvmlDeviceGetPowerUsage, milliwatts.
	DevicePowerUsage(d uintptr) (uint32, error)
	// DevicePowerLimit is nvmlDeviceGetEnforcedPowerLimit, milliwatts.
	DevicePowerLimit(d uintptr) (uint32, error)
	// DeviceEnergy is nvmlDeviceGetTotalEnergyConsumption, millijoules since
	// the driver was loaded.
	DeviceEnergy(d uintptr) (uint64, error)
	// DeviceClock is nvmlDeviceGetClockInfo, MHz.
	DeviceClock(d uintptr, clock uint32) (uint32, error)
	// DeviceMaxClock is nvmlDeviceGetMaxClockInfo, MHz.
	DeviceMaxClock(d uintptr, clock uint32) (uint32, error)
	// DeviceApplicationsClock is nvmlDeviceGetApplicationsClock, MHz.
	DeviceApplicationsClock(d uintptr, clock uint32) (uint32, error)
	// DevicePerformanceState is nvmlDeviceGetPerformanceState (0 is P0).
	DevicePerformanceState(d uintptr) (int, error)
	// DeviceThrottleReasons is nvmlDeviceGetCurrentClocksThrottleReasons
	// (named nvmlDeviceGetCurrentClocksEventReasons too since NVML 12.535;
	// both are exported).
	DeviceThrottleReasons(d uintptr) (uint64, error)
	// DeviceFanCount is nvmlDeviceGetNumFans.
	DeviceFanCount(d uintptr) (int, error)
	// DeviceFanSpeed is nvmlDeviceGetFanSpeed_v2, percent.
	DeviceFanSpeed(d uintptr, fan uint32) (uint32, error)

	// DeviceECCMode is nvmlDeviceGetEccMode.
	DeviceECCMode(d uintptr) (current, pending bool, err error)
	// DeviceECCErrors is nvmlDeviceGetTotalEccErrors.
	DeviceECCErrors(d uintptr, errorType, counter uint32) (uint64, error)
	// DeviceRetiredPages is nvmlDeviceGetRetiredPages (addresses).
	DeviceRetiredPages(d uintptr, cause uint32) ([]uint64, error)
	// DeviceRemappedRows is nvmlDeviceGetRemappedRows.
	DeviceRemappedRows(d uintptr) (NVMLRemappedRows, error)

	// DeviceComputeProcesses is nvmlDeviceGetComputeRunningProcesses_v3.
	DeviceComputeProcesses(d uintptr) ([]NVMLProcess, error)
	// DeviceGraphicsProcesses is nvmlDeviceGetGraphicsRunningProcesses_v3.
	DeviceGraphicsProcesses(d uintptr) ([]NVMLProcess, error)

	// DeviceNVLinkState is nvmlDeviceGetNvLinkState.
	DeviceNVLinkState(d uintptr, link uint32) (bool, error)
	// DeviceNVLinkRemotePCIInfo is nvmlDeviceGetNvLinkRemotePciInfo_v2.
	DeviceNVLinkRemotePCIInfo(d uintptr, link uint32) (NVMLPCIInfo, error)
	// DeviceNVLinkErrorCounter is nvmlDeviceGetNvLinkErrorCounter.
	DeviceNVLinkErrorCounter(d uintptr, link, counter uint32) (uint64, error)
	// DeviceTopology is nvmlDeviceGetTopologyCommonAncestor.
	DeviceTopology(a, b uintptr) (int, error)

	// DeviceMIGMode is nvmlDeviceGetMigMode (1 enabled).
	DeviceMIGMode(d uintptr) (current, pending int, err error)
	// DeviceMaxMIGDevices is nvmlDeviceGetMaxMigDeviceCount.
	DeviceMaxMIGDevices(d uintptr) (int, error)
	// DeviceMIGDevice is nvmlDeviceGetMigDeviceHandleByIndex.
	DeviceMIGDevice(d uintptr, i uint32) (uintptr, error)
	// DeviceIsMIG is nvmlDeviceIsMigDeviceHandle.
	DeviceIsMIG(d uintptr) (bool, error)
	// DeviceMIGParent is nvmlDeviceGetDeviceHandleFromMigDeviceHandle.
	DeviceMIGParent(d uintptr) (uintptr, error)
	// DeviceGPUInstanceID is nvmlDeviceGetGpuInstanceId (MIG devices).
	DeviceGPUInstanceID(d uintptr) (int, error)
	// DeviceComputeInstanceID is nvmlDeviceGetComputeInstanceId (MIG devices).
	DeviceComputeInstanceID(d uintptr) (int, error)

	// EventSetCreate is nvmlEventSetCreate.
	EventSetCreate() (uintptr, error)
	// DeviceSupportedEvents is nvmlDeviceGetSupportedEventTypes.
	DeviceSupportedEvents(d uintptr) (uint64, error)
	// DeviceRegisterEvents is nvmlDeviceRegisterEvents.
	DeviceRegisterEvents(d uintptr, types uint64, set uintptr) error
	// EventSetWait is nvmlEventSetWait_v2: the next event, or NVMLTimeout
	// after timeoutMs.
	EventSetWait(set uintptr, timeoutMs uint32) (NVMLEvent, error)
	// EventSetFree is nvmlEventSetFree.
	EventSetFree(set uintptr) error
}

// NVMLPCIInfo is nvmlPciInfo_t, as NVML fills it.
type NVMLPCIInfo struct {
	BusID       string // "00000000:19:00.0" (busId; busIdLegacy is the short form)
	Domain      uint32
	Bus         uint32
	Device      uint32
	DeviceID    uint32 // pciDeviceId: device id << 16 | vendor id
	SubsystemID uint32 // pciSubSystemId
}

// NVMLMemory is nvmlMemory_t or nvmlBAR1Memory_t, bytes, laid out as they
// are: three unsigned long long, total, free, used (24 bytes; nvml.h, and
// go-nvml's pkg/nvml types_gen.go Memory and BAR1Memory).
type NVMLMemory struct {
	Total, Free, Used uint64
}

// NVMLUtilization is nvmlUtilization_t, percent, laid out as it is: two
// unsigned int, gpu then memory (8 bytes; nvml.h, go-nvml's Utilization).
type NVMLUtilization struct {
	GPU, Memory uint32
}

// NVMLRemappedRows is what nvmlDeviceGetRemappedRows returns.
type NVMLRemappedRows struct {
	Correctable, Uncorrectable int
	Pending, Failure           bool
}

// NVMLProcess is nvmlProcessInfo_t: a process with a context on a device.
type NVMLProcess struct {
	PID               uint32
	UsedMemory        uint64 // bytes; NVMLValueNotAvailable when NVML cannot tell
	GPUInstanceID     uint32 // 0xFFFFFFFF off MIG
	ComputeInstanceID uint32
}

// NVMLValueNotAvailable is NVML_VALUE_NOT_AVAILABLE as an unsigned long long.
const NVMLValueNotAvailable = ^uint64(0)

// NVMLEvent is nvmlEventData_t, laid out as it is: the device handle at
// 0, eventType at 8, eventData at 16 (unsigned long long each),
// gpuInstanceId at 24 and computeInstanceId at 28 (unsigned int), 32 bytes
// (nvml.h of NVML 11.450 and later, and go-nvml's types_gen.go EventData).
type NVMLEvent struct {
	Device            uintptr
	Type              uint64 // one nvmlEventType bit
	Data              uint64 // the Xid for critical Xid errors
	GPUInstanceID     uint32
	ComputeInstanceID uint32
}

// NVMLReturn is an nvmlReturn_t other than NVML_SUCCESS. It is an error; NVML
// failures are *NVMLError values that match their NVMLReturn with errors.Is.
type NVMLReturn int32

// The nvmlReturn_t codes (nvml.h; checked against go-nvml's pkg/nvml
// zz_generated constants and the NVML API reference, "Error reporting").
const (
	NVMLUninitialized           NVMLReturn = 1
	NVMLInvalidArgument         NVMLReturn = 2
	NVMLNotSupported            NVMLReturn = 3
	NVMLNoPermission            NVMLReturn = 4
	NVMLAlreadyInitialized      NVMLReturn = 5
	NVMLNotFound                NVMLReturn = 6
	NVMLInsufficientSize        NVMLReturn = 7
	NVMLInsufficientPower       NVMLReturn = 8
	NVMLDriverNotLoaded         NVMLReturn = 9
	NVMLTimeout                 NVMLReturn = 10
	NVMLIRQIssue                NVMLReturn = 11
	NVMLLibraryNotFound         NVMLReturn = 12
	NVMLFunctionNotFound        NVMLReturn = 13
	NVMLCorruptedInforom        NVMLReturn = 14
	NVMLGPUIsLost               NVMLReturn = 15
	NVMLResetRequired           NVMLReturn = 16
	NVMLOperatingSystem         NVMLReturn = 17
	NVMLLibRMVersionMismatch    NVMLReturn = 18
	NVMLInUse                   NVMLReturn = 19
	NVMLOutOfMemory             NVMLReturn = 20
	NVMLNoData                  NVMLReturn = 21
	NVMLVGPUECCNotSupported     NVMLReturn = 22
	NVMLInsufficientResources   NVMLReturn = 23
	NVMLFreqNotSupported        NVMLReturn = 24
	NVMLArgumentVersionMismatch NVMLReturn = 25
	NVMLDeprecated              NVMLReturn = 26
	NVMLNotReady                NVMLReturn = 27
	NVMLGPUNotFound             NVMLReturn = 28
	NVMLInvalidState            NVMLReturn = 29
	NVMLUnknown                 NVMLReturn = 999
)

var nvmlNames = map[NVMLReturn]string{
	NVMLUninitialized:           "NVML_ERROR_UNINITIALIZED",
	NVMLInvalidArgument:         "NVML_ERROR_INVALID_ARGUMENT",
	NVMLNotSupported:            "NVML_ERROR_NOT_SUPPORTED",
	NVMLNoPermission:            "NVML_ERROR_NO_PERMISSION",
	NVMLAlreadyInitialized:      "NVML_ERROR_ALREADY_INITIALIZED",
	NVMLNotFound:                "NVML_ERROR_NOT_FOUND",
	NVMLInsufficientSize:        "NVML_ERROR_INSUFFICIENT_SIZE",
	NVMLInsufficientPower:       "NVML_ERROR_INSUFFICIENT_POWER",
	NVMLDriverNotLoaded:         "NVML_ERROR_DRIVER_NOT_LOADED",
	NVMLTimeout:                 "NVML_ERROR_TIMEOUT",
	NVMLIRQIssue:                "NVML_ERROR_IRQ_ISSUE",
	NVMLLibraryNotFound:         "NVML_ERROR_LIBRARY_NOT_FOUND",
	NVMLFunctionNotFound:        "NVML_ERROR_FUNCTION_NOT_FOUND",
	NVMLCorruptedInforom:        "NVML_ERROR_CORRUPTED_INFOROM",
	NVMLGPUIsLost:               "NVML_ERROR_GPU_IS_LOST",
	NVMLResetRequired:           "NVML_ERROR_RESET_REQUIRED",
	NVMLOperatingSystem:         "NVML_ERROR_OPERATING_SYSTEM",
	NVMLLibRMVersionMismatch:    "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
	NVMLInUse:                   "NVML_ERROR_IN_USE",
	NVMLOutOfMemory:             "NVML_ERROR_MEMORY",
	NVMLNoData:                  "NVML_ERROR_NO_DATA",
	NVMLVGPUECCNotSupported:     "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
	NVMLInsufficientResources:   "NVML_ERROR_INSUFFICIENT_RESOURCES",
	NVMLFreqNotSupported:        "NVML_ERROR_FREQ_NOT_SUPPORTED",
	NVMLArgumentVersionMismatch: "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
	NVMLDeprecated:              "NVML_ERROR_DEPRECATED",
	NVMLNotReady:                "NVML_ERROR_NOT_READY",
	NVMLGPUNotFound:             "NVML_ERROR_GPU_NOT_FOUND",
	NVMLInvalidState:            "NVML_ERROR_INVALID_STATE",
	NVMLUnknown:                 "NVML_ERROR_UNKNOWN",
}

// Name returns the enumerator's name, "NVML_ERROR_NOT_SUPPORTED" and the like.
func (r NVMLReturn) Name() string {
	if n, ok := nvmlNames[r]; ok {
		return n
	}
	return "nvmlReturn(" + strconv.Itoa(int(r)) + ")"
}

// Error returns the name.
func (r NVMLReturn) Error() string { return r.Name() }

// NVMLError is a failed NVML call: the code and the entry point.
type NVMLError struct {
	Return NVMLReturn
	Op     string // "nvmlDeviceGetMemoryInfo"
	Detail string // what the caller or the fake adds, "" for none
}

// Error returns "nvmlDeviceGetMemoryInfo: NVML_ERROR_GPU_IS_LOST: detail".
func (e *NVMLError) Error() string {
	s := e.Op + ": " + e.Return.Name()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the NVMLReturn.
func (e *NVMLError) Unwrap() error { return e.Return }
