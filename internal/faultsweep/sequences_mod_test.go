package faultsweep

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// The sequences of issue 23's module work: context-independent loading
// (cuLibrary), the compiler's version, and LTO-IR.

// libraryPTX is a kernel and a global, for seqLibrary.
const libraryPTX = `.version 7.8
.target sm_90
.address_size 64

.visible .global .align 4 .f32 sweep_factor;

.visible .entry sweep_scale(
	.param .u64 sweep_scale_param_0,
	.param .u32 sweep_scale_param_1
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [sweep_scale_param_0];
	ld.param.u32 %r2, [sweep_scale_param_1];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.s32 %p1, %r1, %r2;
	@%p1 bra $L__BB0_2;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.s32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [sweep_factor];
	ld.global.f32 %f2, [%rd4];
	mul.f32 %f3, %f2, %f1;
	st.global.f32 [%rd4], %f3;
$L__BB0_2:
	ret;
}
`

// seqLibrary: a library loaded, its kernel and its global in the primary
// context, the kernel's attribute, a launch that reads the global, the
// result, the unload; and the compiler's version.
func seqLibrary(e *env) error {
	drv, err := e.driver()
	if err != nil {
		return err
	}
	if _, _, err := drv.NVRTCVersion(); err != nil {
		return err
	}
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		return err
	}
	e.keep("stream", s)
	lib, err := module.LoadLibrary(ctx, []byte(libraryPTX))
	if err != nil {
		return err
	}
	e.keep("library", lib)
	k, err := lib.Kernel("sweep_scale")
	if err != nil {
		return err
	}
	if _, err := k.Attribute(module.FuncMaxThreadsPerBlock, ctx.Device()); err != nil {
		return err
	}
	g, err := module.LibraryGlobal[float32](lib, ctx, "sweep_factor")
	if err != nil {
		return err
	}
	e.keep("global view", g)
	if err := memory.CopyToDevice(g, []float32{3}); err != nil {
		return err
	}
	f, err := k.Function(ctx)
	if err != nil {
		return err
	}
	buf, err := memory.Alloc[float32](ctx, n)
	if err != nil {
		return err
	}
	e.keep("buffer", buf)
	if err := memory.CopyToDevice(buf, ascending[float32](n)); err != nil {
		return err
	}
	if err := f.Launch(s, module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}, buf, int32(n)); err != nil {
		return err
	}
	out := make([]float32, n)
	if err := memory.CopyToHostAsync(s, out, buf); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	want := ascending[float32](n)
	for i := range want {
		want[i] *= 3
	}
	return wrong("scaled", out, want)
}

// seqLTO: a compile to LTO-IR, which the pretend compiler refuses at
// nvrtcGetLTOIR with NVRTC_ERROR_INVALID_INPUT (it makes none): that
// answer is the sequence's success, any other error its failure.
func seqLTO(e *env) error {
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	_, err = module.CompileLTOIR(ctx, kernelSource, module.Options{Name: "sweep_lto.cu"})
	var ne *backend.NVRTCError
	if errors.As(err, &ne) && ne.Op == "nvrtcGetLTOIR" && ne.Code == backend.NVRTCErrorInvalidInput {
		return nil
	}
	if err == nil {
		return fmt.Errorf("%w: the pretend compiler gave LTO-IR", errWrongResult)
	}
	return err
}
