package fake

import (
	"github.com/nocgo/cuda/driver/backend"
	fakecufft "github.com/nocgo/cuda/fake/internal/cufft"
)

// CUFFT returns the fake's cuFFT (backend.FFTProvider): plans computed on
// the CPU in stream order with gonum's FFT (see fake/internal/cufft).
func (b *fakeBackend) CUFFT() (backend.CUFFT, error) {
	b.libs.fftOnce.Do(func() { b.libs.fft = fakecufft.New(libQueue{b}) })
	return b.libs.fft, nil
}

var _ backend.FFTProvider = (*fakeBackend)(nil)
