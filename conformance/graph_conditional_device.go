package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
)

// conditionalPTX holds two kernels that set a graph condition from device
// code, as CUDA C's cudaGraphSetConditional(handle, value) compiles
// (PTX declares the function and calls it; the driver resolves it at
// load): count_down(unsigned* counter, handle) decrements *counter and sets
// the condition to whether it is still non-zero; set_cond(handle, value)
// sets it to value. One thread each.
const conditionalPTX = `
.version 6.0
.target sm_50
.address_size 64

.extern .func cudaGraphSetConditional
(
	.param .b64 cudaGraphSetConditional_param_0,
	.param .b32 cudaGraphSetConditional_param_1
)
;

.visible .entry count_down(
	.param .u64 count_down_param_0,
	.param .u64 count_down_param_1
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;

	ld.param.u64 %rd1, [count_down_param_0];
	ld.param.u64 %rd2, [count_down_param_1];
	cvta.to.global.u64 %rd3, %rd1;
	ld.global.u32 %r1, [%rd3];
	add.s32 %r2, %r1, -1;
	st.global.u32 [%rd3], %r2;
	setp.ne.s32 %p1, %r2, 0;
	selp.u32 %r3, 1, 0, %p1;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd2;
	.param .b32 param1;
	st.param.b32 [param1+0], %r3;
	call.uni cudaGraphSetConditional, (param0, param1);
	}
	ret;
}

.visible .entry set_cond(
	.param .u64 set_cond_param_0,
	.param .u32 set_cond_param_1
)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;

	ld.param.u64 %rd1, [set_cond_param_0];
	ld.param.u32 %r1, [set_cond_param_1];
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 [param1+0], %r1;
	call.uni cudaGraphSetConditional, (param0, param1);
	}
	ret;
}
`

// testGraphConditionalDevice: conditions set by kernels. A while node whose
// body counts a counter down from 5 runs its body 5 times per launch; an
// if node after a kernel that sets its condition to 0 skips its body
// although the default is 1.
func testGraphConditionalDevice(t *testing.T, drv *driver.Driver) {
	f := newGraphFixture(t, drv)
	s := newStream(t, f.ctx)
	m, err := module.Load(f.ctx, []byte(conditionalPTX))
	must(t, err)
	t.Cleanup(func() { must(t, m.Close()) })
	countDown, err := m.Function("count_down")
	must(t, err)
	setCond, err := m.Function("set_cond")
	must(t, err)
	counter, err := memory.Alloc[uint32](f.ctx, 1)
	must(t, err)
	t.Cleanup(func() { must(t, counter.Close()) })
	one := module.Config{Grid: module.Dim(1), Block: module.Dim(1)}

	g, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g)
	loop, err := g.NewCondition(1, true)
	must(t, err)
	_, body, err := g.AddWhile(loop)
	must(t, err)
	addArgs, err := f.add1.Args(f.buf, int32(f.n))
	must(t, err)
	a, err := body.AddKernel(f.add1, f.cfg(), addArgs)
	must(t, err)
	cdArgs, err := countDown.Args(counter, loop.Handle())
	must(t, err)
	_, err = body.AddKernel(countDown, one, cdArgs, a)
	must(t, err)
	x := instantiate(t, g)
	for launch := 1; launch <= 2; launch++ {
		must(t, memory.CopyToDevice(counter, []uint32{5}))
		must(t, x.Launch(s))
		must(t, s.Synchronize())
		expectAll(t, f.buf, float32(5*launch), "a while body run until its kernel cleared the condition")
	}

	must(t, memory.CopyToDevice(f.buf, make([]float32, f.n)))
	g2, err := graph.New(f.ctx)
	must(t, err)
	closeGraph(t, g2)
	gate, err := g2.NewCondition(1, true)
	must(t, err)
	scArgs, err := setCond.Args(gate.Handle(), uint32(0))
	must(t, err)
	k, err := g2.AddKernel(setCond, one, scArgs)
	must(t, err)
	_, ifBody, err := g2.AddIf(gate, k)
	must(t, err)
	_, err = graph.AddFill(ifBody, f.buf, float32(9))
	must(t, err)
	y := instantiate(t, g2)
	must(t, y.Launch(s))
	must(t, s.Synchronize())
	expectAll(t, f.buf, 0, "an if body skipped: a kernel set its condition to 0")
}
