package fake

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// lineinfoPTX is what NVRTC -lineinfo emits for
//
//	extern "C" __global__ void poke(int *p) { p[threadIdx.x] = 1; }   // line 3 of poke.cu
//
// with its .file and .loc directives.
const lineinfoPTX = `.version 7.8
.target sm_80
.address_size 64

.visible .entry poke(
	.param .u64 poke_param_0
)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<5>;
	.loc	1 3 0

	ld.param.u64 	%rd1, [poke_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	.loc	1 3 44
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	mov.u32 	%r2, 1;
	st.global.u32 	[%rd4], %r2;
	.loc	1 3 63
	ret;

}
	.file	1 "/home/me/poke.cu"
`

// TestFaultNamesSourceLine: a fault of a kernel compiled with -lineinfo
// (or -G) names the .cu file and line besides the PTX line, in the
// stream's error and in the fault the fake keeps.
func TestFaultNamesSourceLine(t *testing.T) {
	b := bound(t)
	m, err := b.ModuleLoadData([]byte(lineinfoPTX + "\x00"))
	require.NoError(t, err)
	f, err := b.ModuleGetFunction(m, "poke")
	require.NoError(t, err)
	bad := uintptr(0x10)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, backend.StreamNull, args(unsafe.Pointer(&bad))))
	serr := b.CtxSynchronize()
	assert.ErrorIs(t, serr, driver.ErrIllegalAddress)
	assert.Regexp(t, `kernel fault: ptx line 20 \(/home/me/poke\.cu:3\): st\.global\.u32 `, serr.Error())
	assert.Contains(t, b.kernelFault().Error(), "(/home/me/poke.cu:3)")
	b.ModuleUnload(m)
}
