package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/drivertest"
)

func TestFakeReport(t *testing.T) {
	t.Setenv("NOCGO_CUDA_CACHE", "off")
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(&out, &errb, true, false, true), errb.String())
	s := out.String()
	assert.Contains(t, s, "backend:        fake")
	assert.Contains(t, s, "device 0: Fake CUDA Device 0")
	assert.Contains(t, s, "compute capability   9.0")
	assert.Contains(t, s, "multiprocessors      132")
	assert.Contains(t, s, "nvrtc:          13.0")
	assert.Regexp(t, `self-test:      ok: segment_scale: 4096 elements .* match the Go reference exactly`, s)
}

func TestFakeJSON(t *testing.T) {
	t.Setenv("NOCGO_CUDA_CACHE", "off")
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(&out, &errb, true, true, true), errb.String())
	var rep report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	assert.Equal(t, "fake", rep.Backend)
	assert.Equal(t, "13.0", rep.DriverVersion)
	require.Len(t, rep.Devices, 1)
	assert.Equal(t, "9.0", rep.Devices[0].ComputeCapability)
	assert.NotEmpty(t, rep.Devices[0].Attributes)
	require.NotNil(t, rep.SelfTest)
	assert.True(t, rep.SelfTest.OK, rep.SelfTest.Summary)
}

func TestNoDriverSaysWhatWasSearched(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBCUDA", "/nonexistent/libcuda.so.1")
	var out, errb bytes.Buffer
	assert.Equal(t, 1, run(&out, &errb, false, false, false))
	assert.Contains(t, errb.String(), "/nonexistent/libcuda.so.1")
	assert.Contains(t, errb.String(), "-fake")
	assert.Empty(t, out.String())
}

// TestRealReport runs the report and the self-test on the real driver.
func TestRealReport(t *testing.T) {
	drivertest.Real(t)
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(&out, &errb, false, false, true), errb.String())
	s := out.String()
	t.Log("\n" + s)
	assert.Contains(t, s, "backend:        libcuda")
	assert.Contains(t, s, "library:")
	assert.Regexp(t, `self-test:      ok: segment_scale: 1048576 elements .* match the Go reference exactly`, s)
}
