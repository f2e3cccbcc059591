package nvml

import (
	"time"

	"github.com/nocgo/cuda/driver/backend"
)

// busyLocked is how busy the device is now, 0 to 1: 1 while work is queued
// on it, decaying to 0 over decayPeriod after the last call that saw work.
// It also raises a clock event when the SM clock it implies changed.
func (l *Lib) busyLocked(d *device) float64 {
	now := time.Now()
	if l.core.Usage(d.index).Pending > 0 {
		d.lastBusy = now
	}
	b := 0.0
	if !d.lastBusy.IsZero() {
		if since := now.Sub(d.lastBusy); since < decayPeriod {
			b = 1 - float64(since)/float64(decayPeriod)
		}
	}
	if c := l.smClockLocked(d, b); c != d.lastClock {
		if d.lastClock != 0 {
			l.raiseLocked(d, nil, eventClock, 0)
		}
		d.lastClock = c
	}
	return b
}

func (l *Lib) smClockLocked(d *device, busy float64) uint32 {
	if d.smClock != nil {
		return *d.smClock
	}
	if busy > 0 {
		return maxSMClock
	}
	return idleSMClock
}

func (l *Lib) utilLocked(d *device) uint32 {
	if d.util != nil {
		return *d.util
	}
	return uint32(100*l.busyLocked(d) + 0.5)
}

func (l *Lib) powerLocked(d *device) uint32 {
	if d.power != nil {
		return *d.power
	}
	u := float64(l.utilLocked(d)) / 100
	return uint32(idlePowerMW + u*(0.8*powerLimitMW-idlePowerMW))
}

// DeviceUtilization is nvmlDeviceGetUtilizationRates.
func (l *Lib) DeviceUtilization(h uintptr) (backend.NVMLUtilization, error) {
	d, err := l.device("nvmlDeviceGetUtilizationRates", h)
	if err != nil {
		return backend.NVMLUtilization{}, err
	}
	defer l.mu.Unlock()
	g := l.utilLocked(d)
	m := g / 2
	if d.memUtil != nil {
		m = *d.memUtil
	}
	return backend.NVMLUtilization{GPU: g, Memory: m}, nil
}

// DeviceEncoderUtilization is nvmlDeviceGetEncoderUtilization.
func (l *Lib) DeviceEncoderUtilization(h uintptr) (uint32, uint32, error) {
	d, err := l.device("nvmlDeviceGetEncoderUtilization", h)
	if err != nil {
		return 0, 0, err
	}
	defer l.mu.Unlock()
	return d.enc, 167000, nil
}

// DeviceDecoderUtilization is nvmlDeviceGetDecoderUtilization.
func (l *Lib) DeviceDecoderUtilization(h uintptr) (uint32, uint32, error) {
	d, err := l.device("nvmlDeviceGetDecoderUtilization", h)
	if err != nil {
		return 0, 0, err
	}
	defer l.mu.Unlock()
	return d.dec, 167000, nil
}

// DeviceTemperature is nvmlDeviceGetTemperature (NVML_TEMPERATURE_GPU, 0).
func (l *Lib) DeviceTemperature(h uintptr, sensor uint32) (uint32, error) {
	const op = "nvmlDeviceGetTemperature"
	d, err := l.device(op, h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	if sensor != 0 {
		return 0, nvmlErr(op, backend.NVMLInvalidArgument, "sensor")
	}
	if d.temp != nil {
		return *d.temp, nil
	}
	return uint32(idleTempC + float64(busyTempC-idleTempC)*float64(l.utilLocked(d))/100), nil
}

// DeviceTemperatureThreshold is nvmlDeviceGetTemperatureThreshold:
// shutdown 0, slowdown 1, memory max 2, GPU max 3 (nvmlTemperatureThresholds_t).
func (l *Lib) DeviceTemperatureThreshold(h uintptr, kind uint32) (uint32, error) {
	const op = "nvmlDeviceGetTemperatureThreshold"
	if _, err := l.device(op, h); err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	switch kind {
	case 0:
		return 92, nil
	case 1:
		return 89, nil
	case 2:
		return 95, nil
	case 3:
		return 87, nil
	}
	if kind < 8 { // acoustic and GPS thresholds: none on an H200
		return 0, nvmlErr(op, backend.NVMLNotSupported, "")
	}
	return 0, nvmlErr(op, backend.NVMLInvalidArgument, "threshold")
}

// DevicePowerUsage is nvmlDeviceGetPowerUsage.
func (l *Lib) DevicePowerUsage(h uintptr) (uint32, error) {
	d, err := l.device("nvmlDeviceGetPowerUsage", h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	return l.powerLocked(d), nil
}

// DevicePowerLimit is nvmlDeviceGetEnforcedPowerLimit.
func (l *Lib) DevicePowerLimit(h uintptr) (uint32, error) {
	if _, err := l.device("nvmlDeviceGetEnforcedPowerLimit", h); err != nil {
		return 0, err
	}
	l.mu.Unlock()
	return powerLimitMW, nil
}

// DeviceEnergy is nvmlDeviceGetTotalEnergyConsumption: the power integrated
// since the fake NVML was made, each stretch at the power read at its end.
func (l *Lib) DeviceEnergy(h uintptr) (uint64, error) {
	d, err := l.device("nvmlDeviceGetTotalEnergyConsumption", h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	now := time.Now()
	d.energyMJ += float64(l.powerLocked(d)) * now.Sub(d.energyAt).Seconds()
	d.energyAt = now
	return uint64(d.energyMJ), nil
}

// DeviceClock is nvmlDeviceGetClockInfo.
func (l *Lib) DeviceClock(h uintptr, clock uint32) (uint32, error) {
	const op = "nvmlDeviceGetClockInfo"
	d, err := l.device(op, h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	switch clock {
	case clockGraphics, clockSM:
		return l.smClockLocked(d, l.busyLocked(d)), nil
	case clockMem:
		return d.memClock(), nil
	case clockVideo:
		return videoClock * l.smClockLocked(d, l.busyLocked(d)) / maxSMClock, nil
	}
	return 0, nvmlErr(op, backend.NVMLInvalidArgument, "clock type")
}

func (d *device) memClock() uint32 {
	if d.info.MemClockKHz > 0 {
		return uint32(d.info.MemClockKHz / 1000)
	}
	return 3201
}

// DeviceMaxClock is nvmlDeviceGetMaxClockInfo.
func (l *Lib) DeviceMaxClock(h uintptr, clock uint32) (uint32, error) {
	return l.fixedClock("nvmlDeviceGetMaxClockInfo", h, clock)
}

// DeviceApplicationsClock is nvmlDeviceGetApplicationsClock: the maximum
// clocks (the default application clocks of a data-centre GPU).
func (l *Lib) DeviceApplicationsClock(h uintptr, clock uint32) (uint32, error) {
	return l.fixedClock("nvmlDeviceGetApplicationsClock", h, clock)
}

func (l *Lib) fixedClock(op string, h uintptr, clock uint32) (uint32, error) {
	d, err := l.device(op, h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	switch clock {
	case clockGraphics, clockSM:
		return maxSMClock, nil
	case clockMem:
		return d.memClock(), nil
	case clockVideo:
		return videoClock, nil
	}
	return 0, nvmlErr(op, backend.NVMLInvalidArgument, "clock type")
}

// DevicePerformanceState is nvmlDeviceGetPerformanceState: P0, where a
// data-centre GPU stays while it has a context.
func (l *Lib) DevicePerformanceState(h uintptr) (int, error) {
	if _, err := l.device("nvmlDeviceGetPerformanceState", h); err != nil {
		return 0, err
	}
	l.mu.Unlock()
	return 0, nil
}

// DeviceThrottleReasons is nvmlDeviceGetCurrentClocksThrottleReasons: GPU
// idle (0x1) when no work runs, none while it does, or what the test set.
func (l *Lib) DeviceThrottleReasons(h uintptr) (uint64, error) {
	d, err := l.device("nvmlDeviceGetCurrentClocksThrottleReasons", h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	if d.reasons != nil {
		return *d.reasons, nil
	}
	if l.busyLocked(d) > 0 {
		return 0, nil
	}
	return reasonIdle, nil
}

// DeviceFanCount is nvmlDeviceGetNumFans: an H200 SXM has none.
func (l *Lib) DeviceFanCount(h uintptr) (int, error) {
	if _, err := l.device("nvmlDeviceGetNumFans", h); err != nil {
		return 0, err
	}
	l.mu.Unlock()
	return 0, nil
}

// DeviceFanSpeed is nvmlDeviceGetFanSpeed_v2: NOT_SUPPORTED (no fans).
func (l *Lib) DeviceFanSpeed(h uintptr, fan uint32) (uint32, error) {
	const op = "nvmlDeviceGetFanSpeed"
	if _, err := l.device(op, h); err != nil {
		return 0, err
	}
	l.mu.Unlock()
	return 0, nvmlErr(op, backend.NVMLNotSupported, "the device has no fans")
}

// DeviceECCMode is nvmlDeviceGetEccMode: on, as an H200 ships.
func (l *Lib) DeviceECCMode(h uintptr) (bool, bool, error) {
	if _, err := l.device("nvmlDeviceGetEccMode", h); err != nil {
		return false, false, err
	}
	l.mu.Unlock()
	return true, true, nil
}

// DeviceECCErrors is nvmlDeviceGetTotalEccErrors.
func (l *Lib) DeviceECCErrors(h uintptr, errorType, counter uint32) (uint64, error) {
	const op = "nvmlDeviceGetTotalEccErrors"
	d, err := l.device(op, h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	if errorType != eccCorrected && errorType != eccUncorrected || counter != eccVolatile && counter != eccAggregate {
		return 0, nvmlErr(op, backend.NVMLInvalidArgument, "error or counter type")
	}
	return d.ecc[errorType][counter], nil
}

// DeviceRetiredPages is nvmlDeviceGetRetiredPages: NOT_SUPPORTED, as on
// every GPU with row remapping (Ampere and later).
func (l *Lib) DeviceRetiredPages(h uintptr, cause uint32) ([]uint64, error) {
	const op = "nvmlDeviceGetRetiredPages"
	if _, err := l.device(op, h); err != nil {
		return nil, err
	}
	l.mu.Unlock()
	return nil, nvmlErr(op, backend.NVMLNotSupported, "the device remaps rows (RemappedRows)")
}

// DeviceRemappedRows is nvmlDeviceGetRemappedRows.
func (l *Lib) DeviceRemappedRows(h uintptr) (backend.NVMLRemappedRows, error) {
	d, err := l.device("nvmlDeviceGetRemappedRows", h)
	if err != nil {
		return backend.NVMLRemappedRows{}, err
	}
	defer l.mu.Unlock()
	return d.remapped, nil
}
