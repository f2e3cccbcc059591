package cublas

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/fpu"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

func f32ToF16(x float32) uint16  { return fpu.F32ToF16(x, fpu.Nearest) }
func f16ToF32(h uint16) float32  { return fpu.F16ToF32(h) }
func f32ToBF16(x float32) uint16 { return fpu.F32ToBF16(x, fpu.Nearest) }
func bf16ToF32(h uint16) float32 { return fpu.BF16ToF32(h) }

// exTypes checks a GemmEx type combination against cuBLAS's table
// (cublasGemmEx, "the supported combinations"), for the real types the
// fake computes: CUBLAS_STATUS_NOT_SUPPORTED for the others, as cuBLAS
// says for combinations it does not offer. (cuBLAS also offers complex
// and int8 ones, which the fake does not compute.)
func exTypes(op string, at, bt, ct backend.DataType, compute backend.BLASComputeType) error {
	ok := false
	if at == bt {
		switch compute {
		case backend.BLASCompute16F, backend.BLASCompute16FPedantic:
			ok = at == backend.DataR16F && ct == backend.DataR16F
		case backend.BLASCompute32F, backend.BLASCompute32FPedantic:
			switch at {
			case backend.DataR16F:
				ok = ct == backend.DataR16F || ct == backend.DataR32F
			case backend.DataR16BF:
				ok = ct == backend.DataR16BF || ct == backend.DataR32F
			case backend.DataR32F:
				ok = ct == backend.DataR32F
			}
		case backend.BLASCompute32FFast16F, backend.BLASCompute32FFast16BF, backend.BLASCompute32FFastTF32:
			ok = at == backend.DataR32F && ct == backend.DataR32F
		case backend.BLASCompute64F, backend.BLASCompute64FPedantic:
			ok = at == backend.DataR64F && ct == backend.DataR64F
		}
	}
	if !ok {
		return blasErr(op, backend.BLASNotSupported, "A %d, B %d, C %d with compute type %d", at, bt, ct, compute)
	}
	return nil
}

func validAlgo(a backend.BLASGemmAlgo) bool {
	return a == backend.BLASGemmDefault || a == backend.BLASGemmDefaultTensorOp || (a >= 0 && a <= 23) || (a >= 100 && a <= 115)
}

// exCall checks a GemmEx-family call.
func (b *BLAS) exCall(op string, h uintptr, g shape, batch int, alpha, beta backend.BLASScalar,
	at, bt, ct backend.DataType, compute backend.BLASComputeType, algo backend.BLASGemmAlgo) (handle, error) {
	st, err := b.get(op, h)
	if err != nil {
		return st, err
	}
	if err := st.scalars(op, alpha, beta); err != nil {
		return st, err
	}
	if err := g.check(op); err != nil {
		return st, err
	}
	if batch < 0 {
		return st, invalid(op, "batchCount %d", batch)
	}
	if !validAlgo(algo) {
		return st, invalid(op, "algo %d", algo)
	}
	return st, exTypes(op, at, bt, ct, compute)
}

// exRound returns how the compute type (and the handle's math mode)
// rounds float32 inputs, nil for not at all.
func exRound(st handle, compute backend.BLASComputeType) func(float32) float32 {
	switch compute {
	case backend.BLASCompute32FFastTF32:
		return tf32
	case backend.BLASCompute32FFast16F:
		return func(x float32) float32 { return f16ToF32(f32ToF16(x)) }
	case backend.BLASCompute32FFast16BF:
		return func(x float32) float32 { return bf16ToF32(f32ToBF16(x)) }
	case backend.BLASCompute32F:
		if st.tf32() {
			return tf32
		}
	}
	return nil
}

// toF32 reads n elements of type t at p as float32 (exactly for f16 and
// bf16), rounded by round when it is not nil.
func toF32(mem ondevice.Memory, p uintptr, n int, t backend.DataType, round func(float32) float32) ([]float32, error) {
	raw, err := view(mem, p, n, t.Size(), false)
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	switch t {
	case backend.DataR32F:
		copy(out, f32s(raw))
	case backend.DataR16F:
		for i, h := range u16s(raw) {
			out[i] = f16ToF32(h)
		}
	case backend.DataR16BF:
		for i, h := range u16s(raw) {
			out[i] = bf16ToF32(h)
		}
	}
	if round != nil {
		for i, v := range out {
			out[i] = round(v)
		}
	}
	return out, nil
}

// gemmEx computes one GemmEx product at a, b, c.
func gemmEx(mem ondevice.Memory, g shape, al, be float64, a, b, c uintptr, at, ct backend.DataType, round func(float32) float32) error {
	if at == backend.DataR64F {
		return gemm(mem, backend.BLASFloat64, g, complex(al, 0), complex(be, 0), a, b, c, false)
	}
	an, bn, cn := g.spans()
	if g.k == 0 || al == 0 {
		an, bn = 0, 0
	}
	af, err := toF32(mem, a, an, at, round)
	if err != nil {
		return err
	}
	bf, err := toF32(mem, b, bn, at, round)
	if err != nil {
		return err
	}
	craw, err := view(mem, c, cn, ct.Size(), true)
	if err != nil {
		return err
	}
	if ct == backend.DataR32F {
		sgemm(g, float32(al), af, bf, float32(be), f32s(craw))
		return nil
	}
	cf := make([]float32, cn)
	cs := u16s(craw)
	if be != 0 {
		for j := range g.n {
			for i := range g.m {
				cf[i+j*g.ldc] = from16(ct, cs[i+j*g.ldc])
			}
		}
	}
	sgemm(g, float32(al), af, bf, float32(be), cf)
	for j := range g.n {
		for i := range g.m {
			cs[i+j*g.ldc] = to16(ct, cf[i+j*g.ldc])
		}
	}
	return nil
}

func from16(t backend.DataType, h uint16) float32 {
	if t == backend.DataR16BF {
		return bf16ToF32(h)
	}
	return f16ToF32(h)
}

func to16(t backend.DataType, x float32) uint16 {
	if t == backend.DataR16BF {
		return f32ToBF16(x)
	}
	return f32ToF16(x)
}

func exScalars(mem ondevice.Memory, alpha, beta backend.BLASScalar, compute backend.BLASComputeType) (float64, float64, error) {
	t := compute.ScaleType()
	al, err := scalarOf(mem, alpha, t)
	if err != nil {
		return 0, 0, err
	}
	be, err := scalarOf(mem, beta, t)
	return al, be, err
}

func (b *BLAS) GemmEx(h uintptr, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar,
	a uintptr, at backend.DataType, lda int, bp uintptr, bt backend.DataType, ldb int,
	beta backend.BLASScalar, c uintptr, ct backend.DataType, ldc int, compute backend.BLASComputeType, algo backend.BLASGemmAlgo) error {
	const op = "cublasGemmEx"
	g := shape{ta, tb, m, n, k, lda, ldb, ldc}
	st, err := b.exCall(op, h, g, 1, alpha, beta, at, bt, ct, compute, algo)
	if err != nil || g.empty() {
		return err
	}
	round := exRound(st, compute)
	return b.enqueue(op, st, guard(func(mem ondevice.Memory) error {
		al, be, err := exScalars(mem, alpha, beta, compute)
		if err != nil {
			return err
		}
		return gemmEx(mem, g, al, be, a, bp, c, at, ct, round)
	}))
}

func (b *BLAS) GemmStridedBatchedEx(h uintptr, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar,
	a uintptr, at backend.DataType, lda int, strideA int64, bp uintptr, bt backend.DataType, ldb int, strideB int64,
	beta backend.BLASScalar, c uintptr, ct backend.DataType, ldc int, strideC int64, batch int,
	compute backend.BLASComputeType, algo backend.BLASGemmAlgo) error {
	const op = "cublasGemmStridedBatchedEx"
	g := shape{ta, tb, m, n, k, lda, ldb, ldc}
	st, err := b.exCall(op, h, g, batch, alpha, beta, at, bt, ct, compute, algo)
	if err != nil || g.empty() || batch == 0 {
		return err
	}
	round := exRound(st, compute)
	asz, csz := int64(at.Size()), int64(ct.Size())
	return b.enqueue(op, st, guard(func(mem ondevice.Memory) error {
		al, be, err := exScalars(mem, alpha, beta, compute)
		if err != nil {
			return err
		}
		for i := range int64(batch) {
			ai := uintptr(int64(a) + i*strideA*asz)
			bi := uintptr(int64(bp) + i*strideB*asz)
			ci := uintptr(int64(c) + i*strideC*csz)
			if err := gemmEx(mem, g, al, be, ai, bi, ci, at, ct, round); err != nil {
				return err
			}
		}
		return nil
	}))
}

func (b *BLAS) GemmBatchedEx(h uintptr, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar,
	aArray uintptr, at backend.DataType, lda int, bArray uintptr, bt backend.DataType, ldb int,
	beta backend.BLASScalar, cArray uintptr, ct backend.DataType, ldc int, batch int,
	compute backend.BLASComputeType, algo backend.BLASGemmAlgo) error {
	const op = "cublasGemmBatchedEx"
	g := shape{ta, tb, m, n, k, lda, ldb, ldc}
	st, err := b.exCall(op, h, g, batch, alpha, beta, at, bt, ct, compute, algo)
	if err != nil || g.empty() || batch == 0 {
		return err
	}
	round := exRound(st, compute)
	return b.enqueue(op, st, guard(func(mem ondevice.Memory) error {
		al, be, err := exScalars(mem, alpha, beta, compute)
		if err != nil {
			return err
		}
		as, bs, cs, err := batchPointers(mem, aArray, bArray, cArray, batch)
		if err != nil {
			return err
		}
		for i := range batch {
			if err := gemmEx(mem, g, al, be, as[i], bs[i], cs[i], at, ct, round); err != nil {
				return err
			}
		}
		return nil
	}))
}
