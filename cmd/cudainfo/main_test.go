package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
)

// TestFakeReport runs the report on the fake as on a machine without
// libnvrtc: the pretend compiler, and the self-test kernel's Go body.
func TestFakeReport(t *testing.T) {
	t.Setenv("NOCGO_CUDA_CACHE", "off")
	t.Setenv("NOCGO_CUDA_LIBNVRTC", "/nonexistent/libnvrtc.so.12")
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(&out, &errb, true, false, true), errb.String())
	s := out.String()
	assert.Contains(t, s, "backend:        fake")
	assert.Contains(t, s, "device 0: Fake CUDA Device 0")
	assert.Contains(t, s, "compute capability   9.0")
	assert.Contains(t, s, "multiprocessors      132")
	assert.Regexp(t, `\n  SharedMemPerBlockOptin +232448\n`, s, "every property, one a line")
	assert.Regexp(t, `\n  ComputeMode +CU_COMPUTEMODE_DEFAULT\n`, s)
	assert.Contains(t, s, "nvrtc:          13.0 (nocgo/cuda fake)\n")
	assert.Regexp(t, `self-test:      ok: segment_scale: 4096 elements .* match the Go reference exactly`, s)
}

// TestFakeReportNVRTC runs the report on the fake with NVIDIA's NVRTC: the
// self-test's CUDA C is compiled by libnvrtc and runs in the fake's PTX
// interpreter (no Go body is registered).
func TestFakeReportNVRTC(t *testing.T) {
	cudatest.NVRTC(t)
	t.Setenv("NOCGO_CUDA_CACHE", "off")
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(&out, &errb, true, false, true), errb.String()+out.String())
	s := out.String()
	assert.Regexp(t, `nvrtc:          \d+\.\d+ \(libnvrtc on the fake: /.*libnvrtc[^ ]*\)\n`, s)
	assert.Regexp(t, `self-test:      ok: segment_scale: 4096 elements .* match the Go reference exactly`, s)
}

func TestFakeJSON(t *testing.T) {
	t.Setenv("NOCGO_CUDA_CACHE", "off")
	t.Setenv("NOCGO_CUDA_LIBNVRTC", "/nonexistent/libnvrtc.so.12")
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(&out, &errb, true, true, true), errb.String())
	var rep report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	assert.Equal(t, "fake", rep.Backend)
	assert.Equal(t, "13.0", rep.DriverVersion)
	assert.Equal(t, "nocgo/cuda fake", rep.NVRTCCompiler)
	require.Len(t, rep.Devices, 1)
	assert.Equal(t, "9.0", rep.Devices[0].ComputeCapability)
	assert.NotEmpty(t, rep.Devices[0].Attributes)
	assert.Equal(t, 32, rep.Devices[0].Properties.WarpSize)
	assert.Equal(t, rep.Devices[0].Name, rep.Devices[0].Properties.Name)
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
	cudatest.Real(t)
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(&out, &errb, false, false, true), errb.String())
	s := out.String()
	t.Log("\n" + s)
	assert.Contains(t, s, "backend:        libcuda")
	assert.Contains(t, s, "library:")
	assert.Regexp(t, `self-test:      ok: segment_scale: 1048576 elements .* match the Go reference exactly`, s)
}
