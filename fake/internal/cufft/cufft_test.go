package cufft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// cuFFT's argument errors, before any work is queued (a nil queue would
// fail the test if anything were).
func TestPlanErrors(t *testing.T) {
	l := New(nil)
	h, err := l.Create()
	require.NoError(t, err)
	for _, tc := range []struct {
		p    backend.FFTPlan
		want backend.FFTResult
	}{
		{backend.FFTPlan{N: []int64{8}, Type: 7, Batch: 1}, backend.FFTInvalidType},
		{backend.FFTPlan{N: []int64{0}, Type: backend.FFTC2C, Batch: 1}, backend.FFTInvalidSize},
		{backend.FFTPlan{N: []int64{2, 2, 2, 2}, Type: backend.FFTC2C, Batch: 1}, backend.FFTInvalidSize},
		{backend.FFTPlan{N: []int64{8}, Type: backend.FFTC2C, Batch: 0}, backend.FFTInvalidSize},
		{backend.FFTPlan{N: []int64{8, 8}, Type: backend.FFTC2C, Batch: 1, InEmbed: []int64{8, 4}, OutEmbed: []int64{8, 8}, IStride: 1, OStride: 1}, backend.FFTInvalidValue},
		// Strides, distances and embeddings whose span wraps an int64.
		{backend.FFTPlan{N: []int64{4}, Type: backend.FFTC2C, Batch: 1, InEmbed: []int64{4}, OutEmbed: []int64{4}, IStride: 1 << 62, OStride: 1}, backend.FFTInvalidValue},
		{backend.FFTPlan{N: []int64{4}, Type: backend.FFTC2C, Batch: 2, InEmbed: []int64{4}, OutEmbed: []int64{4}, IStride: 1, OStride: 1, IDist: 4, ODist: 1 << 62}, backend.FFTInvalidValue},
		{backend.FFTPlan{N: []int64{2, 2}, Type: backend.FFTC2C, Batch: 1, InEmbed: []int64{2, 1 << 62}, OutEmbed: []int64{2, 2}, IStride: 1, OStride: 1}, backend.FFTInvalidValue},
	} {
		_, err := l.MakePlanMany(h, &tc.p)
		assert.ErrorIs(t, err, tc.want, "%+v", tc.p)
	}
	ws, err := l.MakePlanMany(h, &backend.FFTPlan{N: []int64{16}, Type: backend.FFTR2C, Batch: 2})
	require.NoError(t, err)
	got, err := l.GetSize(h)
	require.NoError(t, err)
	assert.Equal(t, ws, got)
	_, err = l.MakePlanMany(h, &backend.FFTPlan{N: []int64{16}, Type: backend.FFTR2C, Batch: 2})
	assert.ErrorIs(t, err, backend.FFTInvalidPlan, "made twice")
	assert.ErrorIs(t, l.ExecC2C(h, 0x1000, 0x1000, backend.FFTForward), backend.FFTInvalidValue, "an R2C plan")
	assert.ErrorIs(t, l.ExecR2C(h, 0, 0x1000), backend.FFTInvalidValue, "NULL input")
	e, err := l.Create()
	require.NoError(t, err)
	assert.ErrorIs(t, l.ExecC2C(e, 0x1000, 0x1000, backend.FFTForward), backend.FFTInvalidPlan, "not made")
	require.NoError(t, l.Destroy(h))
	assert.ErrorIs(t, l.Destroy(h), backend.FFTInvalidPlan)
}

// The layouts: element (i0, i1) of batch b, and the extent a side spans.
func TestLayout(t *testing.T) {
	l := layout{embed: []int64{0, 10}, stride: 2, dist: 100}
	assert.Equal(t, int64(100+2*(3*10+4)), l.index([]int64{3, 4}, 1))
	assert.Equal(t, int64(100+2*(4*10+5)+1), l.extent([]int64{5, 6}, 2))
	assert.Equal(t, []int64{4, 5}, halfDims([]int64{4, 8}))
	in, out := sides(backend.FFTC2R, []int64{3, 9})
	assert.Equal(t, []int64{3, 5}, in)
	assert.Equal(t, []int64{3, 9}, out)
}
