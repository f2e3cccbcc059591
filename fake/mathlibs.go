package fake

import (
	"sync"

	fakecublas "github.com/nocgo/cuda/fake/internal/cublas"
	fakecufft "github.com/nocgo/cuda/fake/internal/cufft"
	fakecurand "github.com/nocgo/cuda/fake/internal/curand"
)

// mathLibs holds the fake math libraries of one backend, each made on first
// use over the Backend's queue (libQueue).
type mathLibs struct {
	blasOnce sync.Once
	blas     *fakecublas.BLAS
	ltOnce   sync.Once
	lt       *fakecublas.Lt
	randOnce sync.Once
	rand     *fakecurand.Lib
	fftOnce  sync.Once
	fft      *fakecufft.Lib
}
