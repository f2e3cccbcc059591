package fake_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// handoffPTX is what NVRTC 11.8 emits for compute_90 from
//
//	extern "C" __global__ void handoff(volatile int *flag, int *out) {
//	  if (blockIdx.x == 1) {
//	    out[0] = 42;
//	    __threadfence();
//	    flag[0] = 1;
//	  } else {
//	    while (flag[0] == 0) {
//	    }
//	    out[1] = out[0] + 1;
//	  }
//	}
const handoffPTX = `
.version 7.8
.target sm_90
.address_size 64

	// .globl	handoff

.visible .entry handoff(
	.param .u64 handoff_param_0,
	.param .u64 handoff_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<7>;
	.reg .b64 	%rd<5>;


	ld.param.u64 	%rd3, [handoff_param_0];
	ld.param.u64 	%rd4, [handoff_param_1];
	cvta.to.global.u64 	%rd1, %rd4;
	cvta.to.global.u64 	%rd2, %rd3;
	mov.u32 	%r1, %ctaid.x;
	setp.eq.s32 	%p1, %r1, 1;
	@%p1 bra 	$L__BB0_4;
	bra.uni 	$L__BB0_2;

$L__BB0_4:
	mov.u32 	%r5, 42;
	st.global.u32 	[%rd1], %r5;
	membar.gl;
	mov.u32 	%r6, 1;
	st.volatile.global.u32 	[%rd2], %r6;
	bra.uni 	$L__BB0_5;

$L__BB0_2:
	ld.volatile.global.u32 	%r2, [%rd2];
	setp.eq.s32 	%p2, %r2, 0;
	@%p2 bra 	$L__BB0_2;

	ld.global.u32 	%r3, [%rd1];
	add.s32 	%r4, %r3, 1;
	st.global.u32 	[%rd1+4], %r4;

$L__BB0_5:
	ret;

}

`

// Blocks of one launch may wait for each other, as on a GPU, where the
// blocks of a grid that fits are resident together: block 0 spins until
// block 1 (which runs after it) sets a flag. A wait that no schedule can
// end (here block 1 does not exist) fails the launch instead of hanging,
// and KernelFault says which blocks spin where.
func Example_blocksWaitForEachOther() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	ctx, _ := dev.PrimaryContext()
	defer ctx.Close()
	mod, err := module.Load(ctx, []byte(handoffPTX))
	if err != nil {
		log.Fatal(err)
	}
	defer mod.Close()
	fn, _ := mod.Function("handoff")
	flag, _ := memory.Alloc[int32](ctx, 1)
	defer flag.Close()
	out, _ := memory.Alloc[int32](ctx, 2)
	defer out.Close()
	memory.CopyToDevice(flag, []int32{0})
	s, _ := stream.Default(ctx)

	if err := fn.Launch(s, module.Config{Grid: module.Dim(2), Block: module.Dim(1)}, flag, out); err != nil {
		log.Fatal(err)
	}
	got := make([]int32, 2)
	memory.CopyToHost(got, out)
	fmt.Println(got)

	memory.CopyToDevice(flag, []int32{0})
	fn.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, flag, out)
	err = s.Synchronize()
	fmt.Println(errors.Is(err, driver.ErrLaunchFailed))
	fmt.Println(fake.Of(drv).KernelFault())
	// Output:
	// [42 43]
	// true
	// CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure: ptx line 36: ld.volatile.global.u32 %r2, [%rd2]: deadlock: every resident block spins on memory that no resident thread can change (block [0 0 0], thread [0 0 0])
}
