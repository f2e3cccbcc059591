package nvml

import "slices"

// ops are the names of the entry points the fake NVML answers, as
// Core.Fail sees them: NVML's names without their version suffix
// (TestOpsAreTheBindingsNames keeps the list equal to the sources and to
// the real binding's table).
var ops = []string{
	"nvmlDeviceGetApplicationsClock",
	"nvmlDeviceGetArchitecture",
	"nvmlDeviceGetBAR1MemoryInfo",
	"nvmlDeviceGetBoardPartNumber",
	"nvmlDeviceGetBrand",
	"nvmlDeviceGetClockInfo",
	"nvmlDeviceGetComputeInstanceId",
	"nvmlDeviceGetComputeRunningProcesses",
	"nvmlDeviceGetCount",
	"nvmlDeviceGetCurrentClocksThrottleReasons",
	"nvmlDeviceGetDecoderUtilization",
	"nvmlDeviceGetDeviceHandleFromMigDeviceHandle",
	"nvmlDeviceGetEccMode",
	"nvmlDeviceGetEncoderUtilization",
	"nvmlDeviceGetEnforcedPowerLimit",
	"nvmlDeviceGetFanSpeed",
	"nvmlDeviceGetGpuInstanceId",
	"nvmlDeviceGetGraphicsRunningProcesses",
	"nvmlDeviceGetHandleByIndex",
	"nvmlDeviceGetHandleByPciBusId",
	"nvmlDeviceGetHandleByUUID",
	"nvmlDeviceGetIndex",
	"nvmlDeviceGetMaxClockInfo",
	"nvmlDeviceGetMaxMigDeviceCount",
	"nvmlDeviceGetMemoryInfo",
	"nvmlDeviceGetMigDeviceHandleByIndex",
	"nvmlDeviceGetMigMode",
	"nvmlDeviceGetName",
	"nvmlDeviceGetNumFans",
	"nvmlDeviceGetNvLinkErrorCounter",
	"nvmlDeviceGetNvLinkRemotePciInfo",
	"nvmlDeviceGetNvLinkState",
	"nvmlDeviceGetPciInfo",
	"nvmlDeviceGetPerformanceState",
	"nvmlDeviceGetPowerUsage",
	"nvmlDeviceGetRemappedRows",
	"nvmlDeviceGetRetiredPages",
	"nvmlDeviceGetSerial",
	"nvmlDeviceGetSupportedEventTypes",
	"nvmlDeviceGetTemperature",
	"nvmlDeviceGetTemperatureThreshold",
	"nvmlDeviceGetTopologyCommonAncestor",
	"nvmlDeviceGetTotalEccErrors",
	"nvmlDeviceGetTotalEnergyConsumption",
	"nvmlDeviceGetUUID",
	"nvmlDeviceGetUtilizationRates",
	"nvmlDeviceIsMigDeviceHandle",
	"nvmlDeviceRegisterEvents",
	"nvmlEventSetCreate",
	"nvmlEventSetFree",
	"nvmlEventSetWait",
	"nvmlInit",
	"nvmlShutdown",
	"nvmlSystemGetCudaDriverVersion",
	"nvmlSystemGetDriverVersion",
	"nvmlSystemGetNVMLVersion",
}

// Ops returns the names of the fake NVML's entry points, sorted: what
// package fake's CountCalls counts and FailNVML can name.
func Ops() []string { return slices.Sorted(slices.Values(ops)) }
