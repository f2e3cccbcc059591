package cublas

import (
	"encoding/binary"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

// shape is a gemm's operations and sizes.
type shape struct {
	ta, tb        backend.BLASOp
	m, n, k       int
	lda, ldb, ldc int
}

// check is cuBLAS's argument check of a gemm.
func (g shape) check(op string) error {
	ar, _ := dims(g.ta, g.m, g.k)
	br, _ := dims(g.tb, g.k, g.n)
	switch {
	case !validOp(g.ta) || !validOp(g.tb):
		return invalid(op, "transa %d, transb %d", g.ta, g.tb)
	case g.m < 0 || g.n < 0 || g.k < 0:
		return invalid(op, "m %d, n %d, k %d", g.m, g.n, g.k)
	case g.lda < max(1, ar):
		return invalid(op, "lda %d < max(1, %d)", g.lda, ar)
	case g.ldb < max(1, br):
		return invalid(op, "ldb %d < max(1, %d)", g.ldb, br)
	case g.ldc < max(1, g.m):
		return invalid(op, "ldc %d < max(1, m) = %d", g.ldc, max(1, g.m))
	}
	return nil
}

// spans returns the elements A, B and C span.
func (g shape) spans() (an, bn, cn int) {
	ar, ac := dims(g.ta, g.m, g.k)
	br, bc := dims(g.tb, g.k, g.n)
	return matLen(ar, ac, g.lda), matLen(br, bc, g.ldb), matLen(g.m, g.n, g.ldc)
}

func (g shape) empty() bool { return g.m == 0 || g.n == 0 }

// gemm computes one product of BLAS type t at device addresses a, b, c.
func gemm(mem ondevice.Memory, t backend.BLASType, g shape, al, be complex128, a, b, c uintptr, tf32Inputs bool) error {
	an, bn, cn := g.spans()
	if g.k == 0 || al == 0 {
		an, bn = 0, 0 // not read
	}
	as, err := view(mem, a, an, t.Size(), false)
	if err != nil {
		return err
	}
	bs, err := view(mem, b, bn, t.Size(), false)
	if err != nil {
		return err
	}
	cs, err := view(mem, c, cn, t.Size(), true)
	if err != nil {
		return err
	}
	// Column-major C = op(A)op(B) is row-major Cᵀ = op(B)ᵀop(A)ᵀ: gonum
	// gets B first, with n and m swapped (see the package documentation).
	ga, gb := gonumOp(g.ta), gonumOp(g.tb)
	switch t {
	case backend.BLASFloat32:
		af, bf := f32s(as), f32s(bs)
		if tf32Inputs {
			af, bf = roundAll(af, tf32), roundAll(bf, tf32)
		}
		sgemm(g, float32(real(al)), af, bf, float32(real(be)), f32s(cs))
	case backend.BLASFloat64:
		if g.k == 0 || al == 0 {
			scaleC(g, real(be), f64s(cs))
			return nil
		}
		impl.Dgemm(gb, ga, g.n, g.m, g.k, real(al), f64s(bs), g.ldb, f64s(as), g.lda, real(be), f64s(cs), g.ldc)
	case backend.BLASComplex64:
		if g.k == 0 || al == 0 {
			scaleC(g, complex64(be), c64s(cs))
			return nil
		}
		impl.Cgemm(gb, ga, g.n, g.m, g.k, complex64(al), c64s(bs), g.ldb, c64s(as), g.lda, complex64(be), c64s(cs), g.ldc)
	default:
		if g.k == 0 || al == 0 {
			scaleC(g, be, c128s(cs))
			return nil
		}
		impl.Zgemm(gb, ga, g.n, g.m, g.k, al, c128s(bs), g.ldb, c128s(as), g.lda, be, c128s(cs), g.ldc)
	}
	return nil
}

// sgemm is the float32 product on float32 operands.
func sgemm(g shape, al float32, a, b []float32, be float32, c []float32) {
	if g.k == 0 || al == 0 {
		scaleC(g, be, c)
		return
	}
	impl.Sgemm(gonumOp(g.tb), gonumOp(g.ta), g.n, g.m, g.k, al, b, g.ldb, a, g.lda, be, c, g.ldc)
}

// scaleC is C = beta*C, C not read when beta is 0.
func scaleC[E float32 | float64 | complex64 | complex128](g shape, beta E, c []E) {
	for j := range g.n {
		col := c[j*g.ldc : j*g.ldc+g.m]
		for i := range col {
			if beta == 0 {
				col[i] = 0
			} else {
				col[i] *= beta
			}
		}
	}
}

// roundAll returns a copy of x with f applied to each element.
func roundAll(x []float32, f func(float32) float32) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = f(v)
	}
	return out
}

func (b *BLAS) gemmCall(op string, h uintptr, t backend.BLASType, g shape, batch int, alpha, beta backend.BLASScalar) (handle, error) {
	st, err := b.level1(op, h, t, alpha, beta)
	if err != nil {
		return st, err
	}
	if err := g.check(op); err != nil {
		return st, err
	}
	if batch < 0 {
		return st, invalid(op, "batchCount %d", batch)
	}
	return st, nil
}

func (b *BLAS) Gemm(h uintptr, t backend.BLASType, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar, a uintptr, lda int,
	bp uintptr, ldb int, beta backend.BLASScalar, c uintptr, ldc int) error {
	op := name("gemm", t, "_v2")
	g := shape{ta, tb, m, n, k, lda, ldb, ldc}
	st, err := b.gemmCall(op, h, t, g, 1, alpha, beta)
	if err != nil || g.empty() {
		return err
	}
	tf := t == backend.BLASFloat32 && st.tf32()
	return b.enqueue(op, st, guard(func(mem ondevice.Memory) error {
		al, be, err := scalars(mem, alpha, beta, t)
		if err != nil {
			return err
		}
		return gemm(mem, t, g, al, be, a, bp, c, tf)
	}))
}

func scalars(mem ondevice.Memory, alpha, beta backend.BLASScalar, t backend.BLASType) (complex128, complex128, error) {
	al, err := scalar(mem, alpha, t)
	if err != nil {
		return 0, 0, err
	}
	be, err := scalar(mem, beta, t)
	return al, be, err
}

func (b *BLAS) GemmStridedBatched(h uintptr, t backend.BLASType, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar,
	a uintptr, lda int, strideA int64, bp uintptr, ldb int, strideB int64,
	beta backend.BLASScalar, c uintptr, ldc int, strideC int64, batch int) error {
	op := name("gemmStridedBatched", t, "")
	g := shape{ta, tb, m, n, k, lda, ldb, ldc}
	st, err := b.gemmCall(op, h, t, g, batch, alpha, beta)
	if err != nil || g.empty() || batch == 0 {
		return err
	}
	tf := t == backend.BLASFloat32 && st.tf32()
	size := int64(t.Size())
	return b.enqueue(op, st, guard(func(mem ondevice.Memory) error {
		al, be, err := scalars(mem, alpha, beta, t)
		if err != nil {
			return err
		}
		for i := range int64(batch) {
			ai := uintptr(int64(a) + i*strideA*size)
			bi := uintptr(int64(bp) + i*strideB*size)
			ci := uintptr(int64(c) + i*strideC*size)
			if err := gemm(mem, t, g, al, be, ai, bi, ci, tf); err != nil {
				return err
			}
		}
		return nil
	}))
}

// pointers reads batch device pointers at p.
func pointers(mem ondevice.Memory, p uintptr, batch int) ([]uintptr, error) {
	raw, err := mem.Read(p, uintptr(batch)*8)
	if err != nil {
		return nil, err
	}
	out := make([]uintptr, batch)
	for i := range out {
		out[i] = uintptr(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return out, nil
}

func (b *BLAS) GemmBatched(h uintptr, t backend.BLASType, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar,
	aArray uintptr, lda int, bArray uintptr, ldb int, beta backend.BLASScalar, cArray uintptr, ldc int, batch int) error {
	op := name("gemmBatched", t, "")
	g := shape{ta, tb, m, n, k, lda, ldb, ldc}
	st, err := b.gemmCall(op, h, t, g, batch, alpha, beta)
	if err != nil || g.empty() || batch == 0 {
		return err
	}
	tf := t == backend.BLASFloat32 && st.tf32()
	return b.enqueue(op, st, guard(func(mem ondevice.Memory) error {
		al, be, err := scalars(mem, alpha, beta, t)
		if err != nil {
			return err
		}
		as, bs, cs, err := batchPointers(mem, aArray, bArray, cArray, batch)
		if err != nil {
			return err
		}
		for i := range batch {
			if err := gemm(mem, t, g, al, be, as[i], bs[i], cs[i], tf); err != nil {
				return err
			}
		}
		return nil
	}))
}

func batchPointers(mem ondevice.Memory, a, b, c uintptr, batch int) (as, bs, cs []uintptr, err error) {
	if as, err = pointers(mem, a, batch); err != nil {
		return
	}
	if bs, err = pointers(mem, b, batch); err != nil {
		return
	}
	cs, err = pointers(mem, c, batch)
	return
}
