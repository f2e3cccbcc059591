// Package libnvml is the real NVML behind backend.NVML: libnvidia-ml.so.1,
// opened at run time through package loader (no cgo), its entry points
// resolved on first use and called through internal/dl's trampolines. The
// entry points are declared in entrypoints.txt, from which
// internal/bindgen writes zz_generated.go; libnvml.go holds the calls that
// take C strings, structs or sized buffers.
//
// ABI notes (nvml.h of the R450 to R580 drivers; checked against go-nvml's
// pkg/nvml types_gen.go, which cgo generates from nvml.h, and the NVML API
// reference): nvmlReturn_t and every enum are C enums of int size;
// nvmlDevice_t and nvmlEventSet_t are pointers. The structs, with their
// offsets:
//
//	nvmlMemory_t, nvmlBAR1Memory_t  total 0, free 8, used 16 (unsigned long long); 24 bytes
//	nvmlUtilization_t               gpu 0, memory 4 (unsigned int); 8 bytes
//	nvmlPciInfo_t (v3)              busIdLegacy 0 (char[16]), domain 16, bus 20,
//	                                device 24, pciDeviceId 28, pciSubSystemId 32
//	                                (unsigned int), busId 36 (char[32]); 68 bytes
//	nvmlProcessInfo_t (v2, of _v3)  pid 0 (unsigned int), usedGpuMemory 8
//	                                (unsigned long long), gpuInstanceId 16,
//	                                computeInstanceId 20 (unsigned int); 24 bytes
//	nvmlEventData_t                 device 0, eventType 8, eventData 16,
//	                                gpuInstanceId 24, computeInstanceId 28; 32 bytes
//
// layout_test.go checks the Go declarations against these numbers.
// Strings come back in caller buffers of NVML's documented sizes
// (NVML_DEVICE_NAME_V2_BUFFER_SIZE 96, NVML_DEVICE_UUID_V2_BUFFER_SIZE 96,
// NVML_DEVICE_SERIAL_BUFFER_SIZE 30, NVML_DEVICE_PART_NUMBER_BUFFER_SIZE
// 80, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80,
// NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80; the binding passes 96 for each).
package libnvml

//go:generate go run github.com/nocgo/cuda/internal/bindgen -iface NVML -prefix nvml -open Open:NVML -needs needs
