package fake

import (
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	fakecufft "github.com/nocgo/cuda/fake/internal/cufft"
	fakecurand "github.com/nocgo/cuda/fake/internal/curand"
)

// mathLibs holds the fake math libraries of one Backend, each made on first
// use over the Backend's queue (libQueue).
type mathLibs struct {
	randOnce sync.Once
	rand     *fakecurand.Lib
	fftOnce  sync.Once
	fft      *fakecufft.Lib
}

// CURAND returns the fake's cuRAND (backend.RANDProvider): generators
// computed on the CPU in stream order (see fake/internal/curand for which
// outputs are cuRAND's bit for bit).
func (b *Backend) CURAND() (backend.CURAND, error) {
	b.libs.randOnce.Do(func() { b.libs.rand = fakecurand.New(libQueue{b}) })
	return b.libs.rand, nil
}

var _ backend.RANDProvider = (*Backend)(nil)
