package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/fake"
)

func TestScale(t *testing.T) {
	// The GPU where one loads, else the fake, with the kernel's body in Go.
	drv := cudatest.Driver(t, fake.Kernel("scale", scaleBody))
	got, err := scale(drv, []float32{1, 2, 3}, 2)
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 4, 6}, got)
}

// scaleBody is the kernel's body for the fake: what the CUDA C computes.
func scaleBody(t fake.Thread, out, in fake.Ptr, k float32, n int32) {
	if i := t.X(); i < int(n) {
		fake.Store(t, out, i, k*fake.Load[float32](t, in, i))
	}
}

func TestScaleEmpty(t *testing.T) {
	got, err := scale(cudatest.Driver(t, fake.Kernel("scale", scaleBody)), nil, 2)
	require.NoError(t, err)
	assert.Empty(t, got)
}
