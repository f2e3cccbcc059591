// Package nvml watches NVIDIA GPUs through the NVIDIA Management Library
// (libnvidia-ml.so.1), with no cgo: what device plugins, exporters, health
// checks and schedulers ask of a GPU — its identity, memory, utilisation,
// temperature, power, clocks, ECC and remapped rows, the processes running
// on it, NVLink, topology, MIG — and its events (critical Xid errors, ECC
// errors, clock changes).
//
//	lib, err := nvml.Open(drv)          // nvmlInit_v2; Close is nvmlShutdown
//	defer lib.Close()
//	for dev, err := range lib.Devices() {
//		m, err := dev.Memory()          // m.Used is a nvml.Bytes
//		u, err := dev.Utilization()     // u.GPU is a nvml.Percent
//	}
//
// Open takes the Driver the program already has: on the real driver
// (gpu.Load) NVML is libnvidia-ml.so.1, opened on first use as package
// loader finds libcuda (NOCGO_CUDA_LIBNVML, the system loader, the driver's
// directories); on the fake driver (package fake) it is the fake's NVML,
// whose devices, memory and processes are the fake's own (see package
// fake's NVMLDevice). Device.DriverDevice and Library.DeviceOf go between
// NVML's devices and the driver's, by UUID.
//
// # Values and errors
//
// Values carry their units in their types (Bytes, Milliwatts, Millijoules,
// Celsius, MHz, Percent). NVML's errors are Return values matched with
// errors.Is (ErrNotSupported, ErrNoPermission, ErrGPUIsLost, ...), wrapped
// in what the call was doing: "nvml.Device.Power: device 0:
// nvmlDeviceGetPowerUsage: NVML_ERROR_NOT_SUPPORTED". An entry point that
// the installed libnvidia-ml lacks fails with an error naming it (a
// *loader.SymbolError); each method's doc names the entry point and the
// NVML version that introduced it.
//
// # Concurrency and lifetime
//
// A Library and everything got from it are safe for concurrent use.
// Library.Close waits for the calls in flight, calls nvmlShutdown once (NVML
// counts Open and Close in pairs, per process), and makes every later use of
// the Library, its Devices and EventSets fail with ErrClosed; a second Close
// returns nil. A nil or zero Library, Device or EventSet never panics: its
// methods return errors wrapping ErrInvalidValue. EventSet.Wait takes a
// context.Context and returns when it is done.
package nvml
