package nvml

import (
	"errors"
	"fmt"
)

// The test's side: what package fake's NVMLDevice sets. Each setter takes
// a device ordinal and fails for one the fake does not have.

// errNoDevice is what a setter returns for an ordinal out of range.
var errNoDevice = errors.New("no such device")

func (l *Lib) with(dev int, f func(d *device) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if dev < 0 || dev >= len(l.devs) {
		return fmt.Errorf("device %d of %d: %w", dev, len(l.devs), errNoDevice)
	}
	return f(l.devs[dev])
}

func ptr[T any](v T) *T { return &v }

// SetUtilization fixes the GPU and memory utilisation (percent, at most 100).
func (l *Lib) SetUtilization(dev int, gpu, mem uint32) error {
	if gpu > 100 || mem > 100 {
		return fmt.Errorf("utilisation %d%%, %d%%: over 100", gpu, mem)
	}
	return l.with(dev, func(d *device) error { d.util, d.memUtil = ptr(gpu), ptr(mem); return nil })
}

// SetCodecUtilization fixes the encoder and decoder utilisation (percent).
func (l *Lib) SetCodecUtilization(dev int, enc, dec uint32) error {
	if enc > 100 || dec > 100 {
		return fmt.Errorf("utilisation %d%%, %d%%: over 100", enc, dec)
	}
	return l.with(dev, func(d *device) error { d.enc, d.dec = enc, dec; return nil })
}

// SetTemperature fixes the GPU temperature (°C).
func (l *Lib) SetTemperature(dev int, c uint32) error {
	return l.with(dev, func(d *device) error { d.temp = ptr(c); return nil })
}

// SetPower fixes the power draw (milliwatts, at most the limit).
func (l *Lib) SetPower(dev int, mw uint32) error {
	if mw > powerLimitMW {
		return fmt.Errorf("power %d mW: over the limit of %d mW", mw, powerLimitMW)
	}
	return l.with(dev, func(d *device) error { d.power = ptr(mw); return nil })
}

// SetSMClock fixes the graphics and SM clock (MHz, at most the maximum) and
// raises a clock event when it changes.
func (l *Lib) SetSMClock(dev int, mhz uint32) error {
	if mhz == 0 || mhz > maxSMClock {
		return fmt.Errorf("SM clock %d MHz: not in 1..%d", mhz, maxSMClock)
	}
	return l.with(dev, func(d *device) error {
		d.smClock = ptr(mhz)
		if d.lastClock != mhz {
			l.raiseLocked(d, nil, eventClock, 0)
			d.lastClock = mhz
		}
		return nil
	})
}

// SetThrottleReasons fixes the clock event reasons bit mask.
func (l *Lib) SetThrottleReasons(dev int, mask uint64) error {
	return l.with(dev, func(d *device) error { d.reasons = ptr(mask); return nil })
}

// AddECCErrors counts ECC errors (volatile and aggregate) and raises the
// single-bit and double-bit ECC events for them.
func (l *Lib) AddECCErrors(dev int, corrected, uncorrected uint64) error {
	return l.with(dev, func(d *device) error {
		for c := range 2 {
			d.ecc[eccCorrected][c] += corrected
			d.ecc[eccUncorrected][c] += uncorrected
		}
		if corrected > 0 {
			l.raiseLocked(d, nil, eventSingleBitECC, 0)
		}
		if uncorrected > 0 {
			l.raiseLocked(d, nil, eventDoubleBitECC, 0)
		}
		return nil
	})
}

// SetRemappedRows sets what nvmlDeviceGetRemappedRows answers.
func (l *Lib) SetRemappedRows(dev, correctable, uncorrectable int, pending, failure bool) error {
	if correctable < 0 || uncorrectable < 0 {
		return fmt.Errorf("remapped rows %d, %d: negative", correctable, uncorrectable)
	}
	return l.with(dev, func(d *device) error {
		d.remapped.Correctable, d.remapped.Uncorrectable = correctable, uncorrectable
		d.remapped.Pending, d.remapped.Failure = pending, failure
		return nil
	})
}

// InjectXid raises a critical Xid error event on the device.
func (l *Lib) InjectXid(dev int, xid uint64) error {
	if xid == 0 {
		return errors.New("no Xid (0)")
	}
	return l.with(dev, func(d *device) error { l.raiseLocked(d, nil, eventXid, xid); return nil })
}

// SetLost makes every later call on the device fail with GPU_IS_LOST (Xid
// 79, "GPU has fallen off the bus", is raised first).
func (l *Lib) SetLost(dev int) error {
	return l.with(dev, func(d *device) error {
		if !d.lost {
			l.raiseLocked(d, nil, eventXid, 79)
			d.lost = true
		}
		return nil
	})
}

// ConnectNVLink connects n links of devices a and b (the first free links
// of each). The devices' PCIe topology (SetTopology) stays as it was, as
// NVLink peers' does.
func (l *Lib) ConnectNVLink(a, b, n int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a < 0 || a >= len(l.devs) || b < 0 || b >= len(l.devs) || a == b {
		return fmt.Errorf("devices %d and %d of %d: %w", a, b, len(l.devs), errNoDevice)
	}
	da, db := l.devs[a], l.devs[b]
	free := func(d *device) []int {
		var f []int
		for i, k := range d.links {
			if k == nil {
				f = append(f, i)
			}
		}
		return f
	}
	fa, fb := free(da), free(db)
	if n <= 0 || n > len(fa) || n > len(fb) {
		return fmt.Errorf("%d links: device %d has %d free, device %d has %d", n, a, len(fa), b, len(fb))
	}
	for i := range n {
		da.links[fa[i]] = &link{peer: b}
		db.links[fb[i]] = &link{peer: a}
	}
	return nil
}

// AddNVLinkErrors counts errors on an active link (counter 0..5).
func (l *Lib) AddNVLinkErrors(dev, n, counter int, count uint64) error {
	return l.with(dev, func(d *device) error {
		if n < 0 || n >= nvlinkLinks || d.links[n] == nil {
			return fmt.Errorf("link %d: not active", n)
		}
		if counter < 0 || counter >= len(d.links[n].errors) {
			return fmt.Errorf("counter %d: not in 0..%d", counter, len(d.links[n].errors)-1)
		}
		d.links[n].errors[counter] += count
		return nil
	})
}

// SetTopology sets the nvmlGpuTopologyLevel_t between two devices.
func (l *Lib) SetTopology(a, b, level int) error {
	switch level {
	case 10, 20, 30, 40, 50:
	default:
		return fmt.Errorf("topology level %d: not SINGLE, MULTIPLE, HOSTBRIDGE, NODE or SYSTEM", level)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if a < 0 || a >= len(l.devs) || b < 0 || b >= len(l.devs) || a == b {
		return fmt.Errorf("devices %d and %d of %d: %w", a, b, len(l.devs), errNoDevice)
	}
	l.topo[pair(a, b)] = level
	return nil
}

// SetMIG turns MIG mode on with the given layout (at most 7 devices whose
// memory fits the device's), or off for an empty one; the old layout's
// handles stop working. It raises no event.
func (l *Lib) SetMIG(dev int, layout []MIGSpec) error {
	if len(layout) > maxMIGDevices {
		return fmt.Errorf("%d MIG devices: at most %d", len(layout), maxMIGDevices)
	}
	return l.with(dev, func(d *device) error {
		var sum uint64
		for _, s := range layout {
			if s.Profile == "" || s.Memory == 0 {
				return fmt.Errorf("MIG device %+v: no profile or memory", s)
			}
			sum += s.Memory
		}
		if sum > d.info.TotalMemory {
			return fmt.Errorf("MIG layout of %d bytes: the device has %d", sum, d.info.TotalMemory)
		}
		d.mig = d.mig[:0]
		for j, s := range layout {
			u := d.info.UUID
			d.mig = append(d.mig, &migDevice{
				spec: s, handle: migHandle(d.index, j), gi: j + 1, ci: 0,
				uuid: fmt.Sprintf("MIG-%x-%x-%x-%x-%02x%x", u[0:4], u[4:6], u[6:8], u[8:10], j+1, u[11:16]),
			})
		}
		d.migOn = len(layout) > 0
		return nil
	})
}
