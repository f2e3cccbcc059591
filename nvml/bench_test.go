package nvml_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/nvml"
)

// BenchmarkQuery measures one memory-info (nvmlDeviceGetMemoryInfo) and
// one utilisation (nvmlDeviceGetUtilizationRates) query through Device, on
// the GPU where the driver loads (else the fake). C's figures for the same
// calls come from bench/nvml_baseline.c.
func BenchmarkQuery(b *testing.B) {
	lib, err := nvml.Open(cudatest.Driver(b))
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, lib.Close()) })
	d, err := lib.Device(0)
	require.NoError(b, err)
	b.Run("Memory", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.Memory(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Utilization", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.Utilization(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestQueriesDoNotAllocate: the hot queries of an exporter allocate
// nothing (on the fake; BenchmarkQuery reports the GPU's).
func TestQueriesDoNotAllocate(t *testing.T) {
	lib := open(t, fake.New())
	d := device0(t, lib)
	for name, q := range map[string]func() error{
		"Memory":      func() error { _, err := d.Memory(); return err },
		"Utilization": func() error { _, err := d.Utilization(); return err },
		"Temperature": func() error { _, err := d.Temperature(); return err },
		"Power":       func() error { _, err := d.Power(); return err },
	} {
		require.NoError(t, q())
		var err error
		allocs := testing.AllocsPerRun(100, func() { err = q() })
		require.NoError(t, err)
		if allocs != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, allocs)
		}
	}
}
