package ptxexec

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrintf(t *testing.T) {
	p, mem := load(t, "90")
	v := mem.f32s([]float32{1.5, -2.25, 3})
	var out strings.Builder
	k := p.Kernels["hello"]
	require.NoError(t, k.Run(&Launch{Grid: dim(1), Block: dim(4), Params: params(t, k, v, int32(3)), Mem: mem, Printf: &out}))
	assert.Equal(t, "thread 0: 1.50 ok z 0 0%\n"+
		"thread 1: -2.25 ok z 1000000000 1%\n"+
		"thread 2: 3.00 ok z 2000000000 2%\n", out.String())
}

func TestAssert(t *testing.T) {
	p, mem := load(t, "90")
	v := mem.i32s([]int32{0, 1, -1, 2})
	var out strings.Builder
	k := p.Kernels["checked"]
	require.NoError(t, k.Run(&Launch{Grid: dim(1), Block: dim(2), Params: params(t, k, v), Mem: mem, Printf: &out}))
	err := k.Run(&Launch{Grid: dim(1), Block: dim(4), Params: params(t, k, v), Mem: mem, Printf: &out})
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeAssert, f.Code)
	assert.Contains(t, f.Msg, "kernels.cu:")
	assert.Contains(t, f.Msg, "thread: [2,0,0] Assertion `v[threadIdx.x] >= 0` failed.")
	assert.Contains(t, out.String(), "Assertion `v[threadIdx.x] >= 0` failed.")
}
