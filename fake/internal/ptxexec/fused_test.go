package ptxexec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests of fused windows (fused.go), of runWhole's if without an
// else (blockwhole.go) and of predRange and rangeMask (affine.go). Each
// kernel runs three ways: on its block program, on the same block program
// with its fused windows taken out (bp.fused nil, no markFused: every
// instruction one at a time, the reference fused.go's comment promises
// to equal), and on the general scheduler; with the checks (an Observer
// and the race checks, under which runFused runs only windows of global
// accesses, each checked as affineAccess checks it) off and on. A
// machine run by hand (runFusedMachine) tells whether runFused ran a
// window at all (it allocates machine.fusedBuf the first time it does,
// and only then) and which threads runWhole's last if ran its body for
// (machine.ifRest, written only there).

// ewParams are the parameters of every elementwise kernel below.
const ewParams = `.param .u64 x, .param .u64 y, .param .u64 z, .param .u64 out, .param .u64 out2, .param .f32 a, .param .u32 n, .param .u32 k`

// ewEntry returns an elementwise kernel as nvcc emits one: thread
// i = %ctaid.x*%ntid.x + %tid.x, with i < n, runs body, which finds
// &x[i], &y[i], &z[i], &out[i] and &out2[i] in %rd12..%rd16, i in %r1,
// %tid.x in %r5, a in %f9, k in %r6 and, before the label DONE (ret),
// may use %f1..%f8, %r7..%r20, %rd17..%rd30, %p2..%p7 and the kernel's
// shared array $part (4100 bytes).
func ewEntry(name, body string) string {
	return `.visible .entry ` + name + `(` + ewParams + `)
{
	.reg .pred %p<8>;
	.reg .f32 %f<16>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<32>;
	.shared .align 4 .b8 ` + name + `_part[4100];
	ld.param.u64 %rd1, [x];
	ld.param.u64 %rd2, [y];
	ld.param.u64 %rd3, [z];
	ld.param.u64 %rd4, [out];
	ld.param.u64 %rd5, [out2];
	ld.param.f32 %f9, [a];
	ld.param.u32 %r2, [n];
	ld.param.u32 %r6, [k];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.s32 %p1, %r1, %r2;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd6, %rd1;
	cvta.to.global.u64 %rd7, %rd2;
	cvta.to.global.u64 %rd8, %rd3;
	cvta.to.global.u64 %rd9, %rd4;
	cvta.to.global.u64 %rd10, %rd5;
	mul.wide.s32 %rd11, %r1, 4;
	add.s64 %rd12, %rd6, %rd11;
	add.s64 %rd13, %rd7, %rd11;
	add.s64 %rd14, %rd8, %rd11;
	add.s64 %rd15, %rd9, %rd11;
	add.s64 %rd16, %rd10, %rd11;
` + strings.ReplaceAll(body, "$part", name+"_part") + `
DONE:
	ret;
}
`
}

// The bodies of the elementwise kernels: each is, unless said, one fused
// window from its first load to its last store.
var ewBodies = map[string]string{
	// One operation of each kind on two (fma: three) loaded values.
	"ew_add": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;`,
	"ew_sub": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	sub.rn.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;`,
	"ew_mul": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	mul.rn.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;`,
	"ew_fma": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	ld.global.f32 %f3, [%rd14];
	fma.rn.f32 %f4, %f1, %f2, %f3;
	st.global.f32 [%rd15], %f4;`,
	// axpy: the uniform a as fma's second source.
	"ew_axpy": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	fma.rn.f32 %f3, %f1, %f9, %f2;
	st.global.f32 [%rd15], %f3;`,
	// axpy with the addresses of y[i] and out[i] computed inside the
	// window, between the loads and before the store, as nvcc emits it:
	// the window's affine instructions (runFused runs them first).
	"ew_interleaved": `
	ld.global.f32 %f1, [%rd12];
	add.s64 %rd20, %rd7, %rd11;
	ld.global.f32 %f2, [%rd20];
	fma.rn.f32 %f3, %f1, %f9, %f2;
	add.s64 %rd21, %rd9, %rd11;
	st.global.f32 [%rd21], %f3;`,
	// A chain: a uniform first source (sub), an immediate (mul), a
	// uniform second source (fma). (Not a uniform addend: translate's
	// mayWrite counts an fma's third source as written, so no slot
	// there is uniform.)
	"ew_chain": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	sub.rn.f32 %f3, %f9, %f1;
	mul.rn.f32 %f4, %f3, 0f3FC00000;
	fma.rn.f32 %f5, %f4, %f9, %f2;
	st.global.f32 [%rd15], %f5;`,
	// Two stores of two results.
	"ew_two": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	mul.f32 %f4, %f1, %f2;
	st.global.f32 [%rd15], %f3;
	st.global.f32 [%rd16], %f4;`,
	// An operation between the loads (the values are renumbered), and
	// one after the first store that reads a loaded value and a computed
	// one.
	"ew_mixed": `
	ld.global.f32 %f1, [%rd12];
	mul.f32 %f3, %f1, %f9;
	ld.global.f32 %f2, [%rd13];
	sub.f32 %f4, %f3, %f2;
	st.global.f32 [%rd15], %f4;
	sub.f32 %f5, %f4, %f1;
	st.global.f32 [%rd16], %f5;`,
	// In place: x[i] = x[i]*y[i].
	"ew_inplace": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	mul.f32 %f3, %f1, %f2;
	st.global.f32 [%rd12], %f3;`,
	// x[i] = x[i]+y[i], then y[i] = x[i]*y[i] of the values loaded
	// (x[i] as it was before the first store).
	"ew_inplace2": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd12], %f3;
	mul.f32 %f4, %f1, %f2;
	st.global.f32 [%rd13], %f4;`,
	// out[i] = x[i]*a + 1: with out = x plus or minus one element, each
	// store overwrites what the next or previous thread loads.
	"ew_shift": `
	ld.global.f32 %f1, [%rd12];
	mul.f32 %f2, %f1, %f9;
	add.f32 %f3, %f2, 0f3F800000;
	st.global.f32 [%rd15], %f3;`,
	// A load of what the store before it wrote: two windows (a window's
	// loads all come before its first store), out[i] = x[i] + a and
	// out2[i] = out[i]*out[i].
	"ew_loadafter": `
	ld.global.f32 %f1, [%rd12];
	add.f32 %f2, %f1, %f9;
	st.global.f32 [%rd15], %f2;
	ld.global.f32 %f3, [%rd15];
	mul.f32 %f4, %f3, %f3;
	st.global.f32 [%rd16], %f4;`,
	// Two stores whose spans overlap: out[i] = x[i] + a, then out[i+1] =
	// x[i]*a (the second store, of every thread, after the first).
	"ew_stores": `
	ld.global.f32 %f1, [%rd12];
	add.f32 %f2, %f1, %f9;
	mul.f32 %f3, %f1, %f9;
	st.global.f32 [%rd15], %f2;
	st.global.f32 [%rd15+4], %f3;`,
	// A stencil: three loads of overlapping spans of x.
	"ew_stencil": `
	ld.global.f32 %f1, [%rd12+-4];
	ld.global.f32 %f2, [%rd12];
	ld.global.f32 %f3, [%rd12+4];
	add.f32 %f4, %f1, %f2;
	add.f32 %f5, %f4, %f3;
	st.global.f32 [%rd15], %f5;`,
	// Not windows: a loaded value read after the window...
	"ew_readafter": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;
	abs.f32 %f4, %f1;
	st.global.f32 [%rd16], %f4;`,
	// ... a computed value read after it...
	"ew_computedafter": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;
	neg.f32 %f4, %f3;
	st.global.f32 [%rd16], %f4;`,
	// ... a loaded value stored as loaded (after a window up to the
	// first store, which reads the value outside)...
	"ew_storeloaded": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;
	st.global.f32 [%rd16], %f1;`,
	// ... a branch target (a loop's, run twice) between the loads...
	"ew_target": `
	mov.u32 %r9, 0;
	ld.global.f32 %f1, [%rd12];
AGAIN:
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;
	add.s32 %r9, %r9, 1;
	setp.lt.u32 %p2, %r9, 2;
	@%p2 bra AGAIN;`,
	// ... operations with ftz, another rounding, saturation.
	// (And ew_early, after this map's other entries.)
	"ew_ftz": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.ftz.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;`,
	"ew_rz": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	mul.rz.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;`,
	"ew_sat": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.sat.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;`,
	// if ((tid & k) != 0) out[i] = x[i] + y[i]: the threads that run
	// the window are consecutive or not, as k decides.
	"if_mask": `
	and.b32 %r7, %r5, %r6;
	setp.eq.s32 %p2, %r7, 0;
	@%p2 bra DONE;
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;`,
	// Nested ifs: window A for every i < n, window B only where also
	// tid >= k, window C again for every i < n (on out in place: four
	// allocations in all, which machine.cache holds; with a fifth, taken
	// in turn, every access would miss it and no window would run).
	"if_nested": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;
	setp.lt.u32 %p2, %r5, %r6;
	@%p2 bra SKIP;
	ld.global.f32 %f4, [%rd12];
	ld.global.f32 %f5, [%rd13];
	mul.f32 %f6, %f4, %f5;
	st.global.f32 [%rd16], %f6;
SKIP:
	ld.global.f32 %f7, [%rd15];
	sub.f32 %f8, %f7, %f9;
	st.global.f32 [%rd15], %f8;`,
	// An if's body with a second guard (a guarded store) after a
	// window, and values computed from the uniform k on the way.
	"if_guard": `
	mul.lo.s32 %r8, %r6, 3;
	add.s32 %r9, %r8, %r1;
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;
	setp.lt.u32 %p2, %r5, %r6;
	@%p2 st.global.u32 [%rd16], %r9;`,
	// An if with an else: window A where tid < k, window B elsewhere.
	"if_else": `
	setp.lt.u32 %p2, %r5, %r6;
	@%p2 bra ELSE;
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;
	bra JOIN;
ELSE:
	ld.global.f32 %f4, [%rd12];
	ld.global.f32 %f5, [%rd13];
	sub.f32 %f6, %f4, %f5;
	st.global.f32 [%rd15], %f6;
JOIN:`,
	// An if's body with a barrier between two windows: the first stores
	// x[i]*y[i] to part[tid], the second out[i] = part[tid] +
	// part[tid+1] (the threads that skip the body have exited).
	"if_bar": `
	mul.wide.u32 %rd17, %r5, 4;
	mov.u64 %rd18, $part;
	add.s64 %rd19, %rd18, %rd17;
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	mul.f32 %f3, %f1, %f2;
	st.shared.f32 [%rd19], %f3;
	bar.sync 0;
	ld.shared.f32 %f4, [%rd19];
	ld.shared.f32 %f5, [%rd19+4];
	add.f32 %f6, %f4, %f5;
	st.global.f32 [%rd15], %f6;`,
	// Three windows on shared memory, the middle one racing (thread t
	// writes part[t], which thread t-1 reads, with no barrier between):
	// part[tid] = x[i] + a; part[tid] += part[tid+1]; out[i] =
	// part[tid]*a.
	"sh_race": `
	mul.wide.u32 %rd17, %r5, 4;
	mov.u64 %rd18, $part;
	add.s64 %rd19, %rd18, %rd17;
	ld.global.f32 %f1, [%rd12];
	add.f32 %f2, %f1, %f9;
	st.shared.f32 [%rd19], %f2;
	bar.sync 0;
	ld.shared.f32 %f3, [%rd19];
	ld.shared.f32 %f4, [%rd19+4];
	add.f32 %f5, %f3, %f4;
	st.shared.f32 [%rd19], %f5;
	bar.sync 0;
	ld.shared.f32 %f6, [%rd19];
	mul.f32 %f7, %f6, %f9;
	st.global.f32 [%rd15], %f7;`,
	// An if whose body is a ret (the threads from k on exit), then a
	// window for the others.
	"if_ret": `
	setp.lt.u32 %p2, %r5, %r6;
	@%p2 bra REST;
	ret;
REST:
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;`,
	// An if's body that traps (thread i == k) after a window.
	"if_trap": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;
	setp.ne.s32 %p2, %r1, %r6;
	@%p2 bra DONE;
	trap;`,
	// An if's body whose atomic (out2 may be short) follows a window.
	"if_atom": `
	ld.global.f32 %f1, [%rd12];
	ld.global.f32 %f2, [%rd13];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;
	atom.global.add.f32 %f4, [%rd16], %f9;`,
}

// ewEarly's first load reads %rd20 before the window's add.s64, the
// only instruction that writes it, sets it: one at a time the load reads
// what %rd20 held before (its lanes: never written, 0 here, so the load
// faults at address 0), while a window whose affine instructions ran
// first would load from the address the add computes. fused.go's
// comment makes it a condition of a window that a slot written there is
// "read there only after that write".
const ewEarly = `
	ld.global.f32 %f1, [%rd20];
	add.s64 %rd20, %rd6, %rd11;
	ld.global.f32 %f2, [%rd20];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd15], %f3;`

// scaleLoop: no guard (n is the grid's threads); three times, for
// j = 0, 1, 2, out[j*n + i] = x[i] * 2^j, with 2^j's bits made from the
// uniform loop counter: the window's uniform source changes from one
// pass to the next.
const scaleLoop = `.visible .entry scale_loop(.param .u64 x, .param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .f32 %f<8>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [x];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.s32 %rd5, %r1, 4;
	add.s64 %rd6, %rd3, %rd5;
	mov.u32 %r9, 0;
LOOP:
	shl.b32 %r10, %r9, 23;
	add.s32 %r11, %r10, 1065353216;
	mov.b32 %f5, %r11;
	mul.lo.s32 %r12, %r9, %r2;
	add.s32 %r13, %r12, %r1;
	mul.wide.s32 %rd7, %r13, 4;
	add.s64 %rd8, %rd4, %rd7;
	ld.global.f32 %f1, [%rd6];
	mul.f32 %f3, %f1, %f5;
	st.global.f32 [%rd8], %f3;
	add.s32 %r9, %r9, 1;
	setp.lt.u32 %p2, %r9, 3;
	@%p2 bra LOOP;
	ret;
}
`

// uniformLanes: the threads from 32 on skip a barrier that the others
// wait at and run a loop like scale_loop's without them, so the block's
// uniform values move to the warps' registers (runBlock's uOK false)
// before the loop's counter and 2^j are computed: machine.ur does not
// hold them, and runFused must not run the window, whose uniform source
// is 2^j (its addresses, computed before, keep their forms: nothing else
// makes it decline). The threads below 32 then run the loop, uOK still
// false. Each thread sets out[i] = x[i]*4 + (x[i]*2 + (x[i]*1 + out[i])).
const uniformLanes = `.visible .entry uniform_lanes(.param .u64 x, .param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .f32 %f<8>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [x];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.s32 %rd5, %r1, 4;
	add.s64 %rd6, %rd3, %rd5;
	add.s64 %rd8, %rd4, %rd5;
	setp.lt.u32 %p1, %r5, 32;
	@!%p1 bra SKIP;
	bar.sync 0;
SKIP:
	mov.u32 %r9, 0;
LOOP:
	shl.b32 %r10, %r9, 23;
	add.s32 %r11, %r10, 1065353216;
	mov.b32 %f5, %r11;
	ld.global.f32 %f1, [%rd6];
	ld.global.f32 %f2, [%rd8];
	fma.rn.f32 %f3, %f1, %f5, %f2;
	st.global.f32 [%rd8], %f3;
	add.s32 %r9, %r9, 1;
	setp.lt.u32 %p2, %r9, 3;
	@%p2 bra LOOP;
	ret;
}
`

// treeSum is block_sum of kernels.cu with each block's sum stored to
// out[%ctaid.x] (no atomic: the result does not depend on the order of
// the blocks): the tree's step, two shared loads, an add and a shared
// store, is a window that runs for the threads below the step.
const treeSum = `.visible .entry tree_sum(.param .u64 x, .param .u64 out, .param .u32 n)
{
	.reg .pred %p<6>;
	.reg .f32 %f<10>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<14>;
	.shared .align 4 .b8 tree_part[4096];
	ld.param.u64 %rd2, [x];
	ld.param.u64 %rd3, [out];
	ld.param.u32 %r7, [n];
	mov.u32 %r1, %ntid.x;
	mov.u32 %r8, %ctaid.x;
	mov.u32 %r2, %tid.x;
	mad.lo.s32 %r3, %r8, %r1, %r2;
	setp.ge.s32 %p1, %r3, %r7;
	mov.f32 %f9, 0f00000000;
	@%p1 bra L2;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.s32 %rd5, %r3, 4;
	add.s64 %rd6, %rd4, %rd5;
	ld.global.f32 %f9, [%rd6];
L2:
	mul.wide.s32 %rd7, %r2, 4;
	mov.u64 %rd8, tree_part;
	add.s64 %rd1, %rd8, %rd7;
	st.shared.f32 [%rd1], %f9;
	bar.sync 0;
	shr.u32 %r9, %r1, 1;
	setp.eq.s32 %p2, %r9, 0;
	@%p2 bra L7;
L4:
	setp.ge.s32 %p3, %r2, %r9;
	@%p3 bra L6;
	mul.wide.s32 %rd9, %r9, 4;
	add.s64 %rd10, %rd1, %rd9;
	ld.shared.f32 %f4, [%rd1];
	ld.shared.f32 %f5, [%rd10];
	add.f32 %f6, %f5, %f4;
	st.shared.f32 [%rd1], %f6;
L6:
	bar.sync 0;
	shr.s32 %r6, %r9, 1;
	setp.gt.s32 %p4, %r9, 1;
	mov.u32 %r9, %r6;
	@%p4 bra L4;
L7:
	setp.ne.s32 %p5, %r2, 0;
	@%p5 bra L9;
	ld.shared.f32 %f7, [tree_part];
	cvta.to.global.u64 %rd11, %rd3;
	mul.wide.u32 %rd12, %r8, 4;
	add.s64 %rd13, %rd11, %rd12;
	st.global.f32 [%rd13], %f7;
L9:
	ret;
}
`

// fusedSrc is the module of every kernel above.
var fusedSrc = func() string {
	var b strings.Builder
	b.WriteString(header)
	for _, name := range slices.Sorted(maps.Keys(ewBodies)) {
		b.WriteString(ewEntry(name, ewBodies[name]))
	}
	b.WriteString(ewEntry("ew_early", ewEarly))
	b.WriteString(scaleLoop)
	b.WriteString(uniformLanes)
	b.WriteString(treeSum)
	return b.String()
}()

// fusedPrograms compiles fusedSrc twice: fused as translated, and
// unfused, whose kernels' block programs have no fused window (every
// instruction of a window then runs one at a time, as runBlock runs it).
func fusedPrograms(t *testing.T) (fused, unfused *Program) {
	t.Helper()
	fused, err := Compile(fusedSrc)
	require.NoError(t, err)
	unfused, err = Compile(fusedSrc)
	require.NoError(t, err)
	for _, k := range unfused.Kernels {
		bp := k.blockProgram(&Launch{})
		require.NotNil(t, bp, k.Name)
		bp.fused, bp.batch = nil, nil // (a batch runs a window)
		for i := range bp.marks {
			bp.marks[i] &^= markFused
		}
	}
	return fused, unfused
}

// ewArgs packs the arguments of an elementwise kernel.
func ewArgs(x, y, z, out, out2 uint64, a float32, n, k int32) []any {
	return []any{x, y, z, out, out2, a, n, k}
}

// fusedCase is a launch of one of fusedSrc's kernels for compareFused.
type fusedCase struct {
	kernel      string
	grid, block uint32
	args        func(m *testMem) []any
	// fault: the launch faults (the same fault every way).
	fault bool
	// order: the scheduler's bytes may differ from the block program's
	// (it runs a block warp after warp, the block program instruction
	// after instruction: which stores ran before a fault, and what a
	// store that overlaps another warp's load leaves), so the block
	// program's bytes are compared with the unfused block program's
	// only.
	order bool
}

// accessLog is an Observer and both race observers: how many times
// each word of global memory was read, written or accessed atomically
// (however the accesses were grouped into runs: the kernels here access
// aligned words), and how many races were reported.
type accessLog struct {
	mu    sync.Mutex
	words map[uint64]int // address<<2 | kind: count
	races int
}

func newAccessLog() *accessLog { return &accessLog{words: map[uint64]int{}} }

func (l *accessLog) Global(a Access) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for b := a.Addr; b < a.Addr+uint64(a.Size); b += 4 {
		l.words[b<<2|uint64(a.Kind)]++
	}
}

func (l *accessLog) SharedRace(SharedRace) { l.mu.Lock(); l.races++; l.mu.Unlock() }
func (l *accessLog) GlobalRace(GlobalRace) { l.mu.Lock(); l.races++; l.mu.Unlock() }

// compareFused runs c on the fused block program, the unfused block
// program and the general scheduler, with the checks off and on (an
// accessLog and both race checks), and checks that they end with the
// same error (a Fault: its code, thread, block, address, instruction and
// line) and leave the same bytes in every allocation (the scheduler's
// only where !c.order); with the checks, that the fused block program
// told the Observer of the same accesses and reported as many races as
// the unfused one (and as the scheduler, where !c.order and no fault
// stops it part way). It returns the fused block program's memory and
// error with the checks off.
func compareFused(t *testing.T, pf, pu *Program, c fusedCase, workers int) (*testMem, error) {
	t.Helper()
	kf, ku := pf.Kernels[c.kernel], pu.Kernels[c.kernel]
	require.NotNil(t, kf, c.kernel)
	var log *accessLog // the last run's, with checks
	run := func(k *Kernel, scheduler, checks bool) (*testMem, error) {
		mem := newMem()
		args := c.args(mem)
		l := &Launch{Grid: dim(c.grid), Block: dim(c.block), Params: params(t, k, args...), Mem: mem, SMs: 132, Workers: workers, scheduler: scheduler}
		if checks {
			log = newAccessLog()
			l.Observe, l.SharedRaces, l.GlobalRaces = log, true, true
		}
		return mem, k.Run(l)
	}
	// With Workers 2 a fault stops the other worker's block wherever it
	// is: the bytes are compared only without one, or with Workers 1.
	bytesToo := !c.fault || workers == 1
	same := func(a, b *testMem, what string) {
		t.Helper()
		if !bytesToo {
			return
		}
		require.Len(t, b.allocs, len(a.allocs))
		for i := range a.allocs {
			assert.True(t, bytes.Equal(a.allocs[i].data, b.allocs[i].data), "allocation %d differs: %s", i, what)
		}
	}
	fast, errFast := run(kf, false, false)
	if c.fault {
		require.Error(t, errFast)
	} else {
		require.NoError(t, errFast)
	}
	plain, errPlain := run(ku, false, false)
	assert.Equal(t, errPlain, errFast, "unfused block program")
	same(plain, fast, "fused and unfused block programs")
	for _, checks := range []bool{false, true} {
		general, errGeneral := run(kf, true, checks)
		assert.Equal(t, errGeneral, errFast, "scheduler, checks %v", checks)
		if !c.order {
			same(general, fast, fmt.Sprintf("block program and scheduler, checks %v", checks))
		}
		if checks {
			logGeneral := log
			checked, errChecked := run(kf, false, true)
			logChecked := log
			assert.Equal(t, errGeneral, errChecked, "block program with checks, scheduler with checks")
			same(plain, checked, "block program with checks and unfused block program")
			if !c.order {
				same(general, checked, "block program and scheduler, checks true")
			}
			_, errPlainChecked := run(ku, false, true)
			assert.Equal(t, errPlainChecked, errChecked, "fused and unfused block programs with checks")
			if bytesToo {
				assert.Equal(t, log.words, logChecked.words, "the accesses told: fused and unfused block programs")
				assert.Equal(t, log.races, logChecked.races, "races: fused and unfused block programs")
				if !c.order && !c.fault {
					assert.Equal(t, logGeneral.words, logChecked.words, "the accesses told: block program and scheduler")
					assert.Equal(t, logGeneral.races, logChecked.races, "races: block program and scheduler")
				}
			}
		}
	}
	return fast, errFast
}

// runFusedMachine runs c's blocks one after another on one machine of
// its fused block program, as a launch with Workers 1 and no checks
// does, and returns the machine (its fusedBuf, ifRest) and the fault.
func runFusedMachine(t *testing.T, p *Program, c fusedCase) (*machine, error) {
	t.Helper()
	k := p.Kernels[c.kernel]
	mem := newMem()
	l := &Launch{Grid: dim(c.grid), Block: dim(c.block), Params: params(t, k, c.args(mem)...), Mem: mem, SMs: 132}
	m := k.newMachine(l, int(c.block), nil)
	require.NotNil(t, m.bp)
	for b := range uint64(c.grid) {
		m.setBlock(b)
		m.startBlock()
		if err := m.runBlock(); err != nil {
			return m, err
		}
	}
	return m, nil
}

// pcOf returns the index of k's first instruction that prints as text.
func pcOf(t *testing.T, k *Kernel, text string) int {
	t.Helper()
	for i, s := range k.fn.stmts {
		if i < len(k.fn.code) && s.String() == text {
			return i
		}
	}
	t.Fatalf("%s: no instruction %q", k.Name, text)
	return -1
}

// requireWindow checks that k's block program has a fused window at the
// instruction printed as first, ending after the one printed as last,
// with nload loads, nops operations and nstores stores, and returns it.
func requireWindow(t *testing.T, k *Kernel, first, last string, nload, nops, nstores int) *fusedWindow {
	t.Helper()
	bp := k.blockProgram(&Launch{})
	require.NotNil(t, bp)
	pc := pcOf(t, k, first)
	require.NotNil(t, bp.fused, "%s: no window at all", k.Name)
	w := bp.fused[pc]
	require.NotNil(t, w, "%s: no window at %q", k.Name, first)
	assert.NotZero(t, bp.marks[pc]&markFused, "%s: markFused", k.Name)
	assert.Equal(t, pcOf(t, k, last)+1, w.end, "%s: the window's end", k.Name)
	assert.Equal(t, nload, w.nload, "%s: loads", k.Name)
	assert.Len(t, w.ops, nops, "%s: operations", k.Name)
	assert.Len(t, w.stores, nstores, "%s: stores", k.Name)
	assert.Len(t, w.mem, nload+nstores, "%s: accesses", k.Name)
	return w
}

// requireNoWindow checks that k's block program has no fused window.
func requireNoWindow(t *testing.T, k *Kernel) {
	t.Helper()
	bp := k.blockProgram(&Launch{})
	require.NotNil(t, bp)
	for pc := range k.fn.code {
		if bp.fused != nil && bp.fused[pc] != nil {
			t.Errorf("%s: a window at %v", k.Name, k.fn.stmts[pc])
		}
		assert.Zero(t, bp.marks[pc]&markFused, "%s: markFused at %d", k.Name, pc)
	}
}

// f32Bits stores raw float32 bits.
func (m *testMem) f32Bits(vals []uint32) uint64 {
	p := m.alloc(4 * len(vals))
	b := m.bytes(p)
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return p
}

// u32s reads n words at p.
func (m *testMem) u32s(p uint64, n int) []uint32 {
	b := m.bytes(p)
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// TestFusedWindowsFound checks which windows findFused finds in the
// kernels below and in nvcc's axpy and block_sum (their first load,
// their end after the last store, their loads, operations, stores and
// affine instructions, the values the operations read, and whether they
// read a uniform slot or access global or shared memory), and that it
// finds none where a value of the window is read after it (a loaded
// value by abs, a computed one by neg, a loaded one stored as loaded),
// where a branch target lies inside, or where an operation has ftz,
// another rounding or saturation: the tests below then know that their
// runs can go through runFused (and check that they do).
func TestFusedWindowsFound(t *testing.T) {
	pf, _ := fusedPrograms(t)
	type want struct {
		first, last          string
		nload, nops, nstores int
		uni, global, shared  bool
	}
	ld := func(v, a string) string { return "ld.global.f32 %f" + v + ", [%rd" + a + "]" }
	for name, w := range map[string]want{
		"ew_add":         {ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1, false, true, false},
		"ew_interleaved": {ld("1", "12"), "st.global.f32 [%rd21], %f3", 2, 1, 1, true, true, false},
		"ew_sub":         {ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1, false, true, false},
		"ew_mul":         {ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1, false, true, false},
		"ew_fma":         {ld("1", "12"), "st.global.f32 [%rd15], %f4", 3, 1, 1, false, true, false},
		"ew_axpy":        {ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1, true, true, false},
		"ew_chain":       {ld("1", "12"), "st.global.f32 [%rd15], %f5", 2, 3, 1, true, true, false},
		"ew_two":         {ld("1", "12"), "st.global.f32 [%rd16], %f4", 2, 2, 2, false, true, false},
		"ew_mixed":       {ld("1", "12"), "st.global.f32 [%rd16], %f5", 2, 3, 2, true, true, false},
		"ew_inplace":     {ld("1", "12"), "st.global.f32 [%rd12], %f3", 2, 1, 1, false, true, false},
		"ew_inplace2":    {ld("1", "12"), "st.global.f32 [%rd13], %f4", 2, 2, 2, false, true, false},
		"ew_shift":       {ld("1", "12"), "st.global.f32 [%rd15], %f3", 1, 2, 1, true, true, false},
		"if_mask":        {ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1, false, true, false},
		"if_guard":       {ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1, false, true, false},
		"if_trap":        {ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1, false, true, false},
		"if_atom":        {ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1, false, true, false},
		"if_ret":         {ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1, false, true, false},
		"ew_stores":      {ld("1", "12"), "st.global.f32 [%rd15+4], %f3", 1, 2, 2, true, true, false},
	} {
		k := pf.Kernels[name]
		require.NotNil(t, k, name)
		fw := requireWindow(t, k, w.first, w.last, w.nload, w.nops, w.nstores)
		assert.Equal(t, w.uni, fw.uni, "%s: uni", name)
		assert.Equal(t, w.global, fw.global, "%s: global", name)
		assert.Equal(t, w.shared, fw.shared, "%s: shared", name)
	}
	iw := requireWindow(t, pf.Kernels["ew_interleaved"], ld("1", "12"), "st.global.f32 [%rd21], %f3", 2, 1, 1)
	assert.Len(t, iw.affine, 2, "ew_interleaved: the window's affine instructions")
	for _, name := range []string{"ew_add", "ew_chain"} {
		assert.Empty(t, pf.Kernels[name].blockProgram(&Launch{}).fused[pcOf(t, pf.Kernels[name], ld("1", "12"))].affine, name)
	}
	// nvcc's axpy and block_sum (testdata): axpy's window holds the
	// addresses of y[i] and out[i]; block_sum's tree step is one.
	p90, _ := load(t, "90")
	ax := requireWindow(t, p90.Kernels["axpy"], "ld.global.f32 %f2, [%rd6]", "st.global.f32 [%rd10], %f4", 2, 1, 1)
	assert.Len(t, ax.affine, 2)
	assert.True(t, ax.uni)
	requireWindow(t, p90.Kernels["block_sum"], "ld.shared.f32 %f4, [%rd1]", "st.shared.f32 [%rd1], %f6", 2, 1, 1)
	k := pf.Kernels["ew_loadafter"]
	requireWindow(t, k, ld("1", "12"), "st.global.f32 [%rd15], %f2", 1, 1, 1)
	requireWindow(t, k, ld("3", "15"), "st.global.f32 [%rd16], %f4", 1, 1, 1)
	k = pf.Kernels["ew_stencil"]
	st := requireWindow(t, k, "ld.global.f32 %f1, [%rd12-4]", "st.global.f32 [%rd15], %f5", 3, 2, 1)
	assert.False(t, st.uni)
	// ew_mixed's values: x (0), y (1), then x*a (2), -y (3), -x (4).
	mixed := requireWindow(t, pf.Kernels["ew_mixed"], ld("1", "12"), "st.global.f32 [%rd16], %f5", 2, 3, 2)
	assert.Equal(t, [3]int32{0, -1, -1}, mixed.ops[0].src)
	assert.Equal(t, [3]int32{2, 1, -1}, mixed.ops[1].src)
	assert.Equal(t, [3]int32{3, 0, -1}, mixed.ops[2].src)
	assert.Equal(t, []int32{3, 4}, mixed.stores)
	// if_nested: windows A, B and C.
	k = pf.Kernels["if_nested"]
	requireWindow(t, k, ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1)
	requireWindow(t, k, ld("4", "12"), "st.global.f32 [%rd16], %f6", 2, 1, 1)
	requireWindow(t, k, ld("7", "15"), "st.global.f32 [%rd15], %f8", 1, 1, 1)
	// if_else: A and B; if_bar: a global-to-shared and a shared-to-global window.
	k = pf.Kernels["if_else"]
	requireWindow(t, k, ld("1", "12"), "st.global.f32 [%rd15], %f3", 2, 1, 1)
	requireWindow(t, k, ld("4", "12"), "st.global.f32 [%rd15], %f6", 2, 1, 1)
	k = pf.Kernels["if_bar"]
	w1 := requireWindow(t, k, ld("1", "12"), "st.shared.f32 [%rd19], %f3", 2, 1, 1)
	assert.True(t, w1.global && w1.shared)
	w2 := requireWindow(t, k, "ld.shared.f32 %f4, [%rd19]", "st.global.f32 [%rd15], %f6", 2, 1, 1)
	assert.True(t, w2.global && w2.shared)
	// The loop's window and the tree's step.
	k = pf.Kernels["scale_loop"]
	sl := requireWindow(t, k, "ld.global.f32 %f1, [%rd6]", "st.global.f32 [%rd8], %f3", 1, 1, 1)
	assert.True(t, sl.uni)
	k = pf.Kernels["uniform_lanes"]
	ul := requireWindow(t, k, "ld.global.f32 %f1, [%rd6]", "st.global.f32 [%rd8], %f3", 2, 1, 1)
	assert.True(t, ul.uni)
	k = pf.Kernels["sh_race"]
	requireWindow(t, k, ld("1", "12"), "st.shared.f32 [%rd19], %f2", 1, 1, 1)
	sr := requireWindow(t, k, "ld.shared.f32 %f3, [%rd19]", "st.shared.f32 [%rd19], %f5", 2, 1, 1)
	assert.True(t, sr.shared && !sr.global)
	requireWindow(t, k, "ld.shared.f32 %f6, [%rd19]", "st.global.f32 [%rd15], %f7", 1, 1, 1)
	k = pf.Kernels["tree_sum"]
	ts := requireWindow(t, k, "ld.shared.f32 %f4, [%rd1]", "st.shared.f32 [%rd1], %f6", 2, 1, 1)
	assert.True(t, ts.shared && !ts.global)
	for _, name := range []string{"ew_readafter", "ew_computedafter", "ew_storeloaded", "ew_target", "ew_ftz", "ew_rz", "ew_sat"} {
		requireNoWindow(t, pf.Kernels[name])
	}
}

// f32Classes are float32 bits of every class: quiet and signalling NaNs
// with payloads and both signs, infinities, subnormals (the least, the
// greatest), zeros of both signs, the least and greatest normals, and
// values whose sums and products round (1+ulp, 2^-24, 2^24).
var f32Classes = []uint32{
	0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fbfffff, 0xffc12345, 0x7fd00001,
	0x7f800000, 0xff800000,
	0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00400000,
	0x00000000, 0x80000000,
	0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,
	0x3f800000, 0xbf800000, 0x3f800001, 0xbf7fffff, 0x33800000, 0x4b800000, 0x40490fdb,
}

// canonNaN is the GPU's NaN result.
const canonNaN = 0x7fffffff

// fmaRef returns a*b + c rounded once to float32, to nearest even, a NaN
// result as canonNaN: exactly (math/big) for finite sources.
func fmaRef(a, b, c float32) uint32 {
	fa, fb, fc := float64(a), float64(b), float64(c)
	if math.IsNaN(fa) || math.IsNaN(fb) || math.IsNaN(fc) || math.IsInf(fa, 0) || math.IsInf(fb, 0) || math.IsInf(fc, 0) {
		r := fa*fb + fc // (infinities and NaNs: the class is exact)
		if math.IsNaN(r) {
			return canonNaN
		}
		return math.Float32bits(float32(r))
	}
	x := new(big.Float).SetPrec(1000).SetMode(big.ToNearestEven)
	x.Mul(new(big.Float).SetFloat64(fa), new(big.Float).SetFloat64(fb))
	x.Add(x, new(big.Float).SetPrec(1000).SetFloat64(fc))
	f, _ := x.Float32()
	return math.Float32bits(f)
}

// binRef returns op (add, sub, mul) of a and b in float32, a NaN result
// as canonNaN.
func binRef(op string, a, b float32) uint32 {
	var r float32
	switch op {
	case "add":
		r = a + b
	case "sub":
		r = a - b
	case "mul":
		r = a * b
	}
	if r != r {
		return canonNaN
	}
	return math.Float32bits(r)
}

// TestFusedFloatClasses runs add, sub, mul and fma on every pair (fma:
// every triple) of f32Classes, in blocks of 256 (runWhole, and its if
// for the partial last block) and of 100 (runGroup), and checks the
// results bit by bit against the unfused block program, the scheduler
// and an exact reference (a NaN is 0x7fffffff, whatever its sources'
// payloads and signs; subnormals are kept, zeros keep their IEEE signs):
// the packed passes (lanes' vector code and its Go tail, or the Go loop
// alone with -tags purego) compute what the lanes do.
func TestFusedFloatClasses(t *testing.T) {
	pf, pu := fusedPrograms(t)
	L := len(f32Classes)
	for _, op := range []string{"add", "sub", "mul", "fma"} {
		n := L * L
		if op == "fma" {
			n *= L
		}
		xs, ys, zs := make([]uint32, n), make([]uint32, n), make([]uint32, n)
		for i := range n {
			xs[i], ys[i], zs[i] = f32Classes[i%L], f32Classes[i/L%L], f32Classes[i/(L*L)%L]
		}
		for _, block := range []uint32{256, 100} {
			c := fusedCase{kernel: "ew_" + op, grid: (uint32(n) + block - 1) / block, block: block}
			var out uint64
			c.args = func(m *testMem) []any {
				x, y, z := m.f32Bits(xs), m.f32Bits(ys), m.f32Bits(zs)
				out = m.alloc(4 * n)
				return ewArgs(x, y, z, out, m.alloc(4), 0, int32(n), 0)
			}
			for _, w := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s/%d/workers=%d", op, block, w), func(t *testing.T) {
					mem, _ := compareFused(t, pf, pu, c, w)
					got := mem.u32s(out, n)
					for i := range n {
						a, b, cc := math.Float32frombits(xs[i]), math.Float32frombits(ys[i]), math.Float32frombits(zs[i])
						var want uint32
						if op == "fma" {
							want = fmaRef(a, b, cc)
						} else {
							want = binRef(op, a, b)
						}
						if got[i] != want {
							t.Fatalf("%s(%#08x, %#08x, %#08x) = %#08x, want %#08x", op, xs[i], ys[i], zs[i], got[i], want)
						}
					}
				})
			}
			m, err := runFusedMachine(t, pf, c)
			require.NoError(t, err)
			assert.NotNil(t, m.fusedBuf, "%s/%d: runFused never ran its window", op, block)
		}
	}
}

// TestFusedElementwise runs the elementwise windows (each operation, a
// uniform source, an immediate, a chain, two stores, an operation between
// the loads and one after a store, in place, a stencil of three
// overlapping loads) over grids with a partial last block guarded by
// i < n and blocks of sizes that are no multiple of 32 (1, 33, 100) or
// are (64, 256, 1024): the same bytes as the unfused block program and
// the scheduler, the values expected, and runFused ran.
func TestFusedElementwise(t *testing.T) {
	pf, pu := fusedPrograms(t)
	type ref func(i int, x, y, z []float32, a float32) (out, out2, x2, y2 float32)
	refs := map[string]ref{
		"ew_add": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			return x[i] + y[i], 0, x[i], y[i]
		},
		"ew_sub": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			return x[i] - y[i], 0, x[i], y[i]
		},
		"ew_mul": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			return x[i] * y[i], 0, x[i], y[i]
		},
		"ew_fma": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			return math.Float32frombits(fmaRef(x[i], y[i], z[i])), 0, x[i], y[i]
		},
		"ew_axpy": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			return math.Float32frombits(fmaRef(x[i], a, y[i])), 0, x[i], y[i]
		},
		"ew_interleaved": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			return math.Float32frombits(fmaRef(x[i], a, y[i])), 0, x[i], y[i]
		},
		"ew_chain": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			s := float32(float32(a-x[i]) * 1.5)
			return math.Float32frombits(fmaRef(s, a, y[i])), 0, x[i], y[i]
		},
		"ew_two": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			return x[i] + y[i], x[i] * y[i], x[i], y[i]
		},
		"ew_mixed": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			s := float32(float32(x[i]*a) - y[i])
			return s, float32(s - x[i]), x[i], y[i]
		},
		"ew_inplace": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			return 0, 0, x[i] * y[i], y[i]
		},
		"ew_inplace2": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			return 0, 0, x[i] + y[i], x[i] * y[i]
		},
		"ew_loadafter": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			s := float32(x[i] + a)
			return s, float32(s * s), x[i], y[i]
		},
		"ew_stencil": func(i int, x, y, z []float32, a float32) (float32, float32, float32, float32) {
			return float32(float32(x[i]+x[i+1]) + x[i+2]), 0, x[i], y[i] // (x is passed one element in)
		},
	}
	type shape struct{ grid, block uint32 }
	for name, f := range refs {
		for _, s := range []shape{{3, 256}, {4, 100}, {9, 33}, {70, 1}, {5, 64}, {2, 1024}} {
			n := int(s.grid*s.block) - int(s.block)/3 // a partial last block
			if s.block == 1 {
				n = int(s.grid) - 3
			}
			xs, ys, zs := f32Ramp(n+2, 0.37, -3), f32Ramp(n, 0.11, 1), f32Ramp(n, -0.7, 2)
			const a = float32(1.75)
			var px, py, pout, pout2 uint64
			c := fusedCase{kernel: name, grid: s.grid, block: s.block, args: func(m *testMem) []any {
				px, py, pout, pout2 = m.f32s(xs), m.f32s(ys), m.alloc(4*n), m.alloc(4*n)
				x := px
				if name == "ew_stencil" {
					x += 4
				}
				return ewArgs(x, py, m.f32s(zs), pout, pout2, a, int32(n), 0)
			}}
			workers := []int{1}
			if s.block == 256 {
				workers = append(workers, 2) // (blocks on two goroutines)
			}
			for _, w := range workers {
				t.Run(fmt.Sprintf("%s/%dx%d/workers=%d", name, s.grid, s.block, w), func(t *testing.T) {
					mem, _ := compareFused(t, pf, pu, c, w)
					out, out2 := mem.readF32(pout, n), mem.readF32(pout2, n)
					x2, y2 := mem.readF32(px, n+2), mem.readF32(py, n)
					for i := range n {
						o, o2, wx, wy := f(i, xs, ys, zs, a)
						require.Equal(t, math.Float32bits(o), math.Float32bits(out[i]), "out[%d]", i)
						require.Equal(t, math.Float32bits(o2), math.Float32bits(out2[i]), "out2[%d]", i)
						require.Equal(t, math.Float32bits(wx), math.Float32bits(x2[i]), "x[%d]", i)
						require.Equal(t, math.Float32bits(wy), math.Float32bits(y2[i]), "y[%d]", i)
					}
				})
			}
			if s.grid > 1 {
				m, err := runFusedMachine(t, pf, c)
				require.NoError(t, err)
				assert.NotNil(t, m.fusedBuf, "%s %dx%d: runFused never ran its window", name, s.grid, s.block)
			}
		}
	}
}

// TestFusedShiftedStore runs ew_shift with out one element above or below
// x in the same allocation, so that thread i's store writes what thread
// i+1 (or i-1) loads: the block program loads every thread's element
// before any store (instruction after instruction), fused or not, and
// blocks run in order (Workers 1), which a reference computes block by
// block. In one warp the scheduler does the same and is compared too,
// and with out below x (a store overwrites what a thread before it, in
// an earlier warp, has loaded); with out above x over several warps it
// runs warp after warp (what a GPU may do too: the kernel races), and a
// warp's stores reach the next warp's elements before that loads them:
// there only the error is compared.
func TestFusedShiftedStore(t *testing.T) {
	pf, pu := fusedPrograms(t)
	const a = float32(2)
	for _, shift := range []int{1, -1} {
		for _, s := range []struct{ grid, block uint32 }{{1, 32}, {1, 20}, {4, 256}, {5, 100}, {3, 64}} {
			n := int(s.grid*s.block) - 7
			base := f32Ramp(n+2, 0.5, -1)
			var p uint64
			c := fusedCase{kernel: "ew_shift", grid: s.grid, block: s.block, order: s.block > 32 && shift > 0, args: func(m *testMem) []any {
				p = m.f32s(base)
				x := p + 4
				return ewArgs(x, 0, 0, uint64(int64(x)+4*int64(shift)), 0, a, int32(n), 0)
			}}
			t.Run(fmt.Sprintf("shift=%d/%dx%d", shift, s.grid, s.block), func(t *testing.T) {
				mem, _ := compareFused(t, pf, pu, c, 1)
				want := append([]float32(nil), base...)
				for b := 0; b < int(s.grid); b++ {
					lo, hi := b*int(s.block), min((b+1)*int(s.block), n)
					var loaded []float32
					for i := lo; i < hi; i++ {
						loaded = append(loaded, want[1+i])
					}
					for i := lo; i < hi; i++ {
						want[1+i+shift] = float32(float32(loaded[i-lo]*a) + 1)
					}
				}
				got := mem.readF32(p, n+2)
				for i := range want {
					require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "element %d", i)
				}
			})
			if s.grid > 1 {
				m, err := runFusedMachine(t, pf, c)
				require.NoError(t, err)
				assert.NotNil(t, m.fusedBuf, "%dx%d: runFused never ran", s.grid, s.block)
			}
		}
	}
}

// TestFusedOverlappingStores runs ew_stores, whose two stores overlap
// (out[i], then out[i+1]): the second store of every thread comes after
// the first of every thread, block after block, as a reference computes
// it; the scheduler's warps store in turn (warp w+1's first store
// overwrites warp w's last second store), so only its error is compared
// over more than one warp.
func TestFusedOverlappingStores(t *testing.T) {
	pf, pu := fusedPrograms(t)
	const a = float32(3)
	for _, s := range []struct{ grid, block uint32 }{{3, 256}, {4, 100}, {2, 32}, {5, 64}} {
		n := int(s.grid*s.block) - 9
		xs := f32Ramp(n, 0.5, -1)
		var out uint64
		c := fusedCase{kernel: "ew_stores", grid: s.grid, block: s.block, order: s.block > 32, args: func(m *testMem) []any {
			out = m.alloc(4 * (n + 1))
			return ewArgs(m.f32s(xs), 0, 0, out, 0, a, int32(n), 0)
		}}
		t.Run(fmt.Sprintf("%dx%d", s.grid, s.block), func(t *testing.T) {
			mem, _ := compareFused(t, pf, pu, c, 1)
			want := make([]float32, n+1)
			for b := 0; b < int(s.grid); b++ {
				lo, hi := b*int(s.block), min((b+1)*int(s.block), n)
				for i := lo; i < hi; i++ {
					want[i] = float32(xs[i] + a)
				}
				for i := lo; i < hi; i++ {
					want[i+1] = float32(xs[i] * a)
				}
			}
			assert.Equal(t, want, mem.readF32(out, n+1))
		})
		m, err := runFusedMachine(t, pf, c)
		require.NoError(t, err)
		assert.NotNil(t, m.fusedBuf, "%dx%d: runFused never ran", s.grid, s.block)
	}
}

// TestFusedScaleLoop runs scale_loop, whose window's uniform source (2^j,
// from the loop counter) changes on every pass of a loop: runFused reads
// it from machine.ur as it is at that pass; and uniform_lanes, the same
// loop where the uniform values have left machine.ur for the warps'
// registers: there runFused must decline (machine.fusedBuf stays nil)
// and the instructions read the lanes.
func TestFusedScaleLoop(t *testing.T) {
	pf, pu := fusedPrograms(t)
	for _, s := range []struct {
		kernel      string
		grid, block uint32
	}{{"scale_loop", 3, 256}, {"scale_loop", 4, 96}, {"scale_loop", 3, 100}, {"uniform_lanes", 3, 256}, {"uniform_lanes", 3, 100}} {
		n := int(s.grid * s.block)
		xs := f32Ramp(n, 0.25, -7)
		var out uint64
		c := fusedCase{kernel: s.kernel, grid: s.grid, block: s.block, args: func(m *testMem) []any {
			out = m.alloc(4 * 3 * n)
			return []any{m.f32s(xs), out, int32(n)}
		}}
		for _, w := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/%dx%d/workers=%d", s.kernel, s.grid, s.block, w), func(t *testing.T) {
				mem, _ := compareFused(t, pf, pu, c, w)
				got := mem.readF32(out, 3*n)
				for i := range n {
					if s.kernel == "uniform_lanes" {
						sum := float32(0)
						for j := range 3 {
							sum = math.Float32frombits(fmaRef(xs[i], float32(int(1)<<j), sum))
						}
						require.Equal(t, sum, got[i], "element %d", i)
						continue
					}
					for j := range 3 {
						require.Equal(t, xs[i]*float32(int(1)<<j), got[j*n+i], "pass %d element %d", j, i)
					}
				}
			})
		}
		m, err := runFusedMachine(t, pf, c)
		require.NoError(t, err)
		assert.Equal(t, s.kernel == "scale_loop", m.fusedBuf != nil, "%s %dx%d: whether runFused ran", s.kernel, s.grid, s.block)
	}
}

// TestFusedFaults runs ew_add and ew_interleaved (whose window's affine
// instructions runFused has run when it declines at the store: they run
// again, one at a time) with out, x or y too short for the launch
// (by one element, part of a warp, a whole warp, a block: the fault in
// the first block, where nothing is cached yet, or a later one, where
// runFused would run), and with x misaligned: runFused declines before
// it touches memory, the instructions run one at a time to the lane
// that faults, and the fault (code, thread, block, address, instruction,
// line) is the scheduler's. A short out faults at the store, after the
// loads of every warp: the bytes stored before it are the scheduler's
// too; a short x or y faults at a load, before the block's stores,
// which on the scheduler the warps before the faulting one have done:
// there the bytes are compared with the unfused block program's.
func TestFusedFaults(t *testing.T) {
	pf, pu := fusedPrograms(t)
	for _, kernel := range []string{"ew_add", "ew_interleaved"} {
		for _, block := range []uint32{256, 100} {
			const grid = 3
			n := grid * int(block)
			for _, short := range []int{0, 1, 3} { // x, y, out
				for _, cut := range []int{1, 40, int(block), int(block) + 3, n - 5} {
					if kernel == "ew_interleaved" && (block != 256 || short == 0) {
						continue
					}
					c := fusedCase{kernel: kernel, grid: grid, block: block, fault: true, order: short != 3, args: func(m *testMem) []any {
						sizes := [4]int{n, n, n, n}
						sizes[short] -= cut
						x, y := m.f32s(f32Ramp(sizes[0], 0.5, 1)), m.f32s(f32Ramp(sizes[1], 0.25, -2))
						return ewArgs(x, y, 0, m.alloc(4*sizes[3]), 0, 0, int32(n), 0)
					}}
					for _, w := range []int{1, 2} {
						t.Run(fmt.Sprintf("%s/%d/short=%d/cut=%d/workers=%d", kernel, block, short, cut, w), func(t *testing.T) {
							_, err := compareFused(t, pf, pu, c, w)
							requireCutFault(t, err, n-cut, block, short == 3)
						})
					}
				}
			}
		}
	}
	t.Run("misaligned", func(t *testing.T) {
		c := fusedCase{kernel: "ew_add", grid: 3, block: 64, fault: true, args: func(m *testMem) []any {
			x := m.f32s(f32Ramp(200, 0.5, 1))
			return ewArgs(x+2, m.f32s(f32Ramp(200, 1, 0)), 0, m.alloc(4*200), 0, 0, 190, 0)
		}}
		_, err := compareFused(t, pf, pu, c, 1)
		var f *Fault
		require.ErrorAs(t, err, &f)
		assert.Equal(t, CodeMisalignedAddress, f.Code)
		assert.Equal(t, [3]uint32{}, f.Thread)
		assert.True(t, strings.HasPrefix(f.Instr, "ld.global.f32"), "%s", f.Instr)
	})
}

// requireCutFault checks that err is the illegal-address Fault of an
// allocation cut short: at thread first of the grid (blocks of block
// threads), in its ld.global.f32 (store: its st.global.f32).
func requireCutFault(t *testing.T, err error, first int, block uint32, store bool) {
	t.Helper()
	var f *Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, CodeIllegalAddress, f.Code)
	op := "ld.global.f32"
	if store {
		op = "st.global.f32"
	}
	assert.True(t, strings.HasPrefix(f.Instr, op), "%s", f.Instr)
	assert.Equal(t, [3]uint32{uint32(first) / block, 0, 0}, f.Block)
	assert.Equal(t, [3]uint32{uint32(first) % block, 0, 0}, f.Thread)
}

// TestFusedTreeSum runs tree_sum, a shared-memory tree reduction whose
// step is a window for the threads below it (runWhole's if and runGroup
// in blocks of 256 and 64; runBlock's split and runGroup in blocks of
// 200 and 37, whose last warp is partial): the same bytes as unfused and
// on the scheduler, each block's sum what the tree adds (in its order),
// and runFused ran.
func TestFusedTreeSum(t *testing.T) {
	pf, pu := fusedPrograms(t)
	for _, block := range []int{256, 200, 64, 37} {
		const grid = 4
		n := grid*block - block/2
		xs := f32Ramp(n, 0.5, 0.25)
		var out uint64
		c := fusedCase{kernel: "tree_sum", grid: grid, block: uint32(block), args: func(m *testMem) []any {
			out = m.alloc(4 * grid)
			return []any{m.f32s(xs), out, int32(n)}
		}}
		for _, w := range []int{1, 2} {
			t.Run(fmt.Sprintf("%d/workers=%d", block, w), func(t *testing.T) {
				mem, _ := compareFused(t, pf, pu, c, w)
				got := mem.readF32(out, grid)
				for b := range grid {
					part := make([]float32, block)
					for i := range part {
						if j := b*block + i; j < n {
							part[i] = xs[j]
						}
					}
					for s := block / 2; s > 0; s /= 2 {
						for i := range s {
							part[i] = part[i+s] + part[i]
						}
					}
					assert.Equal(t, part[0], got[b], "block %d", b)
				}
			})
		}
		m, err := runFusedMachine(t, pf, c)
		require.NoError(t, err)
		assert.NotNil(t, m.fusedBuf, "block %d: runFused never ran", block)
	}
}

// TestFusedSharedRace runs sh_race, whose middle window reads part[t+1]
// while thread t+1 writes it (a race): the block program loads before it
// stores, as the scheduler does after a barrier (storepause.go), so the
// bytes are the same every way; with the race checks on, runFused
// declines (a shared window) and the checks report the race as often as
// unfused and on the scheduler (compareFused): a window that ran under
// the checks would hide it.
func TestFusedSharedRace(t *testing.T) {
	pf, pu := fusedPrograms(t)
	for _, block := range []uint32{256, 100, 64} {
		const grid = 3
		n := grid*int(block) - 5
		xs := f32Ramp(n, 0.5, 1)
		var out uint64
		c := fusedCase{kernel: "sh_race", grid: grid, block: block, args: func(m *testMem) []any {
			out = m.alloc(4 * n)
			return ewArgs(m.f32s(xs), 0, 0, out, 0, 1.5, int32(n), 0)
		}}
		t.Run(fmt.Sprint(block), func(t *testing.T) {
			mem, _ := compareFused(t, pf, pu, c, 1)
			got := mem.readF32(out, n)
			for i := range n {
				tid := i % int(block)
				next := float32(0) // (part[tid+1]: never written in this block)
				if tid+1 < int(block) && i+1 < n {
					next = float32(xs[i+1] + 1.5)
				}
				want := float32(float32(float32(xs[i]+1.5)+next) * 1.5)
				require.Equal(t, want, got[i], "out[%d]", i)
			}
			log := newAccessLog()
			k := pf.Kernels["sh_race"]
			mem = newMem()
			require.NoError(t, k.Run(&Launch{Grid: dim(grid), Block: dim(block), Params: params(t, k, c.args(mem)...), Mem: mem, SMs: 132, Observe: log, SharedRaces: true}))
			assert.Positive(t, log.races, "the race is reported")
			m, err := runFusedMachine(t, pf, c)
			require.NoError(t, err)
			assert.NotNil(t, m.fusedBuf, "runFused ran")
		})
	}
}

// TestFusedNotConsecutive runs if_mask, whose window runs for the
// threads with tid & k != 0: for k = 1 (odd threads), 32 (every other
// warp) and 64 those are not consecutive and runFused must decline every
// time (machine.fusedBuf stays nil), for k = 128 in blocks of 256 they
// are (threads 128..255) and it runs; the bytes are the unfused block
// program's and the scheduler's, and the threads that do not run the
// body leave out as it was.
func TestFusedNotConsecutive(t *testing.T) {
	pf, pu := fusedPrograms(t)
	for _, s := range []struct {
		block, k uint32
		runs     bool
	}{{256, 1, false}, {256, 32, false}, {256, 64, false}, {100, 1, false}, {100, 32, false}, {256, 128, true}, {200, 128, true}} {
		const grid = 3
		n := grid*int(s.block) - 2 // (the last block's threads below 98)
		xs, ys := f32Ramp(n, 0.5, 1), f32Ramp(n, 0.25, -2)
		var out uint64
		c := fusedCase{kernel: "if_mask", grid: grid, block: s.block, args: func(m *testMem) []any {
			out = m.f32s(make([]float32, n))
			return ewArgs(m.f32s(xs), m.f32s(ys), 0, out, 0, 0, int32(n), int32(s.k))
		}}
		t.Run(fmt.Sprintf("%d/k=%d", s.block, s.k), func(t *testing.T) {
			mem, _ := compareFused(t, pf, pu, c, 1)
			got := mem.readF32(out, n)
			for i := range n {
				want := float32(0)
				if uint32(i)%s.block&s.k != 0 {
					want = xs[i] + ys[i]
				}
				require.Equal(t, want, got[i], "out[%d]", i)
			}
			m, err := runFusedMachine(t, pf, c)
			require.NoError(t, err)
			assert.Equal(t, s.runs, m.fusedBuf != nil, "whether runFused ran")
		})
	}
}

// TestFusedNoWindowSameResults runs the kernels where findFused must find
// no window (a value of the would-be window read after it; a loop's
// target between its loads; ftz, rz, sat) on values with subnormals,
// NaNs and values that saturate: the same bytes as on the scheduler, and
// runFused never ran.
func TestFusedNoWindowSameResults(t *testing.T) {
	pf, pu := fusedPrograms(t)
	for _, name := range []string{"ew_readafter", "ew_computedafter", "ew_storeloaded", "ew_target", "ew_ftz", "ew_rz", "ew_sat"} {
		const grid, block = 3, 256
		n := grid*block - 30
		xs, ys := make([]uint32, n), make([]uint32, n)
		for i := range n {
			xs[i], ys[i] = f32Classes[i%len(f32Classes)], math.Float32bits(float32(i%7)*0.3-0.5)
		}
		c := fusedCase{kernel: name, grid: grid, block: block, args: func(m *testMem) []any {
			return ewArgs(m.f32Bits(xs), m.f32Bits(ys), 0, m.alloc(4*n), m.alloc(4*n), 0, int32(n), 0)
		}}
		t.Run(name, func(t *testing.T) {
			compareFused(t, pf, pu, c, 1)
			m, err := runFusedMachine(t, pf, c)
			require.NoError(t, err)
			assert.Nil(t, m.fusedBuf)
		})
	}
}

// TestWholeIfWithoutElse runs kernels whose forward guarded branches
// split a block of full warps while runWhole runs it (an if without an
// else): bodies that runGroup runs to the target (a window: if_nested's
// inner if in the full blocks), and bodies where it stops early and
// runBlock goes on from there (runWhole's wait): a nested if, a guarded
// store, an if with an else, a barrier, a trap, an atomic that faults, a
// store that faults. Every time the same error and bytes as the unfused
// block program and the scheduler (where a fault leaves a block half
// done, only the unfused block program's bytes), and machine.ifRest
// shows that runWhole's if ran, for the threads expected.
func TestWholeIfWithoutElse(t *testing.T) {
	pf, pu := fusedPrograms(t)
	const grid, block = 3, 64
	type ifCase struct {
		kernel   string
		n, k     int
		outCut   int // out2 shorter by this
		fault    bool
		order    bool
		rest     []int // the threads of ifRest after the last block (or the fault)
		noIf     bool  // runWhole's if never ran (ifRest is empty)
		fusedRan bool
	}
	span := func(lo, hi int) []int {
		var r []int
		for i := lo; i < hi; i++ {
			r = append(r, i)
		}
		return r
	}
	cases := []ifCase{
		// Blocks 0 and 1 whole: the inner if (tid >= 20) runs window B in
		// runWhole's if; block 2 (i < 150: tid < 22) splits at the outer if,
		// whose body stops at the inner guard.
		{kernel: "if_nested", n: 150, k: 20, rest: span(0, 22), fusedRan: true},
		{kernel: "if_nested", n: 192, k: 20, rest: span(20, 64), fusedRan: true},
		{kernel: "if_nested", n: 192, k: 63, rest: span(63, 64), fusedRan: true},
		{kernel: "if_nested", n: 130, k: 0, rest: span(0, 2), fusedRan: true},
		// out2 short: window B's store (block 1, the inner if's body in
		// runWhole) runs past it at i = 112: runFused declines, runGroup
		// stops at the store, runBlock's lanes fault.
		{kernel: "if_nested", n: 192, k: 20, outCut: 80, fault: true, order: true, rest: span(20, 64)},
		// A guarded store in the body: runGroup stops there (block 2);
		// in whole blocks the guard is a split of runBlock's, no if.
		{kernel: "if_guard", n: 150, k: 7, rest: span(0, 22), fusedRan: true},
		{kernel: "if_guard", n: 192, k: 7, noIf: true, fusedRan: true},
		// An else: runGroup stops at the then-part's bra.
		{kernel: "if_else", n: 150, k: 40, rest: span(0, 22), fusedRan: true},
		{kernel: "if_else", n: 192, k: 40, rest: span(40, 64), fusedRan: true},
		// A barrier in the body: runGroup stops there; the threads
		// that skipped the body exit, and the barrier completes.
		{kernel: "if_bar", n: 150, rest: span(0, 22), fusedRan: true},
		{kernel: "if_bar", n: 100, rest: span(0, 36), fusedRan: true},
		// k = 100: block 1's thread 36 alone runs the inner if's body,
		// the trap, in runGroup (slowLanes faults: runWhole's end);
		// k = 140: block 2's body (tid < 22) stops at the inner guard,
		// and runBlock runs the trap of thread 12.
		{kernel: "if_trap", n: 150, k: 100, fault: true, rest: span(36, 37)},
		{kernel: "if_trap", n: 150, k: 140, fault: true, rest: span(0, 22)},
		{kernel: "if_trap", n: 150, k: 1000, rest: span(0, 22), fusedRan: true},
		// The atomic of block 2's body (in runGroup: slowLanes) runs past
		// out2 at i = 140 (thread 12): runWhole's end with the fault.
		{kernel: "if_atom", n: 150, k: 0, outCut: 52, fault: true, rest: span(0, 22)},
		{kernel: "if_atom", n: 150, k: 0, rest: span(0, 22), fusedRan: true},
		// A body that is a ret (runGroup stops at it).
		{kernel: "if_ret", n: 192, k: 20, rest: span(20, 64), fusedRan: true},
		{kernel: "if_ret", n: 150, k: 40, rest: span(0, 22), fusedRan: true},
	}
	for _, ic := range cases {
		n := grid * block
		xs, ys := f32Ramp(n, 0.5, 1), f32Ramp(n, 0.25, -2)
		c := fusedCase{kernel: ic.kernel, grid: grid, block: block, fault: ic.fault, order: ic.order, args: func(m *testMem) []any {
			return ewArgs(m.f32s(xs), m.f32s(ys), m.alloc(4*n), m.alloc(4*n), m.alloc(4*(n-ic.outCut)), 0.5, int32(ic.n), int32(ic.k))
		}}
		t.Run(fmt.Sprintf("%s/n=%d/k=%d/cut=%d", ic.kernel, ic.n, ic.k, ic.outCut), func(t *testing.T) {
			compareFused(t, pf, pu, c, 1)
			m, err := runFusedMachine(t, pf, c)
			if ic.fault {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
				assert.Equal(t, ic.fusedRan, m.fusedBuf != nil, "whether runFused ran")
			}
			if ic.rest != nil || ic.noIf {
				var want blockMask
				for _, i := range ic.rest {
					want[i/32] |= 1 << (i % 32)
				}
				assert.Equal(t, want, m.ifRest, "the threads of runWhole's last if")
			}
		})
	}
}

// TestFusedReadBeforeWrite runs ew_early, whose first load's address
// slot is written only later in the straight-line run (the load reads a
// register before its only write: undefined in PTX, never emitted by
// nvcc, but what the unfused block program and the scheduler do with it
// is defined here: they fault at address 0). fused.go requires of a
// window that every slot written in it is read there only after that
// write, so findFused must make no window of it, and the launch must
// fault as unfused and on the scheduler. This test fails at 314a83a:
// window's reads closure (fused.go) accepts a read of a slot that the
// window has not written yet even when the window writes it later (it
// checks only writer[s] < j, at the read), so findFused makes the
// window; runFused then runs the add.s64 before the first load (its
// affine instructions first) and the load reads %rd20's new form, and
// even where runFused declines (block 0: machine.cache is empty) the
// form it left makes the one-at-a-time load read the new address: no
// fault, out[i] = 2*x[i].
func TestFusedReadBeforeWrite(t *testing.T) {
	pf, pu := fusedPrograms(t)
	k := pf.Kernels["ew_early"]
	bp := k.blockProgram(&Launch{})
	pc := pcOf(t, k, "ld.global.f32 %f1, [%rd20]")
	assert.True(t, bp.fused == nil || bp.fused[pc] == nil, "a window that reads rd20 before it writes it")
	const n = 512
	c := fusedCase{kernel: "ew_early", grid: 2, block: 256, fault: true, args: func(m *testMem) []any {
		return ewArgs(m.f32s(f32Ramp(n, 1, 0)), 0, 0, m.alloc(4*n), 0, 0, n, 0)
	}}
	compareFused(t, pf, pu, c, 1)
}

// TestConsecutive checks machine.consecutive against the threads of
// random masks (runs, runs with one thread taken out, scattered
// threads, single threads, empty) over every block size: ok exactly
// when the mask's threads are one run t0..t1, with the right ends.
func TestConsecutive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	threads := make([]thread, 1024)
	warps := make([]warpRegs, 32)
	for round := range 20000 {
		n := 1 + r.IntN(1024)
		if round%4 == 0 {
			n = 32 * (1 + r.IntN(32))
		}
		nw := (n + 31) / 32
		m := &machine{threads: threads[:n], nt: n, warps: warps[:nw]}
		var act blockMask
		set := func(i int) { act[i/32] |= 1 << (i % 32) }
		lo := r.IntN(n)
		hi := lo + r.IntN(n-lo)
		switch round % 5 {
		case 0, 1:
			for i := lo; i <= hi; i++ {
				set(i)
			}
			if round%5 == 1 && hi > lo {
				g := lo + r.IntN(hi-lo+1)
				act[g/32] &^= 1 << (g % 32)
			}
		case 2:
			for i := range n {
				if r.IntN(8) == 0 {
					set(i)
				}
			}
		case 3:
			set(lo)
		}
		var ts []int
		for i := range n {
			if act[i/32]>>(i%32)&1 != 0 {
				ts = append(ts, i)
			}
		}
		wantOK := len(ts) > 0 && ts[len(ts)-1]-ts[0] == len(ts)-1
		t0, t1, ok := m.consecutive(&act, false)
		require.Equal(t, wantOK, ok, "n=%d mask %v", n, ts)
		if ok {
			require.Equal(t, ts[0], t0, "n=%d", n)
			require.Equal(t, ts[len(ts)-1], t1, "n=%d", n)
		}
	}
	m := &machine{threads: threads[:100], nt: 100, warps: warps[:4]}
	t0, t1, ok := m.consecutive(&blockMask{}, true)
	assert.True(t, ok)
	assert.Equal(t, [2]int{0, 99}, [2]int{t0, t1})
}

// TestPredRangeMatchesThreads checks predRange and rangeMask (what a
// setp's predicate form and a guard on it make) against thread-by-thread
// evaluation, cmpSigned(mode, d0 + dt*t, 0) for the threads t of act,
// for every mode it is called with (eq, ne and the orders), random and
// edge d0 and dt (the crossing inside the block, at its ends, outside
// it; dt 0, ±1 and ones that divide d0 or do not), block sizes 1..1024
// and random act masks (every live thread, sparse, one run): every word
// of the block's warps is set, whatever it held before.
func TestPredRangeMatchesThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	modes := []int{cmpEQ, cmpNE, cmpLT, cmpLE, cmpGT, cmpGE}
	for round := range 60000 {
		n := 1 + r.IntN(1024)
		if round%8 == 0 {
			n = 32 * (1 + r.IntN(32))
		}
		nw := (n + 31) / 32
		mode := modes[r.IntN(len(modes))]
		var d0, dt int64
		switch round % 4 {
		case 0: // the crossing near the block
			dt = r.Int64N(9) - 4
			d0 = -dt*(r.Int64N(int64(n)+8)-4) + r.Int64N(3) - 1
		case 1: // large
			dt = r.Int64N(1<<33) - 1<<32
			d0 = r.Int64N(1<<40) - 1<<39
		case 2: // a divisor of d0, or not
			dt = r.Int64N(41) - 20
			d0 = -dt * (r.Int64N(int64(n)+64) - 32)
			if r.IntN(3) == 0 {
				d0++
			}
		case 3: // uniform
			dt = 0
			d0 = r.Int64N(5) - 2
		}
		var act blockMask
		switch r.IntN(3) {
		case 0:
			for i := range n {
				act[i/32] |= 1 << (i % 32)
			}
		case 1:
			for w := range nw {
				act[w] = r.Uint32()
			}
			if n%32 != 0 {
				act[nw-1] &= 1<<(n%32) - 1
			}
		case 2:
			lo := r.IntN(n)
			hi := lo + r.IntN(n-lo) + 1
			for i := lo; i < hi; i++ {
				act[i/32] |= 1 << (i % 32)
			}
		}
		var out blockMask
		for w := range out {
			out[w] = r.Uint32()
		}
		lo, hi, flip := predRange(n, mode, d0, dt)
		rangeMask(&out, nw, lo, hi, flip, &act)
		for w := range nw {
			var want uint32
			for j := range 32 {
				if tt := 32*w + j; tt < n && cmpSigned(mode, d0+dt*int64(tt), 0) {
					want |= 1 << j
				}
			}
			want &= act[w]
			if out[w] != want {
				t.Fatalf("n=%d mode=%d d0=%d dt=%d act[%d]=%#08x: word %d is %#08x, want %#08x (%d bits differ)",
					n, mode, d0, dt, w, act[w], w, out[w], want, bits.OnesCount32(out[w]^want))
			}
		}
	}
}
