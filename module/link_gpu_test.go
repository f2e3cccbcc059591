package module_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// PTX of a device function and of a kernel that calls it through an
// .extern declaration: separate compilation, resolved only by the linker.
const (
	ptxLibTwice = `.version 7.8
.target sm_90
.address_size 64

.visible .func (.param .b32 func_retval0) twice(
	.param .b32 twice_param_0
)
{
	.reg .f32 %f<3>;

	ld.param.f32 %f1, [twice_param_0];
	add.f32 %f2, %f1, %f1;
	st.param.f32 [func_retval0+0], %f2;
	ret;
}
`
	ptxApplyTwice = `.version 7.8
.target sm_90
.address_size 64

.extern .func (.param .b32 func_retval0) twice
(
	.param .b32 twice_param_0
)
;

.visible .entry apply_twice(
	.param .u64 apply_twice_param_0,
	.param .u32 apply_twice_param_1
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [apply_twice_param_0];
	ld.param.u32 %r2, [apply_twice_param_1];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.s32 %p1, %r1, %r2;
	@%p1 bra $L__BB0_2;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.s32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	{
	.param .b32 param0;
	st.param.f32 [param0+0], %f1;
	.param .b32 retval0;
	call.uni (retval0), twice, (param0);
	ld.param.f32 %f2, [retval0+0];
	}
	st.global.f32 [%rd4], %f2;
$L__BB0_2:
	ret;
}
`
)

// The driver's linker resolves a kernel's call into another PTX input, and
// refuses, with its error log, a kernel whose callee is missing.
func TestLinkResolvesExternGPU(t *testing.T) {
	drv := cudatest.Real(t)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	if major, _, err := dev.ComputeCapability(); err != nil || major < 9 {
		t.Skip("the PTX targets sm_90")
	}
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()

	m, err := module.Link(ctx,
		module.LinkInput{Name: "apply_twice.ptx", Data: []byte(ptxApplyTwice)},
		module.LinkInput{Name: "twice.ptx", Data: []byte(ptxLibTwice)})
	require.NoError(t, err)
	defer m.Close()
	t.Logf("linker info log: %q", m.JITLog())
	assert.Equal(t, module.CUBIN, m.Kind(), "the driver's linker makes a CUBIN")
	f, err := m.Function("apply_twice")
	require.NoError(t, err)
	const n = 1000
	p, err := memory.Alloc[float32](ctx, n)
	require.NoError(t, err)
	defer p.Close()
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	require.NoError(t, memory.CopyToDevice(p, in))
	require.NoError(t, f.Launch(s, module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}, p, int32(n)))
	require.NoError(t, s.Synchronize())
	got := make([]float32, n)
	require.NoError(t, memory.CopyToHost(got, p))
	for i := range got {
		require.Equal(t, float32(2*i), got[i], "element %d", i)
	}

	_, err = module.Link(ctx, module.LinkInput{Name: "apply_twice.ptx", Data: []byte(ptxApplyTwice)})
	var le *module.LoadError
	require.True(t, errors.As(err, &le), "an undefined callee: %v", err)
	assert.Contains(t, le.Log, "twice", "the linker's error log names the missing symbol")
	t.Logf("linker error: %v", err)
}

// The JIT's info log of a PTX load on the real driver, and a refused
// load's error log.
func TestJITLogsGPU(t *testing.T) {
	drv := cudatest.Real(t)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	m, err := module.Load(ctx, []byte(ptxLibTwice))
	require.NoError(t, err)
	t.Logf("JIT info log: %q", m.JITLog())
	require.NoError(t, m.Close())

	_, err = module.Load(ctx, []byte(ptxApplyTwice))
	var le *module.LoadError
	require.True(t, errors.As(err, &le), "an unresolved .extern cannot load alone: %v", err)
	assert.NotEmpty(t, le.Log, "the JIT says why")
	t.Logf("load error: %v", err)
}
