package nvml_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/nvml"
)

// watch is what a health check does with NVML: every device's readings,
// processes and MIG devices, an event set waited on for an Xid. Whatever
// fails, it closes what it made (Close retried once) and returns the first
// error.
func watch(drv *driver.Driver) (err error) {
	lib, err := nvml.Open(drv)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := lib.Close(); cerr != nil {
			err = errors.Join(err, cerr, lib.Close())
		}
	}()
	set, err := lib.NewEventSet()
	if err != nil {
		return err
	}
	defer func() {
		if cerr := set.Close(); cerr != nil {
			err = errors.Join(err, cerr, set.Close())
		}
	}()
	for d, err := range lib.Devices() {
		if err != nil {
			return err
		}
		if _, err := d.Memory(); err != nil {
			return err
		}
		if _, err := d.Utilization(); err != nil {
			return err
		}
		if _, err := d.Temperature(); err != nil {
			return err
		}
		if _, err := d.Power(); err != nil {
			return err
		}
		for _, err := range d.Processes() {
			if err != nil {
				return err
			}
		}
		for _, err := range d.MIGDevices() {
			if err != nil {
				return err
			}
		}
		if err := set.Register(d, nvml.EventXid); err != nil {
			return err
		}
	}
	// An event waits: the first nvmlEventSetWait returns it, whatever the
	// machine's load.
	if err := fake.Of(drv).NVMLDevice(0).InjectXid(43); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = set.Wait(ctx)
	return err
}

// TestFaultSweep fails each NVML call watch makes, one at a time: the
// failure comes back as the error (errors.Is finds it), nothing panics,
// and everything closes.
func TestFaultSweep(t *testing.T) {
	clean := fake.New(fake.Devices(2), fake.CountCalls())
	require.NoError(t, fake.Of(clean).NVMLDevice(1).SetMIG(fake.MIGInstance{Profile: "1g.1gb", Memory: 1 << 30}))
	require.NoError(t, watch(clean))
	swept := 0
	for op, k := range fake.Of(clean).Calls() {
		if !strings.HasPrefix(op, "nvml") {
			continue
		}
		for n := 1; n <= int(k); n++ {
			drv := fake.New(fake.Devices(2), fake.FailNVML(op, n, nvml.ErrUnknown))
			require.NoError(t, fake.Of(drv).NVMLDevice(1).SetMIG(fake.MIGInstance{Profile: "1g.1gb", Memory: 1 << 30}))
			err := watch(drv)
			if op == "nvmlDeviceIsMigDeviceHandle" || op == "nvmlDeviceGetIndex" {
				// Advisory: a device NVML cannot classify is a whole
				// GPU; one it cannot index is named by its handle in an
				// error (watch's only index calls).
				assert.NoError(t, err, "%s call %d", op, n)
				continue
			}
			assert.ErrorIs(t, err, nvml.ErrUnknown, "%s call %d", op, n)
			swept++
		}
	}
	assert.Greater(t, swept, 20, "the sweep covered the calls")
}
