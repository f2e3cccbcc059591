package fake_test

import (
	"fmt"
	"log"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// blockSumPTX is what NVRTC 11.8 emits for compute_90 from
//
//	extern "C" __global__ void block_sum(const float *in, float *total, int n)
//	{
//	    __shared__ float part[256];
//	    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
//	    part[t] = i < n ? in[i] : 0.0f;
//	    __syncthreads();
//	    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
//	        if (t < s) part[t] += part[t + s];
//	        __syncthreads();
//	    }
//	    if (t == 0) atomicAdd(total, part[0]);
//	}
const blockSumPTX = `
.version 7.8
.target sm_90
.address_size 64

.visible .entry block_sum(
	.param .u64 block_sum_param_0,
	.param .u64 block_sum_param_1,
	.param .u32 block_sum_param_2
)
{
	.reg .pred 	%p<6>;
	.reg .f32 	%f<10>;
	.reg .b32 	%r<17>;
	.reg .b64 	%rd<8>;
	// demoted variable
	.shared .align 4 .b8 _ZZ9block_sumE4part[1024];

	ld.param.u64 	%rd2, [block_sum_param_0];
	ld.param.u64 	%rd3, [block_sum_param_1];
	ld.param.u32 	%r7, [block_sum_param_2];
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r8, %ctaid.x;
	mad.lo.s32 	%r3, %r8, %r2, %r1;
	setp.ge.s32 	%p1, %r3, %r7;
	mov.f32 	%f9, 0f00000000;
	@%p1 bra 	$L__BB1_2;

	cvta.to.global.u64 	%rd4, %rd2;
	mul.wide.s32 	%rd5, %r3, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f32 	%f9, [%rd6];

$L__BB1_2:
	shl.b32 	%r9, %r1, 2;
	mov.u32 	%r10, _ZZ9block_sumE4part;
	add.s32 	%r4, %r10, %r9;
	st.shared.f32 	[%r4], %f9;
	bar.sync 	0;
	shr.u32 	%r16, %r2, 1;
	setp.eq.s32 	%p2, %r16, 0;
	@%p2 bra 	$L__BB1_6;

$L__BB1_3:
	setp.ge.u32 	%p3, %r1, %r16;
	@%p3 bra 	$L__BB1_5;

	shl.b32 	%r11, %r16, 2;
	add.s32 	%r12, %r4, %r11;
	ld.shared.f32 	%f4, [%r4];
	ld.shared.f32 	%f5, [%r12];
	add.f32 	%f6, %f5, %f4;
	st.shared.f32 	[%r4], %f6;

$L__BB1_5:
	bar.sync 	0;
	shr.u32 	%r16, %r16, 1;
	setp.ne.s32 	%p4, %r16, 0;
	@%p4 bra 	$L__BB1_3;

$L__BB1_6:
	setp.ne.s32 	%p5, %r1, 0;
	@%p5 bra 	$L__BB1_8;

	cvta.to.global.u64 	%rd7, %rd3;
	ld.shared.f32 	%f7, [_ZZ9block_sumE4part];
	atom.global.add.f32 	%f8, [%rd7], %f7;

$L__BB1_8:
	ret;
}
`

// PTX loaded on the fake runs in its PTX interpreter when the kernel has
// no Go body: shared memory, barriers and atomics as on a GPU, so the
// kernel itself is what the test checks.
func Example_ptx() {
	drv := fake.New() // no fake.Kernel: nothing written twice
	dev, _ := drv.Device(0)
	ctx, _ := dev.PrimaryContext()
	defer ctx.Close()

	mod, err := module.Load(ctx, []byte(blockSumPTX))
	if err != nil {
		log.Fatal(err)
	}
	defer mod.Close()
	fn, _ := mod.Function("block_sum")

	const n = 1000
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	in, _ := memory.Alloc[float32](ctx, n)
	defer in.Close()
	total, _ := memory.Alloc[float32](ctx, 1)
	defer total.Close()
	memory.CopyToDevice(in, host)
	memory.CopyToDevice(total, []float32{0})

	s, _ := stream.Default(ctx)
	cfg := module.Config{Grid: module.Dim((n + 255) / 256), Block: module.Dim(256)}
	if err := fn.Launch(s, cfg, in, total, int32(n)); err != nil {
		log.Fatal(err)
	}
	sum := make([]float32, 1)
	memory.CopyToHost(sum, total)
	fmt.Println(sum[0])
	// Output:
	// 499500
}
