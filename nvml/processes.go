package nvml

import (
	"fmt"
	"iter"

	"github.com/nocgo/cuda/driver/backend"
)

// Process is a process with a context on a device.
type Process struct {
	PID uint32
	// Memory is the device memory the process uses, its context's included;
	// MemoryKnown is false where NVML cannot tell (some Windows modes, and
	// processes of other containers without the privilege).
	Memory      Bytes
	MemoryKnown bool
	// Graphics is true for a graphics process, false for a compute one.
	Graphics bool
	// GPUInstanceID and ComputeInstanceID place it on a MIG device; -1 off
	// MIG.
	GPUInstanceID, ComputeInstanceID int
}

// Processes iterates over the processes running on the device: compute
// processes (nvmlDeviceGetComputeRunningProcesses_v3, NVML 11.510), then
// graphics processes (nvmlDeviceGetGraphicsRunningProcesses_v3). The list
// is read when the iteration starts. On an error it yields the error once
// and stops.
func (d *Device) Processes() iter.Seq2[Process, error] {
	return func(yield func(Process, error) bool) {
		for _, graphics := range []bool{false, true} {
			ps, err := d.processes(graphics)
			if err != nil {
				yield(Process{}, err)
				return
			}
			for _, p := range ps {
				if !yield(p, nil) {
					return
				}
			}
		}
	}
}

func (d *Device) processes(graphics bool) ([]Process, error) {
	op, f := "nvml.Device.Processes", backend.NVML.DeviceComputeProcesses
	if graphics {
		f = backend.NVML.DeviceGraphicsProcesses
	}
	ps, err := query(d, op, f)
	if err != nil {
		return nil, err
	}
	out := make([]Process, 0, len(ps))
	for _, p := range ps {
		q := Process{PID: p.PID, Graphics: graphics, GPUInstanceID: instanceID(p.GPUInstanceID), ComputeInstanceID: instanceID(p.ComputeInstanceID)}
		if p.UsedMemory != backend.NVMLValueNotAvailable {
			q.Memory, q.MemoryKnown = Bytes(p.UsedMemory), true
		}
		out = append(out, q)
	}
	return out, nil
}

func instanceID(v uint32) int {
	if v == 0xFFFFFFFF {
		return -1
	}
	return int(v)
}

// String returns "pid 1234 (compute, 512 MiB)".
func (p Process) String() string {
	kind := "compute"
	if p.Graphics {
		kind = "graphics"
	}
	mem := "memory unknown"
	if p.MemoryKnown {
		mem = p.Memory.String()
	}
	return fmt.Sprintf("pid %d (%s, %s)", p.PID, kind, mem)
}
