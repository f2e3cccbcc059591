// Package nvml is the fake driver's NVML (backend.NVML): the management
// view of the fake's own devices, reaching the fake's core only through the
// narrow Core interface.
//
// # What it tells the truth about
//
// Its devices are the fake's devices: the same names, UUIDs, PCI bus ids
// and memory sizes that the fake's driver API answers. Memory used and the
// compute process list are read from the fake's core at every call: the
// device allocations of this process, and this process (os.Getpid) listed
// on every device where it has a live context, with its allocations'
// bytes. A sticky kernel fault of the fake raises the Xid that NVIDIA's
// Xid catalog (docs.nvidia.com/deploy/xid-errors, "Xid 31: GPU memory page
// fault" for an MMU fault, "Xid 13: Graphics Engine Exception" for an
// illegal instruction, a misaligned address or a trap) names for it, on
// the device of the stream that holds the fault (or, once no open stream
// does, on every device where the process has a context), when NVML next
// looks: at an event wait or registration.
//
// # What the test sets
//
// Utilisation, temperature, power, clocks, throttle reasons, ECC counters,
// remapped rows, NVLink links and their error counters, the topology
// between devices, MIG layouts, Xid events and a lost GPU are set through
// Lib's setters (package fake's NVMLDevice). A value never set moves with
// the work the fake runs: a device with queued work reads 100% busy, and
// its temperature, power and SM clock follow, decaying over a second once
// the work is done.
//
// # Values that stand for an H200
//
// Where the fake has nothing to derive a value from, it answers an H200
// SXM's (NVIDIA's H200 datasheet; nvidia-smi -q on an H200 for the
// thresholds): 700 W enforced power limit, 75 W idle, 1980 MHz maximum SM
// clock, 3201 MHz memory clock (the fake's device attribute), thresholds of
// 92 °C (shutdown), 89 °C (slowdown), 87 °C (GPU max), 95 °C (memory max),
// no fans (nvmlDeviceGetNumFans 0, fan speed NOT_SUPPORTED), ECC on, 18
// NVLink links, at most 7 MIG devices, row remapping instead of page
// retirement (nvmlDeviceGetRetiredPages NOT_SUPPORTED, as on Ampere and
// later).
package nvml
