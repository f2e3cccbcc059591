package fake

import (
	"github.com/nocgo/cuda/driver/backend"
	fakecublas "github.com/nocgo/cuda/fake/internal/cublas"
)

// CUBLAS returns the fake's cuBLAS (backend.BLASProvider): routines
// computed on the CPU with gonum, in stream order on the fake's devices
// (see fake/internal/cublas).
func (b *fakeBackend) CUBLAS() (backend.CUBLAS, error) {
	b.libs.blasOnce.Do(func() { b.libs.blas = fakecublas.New(libQueue{b}, b) })
	return b.libs.blas, nil
}

// CUBLASLt returns the fake's cuBLASLt (backend.BLASLtProvider).
func (b *fakeBackend) CUBLASLt() (backend.CUBLASLt, error) {
	b.libs.ltOnce.Do(func() { b.libs.lt = fakecublas.NewLt(libQueue{b}) })
	return b.libs.lt, nil
}

var (
	_ backend.BLASProvider   = (*fakeBackend)(nil)
	_ backend.BLASLtProvider = (*fakeBackend)(nil)
)
