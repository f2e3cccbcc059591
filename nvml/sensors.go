package nvml

import (
	"fmt"
	"math"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// Memory is a device's frame-buffer (or BAR1) memory.
type Memory struct {
	Total, Free, Used Bytes
}

// Memory returns the device memory: total, free and used by every process
// and the driver (nvmlDeviceGetMemoryInfo, NVML 1). It does not allocate.
func (d *Device) Memory() (Memory, error) {
	m, err := query(d, "nvml.Device.Memory", backend.NVML.DeviceMemoryInfo)
	return Memory{Bytes(m.Total), Bytes(m.Free), Bytes(m.Used)}, err
}

// BAR1Memory returns the BAR1 aperture: the device memory the CPU and peer
// devices can map (nvmlDeviceGetBAR1MemoryInfo, NVML 5.319).
func (d *Device) BAR1Memory() (Memory, error) {
	m, err := query(d, "nvml.Device.BAR1Memory", backend.NVML.DeviceBAR1MemoryInfo)
	return Memory{Bytes(m.Total), Bytes(m.Free), Bytes(m.Used)}, err
}

// Utilization is the share of the last sample period (1/6 s to 1 s,
// depending on the product) during which the GPU ran kernels, and during
// which its memory was read or written.
type Utilization struct {
	GPU, Memory Percent
}

// Utilization returns the GPU's utilisation (nvmlDeviceGetUtilizationRates,
// NVML 2.285). It does not allocate.
func (d *Device) Utilization() (Utilization, error) {
	u, err := query(d, "nvml.Device.Utilization", backend.NVML.DeviceUtilization)
	return Utilization{Percent(u.GPU), Percent(u.Memory)}, err
}

// CodecUtilization is the video encoder's or decoder's utilisation over a
// sample period.
type CodecUtilization struct {
	Percent        Percent
	SamplePeriodUs uint32
}

// EncoderUtilization returns the video encoder's utilisation
// (nvmlDeviceGetEncoderUtilization, NVML 4.304).
func (d *Device) EncoderUtilization() (CodecUtilization, error) {
	return query(d, "nvml.Device.EncoderUtilization", func(n backend.NVML, h uintptr) (CodecUtilization, error) {
		p, s, err := n.DeviceEncoderUtilization(h)
		return CodecUtilization{Percent(p), s}, err
	})
}

// DecoderUtilization returns the video decoder's utilisation
// (nvmlDeviceGetDecoderUtilization, NVML 4.304).
func (d *Device) DecoderUtilization() (CodecUtilization, error) {
	return query(d, "nvml.Device.DecoderUtilization", func(n backend.NVML, h uintptr) (CodecUtilization, error) {
		p, s, err := n.DeviceDecoderUtilization(h)
		return CodecUtilization{Percent(p), s}, err
	})
}

// Temperature returns the GPU die's temperature (nvmlDeviceGetTemperature
// with NVML_TEMPERATURE_GPU, NVML 1).
func (d *Device) Temperature() (Celsius, error) {
	t, err := query(d, "nvml.Device.Temperature", func(n backend.NVML, h uintptr) (uint32, error) {
		return n.DeviceTemperature(h, 0)
	})
	return Celsius(t), err
}

// Threshold is an nvmlTemperatureThresholds_t.
type Threshold int

// The thresholds (nvml.h, NVML_TEMPERATURE_THRESHOLD_*).
const (
	// ThresholdShutdown: the GPU shuts down at this temperature.
	ThresholdShutdown Threshold = 0
	// ThresholdSlowdown: the GPU slows its clocks at this temperature.
	ThresholdSlowdown Threshold = 1
	// ThresholdMemoryMax: the memory's highest temperature.
	ThresholdMemoryMax Threshold = 2
	// ThresholdGPUMax: the GPU's highest operating temperature.
	ThresholdGPUMax Threshold = 3
)

// TemperatureThreshold returns one of the GPU's temperature thresholds
// (nvmlDeviceGetTemperatureThreshold, NVML 5.319).
func (d *Device) TemperatureThreshold(t Threshold) (Celsius, error) {
	v, err := query(d, "nvml.Device.TemperatureThreshold", func(n backend.NVML, h uintptr) (uint32, error) {
		return n.DeviceTemperatureThreshold(h, uint32(t))
	})
	return Celsius(v), err
}

// Power returns the board's power draw (nvmlDeviceGetPowerUsage, NVML
// 2.285; within ±5% of the true value on Hopper, by NVIDIA's docs).
func (d *Device) Power() (Milliwatts, error) {
	p, err := query(d, "nvml.Device.Power", backend.NVML.DevicePowerUsage)
	return Milliwatts(p), err
}

// PowerLimit returns the power limit the driver enforces
// (nvmlDeviceGetEnforcedPowerLimit, NVML 5.319).
func (d *Device) PowerLimit() (Milliwatts, error) {
	p, err := query(d, "nvml.Device.PowerLimit", backend.NVML.DevicePowerLimit)
	return Milliwatts(p), err
}

// Energy returns the energy the GPU has used since the driver was last
// loaded (nvmlDeviceGetTotalEnergyConsumption, NVML 8; Volta and later).
func (d *Device) Energy() (Millijoules, error) {
	e, err := query(d, "nvml.Device.Energy", backend.NVML.DeviceEnergy)
	return Millijoules(e), err
}

// Clock is an nvmlClockType_t.
type Clock int

// The clocks (nvml.h, NVML_CLOCK_*).
const (
	ClockGraphics Clock = 0
	ClockSM       Clock = 1
	ClockMemory   Clock = 2
	ClockVideo    Clock = 3
)

// Clock returns a clock's current frequency (nvmlDeviceGetClockInfo, NVML
// 2.285).
func (d *Device) Clock(c Clock) (MHz, error) {
	v, err := query(d, "nvml.Device.Clock", func(n backend.NVML, h uintptr) (uint32, error) { return n.DeviceClock(h, uint32(c)) })
	return MHz(v), err
}

// MaxClock returns a clock's highest frequency (nvmlDeviceGetMaxClockInfo,
// NVML 2.285).
func (d *Device) MaxClock(c Clock) (MHz, error) {
	v, err := query(d, "nvml.Device.MaxClock", func(n backend.NVML, h uintptr) (uint32, error) { return n.DeviceMaxClock(h, uint32(c)) })
	return MHz(v), err
}

// ApplicationsClock returns the clock applications run at unless the GPU
// boosts (nvmlDeviceGetApplicationsClock, NVML 4.304).
func (d *Device) ApplicationsClock(c Clock) (MHz, error) {
	v, err := query(d, "nvml.Device.ApplicationsClock", func(n backend.NVML, h uintptr) (uint32, error) {
		return n.DeviceApplicationsClock(h, uint32(c))
	})
	return MHz(v), err
}

// PerformanceState returns the performance state: 0 (P0, the highest) to
// 15 (nvmlDeviceGetPerformanceState, NVML 2.285).
func (d *Device) PerformanceState() (int, error) {
	return query(d, "nvml.Device.PerformanceState", backend.NVML.DevicePerformanceState)
}

// ThrottleReasons is the bit mask of why the clocks are below their maximum
// (nvmlClocksEventReasons, formerly nvmlClocksThrottleReasons).
type ThrottleReasons uint64

// The reasons (nvml.h, nvmlClocksEventReason*).
const (
	ThrottleIdle             ThrottleReasons = 0x1
	ThrottleAppClocks        ThrottleReasons = 0x2
	ThrottleSWPowerCap       ThrottleReasons = 0x4
	ThrottleHWSlowdown       ThrottleReasons = 0x8
	ThrottleSyncBoost        ThrottleReasons = 0x10
	ThrottleSWThermal        ThrottleReasons = 0x20
	ThrottleHWThermal        ThrottleReasons = 0x40
	ThrottleHWPowerBrake     ThrottleReasons = 0x80
	ThrottleDisplayClocks    ThrottleReasons = 0x100
	ThrottleReasonsSupported ThrottleReasons = 0x1ff
)

// ThrottleReasons returns why the clocks are held down now
// (nvmlDeviceGetCurrentClocksThrottleReasons, NVML 4.304; NVML 12.535
// renamed it nvmlDeviceGetCurrentClocksEventReasons and keeps both).
func (d *Device) ThrottleReasons() (ThrottleReasons, error) {
	r, err := query(d, "nvml.Device.ThrottleReasons", backend.NVML.DeviceThrottleReasons)
	return ThrottleReasons(r), err
}

// FanCount returns the number of fans (0 on passively cooled boards;
// nvmlDeviceGetNumFans, NVML 11.460).
func (d *Device) FanCount() (int, error) {
	return query(d, "nvml.Device.FanCount", backend.NVML.DeviceFanCount)
}

// FanSpeed returns fan i's intended speed (nvmlDeviceGetFanSpeed_v2, NVML
// 11.460). Boards without fans answer ErrNotSupported.
func (d *Device) FanSpeed(i int) (Percent, error) {
	const op = "nvml.Device.FanSpeed"
	if i < 0 || i > math.MaxInt32 {
		return 0, fmt.Errorf("%s: fan %d: %w", op, i, driver.ErrInvalidInput)
	}
	v, err := query(d, op, func(n backend.NVML, h uintptr) (uint32, error) { return n.DeviceFanSpeed(h, uint32(i)) })
	return Percent(v), err
}
