package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFakeReportNVML: the report shows NVML's view of the fake's devices.
func TestFakeReportNVML(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNVRTC", "/nonexistent/libnvrtc.so.12")
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(&out, &errb, true, false, false), errb.String())
	s := out.String()
	assert.Contains(t, s, "nvml:           13.580.95.05 (driver 580.95.05)\n")
	assert.Contains(t, s, "  device 0        Hopper")
	assert.Contains(t, s, "    memory         0 B used, 8 GiB free")
	assert.Contains(t, s, "    power          75 W of 700 W\n")

	out.Reset()
	require.Equal(t, 0, run(&out, &errb, true, true, false), errb.String())
	var rep report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	require.NotNil(t, rep.NVML)
	require.Len(t, rep.NVML.Devices, 1)
	d := rep.NVML.Devices[0]
	assert.Equal(t, uint64(8<<30), d.MemoryFree)
	assert.Equal(t, uint32(700_000), d.PowerLimitMW)
	assert.Empty(t, d.Errors, "every query answered")
}
