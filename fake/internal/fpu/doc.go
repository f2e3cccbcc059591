// Package fpu is the arithmetic of PTX instructions, bit for bit as an NVIDIA
// GPU computes it, for the fake's PTX interpreter.
//
// Every function is pure, allocation-free on its common path and safe for
// concurrent use. Values travel as Go float32/float64 and integers; f16 and
// bf16 travel as their uint16 bit patterns.
//
// # Rounding
//
// Every correctly rounded operation (add, sub, mul, div, fma, sqrt, cvt) takes
// a [Rounding]: Nearest (.rn, ties to even, PTX's default), Zero (.rz), Down
// (.rm, toward -Inf) and Up (.rp, toward +Inf). Results are exact to the last
// bit in every mode, subnormals included: float32 results are computed from
// an exact float64 value plus the sign of what float64 rounded away (error-free
// transformations), so there is no double rounding; float64 directed modes use
// the same error terms, and directed float64 fma (rare in compiled code) falls
// back to math/big.
//
// # Rules and their sources
//
//   - NaN results of float32 instructions are the canonical NaN 0x7fffffff
//     ([NaN32]). The PTX ISA leaves single-precision NaN results unspecified;
//     NVIDIA GPUs return 0x7fffffff (the value CUDA's math_constants.h names
//     CUDART_NAN_F), and the min/max rules below name it canonical.
//   - float64 instructions propagate a NaN operand's payload, quieted (the
//     PTX ISA's floating-point notes: NaN payloads are supported for double
//     precision); when both are NaN the first operand's is kept, and a NaN
//     created from non-NaN operands (Inf-Inf, 0*Inf, sqrt(-1)) is [NaN64].
//     The choice of operand and the value of NaN64 have not been probed on a
//     GPU: an open fact for the next GPU run.
//   - .ftz (float32 only; float64 never flushes): subnormal inputs and results
//     become zero of the same sign. The interpreter applies [FlushF32] to the
//     inputs and to the result; the functions here never flush by themselves.
//   - .sat (float): clamp to [0, 1]; NaN becomes +0 (PTX ISA, the .sat
//     modifier of add, mul, fma, cvt); -0 becomes +0.
//   - min/max: a NaN operand is ignored (the other is returned), both NaN give
//     the canonical NaN, and -0 is less than +0; the .NaN variants return the
//     canonical NaN when either operand is NaN (PTX ISA, "min", "max").
//   - Exact zero sums are +0 except in Down, where they are -0; x + y of zeros
//     of the same sign keeps that sign (IEEE 754-2019, 6.3).
//   - cvt to integer saturates: NaN becomes 0, values beyond the range clamp to
//     its ends (PTX ISA 9.0, "cvt": float-to-int saturates by default).
//   - Integer division by zero gives all ones (u32/u64: the maximum; s32/s64:
//     -1) and remainder by zero gives the dividend. PTX leaves them
//     unspecified; these are the H200's results (docs/h200-facts.md, measured
//     with NVRTC-compiled CUDA C for sm_90, divisor not a constant).
//     MinInt / -1 wraps to MinInt and MinInt % -1 is 0; nothing panics.
//   - Shifts clamp the amount: shl and shr.u by the width or more give 0,
//     shr.s gives the sign fill (PTX ISA, "shl", "shr"); Go's shifts do the
//     same. Integer min, max, add, sub, mul.lo and the logical operations are
//     Go's own operators and builtins and need nothing here.
//   - bfe, bfi, bfind, mul24, sad and prmt follow the semantics pseudo-code
//     of the PTX ISA 9.0 text; prmt's special modes follow its mode table.
//
// # Approximate instructions
//
// ex2, lg2, sin, cos, rcp, rsqrt, sqrt and tanh .approx.f32 are not specified
// bit for bit, so a kernel using them cannot match a GPU exactly. Here they
// are the float64 function rounded to nearest float32 (0.5 ulp from the true
// value), except sin and cos, which first reduce the argument as the GPU does
// (x/(2π) rounded once to float32; so sin(float32(π)) is exactly 0 on both)
// and are then exact at that argument. The H200 against the float64
// reference, over 400,019 inputs (docs/h200-facts.md):
//
//	ex2    1.97 ulp          (mean 0.52)
//	lg2    6.6e-6 absolute   (29,108 ulp near x = 1; mean 0.94 ulp)
//	rcp    0.95 ulp          (mean 0.28)
//	rsqrt  1.45 ulp          (mean 0.33)
//	sqrt   0.94 ulp          (mean 0.29)
//	tanh   128.8 ulp         (mean 7.3)
//	sin    absolute, growing with |x|: about 1e-7·|x| below 150; 0.79 at 455,590
//	cos    as sin; 1.61 at 527,396
//
// So a comparison of the fake with a GPU must allow the sum of these and
// half an ulp, and must not use sin or cos of large arguments; everything
// else in this package must match bit for bit.
//
// Special values follow the H200: ex2(-Inf) = +0, ex2(±0) = 1, lg2(±0) = -Inf,
// lg2(x < 0) = NaN, sin and cos of ±Inf are NaN, rcp(±0) = ±Inf, rsqrt(-0) =
// -Inf, rsqrt(+0) = +Inf, sqrt(-0) = -0, and the non-ftz forms keep subnormal
// inputs and results.
package fpu
