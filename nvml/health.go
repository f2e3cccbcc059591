package nvml

import (
	"github.com/nocgo/cuda/driver/backend"
)

// ECCMode is whether ECC is on now, and whether it will be after the next
// reboot.
type ECCMode struct {
	Current, Pending bool
}

// ECCMode returns the ECC mode (nvmlDeviceGetEccMode, NVML 1).
func (d *Device) ECCMode() (ECCMode, error) {
	return query(d, "nvml.Device.ECCMode", func(n backend.NVML, h uintptr) (ECCMode, error) {
		c, p, err := n.DeviceECCMode(h)
		return ECCMode{c, p}, err
	})
}

// ECCErrors counts a device's ECC errors.
type ECCErrors struct {
	// Corrected and Uncorrected since the driver was last loaded
	// (NVML_VOLATILE_ECC).
	Corrected, Uncorrected uint64
	// AggregateCorrected and AggregateUncorrected over the board's life
	// (NVML_AGGREGATE_ECC).
	AggregateCorrected, AggregateUncorrected uint64
}

// ECCErrors returns the ECC error counts (nvmlDeviceGetTotalEccErrors,
// NVML 2.285, called for each of the four counters). With ECC off it
// fails with ErrNotSupported.
func (d *Device) ECCErrors() (ECCErrors, error) {
	return query(d, "nvml.Device.ECCErrors", func(n backend.NVML, h uintptr) (ECCErrors, error) {
		var e ECCErrors
		var err error
		for _, c := range []struct {
			v            *uint64
			typ, counter uint32
		}{{&e.Corrected, 0, 0}, {&e.Uncorrected, 1, 0}, {&e.AggregateCorrected, 0, 1}, {&e.AggregateUncorrected, 1, 1}} {
			if *c.v, err = n.DeviceECCErrors(h, c.typ, c.counter); err != nil {
				return ECCErrors{}, err
			}
		}
		return e, nil
	})
}

// RetirementCause is an nvmlPageRetirementCause_t.
type RetirementCause int

// The causes (nvml.h).
const (
	RetiredMultipleSingleBitECC RetirementCause = 0
	RetiredDoubleBitECC         RetirementCause = 1
)

// RetiredPages returns the addresses of the pages retired for cause
// (nvmlDeviceGetRetiredPages, NVML 5.319). GPUs that remap rows instead
// (Ampere and later) answer ErrNotSupported: see RemappedRows.
func (d *Device) RetiredPages(cause RetirementCause) ([]uint64, error) {
	return query(d, "nvml.Device.RetiredPages", func(n backend.NVML, h uintptr) ([]uint64, error) {
		return n.DeviceRetiredPages(h, uint32(cause))
	})
}

// RemappedRows is the state of a GPU's memory row remapping.
type RemappedRows struct {
	Correctable, Uncorrectable int  // rows remapped for each kind of error
	Pending                    bool // a remapping waits for the next GPU reset
	Failure                    bool // a remapping failed: the GPU needs service
}

// RemappedRows returns the memory row remapping state
// (nvmlDeviceGetRemappedRows, NVML 11.450; Ampere and later).
func (d *Device) RemappedRows() (RemappedRows, error) {
	r, err := query(d, "nvml.Device.RemappedRows", backend.NVML.DeviceRemappedRows)
	return RemappedRows(r), err
}
