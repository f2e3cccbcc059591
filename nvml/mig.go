package nvml

import (
	"errors"
	"fmt"
	"iter"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// MIGMode is whether Multi-Instance GPU mode is on now, and after the next
// reset.
type MIGMode struct {
	Current, Pending bool
}

// MIGMode returns the MIG mode (nvmlDeviceGetMigMode, NVML 11.450). GPUs
// without MIG answer ErrNotSupported.
func (d *Device) MIGMode() (MIGMode, error) {
	return query(d, "nvml.Device.MIGMode", func(n backend.NVML, h uintptr) (MIGMode, error) {
		c, p, err := n.DeviceMIGMode(h)
		return MIGMode{c == 1, p == 1}, err
	})
}

// IsMIG reports whether d is a MIG device rather than a whole GPU
// (nvmlDeviceIsMigDeviceHandle, NVML 11.450).
func (d *Device) IsMIG() bool { return d != nil && d.mig }

// MIGDevices iterates over the MIG devices of a GPU in MIG mode
// (nvmlDeviceGetMaxMigDeviceCount and nvmlDeviceGetMigDeviceHandleByIndex,
// NVML 11.450): each is a Device of its own, with its UUID, memory and
// processes. A GPU not in MIG mode yields none.
func (d *Device) MIGDevices() iter.Seq2[*Device, error] {
	return func(yield func(*Device, error) bool) {
		const op = "nvml.Device.MIGDevices"
		mode, err := d.MIGMode()
		if errors.Is(err, ErrNotSupported) || err == nil && !mode.Current {
			return
		}
		if err != nil {
			yield(nil, fmt.Errorf("%s: %w", op, err))
			return
		}
		max, err := query(d, op, backend.NVML.DeviceMaxMIGDevices)
		if err != nil {
			yield(nil, err)
			return
		}
		for i := range max {
			h, err := query(d, op, func(n backend.NVML, h uintptr) (uintptr, error) { return n.DeviceMIGDevice(h, uint32(i)) })
			if errors.Is(err, ErrNotFound) {
				continue // slot i is empty
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(&Device{l: d.l, h: h, mig: true}, nil) {
				return
			}
		}
	}
}

// Parent returns the GPU a MIG device is part of
// (nvmlDeviceGetDeviceHandleFromMigDeviceHandle, NVML 11.450).
func (d *Device) Parent() (*Device, error) {
	const op = "nvml.Device.Parent"
	if d != nil && d.l != nil && !d.mig {
		return nil, fmt.Errorf("%s: not a MIG device: %w", op, driver.ErrInvalidInput)
	}
	h, err := query(d, op, backend.NVML.DeviceMIGParent)
	if err != nil {
		return nil, err
	}
	return &Device{l: d.l, h: h}, nil
}

// Instances returns a MIG device's GPU instance and compute instance ids
// (nvmlDeviceGetGpuInstanceId and nvmlDeviceGetComputeInstanceId, NVML
// 11.450), the ids its processes and events carry.
func (d *Device) Instances() (gpuInstance, computeInstance int, err error) {
	const op = "nvml.Device.Instances"
	if gpuInstance, err = query(d, op, backend.NVML.DeviceGPUInstanceID); err != nil {
		return 0, 0, err
	}
	if computeInstance, err = query(d, op, backend.NVML.DeviceComputeInstanceID); err != nil {
		return 0, 0, err
	}
	return gpuInstance, computeInstance, nil
}
